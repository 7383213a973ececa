//! The protocols an engine may speak (`proto=` in `--engine`), one module
//! each behind the [`Dialect`] trait, the way cutechess keeps a class per
//! protocol: mulino's own ([`mulino`]), GBGP, the protocol of Nine Morris
//! 3D and Mühle Intelligence ([`gbgp`]), and Sanmill's `tgf mill uci`
//! ([`sanmill`]). They differ in their handshake, their new-game command,
//! how the rules are told, how moves are written (whole turns, or
//! Sanmill's atomic steps with a removal as a move of its own), how the
//! best move is announced and from whose side scores are given.
//!
//! An engine's spec holds its dialect, chosen once when its `proto=` is
//! read; the slot and the referee speak to every engine through it. What
//! the dialects share (the `go` command, the reading of `info` lines) is
//! here, each dialect saying only where it differs.

pub mod gbgp;
pub mod mulino;
pub mod sanmill;

use std::fmt::Write as _;
use std::time::Duration;

use super::limits::Limits;
use super::process::EngineProcess;
use crate::core::{Color, Move, Position, Rules};
use crate::matches::openings::Opening;
use crate::matches::rules::RuleSet;

/// One protocol, as the match runner speaks it.
pub trait Dialect: std::fmt::Debug + Send + Sync {
    /// The `proto=` word, as the reports and messages name the dialect.
    fn name(&self) -> &'static str;

    /// The handshake command and the line that ends its answer: UCI's,
    /// which mulino's protocol and Sanmill's keep.
    fn hello(&self) -> (&'static str, &'static str) {
        ("uci", "uciok")
    }

    /// The command that starts a new game: UCI's.
    fn new_game(&self) -> &'static str {
        "ucinewgame"
    }

    /// The `setoption` lines that tell an engine the match's rules in
    /// this dialect's terms (its own options follow them).
    fn rule_lines(&self, rule_set: &RuleSet) -> Vec<String>;

    /// How an engine's lines read while it searches.
    fn wording(&self) -> Wording;

    /// What this dialect cannot express of the match's rules, or of an
    /// engine's limits and own options (`option.NAME=VALUE`): a phrase
    /// that follows "which", checked before any engine starts.
    fn check(
        &self,
        _rule_set: &RuleSet,
        _limits: &Limits,
        _engine_options: &[(String, String)],
    ) -> Result<(), String> {
        Ok(())
    }

    /// Why `opening` cannot be sent in this dialect, if it cannot: a
    /// phrase that follows the dialect's name.
    fn refuses(&self, _opening: &Opening) -> Option<&'static str> {
        None
    }

    /// Writes one whole turn into a `position` command's move list.
    fn write_move(&self, line: &mut String, m: Move) {
        let _ = write!(line, " {m}");
    }

    /// The `position` command for `moves` (whole turns) played from `fen`
    /// (mulino's FEN, which is Sanmill's) or the start position.
    fn position_line(&self, fen: Option<&str>, moves: &[Move]) -> String {
        let mut line = match fen {
            None => String::from("position startpos"),
            Some(f) => format!("position fen {f}"),
        };
        if moves.is_empty() {
            return line;
        }
        line.push_str(" moves");
        for &m in moves {
            self.write_move(&mut line, m);
        }
        line
    }

    /// The `go` command for the side to move: the limits, and with a time
    /// control the clocks (`clocks`, milliseconds left by colour) and
    /// increments of the sides that have one.
    fn go_line(
        &self,
        limits: &Limits,
        clocks: &[Option<u64>; 2],
        incs: &[Option<u64>; 2],
    ) -> String {
        go_command(limits, clocks, incs)
    }

    /// Reads one line of the engine, `mover` to move.
    fn read_reply(&self, line: &str, mover: Color) -> Reply {
        read_worded(line, mover, self.wording())
    }

    /// Whether the engine plays `rules` at a game's first position (the
    /// `opening`, reaching `position`), for the dialects whose engines can
    /// say; the others are taken at their word. `Ok` when it does.
    fn agree_on_rules(
        &self,
        _engine: &mut EngineProcess,
        _rules: &Rules,
        _opening: &Opening,
        _position: &Position,
        _timeout: Duration,
    ) -> Result<(), Disagreement> {
        Ok(())
    }
}

/// Dialects are equal when they are the same protocol.
impl PartialEq for dyn Dialect {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn Dialect {}

/// Where a dialect's search lines differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wording {
    /// `bestmove` may stand anywhere in a line, not only first (Sanmill
    /// ends an `info` line with it).
    pub best_anywhere: bool,
    /// Scores are given from White's side, not the mover's.
    pub white_scores: bool,
    /// `pv` takes the rest of the line (GBGP).
    pub pv_ends_line: bool,
}

/// Why an engine's rules could not be taken for the referee's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disagreement {
    /// The engine went away: what it was doing.
    Gone(String),
    /// It did not answer in time: the rules it plays are unknown.
    Silent(String),
    /// It plays other rules, or cannot say which.
    Rules(String),
}

/// `setoption name NAME value VALUE`.
pub fn setoption(name: &str, value: impl std::fmt::Display) -> String {
    format!("setoption name {name} value {value}")
}

/// An engine's evaluation, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineScore {
    /// Centipawns, the protocol's unit (about 100 to a piece).
    Cp(i32),
    /// Mate in N moves (negative: being mated).
    Mate(i32),
}

impl EngineScore {
    /// `+0.35`, `-1.00`, `+M3`, `-M2`.
    pub fn text(self) -> String {
        match self {
            EngineScore::Cp(cp) => format!("{:+.2}", cp as f64 / 100.0),
            // `unsigned_abs`: an engine may say `mate -2147483648`.
            EngineScore::Mate(n) if n < 0 => format!("-M{}", n.unsigned_abs()),
            EngineScore::Mate(n) => format!("+M{n}"),
        }
    }
}

/// What one line from an engine means while it searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Search information: depth and score (from the mover's side), when
    /// given; `said` for an `info string`.
    Info {
        depth: Option<u32>,
        score: Option<EngineScore>,
        said: bool,
    },
    /// The answer: the move's text, `None` when the engine gave no move
    /// (`bestmove (none)`, `none`, Sanmill's `draw`, or nothing).
    Best {
        depth: Option<u32>,
        score: Option<EngineScore>,
        mv: Option<String>,
    },
    /// Anything else (ignored).
    Other,
}

/// The `go` command: the clocks and increments that are given, then the
/// limits.
fn go_command(limits: &Limits, clocks: &[Option<u64>; 2], incs: &[Option<u64>; 2]) -> String {
    let mut s = String::from("go");
    if limits.tc.is_some() {
        for (i, (time, inc)) in ["wtime", "btime"].iter().zip(["winc", "binc"]).enumerate() {
            if let Some(ms) = clocks[i] {
                let _ = write!(s, " {time} {ms}");
            }
            if let Some(ms) = incs[i] {
                let _ = write!(s, " {inc} {ms}");
            }
        }
    }
    if let Some(ms) = limits.movetime {
        let _ = write!(s, " movetime {ms}");
    }
    if let Some(d) = limits.depth {
        let _ = write!(s, " depth {d}");
    }
    if let Some(n) = limits.nodes {
        let _ = write!(s, " nodes {n}");
    }
    s
}

/// Reads one line worded as `wording` says, `mover` to move.
fn read_worded(line: &str, mover: Color, wording: Wording) -> Reply {
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words.first().copied();
    let best_at = if wording.best_anywhere {
        // A stopped Sanmill search without a position answers `info
        // score 0 bestmove none`.
        words.iter().position(|w| *w == "bestmove")
    } else {
        (first == Some("bestmove")).then_some(0)
    };
    let (depth, score) = info_fields(&words, mover, wording);
    if let Some(at) = best_at {
        let mv = words
            .get(at + 1)
            .copied()
            .filter(|w| !matches!(*w, "(none)" | "none" | "draw" | "0000"))
            .map(str::to_string);
        return Reply::Best { depth, score, mv };
    }
    if first == Some("info") {
        return Reply::Info {
            depth,
            score,
            said: words.get(1) == Some(&"string"),
        };
    }
    Reply::Other
}

/// The `depth` and `score` of an `info` line, the score turned to the
/// mover's side.
fn info_fields(
    words: &[&str],
    mover: Color,
    wording: Wording,
) -> (Option<u32>, Option<EngineScore>) {
    let (mut depth, mut score) = (None, None);
    let flip = |v: i32| match (wording.white_scores, mover) {
        (false, _) | (_, Color::White) => v,
        (true, Color::Black) => v.saturating_neg(),
    };
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "pv" if wording.pv_ends_line => break,
            "depth" => depth = words.get(i + 1).and_then(|d| d.parse().ok()),
            "score" => {
                let value = words.get(i + 2).and_then(|v| v.parse::<i32>().ok());
                score = match (words.get(i + 1).copied(), value) {
                    (Some("cp" | "eval"), Some(v)) => Some(EngineScore::Cp(flip(v))),
                    (Some("mate"), Some(v)) => Some(EngineScore::Mate(flip(v))),
                    // GBGP: a forced win in n plies; in moves, rounded up.
                    (Some("win"), Some(v)) => {
                        let v = flip(v);
                        // In u32: `win -2147483648` has no i32 magnitude.
                        let moves = v.unsigned_abs().div_ceil(2) as i32;
                        Some(EngineScore::Mate(if v < 0 { -moves } else { moves }))
                    }
                    _ => score,
                };
            }
            _ => {}
        }
        i += 1;
    }
    (depth, score)
}
