//! Short self-play games in the later variants (Dooz, Da San Qi, Zhi Qi,
//! El Filja, Experimental) through the engine API, node-limited so that
//! they stay fast. In every game, every move the search picks is one of
//! the generator's legal turns, checked play agrees with unchecked play
//! and every position's FEN reads back to the same position; every game
//! either ends within the ply cap with an outcome that its last position
//! bears out (the loser's material, a blockade, a full board, a threefold
//! repetition, the N-move counters), or reaches the cap without one. In
//! every variant at least one game reaches the moving phase: no piece in
//! either hand and no removal owed, where the rules core's own verdicts
//! agree (`is_placing` false, FEN phase `m`, no placement among the legal
//! moves).

use mulino::core::{
    Color, DrawReason, FullBoardAction, Game, MoveList, Outcome, Position, Rules, Variant,
    WinReason,
};
use mulino::engine::{Engine, GoParams};

const GAMES: u64 = 3;
const MAX_PLIES: usize = 240;
const NODES: u64 = 800;

/// How a game stopped.
enum End {
    /// The game's outcome, within the ply cap.
    Rule(Outcome),
    /// The ply cap, with no outcome.
    PlyCap,
}

impl End {
    fn describe(&self) -> String {
        match self {
            End::Rule(outcome) => outcome.describe(),
            End::PlyCap => format!("no outcome in {MAX_PLIES} plies"),
        }
    }
}

/// Whether `pos` is in the moving phase, judged as the rules core ends
/// placing (`after_placing_turn_rare` in src/core/position.rs: both hands
/// empty), with no removal owed. The side to move's empty hand alone is
/// not enough: in Dooz a placing mill takes from the opponent's hand.
/// There the core's other verdicts must agree.
fn in_moving_phase(variant: Variant, pos: &Position, rules: &Rules, list: &MoveList) -> bool {
    let moving = Color::ALL.iter().all(|&c| pos.in_hand(c) == 0) && pos.pending_removals() == 0;
    if moving {
        let fen = pos.fen(rules);
        assert!(!pos.is_placing(), "{variant}: is_placing() at {fen}");
        assert_eq!(
            fen.split(' ').nth(2),
            Some("m"),
            "{variant}: the FEN's phase is not `m` at {fen}"
        );
        assert!(
            list.iter().all(|m| !m.is_placement()),
            "{variant}: a placement is legal at {fen}"
        );
    }
    moving
}

/// Asserts that the final position bears out the game's outcome.
fn assert_outcome_by_rule(variant: Variant, game: &Game, outcome: Outcome) {
    let rules = game.rules();
    let pos = game.position();
    let fen = pos.fen(rules);
    let board_full = pos.empty().is_empty();
    let ctx = format!(
        "{variant}: {outcome:?} at {fen} after {} moves",
        game.moves().len()
    );
    match outcome {
        Outcome::Win {
            winner,
            reason: WinReason::FewerThanThree,
        } => assert!(
            pos.material(winner.opponent()) < Rules::MIN_PIECES as u32,
            "{ctx}: the loser has enough material"
        ),
        Outcome::Win {
            winner,
            reason: WinReason::Blocked,
        } => {
            assert_eq!(winner, pos.side_to_move().opponent(), "{ctx}");
            let mut list = MoveList::new();
            pos.legal_moves(rules, &mut list);
            assert!(list.is_empty(), "{ctx}: the loser can still move");
        }
        Outcome::Win {
            winner,
            reason: WinReason::FullBoard,
        } => {
            assert_eq!(winner, Color::Black, "{ctx}");
            assert!(board_full, "{ctx}: the board is not full");
            assert_eq!(rules.full_board, FullBoardAction::FirstPlayerLoses, "{ctx}");
        }
        Outcome::Draw(DrawReason::FullBoard) => {
            assert!(board_full, "{ctx}: the board is not full");
            assert_eq!(rules.full_board, FullBoardAction::Draw, "{ctx}");
        }
        Outcome::Draw(DrawReason::ThreefoldRepetition) => {
            assert!(rules.threefold, "{ctx}: threefold repetition is off");
            assert!(game.repetitions() >= 3, "{ctx}: not repeated three times");
        }
        Outcome::Draw(DrawReason::NMoveRule) => assert!(
            rules.n_move_rule > 0 && pos.rule50() >= rules.n_move_rule,
            "{ctx}: rule50 {} under the N-move rule's {}",
            pos.rule50(),
            rules.n_move_rule
        ),
        Outcome::Draw(DrawReason::EndgameNMoveRule) => assert!(
            rules.endgame_n_move_rule > 0
                && pos.rule50() >= rules.endgame_n_move_rule
                && pos.in_endgame(rules),
            "{ctx}: rule50 {} under the endgame N-move rule's {}, or no endgame",
            pos.rule50(),
            rules.endgame_n_move_rule
        ),
    }
}

/// Plays one seeded game; returns how it ended and whether it reached
/// the moving phase.
fn play_one(variant: Variant, engine: &mut Engine, game_no: u64) -> (End, bool) {
    let rules = variant.rules();
    let mut moves: Vec<String> = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64 ^ (game_no + 1) ^ (variant as u64) << 8;
    let mut list = MoveList::new();
    let mut reached_moving = false;
    loop {
        let replayed = Game::from_text(rules, None, moves.iter().map(String::as_str))
            .expect("our own moves replay");
        engine.set_game(replayed).expect("the engine's rules");
        let game = engine.game();
        if let Some(outcome) = game.outcome() {
            assert!(moves.len() <= MAX_PLIES, "{variant}: past the ply cap");
            assert_outcome_by_rule(variant, game, outcome);
            return (End::Rule(outcome), reached_moving);
        }
        if moves.len() >= MAX_PLIES {
            assert_eq!(moves.len(), MAX_PLIES, "{variant}: past the ply cap");
            return (End::PlyCap, reached_moving);
        }
        let pos: Position = *game.position();
        let fen = pos.fen(&rules);
        let back = Position::from_fen(&fen, &rules)
            .unwrap_or_else(|e| panic!("{variant}: {fen} does not read back: {e}"));
        assert_eq!(back.fen(&rules), fen, "{variant}");
        assert_eq!(back.key(), pos.key(), "{variant}: {fen}");
        pos.legal_moves(&rules, &mut list);
        assert!(
            !list.is_empty(),
            "{variant}: no move but no outcome at {fen}"
        );
        reached_moving |= in_moving_phase(variant, &pos, &rules, &list);
        let m = if moves.len() < 2 {
            // Two seeded random plies make the games differ.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            list[(seed % list.len() as u64) as usize]
        } else {
            let go = GoParams {
                nodes: Some(NODES),
                ..GoParams::default()
            };
            let limits = engine.limits(&go).expect("limits");
            let result = engine.search_blocking(limits).expect("search");
            result
                .best
                .unwrap_or_else(|| panic!("{variant}: no best move at {fen}"))
        };
        assert!(list.contains(m), "{variant}: {m} is not legal at {fen}");
        assert!(pos.is_legal(&rules, m), "{variant}: is_legal({m}) at {fen}");
        let checked = pos
            .play(&rules, m)
            .unwrap_or_else(|e| panic!("{variant}: play({m}) at {fen}: {e}"));
        assert_eq!(
            checked,
            pos.play_unchecked(&rules, m),
            "{variant}: {m} at {fen}"
        );
        moves.push(m.to_string());
    }
}

fn self_play(variant: Variant) {
    let mut engine = Engine::new();
    engine
        .set_option("Variant", Some(variant.name()))
        .expect("variant");
    assert_eq!(*engine.rules(), variant.rules(), "{variant}");
    let mut ends = Vec::new();
    let mut games_reaching_moving = 0;
    for game_no in 0..GAMES {
        let (end, reached_moving) = play_one(variant, &mut engine, game_no);
        ends.push(end.describe());
        games_reaching_moving += usize::from(reached_moving);
    }
    eprintln!("{variant}: {games_reaching_moving} of {GAMES} games reached moving; ends {ends:?}");
    assert!(
        games_reaching_moving > 0,
        "{variant}: no game reached the moving phase (ends: {ends:?})"
    );
}

#[test]
fn dooz_self_play_is_legal_ends_by_a_rule_or_the_cap_and_reaches_moving() {
    self_play(Variant::Dooz);
}

#[test]
fn da_san_qi_self_play_is_legal_ends_by_a_rule_or_the_cap_and_reaches_moving() {
    self_play(Variant::DaSanQi);
}

#[test]
fn zhi_qi_self_play_is_legal_ends_by_a_rule_or_the_cap_and_reaches_moving() {
    self_play(Variant::ZhiQi);
}

#[test]
fn el_filja_self_play_is_legal_ends_by_a_rule_or_the_cap_and_reaches_moving() {
    self_play(Variant::ElFilja);
}

#[test]
fn experimental_self_play_is_legal_ends_by_a_rule_or_the_cap_and_reaches_moving() {
    self_play(Variant::Experimental);
}
