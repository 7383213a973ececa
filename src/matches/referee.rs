//! Plays one game between two engine processes and referees it with the
//! rules core: the clocks, the `position`/`go` exchange, and every way a
//! game can end, an engine's faults included.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use super::config::Config;
use super::dialect::{Reply, go_line, position_line, read_reply};
use super::process::{Failure, Registry};
use super::record::{Fault, GameJob, GameRecord, MoveRecord, Overruns, Termination};
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
            overruns: [Overruns::default(); 2],
        };
        let finish = |played: Played, termination, detail| GameRecord {
            job: job.clone(),
            moves: played.moves,
            complaints: played.complaints,
            overruns: played.overruns,
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
        let fen = job.opening.fen.as_deref();
        let max_turns = 2 * config.max_moves as usize;
        // A step that closed a mill, played without its removal (Sanmill's
        // atomic moves, or any engine that answers so): the turn so far,
        // with the time and search data of its parts.
        let mut partial: Option<MoveRecord> = None;

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
            // A whole turn is over here (no removal owed by a half-played
            // step), so the position is one the databases may hold.
            if let Some(v) = config
                .tb
                .as_ref()
                .and_then(|t| t.verdict(rules, game.position()))
            {
                let termination = Termination::Adjudicated { winner: v.winner };
                return Some(finish(played, termination, v.detail));
            }
            let side = game.position().side_to_move();
            let index = job.engine(side);
            let spec = &config.engines[index];
            let limits = &spec.limits;
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
            let mut turns: Vec<Move> = played.moves.iter().map(|m| m.mv).collect();
            turns.extend(partial.as_ref().map(|p| p.mv));
            let setup = position_line(spec.proto, fen, &turns);
            let go = go_line(spec.proto, limits, &clocks, &incs);
            let sent = Instant::now();
            // One write for both lines: half the wake-ups and system calls.
            engine.send(&format!("{setup}\n{go}"));

            // The clock's limit, the movetime forfeit limit (with the
            // engine's `margin=`) and the hang limit; the earliest rules.
            let margin = spec.margin.map(Duration::from_millis);
            let clock_limit = clocks[side.index()]
                .filter(|_| limits.tc.is_some())
                .map(|ms| Duration::from_millis(ms) + margin.unwrap_or(config.time_margin));
            let movetime_limit = match (limits.tc, limits.movetime, margin) {
                (None, Some(ms), Some(m)) => Some(Duration::from_millis(ms) + m),
                _ => None,
            };
            let flag_limit = clock_limit.or(movetime_limit);
            let hang_limit = match (limits.tc, limits.movetime) {
                (Some(_), _) => None,
                (None, Some(ms)) => Some(Duration::from_millis(ms) + config.grace),
                (None, None) => Some(config.grace),
            };
            let deadline = sent + flag_limit.or(hang_limit).unwrap_or(config.grace);
            let (mut depth, mut score) = (None, None);
            // The engine's last `info string`, to explain a fault.
            let mut said: Option<String> = None;
            let answer = loop {
                match engine.recv(deadline) {
                    Ok((line, at)) => match read_reply(spec.proto, &line, side) {
                        Reply::Info {
                            depth: d,
                            score: s,
                            said: string,
                        } => {
                            if string {
                                said = Some(shorten(&line, 120));
                            }
                            depth = d.or(depth);
                            score = s.or(score);
                        }
                        Reply::Best {
                            depth: d,
                            score: s,
                            mv,
                        } => {
                            depth = d.or(depth);
                            score = s.or(score);
                            break Ok((line, mv, at));
                        }
                        Reply::Other => {}
                    },
                    Err(Failure::Gone(how)) => break Err(Wait::Gone(how)),
                    Err(Failure::Timeout) if flag_limit.is_some() => break Err(Wait::Flag),
                    Err(Failure::Timeout) => break Err(Wait::Silent),
                }
            };
            played.note(side, engine.take_errors());
            let (line, text, at) = match answer {
                Ok(a) => a,
                Err(Wait::Gone(how)) => {
                    return fault(slot, played, Fault::Crash, format!("crashed: {how}"));
                }
                Err(Wait::Flag) => {
                    let what = match clocks[side.index()] {
                        Some(ms) if limits.tc.is_some() => {
                            format!("lost on time: no move within {ms} ms on the clock")
                        }
                        _ => format!(
                            "lost on time: no move within {} ms of `{go}` (overran movetime by more than its margin)",
                            flag_limit.unwrap_or_default().as_millis(),
                        ),
                    };
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
            // A move past its movetime and `--time-margin` is an overrun:
            // counted, and a forfeit only past the engine's `margin=`.
            let allowance = match (limits.tc, limits.movetime) {
                (None, Some(ms)) => Some(Duration::from_millis(ms)),
                _ => None,
            };
            if allowance.is_some_and(|a| elapsed > a + config.time_margin) {
                if let Some(limit) = movetime_limit.filter(|&l| elapsed > l) {
                    let what = format!(
                        "lost on time: took {} ms of a {} ms movetime (margin {} ms)",
                        elapsed.as_millis(),
                        allowance.unwrap_or_default().as_millis(),
                        limit
                            .saturating_sub(allowance.unwrap_or_default())
                            .as_millis()
                    );
                    return fault(slot, played, Fault::TimeForfeit, what);
                }
                played.overruns[side.index()].add(elapsed);
            }
            let mv: Move = match text {
                None => {
                    let what = format!(
                        "gave no move (`{}`) in a game that is not over",
                        shorten(&line, 80)
                    );
                    return fault(slot, played, Fault::MissingMove, explained(what, &said));
                }
                Some(t) => match t.parse() {
                    Ok(m) => m,
                    Err(e) => {
                        let what = format!("sent a malformed move `{}`: {e}", shorten(&t, 40));
                        let what = explained(what, &said);
                        return fault(slot, played, Fault::MalformedMove, what);
                    }
                },
            };
            if let Err(e) = game.play(mv) {
                let what = format!("played an illegal move `{mv}`: {e}");
                return fault(slot, played, Fault::IllegalMove, explained(what, &said));
            }
            // Join a removal to the step it pays for.
            let turn = match partial.take() {
                Some(step) => MoveRecord {
                    mv: mv.removals().fold(step.mv, Move::with_removal),
                    book: false,
                    score: score.or(step.score),
                    depth: depth.or(step.depth),
                    time: step.time + elapsed,
                },
                None => MoveRecord {
                    mv,
                    book: false,
                    score,
                    depth,
                    time: elapsed,
                },
            };
            // A step whose removal its side still owes is half a turn (the
            // removals owed when placing ends open a turn of their own).
            let after = game.position();
            if after.pending_removals() > 0 && after.side_to_move() == side && mv.to().is_some() {
                partial = Some(turn);
            } else {
                played.moves.push(turn);
            }
        }
    }
}

/// The moves so far and the errors the engines reported on the way.
struct Played {
    moves: Vec<MoveRecord>,
    complaints: Vec<String>,
    /// Moves past their movetime, by colour.
    overruns: [Overruns; 2],
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
