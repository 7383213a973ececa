//! The search: iterative deepening over a principal variation search
//! (negamax alpha-beta) with aspiration windows, a shared transposition
//! table, move ordering, late-move reductions, a quiescence search over
//! mill closures, lazy SMP threads, MultiPV and skill levels.

pub mod eval;
pub mod features;
pub mod ordering;
pub mod params;
pub mod patterns;
mod picker;
mod repetition;
pub mod tablebase;
pub mod time;
pub mod tt;
pub mod wdl;
mod worker;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crate::core::{Game, Move, MoveList, Position, Rules};
use crate::random::SeededRng;
use crate::tb::probe::Tablebases;
use picker::BufferPool;
pub use tablebase::{
    TB_DRAW_BAND, TB_DRAW_SCALE, TB_WIN, draw_scaled, draw_window, tb_score, tb_value_score,
    value_keeping_moves,
};
pub use time::{Budget, Clock};
pub use tt::{Bound, Tt};
use worker::Worker;

/// A win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are wins or losses found by the search.
pub const MATE_BOUND: i32 = MATE - 1_000;
pub const INFINITY: i32 = 31_000;
/// The deepest ply the search reaches.
pub const MAX_PLY: usize = 128;

/// `nodes` over `elapsed`, in nodes per second, from the time in
/// microseconds: 0 when not even a microsecond passed, never a figure for
/// a time that did not pass.
pub fn nodes_per_second(nodes: u64, elapsed: Duration) -> u64 {
    match elapsed.as_micros() {
        0 => 0,
        us => u64::try_from(nodes as u128 * 1_000_000 / us).unwrap_or(u64::MAX),
    }
}

/// A score as the protocol reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipieces (100 = one piece), side to move's view.
    Cp(i32),
    /// Moves (not plies) to a forced win; negative when losing.
    Mate(i32),
}

impl Score {
    pub fn from_internal(s: i32) -> Score {
        if s >= MATE_BOUND {
            Score::Mate((MATE - s + 1) / 2)
        } else if s <= -MATE_BOUND {
            Score::Mate(-((MATE + s + 1) / 2))
        } else {
            Score::Cp(s)
        }
    }
}

/// What to search and for how long.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Stop once a win in this many moves is found.
    pub mate: Option<u32>,
    pub budget: Option<Budget>,
    /// Run until `stop` (or `ponderhit` ends the pondering).
    pub infinite: bool,
    /// Root moves to consider (all when empty).
    pub searchmoves: Vec<Move>,
    pub multipv: usize,
    /// 0..=20; 20 is full strength.
    pub skill: u8,
    pub threads: usize,
    /// Report `currmove` lines.
    pub currmove: bool,
    /// Seed for the skill level's random choice (none: from entropy).
    pub seed: Option<u64>,
    /// Endgame databases to probe (for these rules), if any.
    pub tablebases: Option<Arc<Tablebases>>,
}

impl Limits {
    /// One line, full strength, one thread and a fixed seed, with no
    /// bound yet: what a tool that wants a search's result to depend on
    /// the position alone starts from (add the depth or the nodes).
    pub fn reproducible() -> Limits {
        Limits {
            multipv: 1,
            skill: 20,
            threads: 1,
            seed: Some(0),
            ..Limits::default()
        }
    }
}

/// One completed iteration of one PV line.
#[derive(Clone, Debug)]
pub struct Info {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: usize,
    pub score: Score,
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    /// Database probes that answered, when databases are in use.
    pub tbhits: Option<u64>,
    pub time_ms: u64,
    pub pv: Vec<Move>,
}

/// Receives the search's progress; the protocol layer turns it into text.
pub trait Reporter: Sync {
    fn info(&self, info: &Info);
    fn currmove(&self, depth: u32, mv: Move, number: usize);
}

/// The search's answer.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
    /// The root lines of the last completed iteration, best first, with
    /// their scores (as many as MultiPV asked for).
    pub lines: Vec<(Move, i32)>,
}

/// State the engine shares with a running search.
pub struct SearchShared {
    pub tt: Tt,
    pub stop: AtomicBool,
    /// Microseconds after `go` at which the clock started (moved by
    /// `ponderhit`), or [`PONDERING`] while the search ponders. One atomic
    /// holds both, so no reader can see the pondering end with the old
    /// offset, whatever the memory ordering.
    clock_start_us: AtomicU64,
    pub nodes: AtomicU64,
    /// Database probes that answered in this search.
    pub tbhits: AtomicU64,
}

/// The value of `clock_start_us` while pondering: the clock has not started.
const PONDERING: u64 = u64::MAX;

impl SearchShared {
    pub fn new(tt: Tt) -> SearchShared {
        SearchShared {
            tt,
            stop: AtomicBool::new(false),
            clock_start_us: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            tbhits: AtomicU64::new(0),
        }
    }

    /// Before a search: not stopped, the clock running from `go` unless
    /// the search ponders.
    pub fn begin(&self, ponder: bool) {
        self.stop.store(false, Relaxed);
        let start = if ponder { PONDERING } else { 0 };
        self.clock_start_us.store(start, Relaxed);
    }

    /// `ponderhit`: the pondering ends and the clock starts `since_go`
    /// after `go`, in one store.
    pub fn ponder_hit(&self, since_go: Duration) {
        let us = u64::try_from(since_go.as_micros()).unwrap_or(PONDERING - 1);
        self.clock_start_us.store(us.min(PONDERING - 1), Relaxed);
    }

    /// `stop`: the pondering (if any) ends, and the search stops.
    pub fn stop(&self) {
        let _ = self
            .clock_start_us
            .compare_exchange(PONDERING, 0, Relaxed, Relaxed);
        self.stop.store(true, Relaxed);
    }

    pub fn is_pondering(&self) -> bool {
        self.clock_start_us.load(Relaxed) == PONDERING
    }

    /// When the clock started, after `go`; `None` while pondering.
    pub fn clock_start(&self) -> Option<Duration> {
        let us = self.clock_start_us.load(Relaxed);
        (us != PONDERING).then(|| Duration::from_micros(us))
    }
}

/// Skill levels below 20 search at most this deep.
pub fn skill_depth(level: u8) -> Option<u32> {
    (level < 20).then(|| 1 + level as u32 / 2)
}

/// Skill levels below 20 pick at random among moves this close to the best (cp).
pub fn skill_margin(level: u8) -> i32 {
    (20 - level.min(20) as i32) * 12
}

/// Runs a search on the calling thread (helpers on scoped threads) and
/// returns its answer. `started` is when `go` arrived.
pub fn run(
    game: &Game,
    limits: &Limits,
    shared: &SearchShared,
    reporter: &dyn Reporter,
    started: Instant,
) -> SearchResult {
    let rules: Rules = *game.rules();
    let root = *game.position();
    shared.nodes.store(0, Relaxed);
    shared.tbhits.store(0, Relaxed);
    shared.tt.new_search();
    let root_moves = match root_moves(&rules, &root, limits, shared, reporter, started) {
        Ok(moves) => moves,
        Err(answer) => return answer,
    };
    if root_moves.is_empty() {
        return SearchResult {
            best: None,
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            lines: Vec::new(),
        };
    }
    let mut limits = limits.clone();
    if limits.skill < 20 {
        limits.depth = match (limits.depth, skill_depth(limits.skill)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        limits.multipv = limits.multipv.max(4);
    }
    if limits.mate.is_some() && limits.depth.is_none() {
        limits.depth = limits.mate.map(|n| 2 * n + 1);
    }
    // A forced move under a clock is played at once.
    let timed = limits.budget.is_some() && !limits.infinite;
    if root_moves.len() == 1 && timed && !shared.is_pondering() {
        let best = root_moves[0];
        return SearchResult {
            best: Some(best),
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            lines: Vec::new(),
        };
    }
    let threads = limits.threads.max(1);
    let history = game.history();
    let result = std::thread::scope(|scope| {
        for id in 1..threads {
            let limits = &limits;
            let root_moves = &root_moves;
            let builder = std::thread::Builder::new().stack_size(32 << 20);
            let _ = builder.spawn_scoped(scope, move || {
                let pool = BufferPool::default();
                let mut w = Worker::new(id, rules, shared, limits, history, started, &pool);
                w.iterate(&root, root_moves, None);
            });
        }
        let pool = BufferPool::default();
        let mut main = Worker::new(0, rules, shared, &limits, history, started, &pool);
        let r = main.iterate(&root, &root_moves, Some(reporter));
        // Infinite and ponder searches answer only after `stop` (or
        // `ponderhit`, which turns pondering off).
        while (limits.infinite || shared.is_pondering()) && !shared.stop.load(Relaxed) {
            if cfg!(target_family = "wasm") {
                // The only thread: wait for the host's next lines.
                crate::host::poll(100);
            } else {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        shared.stop.store(true, Relaxed);
        r
    });
    let mut result = result;
    if limits.skill < 20 {
        result.best = pick_weaker(&result, &limits).or(result.best);
        result.ponder = None;
    }
    result
}

/// The root moves to search: the legal ones (of `searchmoves`, if given)
/// and, with the root in the databases, only those that keep its value
/// (a weaker level keeps its own choice while placing: the databases
/// would play it perfectly from the first move). `Err` with the answer
/// when the databases decide the root and the search has nothing to add.
fn root_moves(
    rules: &Rules,
    root: &Position,
    limits: &Limits,
    shared: &SearchShared,
    reporter: &dyn Reporter,
    started: Instant,
) -> Result<Vec<Move>, SearchResult> {
    let mut list = MoveList::new();
    root.legal_moves(rules, &mut list);
    let mut moves: Vec<Move> = list.iter().copied().collect();
    if !limits.searchmoves.is_empty() {
        moves.retain(|m| limits.searchmoves.contains(m));
    }
    let weaker_placing = limits.skill < 20 && root.is_placing();
    if let Some(tb) = limits.tablebases.as_deref().filter(|_| !weaker_placing) {
        // A file changed on disk since the last search is dropped before
        // it is read again.
        tb.drop_changed_files();
        if let Some(keep) = value_keeping_moves(tb, rules, root, &moves) {
            moves = keep;
            let answer =
                tablebase::decided_at_once(tb, root, &moves, limits, shared, reporter, started);
            if let Some(r) = answer {
                return Err(r);
            }
        }
    }
    Ok(moves)
}

fn pick_weaker(result: &SearchResult, limits: &Limits) -> Option<Move> {
    let best_score = result.lines.first().map(|l| l.1)?;
    let margin = skill_margin(limits.skill);
    let candidates: Vec<Move> = result
        .lines
        .iter()
        .filter(|l| l.1 >= best_score - margin)
        .map(|l| l.0)
        .collect();
    let mut rng = limits.seed.map_or_else(SeededRng::unseeded, SeededRng::new);
    rng.choose(&candidates).copied().or(result.best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_per_second_counts_only_the_time_that_passed() {
        assert_eq!(nodes_per_second(22, Duration::ZERO), 0);
        assert_eq!(nodes_per_second(22, Duration::from_micros(40)), 550_000);
        assert_eq!(nodes_per_second(1000, Duration::from_secs(1)), 1000);
        assert_eq!(
            nodes_per_second(u64::MAX, Duration::from_nanos(1500)),
            u64::MAX
        );
    }
}
