//! What the match runner reads from an engine's output, at the edges of
//! the numbers: scores the `engine_reply` fuzz target found.

use mulino::core::Color;
use mulino::matches::engine::dialect::gbgp::Gbgp;
use mulino::matches::engine::dialect::mulino::Mulino;
use mulino::matches::engine::dialect::sanmill::Sanmill;
use mulino::matches::engine::dialect::{Dialect, EngineScore, Reply};

fn score(dialect: &dyn Dialect, line: &str, mover: Color) -> Option<EngineScore> {
    match dialect.read_reply(line, mover) {
        Reply::Info { score, .. } | Reply::Best { score, .. } => score,
        Reply::Other => None,
    }
}

#[test]
fn the_most_negative_mate_is_written_without_overflow() {
    // Found by the fuzzer: `-n` overflowed writing the PGN comment.
    let line = "info score mate -2147483648";
    let s = score(&Mulino, line, Color::White).expect("a score");
    assert_eq!(s, EngineScore::Mate(i32::MIN));
    assert_eq!(s.text(), "-M2147483648");
    // From White's side (GBGP, Sanmill), Black's view saturates.
    let s = score(&Sanmill, line, Color::Black).expect("a score");
    assert_eq!(s.text(), "+M2147483647");
}

#[test]
fn a_win_in_the_most_plies_keeps_its_sign_for_both_sides() {
    // GBGP's `win N` (plies, from White's side) in moves, rounded up.
    let line = "info depth 5 score win -2147483648 pv d6";
    let white = score(&Gbgp, line, Color::White).expect("a score");
    let black = score(&Gbgp, line, Color::Black).expect("a score");
    assert_eq!(white, EngineScore::Mate(-(1 << 30)));
    assert_eq!(black, EngineScore::Mate(1 << 30));
    let line = "info depth 5 score win 3 pv d6";
    assert_eq!(score(&Gbgp, line, Color::White), Some(EngineScore::Mate(2)));
    assert_eq!(
        score(&Gbgp, line, Color::Black),
        Some(EngineScore::Mate(-2))
    );
}
