//! The endgame benchmark: won and drawn positions of the moving phase,
//! sampled from mulino's own databases (`mulino tb endgames` writes the
//! set), each searched for one move on one thread at a fixed node count,
//! without databases; it counts the moves that keep the position's value
//! under the N-move rules. A search or evaluation change that converts
//! fewer won endgames shows here even when self-play cannot see it.
//!
//! A set is text, one position a line, tab-separated: the FEN, `win` or
//! `draw` (the value for the side to move under the rules' N-move limits,
//! from the FEN's counter), and every legal move that keeps that value,
//! space-separated. `#` starts a comment line. Only positions where some
//! legal move throws the value away are in a set: where every move keeps
//! it, there is nothing to measure.

use std::fmt;

use crate::core::{Game, Move, Position, Variant};
use crate::engine::{Engine, EngineError};
use crate::search::Limits;
use crate::tb::Wdl;

/// Nine Men's Morris's set, as checked in (`tests/data/endgames/`).
pub const NINE: &str = include_str!("../../tests/data/endgames/nine.tsv");

/// The node count each position is searched to when none is given.
pub const DEFAULT_NODES: u64 = 100_000;
/// Table size for every search, in MB (cleared before each position).
pub const HASH_MB: usize = 16;

/// One position of a set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endgame {
    pub fen: String,
    /// `Win` or `Draw`, for the side to move.
    pub value: Wdl,
    /// The legal moves that keep it.
    pub keeping: Vec<Move>,
}

/// A line of a set that does not read.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetError {
    #[error("line {line}: expected FEN, value and moves, tab-separated")]
    Fields { line: usize },
    #[error("line {line}: value `{value}` is not `win` or `draw`")]
    Value { line: usize, value: String },
    #[error("line {line}: `{text}` is not a move")]
    Move { line: usize, text: String },
    #[error("line {line}: no move keeps the value")]
    NoMove { line: usize },
}

/// Reads a set.
pub fn parse(text: &str) -> Result<Vec<Endgame>, SetError> {
    let mut set = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim_end_matches(['\r', '\n']);
        if raw.trim().is_empty() || raw.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = raw.split('\t').collect();
        let [fen, value, moves] = fields[..] else {
            return Err(SetError::Fields { line });
        };
        let value = match value {
            "win" => Wdl::Win,
            "draw" => Wdl::Draw,
            other => {
                return Err(SetError::Value {
                    line,
                    value: other.to_string(),
                });
            }
        };
        let keeping = moves
            .split_whitespace()
            .map(|m| {
                m.parse::<Move>().map_err(|_| SetError::Move {
                    line,
                    text: m.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if keeping.is_empty() {
            return Err(SetError::NoMove { line });
        }
        set.push(Endgame {
            fen: fen.to_string(),
            value,
            keeping,
        });
    }
    Ok(set)
}

/// One line of a set, as [`parse`] reads it.
pub fn format_line(fen: &str, value: Wdl, keeping: &[Move]) -> String {
    let moves: Vec<String> = keeping.iter().map(Move::to_string).collect();
    format!("{fen}\t{}\t{}", value.name(), moves.join(" "))
}

/// What a run found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndgameReport {
    pub nodes_each: u64,
    pub wins: usize,
    pub wins_kept: usize,
    pub draws: usize,
    pub draws_kept: usize,
    /// The positions whose value the move chosen threw away, with it.
    pub lost: Vec<(String, Option<Move>)>,
}

impl EndgameReport {
    pub fn positions(&self) -> usize {
        self.wins + self.draws
    }

    pub fn kept(&self) -> usize {
        self.wins_kept + self.draws_kept
    }
}

impl fmt::Display for EndgameReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Endgames kept: {} of {} (wins {} of {}, draws {} of {}) at {} nodes each",
            self.kept(),
            self.positions(),
            self.wins_kept,
            self.wins,
            self.draws_kept,
            self.draws,
            self.nodes_each
        )
    }
}

/// Searches every position of `set` (under `variant`'s rules) to `nodes`
/// nodes on one thread, from an empty table, and counts the moves that
/// keep the value.
pub fn run(set: &[Endgame], variant: Variant, nodes: u64) -> Result<EndgameReport, EngineError> {
    let mut engine = Engine::new();
    engine.set_option("Variant", Some(variant.name()))?;
    engine.set_option("Hash", Some(&HASH_MB.to_string()))?;
    let mut report = EndgameReport {
        nodes_each: nodes,
        ..EndgameReport::default()
    };
    for e in set {
        engine.new_game()?;
        engine.set_game(Game::from_text(variant.rules(), Some(&e.fen), [])?)?;
        let limits = Limits {
            nodes: Some(nodes),
            ..Limits::reproducible()
        };
        let best = engine.search_blocking(limits)?.best;
        let kept = best.is_some_and(|m| e.keeping.contains(&m));
        match e.value {
            Wdl::Win => {
                report.wins += 1;
                report.wins_kept += kept as usize;
            }
            _ => {
                report.draws += 1;
                report.draws_kept += kept as usize;
            }
        }
        if !kept {
            report.lost.push((e.fen.clone(), best));
        }
    }
    Ok(report)
}

/// Whether `pos` is a position of the moving phase with a move to make.
pub fn in_moving_phase(pos: &Position) -> bool {
    !pos.is_placing() && pos.pending_removals() == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_reads_and_refuses_what_is_not_one() {
        let fen = "********/O**O**O*/@@@***** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
        let text = format!(
            "# a comment\n\n{}\n",
            format_line(fen, Wdl::Win, &["d6-d5".parse().unwrap()])
        );
        let set = parse(&text).unwrap();
        assert_eq!(set.len(), 1);
        assert_eq!((set[0].fen.as_str(), set[0].value), (fen, Wdl::Win));
        assert_eq!(set[0].keeping, ["d6-d5".parse::<Move>().unwrap()]);
        assert_eq!(parse("x\twin"), Err(SetError::Fields { line: 1 }));
        assert_eq!(
            parse("x\tloss\td6"),
            Err(SetError::Value {
                line: 1,
                value: "loss".into()
            })
        );
        assert_eq!(
            parse("x\twin\tz9"),
            Err(SetError::Move {
                line: 1,
                text: "z9".into()
            })
        );
        assert_eq!(parse("x\tdraw\t "), Err(SetError::NoMove { line: 1 }));
    }

    #[test]
    fn the_checked_in_set_reads() {
        let set = parse(NINE).expect("the set reads");
        assert!(set.len() >= 100, "{} positions", set.len());
        let rules = Variant::Nine.rules();
        for e in &set {
            let pos = Position::from_fen(&e.fen, &rules).expect("a FEN");
            assert!(in_moving_phase(&pos), "{}", e.fen);
            for m in &e.keeping {
                assert!(pos.find_legal(&rules, *m).is_some(), "{}: {m}", e.fen);
            }
        }
    }
}
