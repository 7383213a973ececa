//! The games of `mulino gui`, one per browser tab: each [`Session`] owns
//! an [`Engine`] and its game as move texts (whole turns), with a redo
//! list, the evaluations seen so far, the last hint and the search in
//! progress.
//!
//! A search runs on the engine's thread and writes only into its own
//! [`SearchSlot`] (progress from the reporter, the answer from the done
//! callback); the session reads the slot when a request comes. So the
//! search thread never takes a session's lock, and a request that waits
//! for a search to end cannot deadlock with it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rand::Rng;

use crate::core::{Color, Game, Move, Outcome, Position, Variant};
use crate::engine::{Engine, EngineError, EngineOption, GoParams, SearchEnd};
use crate::search::{Info, Reporter, Score};

/// Sessions kept at once; the least recently used idle one goes first.
pub const MAX_SESSIONS: usize = 32;
/// A search whose page has not asked about it for this long is stopped
/// (the tab was closed while the engine analysed). Browsers may slow a
/// hidden tab's timers to one a minute, hence the margin.
pub const ABANDONED: Duration = Duration::from_secs(90);
/// Each session's transposition table, in MB (many tabs may be open).
const HASH_MB: &str = "16";
/// The longest thinking time a page may ask for, in ms.
pub const MAX_MOVETIME_MS: u64 = 600_000;
/// A hint's budget: the engine at full strength searches this many nodes
/// from an empty hash table, so that the same position gets the same
/// hint every time, on any machine (a clock would not). About a quarter
/// of a second natively and half a second in WebAssembly
/// (docs/performance.md, "The board as static files").
pub const HINT_NODES: u64 = 1_000_000;

/// Everything a session refuses; none of these changes the game.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("`{text}` is not a move: {reason}")]
    BadMove { text: String, reason: String },
    #[error("`{text}` is not legal here: {reason}")]
    Illegal { text: String, reason: String },
    #[error("the game is over ({0})")]
    GameOver(String),
    #[error("unknown variant `{0}` (one of: {names})", names = Variant::NAMES.join(", "))]
    UnknownVariant(String),
    #[error("bad FEN: {0}")]
    BadFen(String),
    #[error("cannot restore the saved game: {0}")]
    Restore(String),
    #[error("{0}")]
    Engine(#[from] EngineError),
}

/// Why a search runs, which decides what its answer does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The engine plays the move it finds.
    Play,
    /// The move is shown as a hint.
    Hint,
    /// The lines are shown; nothing is played.
    Analyse,
}

impl Purpose {
    pub fn name(self) -> &'static str {
        match self {
            Purpose::Play => "play",
            Purpose::Hint => "hint",
            Purpose::Analyse => "analyse",
        }
    }

    pub fn from_name(name: &str) -> Option<Purpose> {
        [Purpose::Play, Purpose::Hint, Purpose::Analyse]
            .into_iter()
            .find(|p| p.name() == name)
    }
}

/// What to search for and how hard.
#[derive(Clone, Copy, Debug)]
pub struct SearchRequest {
    pub purpose: Purpose,
    /// Skill Level, 0 to 20.
    pub skill: u8,
    /// Thinking time in ms; `None` (and no `nodes`) searches until `stop`.
    pub movetime: Option<u64>,
    /// A budget in nodes instead of a clock (a hint's).
    pub nodes: Option<u64>,
    pub multipv: usize,
}

impl SearchRequest {
    /// A hint: the best move at full strength within [`HINT_NODES`].
    pub fn hint(multipv: usize) -> SearchRequest {
        SearchRequest {
            purpose: Purpose::Hint,
            skill: 20,
            movetime: None,
            nodes: Some(HINT_NODES),
            multipv,
        }
    }

    /// Whether the search runs until `stop`.
    pub fn is_infinite(&self) -> bool {
        self.movetime.is_none() && self.nodes.is_none()
    }
}

/// An evaluation from White's point of view; the page gets `{"cp": n}`
/// or `{"mate": n}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Eval {
    /// Centipieces (`score cp` in protocol.md).
    Cp(i32),
    /// Moves to a forced win, negative when Black wins.
    Mate(i32),
}

impl Eval {
    fn from_score(score: Score, side: Color) -> Eval {
        let sign = if side == Color::White { 1 } else { -1 };
        match score {
            Score::Cp(cp) => Eval::Cp(sign * cp),
            Score::Mate(n) => Eval::Mate(sign * n),
        }
    }
}

/// The shares of a score of `side` (to move) as White's win, the draw and
/// Black's win, per mille.
fn white_wdl(score: Score, side: Color) -> [u16; 3] {
    let w = crate::search::wdl::wdl_of(score);
    match side {
        Color::White => [w.win, w.draw, w.loss],
        Color::Black => [w.loss, w.draw, w.win],
    }
}

/// Who plays a turn and its full-move number, as the rules core counts
/// them (a rule may give one side two turns in a row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub side: Color,
    pub fullmove: u16,
}

/// One principal variation as last reported.
#[derive(Clone, Debug)]
pub struct Line {
    pub depth: u32,
    pub eval: Eval,
    /// The score as White's win, the draw and Black's win, per mille
    /// (`search::wdl`, as `UCI_ShowWDL` gives it).
    pub wdl: [u16; 3],
    pub pv: Vec<Move>,
}

/// What a running search shares with its session.
#[derive(Default)]
pub struct SearchSlot {
    /// The latest line of each MultiPV rank (index 0 is the best).
    pub lines: Vec<Line>,
    pub nodes: u64,
    /// The answer, once the search has ended.
    end: Option<Option<Move>>,
    /// The side to move at the root, for White's point of view.
    side: Option<Color>,
}

/// Fills a [`SearchSlot`] from the search's reports.
struct SlotReporter(Arc<Mutex<SearchSlot>>);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Reporter for SlotReporter {
    fn info(&self, info: &Info) {
        let mut slot = lock(&self.0);
        let side = slot.side.unwrap_or(Color::White);
        let rank = info.multipv.max(1) - 1;
        let line = Line {
            depth: info.depth,
            eval: Eval::from_score(info.score, side),
            wdl: white_wdl(info.score, side),
            pv: info.pv.clone(),
        };
        // Each rank keeps its line until the new iteration reaches it, so
        // a search stopped midway still shows every line.
        if rank < slot.lines.len() {
            slot.lines[rank] = line;
        } else if rank == slot.lines.len() {
            slot.lines.push(line);
        }
        slot.nodes = info.nodes;
    }

    fn currmove(&self, _: u32, _: Move, _: usize) {}
}

/// The search in progress.
pub struct Running {
    pub request: SearchRequest,
    /// The number of moves played when it started.
    pub ply: usize,
    pub started: Instant,
    pub slot: Arc<Mutex<SearchSlot>>,
}

/// The lines of the last finished hint or analysis, for display.
#[derive(Clone, Debug)]
pub struct Finished {
    pub purpose: Purpose,
    pub ply: usize,
    pub lines: Vec<Line>,
    pub best: Option<Move>,
}

/// One browser tab's game.
pub struct Session {
    engine: Engine,
    variant: Variant,
    /// The set-up position (`None`: the variant's start).
    start_fen: Option<String>,
    moves: Vec<String>,
    /// Undone moves, the next one to redo last.
    redo: Vec<String>,
    /// The evaluation after each number of moves, when one is known.
    evals: Vec<Option<Eval>>,
    running: Option<Running>,
    finished: Option<Finished>,
    last_seen: Instant,
}

impl Session {
    pub fn new() -> Result<Session, SessionError> {
        let mut engine = Engine::new();
        engine.set(EngineOption::Hash, HASH_MB)?;
        if let Some(tables) = super::tablebase::tables() {
            engine.share_tablebases(tables);
        }
        Ok(Session {
            engine,
            variant: Variant::Nine,
            start_fen: None,
            moves: Vec::new(),
            redo: Vec::new(),
            evals: vec![None],
            running: None,
            finished: None,
            last_seen: Instant::now(),
        })
    }

    /// A session holding a saved game, with the evaluations seen after
    /// each number of its moves (the graph); the page restores itself
    /// with it after a reload or a server restart.
    pub fn restore(
        variant: &str,
        fen: Option<&str>,
        moves: &[String],
        redo: &[String],
        evals: &[Option<Eval>],
    ) -> Result<Session, SessionError> {
        let mut s = Session::new()?;
        s.new_game(Some(variant))?;
        if let Some(f) = fen {
            s.set_fen(f)?;
        }
        s.replay(moves)
            .map_err(|e| SessionError::Restore(e.to_string()))?;
        // Redo moves are kept only while they still replay.
        let mut all = moves.to_vec();
        all.extend(redo.iter().rev().cloned());
        if s.check_replays(&all) {
            s.redo = redo.to_vec();
        }
        // One per position of the game, no more: the rest are the
        // positions of moves that did not replay.
        for (slot, eval) in s.evals.iter_mut().zip(evals) {
            *slot = *eval;
        }
        Ok(s)
    }

    fn check_replays(&self, moves: &[String]) -> bool {
        let start = *self.engine.game().start();
        crate::core::Game::from_moves(
            *self.engine.rules(),
            start,
            moves.iter().map(String::as_str),
        )
        .is_ok()
    }

    pub fn touch(&mut self) {
        self.last_seen = Instant::now();
    }

    pub fn last_seen(&self) -> Instant {
        self.last_seen
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    pub fn start_fen(&self) -> Option<&str> {
        self.start_fen.as_deref()
    }

    pub fn moves(&self) -> &[String] {
        &self.moves
    }

    pub fn redo_moves(&self) -> &[String] {
        &self.redo
    }

    /// The [`Turn`] of each move played, then of each undone move in the
    /// order redo replays them.
    pub fn turns(&self) -> Vec<Turn> {
        let rules = self.engine.rules();
        let mut pos = *self.engine.game().start();
        let mut turns = Vec::new();
        for text in self.moves.iter().chain(self.redo.iter().rev()) {
            turns.push(Turn {
                side: pos.side_to_move(),
                fullmove: pos.fullmove(),
            });
            // Both lists replay (they are kept only while they do).
            match text.parse().map(|m| pos.play(rules, m)) {
                Ok(Ok(next)) => pos = next,
                _ => break,
            }
        }
        turns
    }

    pub fn evals(&self) -> &[Option<Eval>] {
        &self.evals
    }

    pub fn running(&self) -> Option<&Running> {
        self.running.as_ref()
    }

    pub fn finished(&self) -> Option<&Finished> {
        self.finished.as_ref()
    }

    pub fn position(&self) -> &Position {
        self.engine.game().position()
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.engine.game().outcome()
    }

    /// Takes in the answer of a search that has ended: plays the engine's
    /// move, keeps a hint or the analysis, records the evaluation.
    pub fn settle(&mut self) {
        let ended = self
            .running
            .as_ref()
            .is_some_and(|r| lock(&r.slot).end.is_some() && !self.engine.is_searching());
        if !ended {
            return;
        }
        let Some(run) = self.running.take() else {
            return;
        };
        self.engine.wait();
        let (best, lines) = {
            let mut slot = lock(&run.slot);
            (slot.end.take().flatten(), std::mem::take(&mut slot.lines))
        };
        if run.ply != self.moves.len() {
            return;
        }
        if let Some(line) = lines.first() {
            self.record_eval(run.ply, line.eval);
        }
        match run.request.purpose {
            Purpose::Play => {
                self.finished = None;
                if let Some(m) = best {
                    // The engine only plays legal moves; should the replay
                    // fail all the same, the game stays as it was.
                    let _ = self.play(&m.to_string());
                }
            }
            Purpose::Hint | Purpose::Analyse => {
                // The move shown is the first of the line shown: a search
                // stopped by its budget within an iteration may answer a
                // move whose line it never reported.
                let best = lines.first().and_then(|l| l.pv.first().copied()).or(best);
                self.finished = Some(Finished {
                    purpose: run.request.purpose,
                    ply: run.ply,
                    lines,
                    best,
                });
            }
        }
    }

    fn record_eval(&mut self, ply: usize, eval: Eval) {
        if self.evals.len() <= ply {
            self.evals.resize(ply + 1, None);
        }
        self.evals[ply] = Some(eval);
    }

    /// Stops the search, if any, and drops its answer (the game is about
    /// to change under it).
    pub fn halt(&mut self) {
        if let Some(run) = self.running.take() {
            self.engine.stop();
            self.engine.wait();
            let slot = lock(&run.slot);
            if let (Some(line), true) = (slot.lines.first(), run.ply == self.moves.len()) {
                let eval = line.eval;
                drop(slot);
                self.record_eval(run.ply, eval);
            }
        }
    }

    /// Asks the search to end now; a playing engine then plays the best
    /// move found so far.
    pub fn stop(&mut self) {
        if self.running.is_some() {
            self.engine.stop();
            self.engine.wait();
        }
        self.settle();
    }

    /// Stops a search whose page has gone away.
    pub fn stop_if_abandoned(&mut self, now: Instant) {
        if self.running.is_some() && now.duration_since(self.last_seen) > ABANDONED {
            self.halt();
        }
    }

    /// Sets the game to the start (or set-up) position plus `moves`;
    /// nothing changes on error.
    fn replay(&mut self, moves: &[String]) -> Result<(), SessionError> {
        let rules = *self.engine.rules();
        let moves = moves.iter().map(String::as_str);
        let game =
            Game::from_text(rules, self.start_fen.as_deref(), moves).map_err(EngineError::from)?;
        self.engine.set_game(game)?;
        // As the rules core writes them (`D6` becomes `d6`), so that redo
        // and the move list compare equal texts.
        self.moves = self
            .engine
            .game()
            .moves()
            .iter()
            .map(Move::to_string)
            .collect();
        self.evals.truncate(self.moves.len() + 1);
        if self.evals.len() < self.moves.len() + 1 {
            self.evals.resize(self.moves.len() + 1, None);
        }
        self.finished = None;
        Ok(())
    }

    /// Plays a whole turn given in our notation (removals in any order).
    pub fn play(&mut self, text: &str) -> Result<(), SessionError> {
        self.halt();
        let text = text.trim();
        let m: Move =
            text.parse()
                .map_err(|e: crate::core::MoveParseError| SessionError::BadMove {
                    text: text.to_string(),
                    reason: e.to_string(),
                })?;
        if let Some(outcome) = self.outcome() {
            return Err(SessionError::GameOver(outcome.describe()));
        }
        let pos = *self.position();
        let legal =
            pos.find_legal(self.engine.rules(), m)
                .ok_or_else(|| SessionError::Illegal {
                    text: text.to_string(),
                    reason: match pos.play(self.engine.rules(), m) {
                        Err(e) => e.to_string(),
                        Ok(_) => "it is not a whole turn (a removal is missing)".to_string(),
                    },
                })?;
        let played = legal.to_string();
        let mut moves = self.moves.clone();
        moves.push(played.clone());
        self.replay(&moves)?;
        if self.redo.last() == Some(&played) {
            self.redo.pop();
        } else {
            self.redo.clear();
        }
        Ok(())
    }

    /// Takes back up to `count` whole turns.
    pub fn undo(&mut self, count: usize) -> Result<(), SessionError> {
        self.halt();
        let keep = self.moves.len().saturating_sub(count);
        let mut moves = self.moves.clone();
        let undone = moves.split_off(keep);
        self.replay(&moves)?;
        self.redo.extend(undone.into_iter().rev());
        Ok(())
    }

    /// Plays again up to `count` undone turns.
    pub fn redo(&mut self, count: usize) -> Result<(), SessionError> {
        self.halt();
        let mut moves = self.moves.clone();
        let mut redo = self.redo.clone();
        for _ in 0..count {
            match redo.pop() {
                Some(m) => moves.push(m),
                None => break,
            }
        }
        self.replay(&moves)?;
        self.redo = redo;
        Ok(())
    }

    /// A new game, of `variant` when given (else the current one).
    pub fn new_game(&mut self, variant: Option<&str>) -> Result<(), SessionError> {
        let variant = match variant {
            Some(name) => name
                .trim()
                .parse::<Variant>()
                .map_err(|_| SessionError::UnknownVariant(name.to_string()))?,
            None => self.variant,
        };
        self.halt();
        self.engine.set(EngineOption::Variant, variant.name())?;
        self.engine.new_game()?;
        self.variant = variant;
        self.start_fen = None;
        self.moves.clear();
        self.redo.clear();
        self.evals = vec![None];
        self.finished = None;
        Ok(())
    }

    /// Plays from `tables` from now on (the page's packed databases).
    pub fn use_tablebases(&mut self, tables: std::sync::Arc<crate::tb::probe::Tablebases>) {
        self.halt();
        self.engine.share_tablebases(tables);
    }

    /// Sets up a position from Sanmill's FEN, under the current variant.
    pub fn set_fen(&mut self, fen: &str) -> Result<(), SessionError> {
        let fen = fen.trim();
        self.halt();
        let start = Position::from_fen(fen, self.engine.rules())
            .map_err(|e| SessionError::BadFen(e.to_string()))?;
        self.engine.set_position(start)?;
        self.start_fen = Some(fen.to_string());
        self.moves.clear();
        self.redo.clear();
        self.evals = vec![None];
        self.finished = None;
        Ok(())
    }

    /// Starts a search (stopping one already running).
    pub fn go(&mut self, request: SearchRequest) -> Result<(), SessionError> {
        self.halt();
        if let Some(outcome) = self.outcome() {
            return Err(SessionError::GameOver(outcome.describe()));
        }
        let skill = request.skill.min(20).to_string();
        self.engine.set(EngineOption::SkillLevel, &skill)?;
        let multipv = request.multipv.clamp(1, 16).to_string();
        self.engine.set(EngineOption::MultiPv, &multipv)?;
        if request.nodes.is_some() {
            // A budget in nodes gives the same answer every time only
            // from the same table: an empty one.
            self.engine.set(EngineOption::ClearHash, "")?;
        }
        let go = GoParams {
            movetime: request.movetime.map(|t| t.clamp(10, MAX_MOVETIME_MS)),
            nodes: request.nodes,
            infinite: request.is_infinite(),
            ..GoParams::default()
        };
        let slot = Arc::new(Mutex::new(SearchSlot {
            side: Some(self.position().side_to_move()),
            ..SearchSlot::default()
        }));
        let reporter = Arc::new(SlotReporter(Arc::clone(&slot)));
        let answer = Arc::clone(&slot);
        let done = Box::new(move |end: SearchEnd| {
            let best = match end {
                SearchEnd::Done(result) => result.best,
                SearchEnd::GameOver(_) => None,
                SearchEnd::Failed { fallback } => fallback,
            };
            lock(&answer).end = Some(best);
        });
        self.finished = None;
        self.engine.go(&go, reporter, done)?;
        self.running = Some(Running {
            request,
            ply: self.moves.len(),
            started: Instant::now(),
            slot,
        });
        Ok(())
    }
}

/// A fresh session id: 128 random bits in hex.
fn new_id() -> String {
    let mut rng = rand::thread_rng();
    format!("{:032x}", rng.r#gen::<u128>())
}

/// Every open session, by id.
#[derive(Default)]
pub struct Sessions {
    map: Mutex<HashMap<String, Arc<Mutex<Session>>>>,
}

impl Sessions {
    pub fn new() -> Sessions {
        Sessions::default()
    }

    /// Adds a session and returns its id, first dropping the least
    /// recently used ones beyond [`MAX_SESSIONS`].
    pub fn insert(&self, session: Session) -> String {
        let id = new_id();
        let evicted = {
            let mut map = lock(&self.map);
            let mut evicted = Vec::new();
            while map.len() >= MAX_SESSIONS {
                let oldest = map
                    .iter()
                    .filter_map(|(k, s)| s.try_lock().ok().map(|s| (s.last_seen(), k.clone())))
                    .min();
                let Some((_, key)) = oldest else { break };
                evicted.extend(map.remove(&key));
            }
            map.insert(id.clone(), Arc::new(Mutex::new(session)));
            evicted
        };
        for s in evicted {
            lock(&s).halt();
        }
        id
    }

    /// The session with this id, if any.
    pub fn get(&self, id: &str) -> Option<Arc<Mutex<Session>>> {
        lock(&self.map).get(id).cloned()
    }

    pub fn len(&self) -> usize {
        lock(&self.map).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every session, as a restarted server would.
    pub fn clear(&self) {
        let all: Vec<_> = lock(&self.map).drain().map(|(_, s)| s).collect();
        for s in all {
            lock(&s).halt();
        }
    }

    /// The search a call has just started, and its session's id, for
    /// the module to run once the call is answered (WebAssembly: a search
    /// runs on the only thread, `src/wasm/api.rs`).
    #[cfg(target_family = "wasm")]
    pub fn take_job(&self) -> Option<(String, crate::engine::Running)> {
        let all: Vec<_> = lock(&self.map)
            .iter()
            .map(|(id, s)| (id.clone(), Arc::clone(s)))
            .collect();
        all.into_iter()
            .find_map(|(id, s)| lock(&s).engine().take_job().map(|job| (id, job)))
    }

    /// Stops the searches of sessions whose pages have gone quiet.
    pub fn sweep(&self) {
        let all: Vec<_> = lock(&self.map).values().cloned().collect();
        let now = Instant::now();
        for s in all {
            lock(&s).stop_if_abandoned(now);
        }
    }
}

/// Locks a session (a poisoned lock still holds a consistent game: every
/// change is made only after its checks pass).
pub fn lock_session(s: &Mutex<Session>) -> MutexGuard<'_, Session> {
    lock(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluations_are_from_whites_point_of_view() {
        assert_eq!(white_wdl(Score::Mate(3), Color::Black), [0, 0, 1000]);
        assert_eq!(white_wdl(Score::Mate(-3), Color::Black), [1000, 0, 0]);
        let [w, d, l] = white_wdl(Score::Cp(500), Color::White);
        assert_eq!(white_wdl(Score::Cp(500), Color::Black), [l, d, w]);
        assert!(w > l && w + d + l == 1000);
        assert_eq!(Eval::from_score(Score::Cp(40), Color::White), Eval::Cp(40));
        assert_eq!(Eval::from_score(Score::Cp(40), Color::Black), Eval::Cp(-40));
        assert_eq!(
            Eval::from_score(Score::Mate(3), Color::Black),
            Eval::Mate(-3)
        );
        assert_eq!(
            Eval::from_score(Score::Mate(-2), Color::Black),
            Eval::Mate(2)
        );
    }

    /// Lines of every rank stay until the next iteration replaces them.
    #[test]
    fn a_new_iteration_keeps_the_other_ranks_until_it_reaches_them() {
        let slot = Arc::new(Mutex::new(SearchSlot {
            side: Some(Color::White),
            ..SearchSlot::default()
        }));
        let reporter = SlotReporter(Arc::clone(&slot));
        let info = |depth, multipv, cp| Info {
            depth,
            seldepth: depth,
            multipv,
            score: Score::Cp(cp),
            bound: None,
            nodes: 1,
            nps: 1,
            hashfull: 0,
            tbhits: None,
            time_ms: 0,
            pv: Vec::new(),
        };
        for rank in 1..=3 {
            reporter.info(&info(1, rank, 10 * rank as i32));
        }
        reporter.info(&info(2, 1, 5));
        let lines = &lock(&slot).lines;
        assert_eq!(lines.len(), 3);
        assert_eq!((lines[0].depth, lines[0].eval), (2, Eval::Cp(5)));
        assert_eq!((lines[2].depth, lines[2].eval), (1, Eval::Cp(30)));
    }

    #[test]
    fn purposes_round_trip_through_their_names() {
        for p in [Purpose::Play, Purpose::Hint, Purpose::Analyse] {
            assert_eq!(Purpose::from_name(p.name()), Some(p));
        }
        assert_eq!(Purpose::from_name("dance"), None);
    }
}
