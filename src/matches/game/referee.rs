//! Plays one game between two engine processes and referees it with the
//! rules core: the clocks, the `position`/`go` exchange, and every way a
//! game can end, an engine's faults included. The game loop only asks
//! the engines, checks their answers and applies the rules; what the game
//! leaves behind is kept by a [`GameRecorder`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::record::{Fault, GameJob, NotCounted, Played, Termination};
use super::recorder::{GameRecorder, Search};
use crate::core::{Color, Game, Move};
use crate::matches::config::Config;
use crate::matches::engine::dialect::{Disagreement, Reply};
use crate::matches::engine::process::{EngineProcess, Failure};
use crate::matches::engine::slot::{Slot, StartError};
use crate::matches::engine::spec::EngineSpec;

/// What a worker needs besides its slot.
pub struct Referee<'a> {
    pub config: &'a Config,
    pub names: &'a [String],
    /// Set when the match is over (SPRT decided or an error): games in
    /// progress are abandoned.
    pub stop: &'a AtomicBool,
}

/// Why a game could not start: an engine that did not (a forfeit, with
/// what happened), or one that does not play the referee's rules (the
/// game is not counted).
enum Unready {
    Forfeit(Fault, String),
    Rules(String),
}

impl From<StartError> for Unready {
    fn from(e: StartError) -> Unready {
        match e {
            StartError::Crashed(detail) => Unready::Forfeit(Fault::Crash, detail),
            StartError::Silent(detail) => Unready::Forfeit(Fault::Hang, detail),
        }
    }
}

/// How the wait for `bestmove` ended badly.
enum Wait {
    Gone(String),
    /// The clock ran out (time forfeit).
    Flag,
    /// No answer within the grace period (hang).
    Silent,
}

/// An engine's forfeit of the game: the fault, and what it did (a phrase
/// that follows its name).
struct Forfeit {
    fault: Fault,
    what: String,
}

impl Forfeit {
    fn new(fault: Fault, what: String) -> Forfeit {
        Forfeit { fault, what }
    }

    fn crashed(how: &str) -> Forfeit {
        Forfeit::new(Fault::Crash, format!("crashed: {how}"))
    }
}

/// The clocks by colour (`Color::index`), for the sides with a time
/// control: the milliseconds left and the increment.
struct Clocks {
    left: [Option<u64>; 2],
    inc: [Option<u64>; 2],
}

impl Clocks {
    fn new(config: &Config, job: &GameJob) -> Clocks {
        let tc = |side: Color| config.engines[job.engine(side)].limits.tc;
        Clocks {
            left: Color::ALL.map(|c| tc(c).map(|t| t.base_ms)),
            inc: Color::ALL.map(|c| tc(c).map(|t| t.inc_ms)),
        }
    }
}

/// How long one answer to `go` may take.
struct TurnLimits {
    /// With a time control: the time on the clock and the margin (the
    /// engine's `margin=`, else `--time-margin`).
    clock: Option<Duration>,
    /// With a movetime and the engine's `margin=`: the movetime and the
    /// margin, past which a move is forfeited.
    movetime: Option<Duration>,
    /// Without a time control: how long until the engine is judged hung.
    hang: Option<Duration>,
}

impl TurnLimits {
    /// The limits for the engine `spec` with `left` milliseconds on its
    /// clock.
    fn new(config: &Config, spec: &EngineSpec, left: Option<u64>) -> TurnLimits {
        let limits = &spec.limits;
        let margin = spec.margin.map(Duration::from_millis);
        let clock = left
            .filter(|_| limits.tc.is_some())
            .map(|ms| Duration::from_millis(ms) + margin.unwrap_or(config.time_margin));
        let movetime = match (limits.tc, limits.movetime, margin) {
            (None, Some(ms), Some(m)) => Some(Duration::from_millis(ms) + m),
            _ => None,
        };
        let hang = match (limits.tc, limits.movetime) {
            (Some(_), _) => None,
            (None, Some(ms)) => Some(Duration::from_millis(ms) + config.grace),
            (None, None) => Some(config.grace),
        };
        TurnLimits {
            clock,
            movetime,
            hang,
        }
    }

    /// The limit past which the engine loses on time, if any.
    fn flag(&self) -> Option<Duration> {
        self.clock.or(self.movetime)
    }

    /// How long to wait for the answer: the earliest limit rules.
    fn wait(&self, grace: Duration) -> Duration {
        self.flag().or(self.hang).unwrap_or(grace)
    }
}

/// What an engine said while it searched: the last depth and score it
/// gave, and its last `info string`, to explain a fault.
#[derive(Default)]
struct Heard {
    search: Search,
    said: Option<String>,
}

/// An engine's answer to `go`.
struct Answer {
    /// The line that ended the search.
    line: String,
    /// The move's text; `None` when the engine gave no move.
    mv: Option<String>,
    /// When the line arrived.
    at: Instant,
}

impl Referee<'_> {
    /// Plays `job` to the end; `None` if the game was abandoned because
    /// the match stopped.
    pub fn play(&self, job: &GameJob, slot: &mut Slot) -> Option<Played> {
        let mut recorder = GameRecorder::new(job);
        let mut game: Game = job.opening.game(&self.config.rule_set.rules);
        if let Some(tb) = &self.config.tb {
            let value = tb.perfect_winner(game.position());
            recorder.set_opening_value(
                value.map(|winner| Termination::Adjudicated { winner }.result_text()),
            );
        }
        let started = self
            .prepare(job, slot, &mut recorder)
            .and_then(|()| self.agree_on_rules(job, slot, &game));
        match started {
            Ok(()) => {}
            Err((side, Unready::Forfeit(fault, what))) => {
                let termination = Termination::Fault { side, fault };
                let detail = format!("{}: {what}", self.who(job, side));
                return Some(Played::Game(recorder.finish(termination, detail)));
            }
            Err((side, Unready::Rules(what))) => {
                let reason = format!("{} {what}", self.who(job, side));
                return Some(Played::NotCounted(NotCounted {
                    job: job.clone(),
                    reason,
                }));
            }
        }
        let mut clocks = Clocks::new(self.config, job);
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return None;
            }
            if let Some((termination, detail)) = self.ending(&game, &recorder) {
                return Some(Played::Game(recorder.finish(termination, detail)));
            }
            let side = game.position().side_to_move();
            let turn = self.turn(job, slot, &mut game, &mut clocks, &mut recorder);
            if let Err(Forfeit { fault, what }) = turn {
                slot.discard(job.engine(side));
                let detail = format!("{} {what}", self.who(job, side));
                let termination = Termination::Fault { side, fault };
                return Some(Played::Game(recorder.finish(termination, detail)));
            }
        }
    }

    /// Asks each engine whose dialect can say (Sanmill's `statejson`)
    /// whether it plays the referee's rules at the game's first position.
    /// Other dialects say nothing of it: mulino's takes the referee's own
    /// rule options, GBGP knows only its two games.
    fn agree_on_rules(
        &self,
        job: &GameJob,
        slot: &mut Slot,
        game: &Game,
    ) -> Result<(), (Color, Unready)> {
        let config = self.config;
        for side in Color::ALL {
            let index = job.engine(side);
            let dialect = config.engines[index].dialect;
            let Some(engine) = slot.engine(index) else {
                continue;
            };
            let rules = &config.rule_set.rules;
            let timeout = config.init_timeout;
            let unready =
                match dialect.agree_on_rules(engine, rules, &job.opening, game.position(), timeout)
                {
                    Ok(()) => continue,
                    Err(Disagreement::Gone(what)) => {
                        slot.discard(index);
                        Unready::Forfeit(Fault::Crash, what)
                    }
                    Err(Disagreement::Silent(what)) => {
                        slot.discard(index);
                        Unready::Rules(what)
                    }
                    Err(Disagreement::Rules(what)) => Unready::Rules(what),
                };
            return Err((side, unready));
        }
        Ok(())
    }

    /// An engine's name and colour in a game's detail: `new (White)`.
    fn who(&self, job: &GameJob, side: Color) -> String {
        format!("{} ({side})", self.names[job.engine(side)])
    }

    /// Gets both engines ready for a new game; an `Err` names the side
    /// whose engine could not be.
    fn prepare(
        &self,
        job: &GameJob,
        slot: &mut Slot,
        recorder: &mut GameRecorder,
    ) -> Result<(), (Color, Unready)> {
        for side in Color::ALL {
            slot.prepare(job.engine(side))
                .map_err(|e| (side, Unready::from(e)))?;
            if let Some(engine) = slot.engine(job.engine(side)) {
                recorder.note(side, engine.take_errors());
            }
        }
        Ok(())
    }

    /// How the game ends before its next turn, if it does: by the rules,
    /// by `--max-moves`, or by the databases' verdict.
    fn ending(&self, game: &Game, recorder: &GameRecorder) -> Option<(Termination, String)> {
        let config = self.config;
        if let Some(outcome) = game.outcome() {
            return Some((Termination::Rules(outcome), outcome.describe()));
        }
        if config.max_moves > 0 && recorder.turns() >= 2 * config.max_moves as usize {
            let detail = format!("draw: {} moves played", config.max_moves);
            return Some((Termination::MaxMoves, detail));
        }
        // A whole turn is over here (no removal owed by a half-played
        // step), so the position is one the databases may hold.
        let verdict = config
            .tb
            .as_ref()
            .and_then(|t| t.verdict(&config.rule_set.rules, game.position()))?;
        let termination = Termination::Adjudicated {
            winner: verdict.winner,
        };
        Some((termination, verdict.detail))
    }

    /// Plays one move of the side to move: asks its engine, charges its
    /// clock, checks the move with the rules and records it. An `Err` is
    /// the engine's forfeit.
    fn turn(
        &self,
        job: &GameJob,
        slot: &mut Slot,
        game: &mut Game,
        clocks: &mut Clocks,
        recorder: &mut GameRecorder,
    ) -> Result<(), Forfeit> {
        let config = self.config;
        let side = game.position().side_to_move();
        let spec = &config.engines[job.engine(side)];
        let Some(engine) = slot.engine(job.engine(side)) else {
            return Err(Forfeit::new(Fault::Crash, "has no process".into()));
        };
        if let Err(Failure::Gone(how)) = engine.drain() {
            return Err(Forfeit::crashed(&how));
        }
        let fen = job.opening.fen.as_deref();
        let setup = spec.dialect.position_line(fen, &recorder.moves_so_far());
        let go = spec
            .dialect
            .go_line(&spec.limits, &clocks.left, &clocks.inc);
        let sent = Instant::now();
        // One write for both lines: half the wake-ups and system calls.
        engine.send(&format!("{setup}\n{go}"));

        let left = clocks.left[side.index()];
        let limits = TurnLimits::new(config, spec, left);
        let mut heard = Heard::default();
        let deadline = sent + limits.wait(config.grace);
        let answer = wait_for_answer(engine, spec, side, deadline, &limits, &mut heard);
        recorder.note(side, engine.take_errors());
        let answer = answer.map_err(|wait| match wait {
            Wait::Gone(how) => Forfeit::crashed(&how),
            Wait::Flag => Forfeit::new(Fault::TimeForfeit, flag_text(spec, &limits, left, &go)),
            Wait::Silent => {
                let what = format!(
                    "hung: no bestmove within {} ms of `{go}`",
                    limits.hang.unwrap_or(config.grace).as_millis()
                );
                Forfeit::new(Fault::Hang, explained(what, &heard.said))
            }
        })?;
        let elapsed = answer.at.saturating_duration_since(sent);
        self.charge(side, spec, &limits, elapsed, clocks, recorder)?;
        let mv = read_move(&answer, &heard.said)?;
        let before = *game.position();
        if let Err(e) = game.play(mv) {
            let what = format!("played an illegal move `{mv}`: {e}");
            return Err(Forfeit::new(
                Fault::IllegalMove,
                explained(what, &heard.said),
            ));
        }
        let owes_removal = before.is_half_turn(&config.rule_set.rules, mv);
        recorder.add_move(side, mv, heard.search, elapsed, owes_removal);
        Ok(())
    }

    /// Charges `elapsed` to `side`: a loss on time past its clock, else
    /// the clock less the time plus the increment; and a move past its
    /// movetime and `--time-margin` is an overrun, counted, and a
    /// forfeit only past the engine's `margin=`.
    fn charge(
        &self,
        side: Color,
        spec: &EngineSpec,
        limits: &TurnLimits,
        elapsed: Duration,
        clocks: &mut Clocks,
        recorder: &mut GameRecorder,
    ) -> Result<(), Forfeit> {
        let i = side.index();
        if let (Some(left), Some(limit)) = (clocks.left[i], limits.clock) {
            if elapsed > limit {
                let what = format!(
                    "lost on time: took {} ms with {left} ms on the clock",
                    elapsed.as_millis()
                );
                return Err(Forfeit::new(Fault::TimeForfeit, what));
            }
            let inc = clocks.inc[i].unwrap_or(0);
            clocks.left[i] = Some(left.saturating_sub(elapsed.as_millis() as u64) + inc);
        }
        let allowance = match (spec.limits.tc, spec.limits.movetime) {
            (None, Some(ms)) => Some(Duration::from_millis(ms)),
            _ => None,
        };
        if allowance.is_some_and(|a| elapsed > a + self.config.time_margin) {
            if let Some(limit) = limits.movetime.filter(|&l| elapsed > l) {
                let what = format!(
                    "lost on time: took {} ms of a {} ms movetime (margin {} ms)",
                    elapsed.as_millis(),
                    allowance.unwrap_or_default().as_millis(),
                    limit
                        .saturating_sub(allowance.unwrap_or_default())
                        .as_millis()
                );
                return Err(Forfeit::new(Fault::TimeForfeit, what));
            }
            recorder.overrun(side, elapsed);
        }
        Ok(())
    }
}

/// Reads `engine`'s lines until its answer or `deadline`, keeping what it
/// says of its search in `heard`.
fn wait_for_answer(
    engine: &mut EngineProcess,
    spec: &EngineSpec,
    side: Color,
    deadline: Instant,
    limits: &TurnLimits,
    heard: &mut Heard,
) -> Result<Answer, Wait> {
    loop {
        match engine.recv(deadline) {
            Ok((line, at)) => match spec.dialect.read_reply(&line, side) {
                Reply::Info { depth, score, said } => {
                    if said {
                        heard.said = Some(shorten(&line, 120));
                    }
                    heard.search.depth = depth.or(heard.search.depth);
                    heard.search.score = score.or(heard.search.score);
                }
                Reply::Best { depth, score, mv } => {
                    heard.search.depth = depth.or(heard.search.depth);
                    heard.search.score = score.or(heard.search.score);
                    return Ok(Answer { line, mv, at });
                }
                Reply::Other => {}
            },
            Err(Failure::Gone(how)) => return Err(Wait::Gone(how)),
            Err(Failure::Timeout) if limits.flag().is_some() => return Err(Wait::Flag),
            Err(Failure::Timeout) => return Err(Wait::Silent),
        }
    }
}

/// What an engine that let its flag fall did, `left` milliseconds on
/// its clock when it was sent `go`.
fn flag_text(spec: &EngineSpec, limits: &TurnLimits, left: Option<u64>, go: &str) -> String {
    match left {
        Some(ms) if spec.limits.tc.is_some() => {
            format!("lost on time: no move within {ms} ms on the clock")
        }
        _ => format!(
            "lost on time: no move within {} ms of `{go}` (overran movetime by more than its margin)",
            limits.flag().unwrap_or_default().as_millis(),
        ),
    }
}

/// The move in an answer; an `Err` when there is none or it is malformed.
fn read_move(answer: &Answer, said: &Option<String>) -> Result<Move, Forfeit> {
    match &answer.mv {
        None => {
            let what = format!(
                "gave no move (`{}`) in a game that is not over",
                shorten(&answer.line, 80)
            );
            Err(Forfeit::new(Fault::MissingMove, explained(what, said)))
        }
        Some(t) => t.parse().map_err(|e| {
            let what = format!("sent a malformed move `{}`: {e}", shorten(t, 40));
            Forfeit::new(Fault::MalformedMove, explained(what, said))
        }),
    }
}

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
    use crate::core::{Color, Move, Position, Rules, Variant};

    fn after(rules: &Rules, before: &Position, mv: &str) -> (Move, Position) {
        let mv: Move = mv.parse().expect("a move");
        (mv, before.play(rules, mv).expect("legal"))
    }

    #[test]
    fn a_step_that_closes_a_mill_owes_its_removal() {
        let rules = Variant::Nine.rules();
        let mut pos = Position::startpos(&rules);
        for m in ["a7", "a1", "d7", "d1"] {
            pos = after(&rules, &pos, m).1;
        }
        let (step, half) = after(&rules, &pos, "g7");
        assert_eq!(half.pending_removals(), 1);
        assert!(pos.is_half_turn(&rules, step));
        let (whole, done) = after(&rules, &pos, "g7xa1");
        assert_eq!(done.pending_removals(), 0);
        assert!(!pos.is_half_turn(&rules, whole));
    }

    #[test]
    fn the_removals_a_full_board_owes_open_a_turn_of_their_own() {
        // `experimental`: Black's last placement fills the board, and
        // then Black removes first (Sanmill sends `c4`, then `xg7`).
        let rules = Variant::Experimental.rules();
        let fen = "O@OO@O*O/@O@O@@OO/@O@@OO@@ b p p 12 0 11 1 0 0 0 0 0 0 0 0 12";
        let pos = Position::from_fen(fen, &rules).expect("a legal FEN");
        let (step, full) = after(&rules, &pos, "c4");
        assert_eq!(full.side_to_move(), Color::Black);
        assert!(full.pending_removals() > 0);
        assert!(!pos.is_half_turn(&rules, step));
    }
}
