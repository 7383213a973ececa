//! The search finds forced wins: wins in one (a mill that leaves the
//! opponent two pieces, a move that blocks the opponent's last free
//! move), and forced wins in two and three moves, through the built
//! binary. Every position is checked first with the library: its FEN
//! reads back unchanged, and a brute-force minimax over whole turns proves
//! the win and its length, and that the engine's bestmove starts one.
//! Then a full board is scored as the rules judge it, whoever is to move,
//! and two placing positions from lost games are met with the one move
//! that holds.

use crate::common::{Engine, bestmove_of, last_score};
use mulino::core::{Color, Move, MoveList, Outcome, Position, Rules, Variant, WinReason};

fn legal(pos: &Position, rules: &Rules) -> Vec<Move> {
    let mut list = MoveList::new();
    pos.legal_moves(rules, &mut list);
    list.iter().copied().collect()
}

fn is_win_for(outcome: Outcome, side: Color) -> bool {
    matches!(outcome, Outcome::Win { winner, .. } if winner == side)
}

/// Whether `m` forces a win for the side to move within `n` of its own
/// moves (`m` the first): the game is won after `m`, or every reply leads
/// to a position won within `n - 1` more. Draws by history (repetition,
/// N-move rules) cannot happen this close to a fresh FEN and are ignored.
fn move_wins_within(pos: &Position, rules: &Rules, m: Move, n: u32) -> bool {
    let me = pos.side_to_move();
    let next = pos.play_unchecked(rules, m);
    match next.outcome(rules) {
        Some(o) => is_win_for(o, me),
        None => {
            n > 1
                && legal(&next, rules).into_iter().all(|reply| {
                    let after = next.play_unchecked(rules, reply);
                    match after.outcome(rules) {
                        Some(o) => is_win_for(o, me),
                        None => wins_within(&after, rules, n - 1),
                    }
                })
        }
    }
}

/// Whether the side to move can force a win within `n` of its own moves.
fn wins_within(pos: &Position, rules: &Rules, n: u32) -> bool {
    if n == 0 {
        return false;
    }
    let moves = legal(pos, rules);
    // Immediate wins first: they settle most nodes cheaply.
    moves.iter().any(|&m| move_wins_within(pos, rules, m, 1))
        || (n > 1 && moves.iter().any(|&m| move_wins_within(pos, rules, m, n)))
}

/// A test position: its rules (by variant name) and FEN.
struct Case {
    variant: &'static str,
    fen: &'static str,
}

impl Case {
    fn rules(&self) -> Rules {
        self.variant
            .parse::<Variant>()
            .unwrap_or_else(|e| panic!("{e}"))
            .rules()
    }

    /// Reads the FEN with the library and checks it: the game is on, and
    /// it writes back the same FEN.
    fn position(&self) -> Position {
        let rules = self.rules();
        let pos = Position::from_fen(self.fen, &rules)
            .unwrap_or_else(|e| panic!("bad FEN {}: {e}", self.fen));
        assert_eq!(pos.fen(&rules), self.fen, "FEN does not round-trip");
        assert_eq!(pos.outcome(&rules), None, "game already over: {}", self.fen);
        pos
    }

    /// Asserts the side to move wins by force in exactly `n` moves.
    fn assert_win_in_exactly(&self, n: u32) {
        let pos = self.position();
        let rules = self.rules();
        assert!(
            wins_within(&pos, &rules, n),
            "no forced win in {n} at {}",
            self.fen
        );
        assert!(
            !wins_within(&pos, &rules, n - 1),
            "a faster win than {n} exists at {}",
            self.fen
        );
    }

    /// An engine set to this case's rules and position; checks the
    /// engine's own `d` shows the same FEN.
    fn engine(&self) -> Engine {
        let mut engine = Engine::spawn();
        let reply = engine.ask(&format!("setoption name Variant value {}", self.variant));
        assert!(reply.is_empty(), "{reply:?}");
        let reply = engine.ask(&format!("position fen {}", self.fen));
        assert!(reply.is_empty(), "{reply:?}");
        assert_eq!(engine.fen(), self.fen);
        engine
    }

    /// Searches to `depth`; returns the bestmove (checked legal) and the
    /// last reported score.
    fn search(&self, depth: u32) -> (Move, (String, i64)) {
        let mut engine = self.engine();
        let lines = engine.go(&format!("depth {depth}"));
        let text = bestmove_of(lines.last().unwrap());
        let best: Move = text
            .parse()
            .unwrap_or_else(|e| panic!("bestmove `{text}` does not parse: {e}"));
        let pos = self.position();
        assert!(
            pos.is_legal(&self.rules(), best),
            "bestmove {best} is illegal at {}",
            self.fen
        );
        let score = last_score(&lines).unwrap_or_else(|| panic!("no score reported: {lines:?}"));
        (best, score)
    }
}

// ---------------------------------------------------------------------
// Wins in one
// ---------------------------------------------------------------------

/// White a4-a7 closes a7 d7 g7 and takes one of black's three pieces (e3,
/// f2, b2: no mill among them), leaving two.
const MILL_LEAVES_TWO: Case = Case {
    variant: "nine",
    fen: "***@****/***@*@**/OO*O**O* w m s 4 0 3 0 0 0 0 0 0 0 0 0 1",
};

/// Cheng San Qi (no flying): black a7 a4 a1 can only go to d7, b4 or d1;
/// white holds d7 and b4, and g1-d1 takes the last. No white move closes
/// a mill, so the win is by blocking.
const BLOCK_LAST_MOVE: Case = Case {
    variant: "cheng-san-qi",
    fen: "********/**O***O*/O**O*@@@ w m s 4 0 3 0 0 0 0 0 0 0 0 0 1",
};

#[test]
fn win_in_one_by_a_mill_that_leaves_two_pieces() {
    let case = &MILL_LEAVES_TWO;
    let pos = case.position();
    let rules = case.rules();
    assert!(!pos.is_placing());
    assert_eq!(pos.pieces(Color::Black).count(), 3);
    assert_eq!(pos.in_hand(Color::Black), 0);
    case.assert_win_in_exactly(1);

    let (best, score) = case.search(5);
    let after = pos.play_unchecked(&rules, best);
    assert_eq!(
        after.outcome(&rules),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::FewerThanThree
        }),
        "bestmove {best} does not win"
    );
    assert_eq!(score, ("mate".to_string(), 1));
}

#[test]
fn win_in_one_by_blocking_the_last_move() {
    let case = &BLOCK_LAST_MOVE;
    let pos = case.position();
    let rules = case.rules();
    assert!(!rules.flying);
    assert!(
        legal(&pos, &rules).iter().all(|m| m.removal_count() == 0),
        "a white move closes a mill"
    );
    case.assert_win_in_exactly(1);

    let (best, score) = case.search(5);
    assert_eq!(best.to_string(), "g1-d1");
    let after = pos.play_unchecked(&rules, best);
    assert_eq!(
        after.outcome(&rules),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::Blocked
        }),
        "bestmove {best} does not win"
    );
    assert_eq!(score, ("mate".to_string(), 1));
}

// ---------------------------------------------------------------------
// Forced wins in two and three
// ---------------------------------------------------------------------

/// Checks a forced win in exactly `n` moves with the brute force, then
/// that the engine at `depth` reports `mate n` and starts a forced win.
fn check_forced_win(case: &Case, n: u32, depth: u32) {
    case.assert_win_in_exactly(n);
    let pos = case.position();
    let rules = case.rules();
    let (best, score) = case.search(depth);
    assert!(
        move_wins_within(&pos, &rules, best, n),
        "bestmove {best} does not force a win in {n} at {}",
        case.fen
    );
    assert_eq!(score, ("mate".to_string(), n as i64), "at {}", case.fen);
}

/// Nine Men's Morris, three against three, both flying; one winning move.
const NINE_MATE_IN_TWO: Case = Case {
    variant: "nine",
    fen: "*O***@O*/*@*****O/*****@** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1",
};

/// Cheng San Qi, five against three, no flying; one winning move.
const CHENG_MATE_IN_TWO: Case = Case {
    variant: "cheng-san-qi",
    fen: "**OO***@/**@*OO*O/******@* w m s 5 0 3 0 0 0 0 0 0 0 0 0 1",
};

/// Nine Men's Morris, three against three, both flying; one winning move.
const NINE_MATE_IN_THREE: Case = Case {
    variant: "nine",
    fen: "**@*****/*****O@*/**O*@O** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1",
};

/// Cheng San Qi, six against four, no flying; one winning move.
const CHENG_MATE_IN_THREE: Case = Case {
    variant: "cheng-san-qi",
    fen: "*@*@**@*/***OO***/**O@OO*O w m s 6 0 4 0 0 0 0 0 0 0 0 0 1",
};

#[test]
fn forced_win_in_two_with_flying() {
    check_forced_win(&NINE_MATE_IN_TWO, 2, 4);
}

#[test]
fn forced_win_in_two_without_flying() {
    check_forced_win(&CHENG_MATE_IN_TWO, 2, 5);
}

#[test]
fn forced_win_in_three_with_flying() {
    check_forced_win(&NINE_MATE_IN_THREE, 3, 6);
}

#[test]
fn forced_win_in_three_without_flying() {
    check_forced_win(&CHENG_MATE_IN_THREE, 3, 7);
}

/// The losing side sees its loss: black to move after white's first move
/// of the forced win in two reports a mate against itself.
#[test]
fn the_losing_side_reports_a_negative_mate() {
    let case = &CHENG_MATE_IN_TWO;
    let pos = case.position();
    let rules = case.rules();
    let winning: Vec<Move> = legal(&pos, &rules)
        .into_iter()
        .filter(|&m| move_wins_within(&pos, &rules, m, 2))
        .collect();
    assert_eq!(winning.len(), 1, "{winning:?}");
    let mut engine = case.engine();
    let reply = engine.ask(&format!("position fen {} moves {}", case.fen, winning[0]));
    assert!(reply.is_empty(), "{reply:?}");
    let lines = engine.go("depth 4");
    let best: Move = bestmove_of(lines.last().unwrap()).parse().unwrap();
    let next = pos.play_unchecked(&rules, winning[0]);
    assert!(next.is_legal(&rules, best));
    assert_eq!(last_score(&lines), Some(("mate".to_string(), -1)));
}

// ---------------------------------------------------------------------
// The board filling up
// ---------------------------------------------------------------------

/// Lasker rules with 12 pieces: white's only move, a placement on d7 (all
/// of whose neighbours are black's), fills the board without a mill and
/// leaves black to move. The first player loses on a full board, so the
/// move loses for white, although it is black who is left without a move.
#[test]
fn filling_the_board_loses_for_the_first_player_even_with_black_to_move() {
    let fen = "OOOOOOOO/@OOO@@@@/*@@@@@@@ w p p 11 1 12 0 0 0 0 0 0 0 0 0 12";
    let rules = Rules {
        pieces: 12,
        ..Variant::Lasker.rules()
    };
    let pos = Position::from_fen(fen, &rules).unwrap_or_else(|e| panic!("bad FEN {fen}: {e}"));
    let moves = legal(&pos, &rules);
    assert_eq!(moves.len(), 1, "{moves:?}");
    let full = pos.play_unchecked(&rules, moves[0]);
    assert_eq!(full.side_to_move(), Color::Black);
    assert!(matches!(
        full.outcome(&rules),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::FullBoard
        })
    ));

    let mut engine = Engine::spawn();
    for line in [
        "setoption name Variant value lasker",
        "setoption name Pieces value 12",
        &format!("position fen {fen}"),
    ] {
        let reply = engine.ask(line);
        assert!(reply.is_empty(), "{line}: {reply:?}");
    }
    let lines = engine.go("depth 3");
    assert_eq!(bestmove_of(lines.last().unwrap()), moves[0].to_string());
    assert_eq!(last_score(&lines), Some(("mate".to_string(), -1)));
}

/// Two openings from games mulino lost to Sanmill at 100 ms a move
/// (2026-12-01, seed 15, games 2 and 16), black to move after five
/// placements. A 1.5 s search with all the moving-phase databases of the
/// position after each of black's 19 moves found a forced win for white
/// after every move but one; the move that holds meets a long line of
/// white threats, each with one block. The search extends the block of a
/// single threat by a ply and finds that move at depth 8; without the
/// extension (9644326) it played b2, and b2 or d2, up to depth 12.
#[test]
fn the_only_moves_that_hold_in_two_lost_openings() {
    for (moves, holds) in [("d2 a1 f2 g1 d1", "d3"), ("c3 d3 e4 b6 f4", "g4")] {
        let mut e = Engine::spawn();
        e.send(&format!("position startpos moves {moves}"));
        let lines = e.go("depth 8");
        let last = lines.last().expect("a bestmove line");
        assert_eq!(bestmove_of(last), holds, "{moves}: {lines:?}");
    }
}
