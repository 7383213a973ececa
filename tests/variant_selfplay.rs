//! Short self-play games in the later variants (Dooz, Da San Qi, Zhi Qi,
//! El Filja, Experimental) through the engine API, node-limited so that
//! they stay fast: every move the search picks is one of the generator's
//! legal turns, checked play agrees with unchecked play, every position's
//! FEN reads back to the same position, and the games get past placing
//! to an end by the rules or the ply cap.

use mulino::core::{MoveList, Position, Variant};
use mulino::engine::{Engine, GoParams};

const GAMES: u64 = 3;
const MAX_PLIES: usize = 240;
const NODES: u64 = 800;

fn self_play(variant: Variant) {
    let rules = variant.rules();
    let mut engine = Engine::new();
    engine
        .set_option("Variant", Some(variant.name()))
        .expect("variant");
    let mut reached_moving = 0;
    for game_no in 0..GAMES {
        let mut moves: Vec<String> = Vec::new();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64 ^ (game_no + 1) ^ (variant as u64) << 8;
        let mut list = MoveList::new();
        loop {
            engine
                .set_position(None, &moves)
                .expect("our own moves replay");
            let game = engine.game();
            if game.outcome().is_some() || moves.len() >= MAX_PLIES {
                break;
            }
            let pos: Position = *game.position();
            if pos.in_hand(pos.side_to_move()) == 0 && pos.pending_removals() == 0 {
                reached_moving += 1;
            }
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
    assert!(
        reached_moving > 0,
        "{variant}: no game reached the moving phase"
    );
}

#[test]
fn dooz() {
    self_play(Variant::Dooz);
}

#[test]
fn da_san_qi() {
    self_play(Variant::DaSanQi);
}

#[test]
fn zhi_qi() {
    self_play(Variant::ZhiQi);
}

#[test]
fn el_filja() {
    self_play(Variant::ElFilja);
}

#[test]
fn experimental() {
    self_play(Variant::Experimental);
}
