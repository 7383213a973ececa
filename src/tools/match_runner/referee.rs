//! Plays one game between two engine processes and referees it with the
//! rules core: the clocks, the `position`/`go` exchange, and every way a
//! game can end, an engine's faults included.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use super::config::{Config, Limits};
use super::process::{Failure, Registry};
use super::record::{EngineScore, Fault, GameJob, GameRecord, MoveRecord, Termination};
use super::slot::Slot;
use crate::core::{Color, Game, Move};

/// What a worker needs besides its slot.
pub struct Referee<'a> {
    pub config: &'a Config,
    pub names: &'a [String],
    pub registry: &'a Arc<Registry>,
    /// Set when the match is over (SPRT decided or an error): games in
    /// progress are abandoned.
    pub stop: &'a AtomicBool,
}

/// The depth and score in an `info` line, if it has them.
pub fn parse_info(line: &str) -> (Option<u32>, Option<EngineScore>) {
    let mut words = line.split_whitespace();
    let (mut depth, mut score) = (None, None);
    while let Some(w) = words.next() {
        match w {
            "depth" => depth = words.next().and_then(|d| d.parse().ok()),
            "score" => {
                score = match (words.next(), words.next().and_then(|v| v.parse().ok())) {
                    (Some("cp"), Some(v)) => Some(EngineScore::Cp(v)),
                    (Some("mate"), Some(v)) => Some(EngineScore::Mate(v)),
                    _ => None,
                }
            }
            _ => {}
        }
    }
    (depth, score)
}

/// The `go` command for the side to move.
fn go_line(limits: &Limits, clocks: &[Option<u64>; 2], incs: &[Option<u64>; 2]) -> String {
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

/// How the wait for `bestmove` ended badly.
enum Wait {
    Gone(String),
    /// The clock ran out (time forfeit).
    Flag,
    /// No answer within the grace period (hang).
    Silent,
}

impl Referee<'_> {
    /// Plays `job` to the end; `None` if the game was abandoned because
    /// the match stopped.
    pub fn play(&self, job: &GameJob, slot: &mut Slot) -> Option<GameRecord> {
        let config = self.config;
        let rules = &config.rules;
        let started = SystemTime::now();
        let clock_start = Instant::now();
        let mut game: Game = job.opening.game(rules);
        let moves: Vec<MoveRecord> = job
            .opening
            .moves
            .iter()
            .map(|&mv| MoveRecord {
                mv,
                book: true,
                score: None,
                depth: None,
                time: Duration::ZERO,
            })
            .collect();
        let mut played = Played {
            moves,
            complaints: Vec::new(),
        };
        let finish = |played: Played, termination, detail| GameRecord {
            job: job.clone(),
            moves: played.moves,
            complaints: played.complaints,
            termination,
            detail,
            started,
            duration: clock_start.elapsed(),
        };
        let who = |side: Color| format!("{} ({side})", self.names[job.engine(side)]);

        for side in Color::ALL {
            if let Err(e) = slot.prepare(config, job.engine(side), self.registry) {
                let termination = Termination::Fault {
                    side,
                    fault: e.fault,
                };
                return Some(finish(played, termination, format!("{}: {e}", who(side))));
            }
            if let Some(engine) = slot.engines[job.engine(side)].as_mut() {
                played.note(side, engine.take_errors());
            }
        }

        let tc = |side: Color| config.engines[job.engine(side)].limits.tc;
        let mut clocks = Color::ALL.map(|c| tc(c).map(|t| t.base_ms));
        let incs = Color::ALL.map(|c| tc(c).map(|t| t.inc_ms));
        let mut position = match &job.opening.fen {
            None => "position startpos moves".to_string(),
            Some(f) => format!("position fen {f} moves"),
        };
        for m in &job.opening.moves {
            let _ = write!(position, " {m}");
        }
        let max_turns = 2 * config.max_moves as usize;

        loop {
            if self.stop.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(outcome) = game.outcome() {
                let detail = outcome.describe();
                return Some(finish(played, Termination::Rules(outcome), detail));
            }
            if config.max_moves > 0 && played.moves.len() >= max_turns {
                let detail = format!("draw: {} moves played", config.max_moves);
                return Some(finish(played, Termination::MaxMoves, detail));
            }
            let side = game.position().side_to_move();
            let index = job.engine(side);
            let limits = &config.engines[index].limits;
            let fault = |slot: &mut Slot, played, fault, what: String| {
                slot.discard(index);
                let detail = format!("{} {what}", who(side));
                Some(finish(played, Termination::Fault { side, fault }, detail))
            };
            let Some(engine) = slot.engines[index].as_mut() else {
                return fault(slot, played, Fault::Crash, "has no process".into());
            };
            if let Err(Failure::Gone(how)) = engine.drain() {
                return fault(slot, played, Fault::Crash, format!("crashed: {how}"));
            }
            let bare = position.strip_suffix(" moves").unwrap_or(&position);
            let setup = if played.moves.is_empty() {
                bare
            } else {
                &position
            };
            let go = go_line(limits, &clocks, &incs);
            let sent = Instant::now();
            // One write for both lines: half the wake-ups and system calls.
            engine.send(&format!("{setup}\n{go}"));

            // The clock's limit and the hang limit; the earlier one rules.
            let clock_limit = clocks[side.index()]
                .filter(|_| limits.tc.is_some())
                .map(|ms| Duration::from_millis(ms) + config.time_margin);
            let hang_limit = match (limits.tc, limits.movetime) {
                (Some(_), _) => None,
                (None, Some(ms)) => Some(Duration::from_millis(ms) + config.grace),
                (None, None) => Some(config.grace),
            };
            let deadline = sent + clock_limit.or(hang_limit).unwrap_or(config.grace);
            let (mut depth, mut score) = (None, None);
            // The engine's last `info string`, to explain a fault.
            let mut said: Option<String> = None;
            let answer = loop {
                match engine.recv(deadline) {
                    Ok((line, at)) => {
                        let mut words = line.split_whitespace();
                        let first = words.next();
                        if first == Some("info") {
                            if words.next() == Some("string") {
                                said = Some(shorten(&line, 120));
                            }
                            let (d, s) = parse_info(&line);
                            depth = d.or(depth);
                            score = s.or(score);
                        } else if first == Some("bestmove") {
                            break Ok((line, at));
                        }
                    }
                    Err(Failure::Gone(how)) => break Err(Wait::Gone(how)),
                    Err(Failure::Timeout) if clock_limit.is_some() => break Err(Wait::Flag),
                    Err(Failure::Timeout) => break Err(Wait::Silent),
                }
            };
            played.note(side, engine.take_errors());
            let (line, at) = match answer {
                Ok(a) => a,
                Err(Wait::Gone(how)) => {
                    return fault(slot, played, Fault::Crash, format!("crashed: {how}"));
                }
                Err(Wait::Flag) => {
                    let what = format!(
                        "lost on time: no move within {} ms on the clock",
                        clocks[side.index()].unwrap_or(0)
                    );
                    return fault(slot, played, Fault::TimeForfeit, what);
                }
                Err(Wait::Silent) => {
                    let what = format!(
                        "hung: no bestmove within {} ms of `{go}`",
                        hang_limit.unwrap_or(config.grace).as_millis()
                    );
                    return fault(slot, played, Fault::Hang, explained(what, &said));
                }
            };
            let elapsed = at.saturating_duration_since(sent);
            if let (Some(left), Some(limit)) = (clocks[side.index()], clock_limit) {
                if elapsed > limit {
                    let what = format!(
                        "lost on time: took {} ms with {left} ms on the clock",
                        elapsed.as_millis()
                    );
                    return fault(slot, played, Fault::TimeForfeit, what);
                }
                let inc = incs[side.index()].unwrap_or(0);
                clocks[side.index()] = Some(left.saturating_sub(elapsed.as_millis() as u64) + inc);
            }
            let text = line.split_whitespace().nth(1);
            let mv: Move = match text {
                None | Some("(none)") => {
                    let what = format!("gave no move (`{line}`) in a game that is not over");
                    return fault(slot, played, Fault::MissingMove, explained(what, &said));
                }
                Some(t) => match t.parse() {
                    Ok(m) => m,
                    Err(e) => {
                        let what = format!("sent a malformed move `{}`: {e}", shorten(t, 40));
                        let what = explained(what, &said);
                        return fault(slot, played, Fault::MalformedMove, what);
                    }
                },
            };
            if let Err(e) = game.play(mv) {
                let what = format!("played an illegal move `{mv}`: {e}");
                return fault(slot, played, Fault::IllegalMove, explained(what, &said));
            }
            let _ = write!(position, " {mv}");
            played.moves.push(MoveRecord {
                mv,
                book: false,
                score,
                depth,
                time: elapsed,
            });
        }
    }
}

/// The moves so far and the errors the engines reported on the way.
struct Played {
    moves: Vec<MoveRecord>,
    complaints: Vec<String>,
}

impl Played {
    /// Keeps an engine's error lines (at most [`MAX_COMPLAINTS`] a game).
    fn note(&mut self, side: Color, lines: Vec<String>) {
        for line in lines {
            if self.complaints.len() < MAX_COMPLAINTS {
                self.complaints.push(format!("{side}: {line}"));
            }
        }
    }
}

/// How many engine error lines a game record keeps.
const MAX_COMPLAINTS: usize = 20;

/// A fault's description with what the engine said since `go`, if
/// anything (an engine that refuses a command explains it this way).
fn explained(what: String, said: &Option<String>) -> String {
    match said {
        Some(said) => format!("{what} (it said `{said}`)"),
        None => what,
    }
}

/// At most `max` characters of an engine's text, for messages.
fn shorten(text: &str, max: usize) -> String {
    let mut s: String = text.chars().take(max).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::match_runner::config::TimeControl;

    #[test]
    fn info_lines() {
        let line = "info depth 12 seldepth 14 multipv 1 score cp -35 nodes 9 pv d6";
        assert_eq!(parse_info(line), (Some(12), Some(EngineScore::Cp(-35))));
        let line = "info depth 3 score mate -2 lowerbound";
        assert_eq!(parse_info(line), (Some(3), Some(EngineScore::Mate(-2))));
        assert_eq!(parse_info("info string hello"), (None, None));
        assert_eq!(parse_info("info score cp x"), (None, None));
    }

    #[test]
    fn go_lines() {
        let limits = Limits {
            tc: Some(TimeControl {
                base_ms: 10_000,
                inc_ms: 100,
            }),
            depth: Some(3),
            ..Limits::default()
        };
        assert_eq!(
            go_line(&limits, &[Some(9000), Some(8000)], &[Some(100), Some(100)]),
            "go wtime 9000 winc 100 btime 8000 binc 100 depth 3"
        );
        let limits = Limits {
            movetime: Some(50),
            ..Limits::default()
        };
        assert_eq!(
            go_line(&limits, &[None, None], &[None, None]),
            "go movetime 50"
        );
    }
}
