//! Games from PGN files (as `mulino match` writes them), replayed into
//! the positions at the start of each turn.

use std::fmt;

pub use crate::core::pgn::PgnGame;
use crate::core::{Game, Move, Position, Rules, Variant};

/// Why a game was left out.
#[derive(Debug, PartialEq, Eq)]
pub enum Skip {
    /// Another rule set than the one tuned (its `Variant` tag, or rule
    /// overrides in a `Rules` tag).
    OtherRules(String),
    BadFen(String),
    /// A move that does not parse or is not legal, with its ply.
    BadMove(usize, String),
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::OtherRules(r) => write!(f, "other rules ({r})"),
            Skip::BadFen(e) => write!(f, "bad FEN: {e}"),
            Skip::BadMove(ply, m) => write!(f, "bad move {m:?} at ply {ply}"),
        }
    }
}

/// Whether a game was played under `variant`'s rules (its tag, and no
/// rule overrides).
fn same_rules(game: &PgnGame, variant: Variant) -> Result<(), Skip> {
    let tagged = game.tag("Variant").unwrap_or("nine");
    if tagged != variant.name() {
        return Err(Skip::OtherRules(tagged.to_string()));
    }
    if let Some(r) = game.tag("Rules") {
        return Err(Skip::OtherRules(r.to_string()));
    }
    Ok(())
}

/// The positions at the start of each whole turn of a game (no removal
/// owed), from its start to its end.
pub fn positions(game: &PgnGame, variant: Variant, rules: &Rules) -> Result<Vec<Position>, Skip> {
    same_rules(game, variant)?;
    let start = match game.tag("FEN") {
        Some(fen) => Position::from_fen(fen, rules).map_err(|e| Skip::BadFen(e.to_string()))?,
        None => Position::startpos(rules),
    };
    let mut replay = Game::from_position(*rules, start);
    let mut out = vec![start];
    for (i, text) in game.move_texts().enumerate() {
        let m: Move = text
            .parse()
            .map_err(|_| Skip::BadMove(i + 1, text.to_string()))?;
        replay
            .play(m)
            .map_err(|_| Skip::BadMove(i + 1, text.to_string()))?;
        let pos = *replay.position();
        if pos.pending_removals() == 0 {
            out.push(pos);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PGN: &str = r#"[Event "mulino match"]
[Variant "nine"]
[Result "1/2-1/2"]

1. d2 {book} a1 {book} 2. f2 {+1.01/10 0.074s} g1 {-0.07/64
0.244s} 3. d1 d3 4. b2xd3 {+0.89/10 0.073s} 1/2-1/2

[Event "mulino match"]
[Variant "twelve"]

1. d2 a1 *

[Event "x \"quoted\""]
[Variant "nine"]

1. d2 d2 *
"#;

    #[test]
    fn games_split_and_keep_only_their_moves() {
        let games = crate::core::pgn::read(PGN);
        assert_eq!(games.len(), 3);
        assert_eq!(
            games[0].move_texts().collect::<Vec<_>>(),
            ["d2", "a1", "f2", "g1", "d1", "d3", "b2xd3"]
        );
        assert_eq!(games[0].white_score(), Some(0.5));
        assert_eq!(games[1].move_texts().collect::<Vec<_>>(), ["d2", "a1"]);
        assert_eq!(games[2].tag("Event"), Some("x \"quoted\""));
    }

    #[test]
    fn replay_gives_each_turn_and_refuses_the_rest() {
        let rules = Variant::Nine.rules();
        let games = crate::core::pgn::read(PGN);
        let p = positions(&games[0], Variant::Nine, &rules).unwrap();
        assert_eq!(p.len(), 8);
        assert_eq!(p[7].pieces(crate::core::Color::Black).count(), 2);
        assert_eq!(
            positions(&games[1], Variant::Nine, &rules),
            Err(Skip::OtherRules("twelve".into()))
        );
        assert_eq!(
            positions(&games[2], Variant::Nine, &rules),
            Err(Skip::BadMove(2, "d2".into()))
        );
    }
}
