//! The protocols an engine may speak (`proto=` in `--engine`): mulino's
//! own, GBGP (Nine Morris 3D, Mühle Intelligence) and Sanmill's
//! `tgf mill uci`. Each differs in its handshake, its new-game command,
//! how the variant is chosen, how moves are written (whole turns, or
//! Sanmill's atomic steps with a removal as a move of its own), how the
//! best move is announced and from whose side scores are given. The
//! referee speaks to every engine through the functions here.

use std::fmt::Write as _;

use super::config::{Config, ConfigError, Limits, Proto};
use super::record::EngineScore;
use super::sanmill;
use crate::core::{Color, Move, Variant};

impl Proto {
    /// The handshake command and the line that ends its answer.
    pub fn hello(self) -> (&'static str, &'static str) {
        match self {
            Proto::Mulino | Proto::Sanmill => ("uci", "uciok"),
            Proto::Gbgp => ("gbgp", "gbgpok"),
        }
    }

    /// The command that starts a new game.
    pub fn new_game(self) -> &'static str {
        match self {
            Proto::Mulino | Proto::Sanmill => "ucinewgame",
            Proto::Gbgp => "newgame",
        }
    }
}

/// Refuses what an engine's protocol cannot express, before any engine
/// starts: GBGP knows Nine and Twelve Men's Morris only (no rule
/// overrides, no increment, no node limit); Sanmill takes every rule as
/// an option of its own, within its ranges, and those options only from
/// `--variant` and `--rule` (an `option.` would change its rules behind
/// the referee's back).
pub fn check(config: &Config) -> Result<(), ConfigError> {
    for spec in &config.engines {
        let refuse = |problem: String| ConfigError::Dialect {
            engine: spec
                .name
                .clone()
                .unwrap_or_else(|| spec.cmd.display().to_string()),
            proto: spec.proto.name(),
            problem,
        };
        let variant = config.variant;
        match spec.proto {
            Proto::Mulino => {}
            Proto::Gbgp => {
                if !matches!(variant, Variant::Nine | Variant::Twelve) {
                    return Err(refuse(format!(
                        "knows only the variants nine and twelve, not `{}`",
                        variant.name()
                    )));
                }
                if let Some((name, _)) = config.rule_overrides.first() {
                    return Err(refuse(format!("has no rule options (`--rule {name}`)")));
                }
                if spec.limits.tc.is_some_and(|tc| tc.inc_ms > 0) {
                    return Err(refuse("has no increment (give tc=SECONDS)".into()));
                }
                if spec.limits.nodes.is_some() {
                    return Err(refuse("has no node limit".into()));
                }
            }
            Proto::Sanmill => {
                sanmill::options(&config.rules).map_err(refuse)?;
                if let Some((name, _)) = spec
                    .options
                    .iter()
                    .find(|(n, _)| sanmill::is_rule_option(n))
                {
                    return Err(refuse(format!(
                        "takes its rules from --variant and --rule, not `option.{name}` (the referee would not know them)"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The `setoption` lines an engine gets after the handshake: the variant
/// in its protocol's terms, the rule overrides, then its own options.
pub fn option_lines(config: &Config, engine: usize) -> Vec<String> {
    let spec = &config.engines[engine];
    let mut lines = Vec::new();
    match spec.proto {
        Proto::Mulino => {
            lines.push(format!(
                "setoption name Variant value {}",
                config.variant.name()
            ));
            for (name, value) in &config.rule_overrides {
                lines.push(format!("setoption name {name} value {value}"));
            }
        }
        Proto::Gbgp => lines.push(format!(
            "setoption name TwelveMensMorris value {}",
            config.variant == Variant::Twelve
        )),
        // Every rule, each as an option of its own; `check` refused the
        // rules Sanmill cannot express.
        Proto::Sanmill => {
            for o in sanmill::options(&config.rules).unwrap_or_default() {
                lines.push(format!("setoption name {} value {}", o.name, o.value));
            }
        }
    }
    for (name, value) in &spec.options {
        lines.push(format!("setoption name {name} value {value}"));
    }
    lines
}

/// The `position` command for `moves` (whole turns) played from `fen`
/// (mulino's FEN, which is Sanmill's) or the start position. GBGP has its
/// own FEN without hands: the runner refuses FEN openings for it.
pub fn position_line(proto: Proto, fen: Option<&str>, moves: &[Move]) -> String {
    let mut s = match (proto, fen) {
        (_, None) => String::from("position startpos"),
        (_, Some(f)) => format!("position fen {f}"),
    };
    if moves.is_empty() {
        return s;
    }
    s.push_str(" moves");
    for &m in moves {
        match proto {
            Proto::Mulino | Proto::Gbgp => {
                let _ = write!(s, " {m}");
            }
            Proto::Sanmill => {
                // The step, then each removal as a move of its own.
                if m.to().is_some() {
                    let _ = write!(s, " {}", m.step_text());
                }
                for p in m.removals() {
                    let _ = write!(s, " {}", Move::remove_only(p));
                }
            }
        }
    }
    s
}

/// The `go` command for the side to move.
pub fn go_line(
    proto: Proto,
    limits: &Limits,
    clocks: &[Option<u64>; 2],
    incs: &[Option<u64>; 2],
) -> String {
    let mut s = String::from("go");
    if limits.tc.is_some() {
        for (i, (time, inc)) in ["wtime", "btime"].iter().zip(["winc", "binc"]).enumerate() {
            if let Some(ms) = clocks[i] {
                let _ = write!(s, " {time} {ms}");
            }
            match incs[i] {
                Some(ms) if proto != Proto::Gbgp => {
                    let _ = write!(s, " {inc} {ms}");
                }
                _ => {}
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

/// Reads one line of an engine that speaks `proto`, `mover` to move.
pub fn read_reply(proto: Proto, line: &str, mover: Color) -> Reply {
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words.first().copied();
    let best_at = match proto {
        Proto::Mulino | Proto::Gbgp => (first == Some("bestmove")).then_some(0),
        // Sanmill ends an `info` line with `bestmove MOVE` (and a stopped
        // search without a position answers `info score 0 bestmove none`).
        Proto::Sanmill => words.iter().position(|w| *w == "bestmove"),
    };
    let (depth, score) = info_fields(proto, &words, mover);
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
/// mover's side (GBGP and Sanmill give it from White's).
fn info_fields(proto: Proto, words: &[&str], mover: Color) -> (Option<u32>, Option<EngineScore>) {
    let (mut depth, mut score) = (None, None);
    let flip = |v: i32| match (proto, mover) {
        (Proto::Mulino, _) | (_, Color::White) => v,
        (_, Color::Black) => v.saturating_neg(),
    };
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            // GBGP's `pv` takes the rest of the line.
            "pv" if proto == Proto::Gbgp => break,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().expect("a move")
    }

    #[test]
    fn sanmill_positions_split_turns() {
        let moves = [mv("d6"), mv("a1"), mv("d7xa4"), mv("d6-d5xb4xa1")];
        assert_eq!(
            position_line(Proto::Sanmill, None, &moves),
            "position startpos moves d6 a1 d7 xa4 d6-d5 xb4 xa1"
        );
        assert_eq!(
            position_line(Proto::Gbgp, None, &moves),
            "position startpos moves d6 a1 d7xa4 d6-d5xb4xa1"
        );
        assert_eq!(
            position_line(Proto::Sanmill, None, &[mv("xb4")]),
            "position startpos moves xb4"
        );
        assert_eq!(position_line(Proto::Mulino, None, &[]), "position startpos");
    }

    #[test]
    fn replies_in_each_dialect() {
        let line = "info depth 7 score cp 12 nodes 345 bestmove d7";
        assert_eq!(
            read_reply(Proto::Sanmill, line, Color::Black),
            Reply::Best {
                depth: Some(7),
                score: Some(EngineScore::Cp(-12)),
                mv: Some("d7".into())
            }
        );
        assert!(matches!(
            read_reply(Proto::Mulino, line, Color::Black),
            Reply::Info { .. }
        ));
        assert_eq!(
            read_reply(Proto::Sanmill, "info score 0 bestmove none", Color::White),
            Reply::Best {
                depth: None,
                score: None,
                mv: None
            }
        );
        assert!(matches!(
            read_reply(
                Proto::Sanmill,
                "info depth 3 score cp 0 nodes 9 bestmove draw",
                Color::White
            ),
            Reply::Best { mv: None, .. }
        ));
        let gbgp = "info depth 7 time 2470 nodes 3552790 score eval 15 pv d6 d2 score cp 3";
        assert_eq!(
            read_reply(Proto::Gbgp, gbgp, Color::Black),
            Reply::Info {
                depth: Some(7),
                score: Some(EngineScore::Cp(-15)),
                said: false
            }
        );
        let win = "info depth 5 score win -3 pv a1";
        assert!(matches!(
            read_reply(Proto::Gbgp, win, Color::Black),
            Reply::Info {
                score: Some(EngineScore::Mate(2)),
                ..
            }
        ));
        assert_eq!(
            read_reply(Proto::Gbgp, "bestmove none", Color::White),
            Reply::Best {
                depth: None,
                score: None,
                mv: None
            }
        );
        assert_eq!(
            read_reply(Proto::Mulino, "bestmove d6 ponder d5", Color::White),
            Reply::Best {
                depth: None,
                score: None,
                mv: Some("d6".into())
            }
        );
    }

    #[test]
    fn gbgp_go_has_no_increment() {
        let limits = Limits {
            tc: Some(super::super::config::TimeControl {
                base_ms: 1000,
                inc_ms: 0,
            }),
            ..Limits::default()
        };
        let clocks = [Some(900), Some(800)];
        assert_eq!(
            go_line(Proto::Gbgp, &limits, &clocks, &[Some(0), Some(0)]),
            "go wtime 900 btime 800"
        );
        assert_eq!(
            go_line(Proto::Mulino, &limits, &clocks, &[Some(0), Some(0)]),
            "go wtime 900 winc 0 btime 800 binc 0"
        );
    }
}
