//! The engine API, which knows nothing of the protocols' text: options,
//! the current game (given as a [`Game`] of positions and moves; the
//! protocols make it from their FEN and move texts), `go`/`stop`/
//! `ponderhit` with a background search thread, and perft. An option is
//! set by its name or typed id from its value's text, as the option table
//! reads it. The protocol dialects, the products (matches, the web board)
//! and the tests all drive this.
//!
//! WebAssembly has no threads: there a job (a search or perft) is kept
//! until the host runs it ([`Engine::take_job`]), or until [`Engine::wait`]
//! runs it on the caller's thread; it hears `stop` through
//! [`crate::host::poll`].

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::core::game::GameError;
use crate::core::options::{self, OptionValue};
use crate::core::perft::{Divide, PerftTable, divide};
use crate::core::{Game, Move, MoveList, Outcome, Position, Rules, Variant};
use crate::search::{self, Clock, Limits, Reporter, SearchResult, SearchShared, Tt};
use crate::tb::pack;
use crate::tb::probe::{Notify, Tablebases};
use crate::tb::root::{RootProbe, probe_root};

mod option;

pub use option::{EngineOption, Settings};

/// The limits and modes of one `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub depth: Option<u32>,
    pub movetime: Option<u64>,
    /// Remaining time and increment per side, in ms: `[white, black]`.
    pub time: [Option<u64>; 2],
    pub inc: [Option<u64>; 2],
    pub movestogo: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    /// Root moves to consider (all when empty); each must be legal.
    pub searchmoves: Vec<Move>,
}

/// Everything the engine can refuse.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("a search is running; send `stop` first")]
    Busy,
    #[error("unknown option `{0}` (`uci` lists them)")]
    UnknownOption(String),
    #[error("option `{name}`: {error}")]
    BadOptionValue {
        name: &'static str,
        error: options::BadValue,
    },
    #[error("position: {0}")]
    Position(#[from] GameError),
    #[error("the game is played under other rules than the engine's")]
    OtherRules,
    #[error("{0}")]
    Hash(#[from] search::tt::TtAllocError),
    #[error("searchmoves: `{0}` is not a legal move here")]
    SearchMove(Move),
    #[error("cannot start the search thread: {0}")]
    Thread(String),
    #[error("TablebasePath: {0} (play goes on without those databases)")]
    Tablebases(String),
}

/// The perft answer: every root move's count, or those counted before
/// `stop`.
#[derive(Clone, Debug)]
pub struct PerftReport {
    pub depth: u32,
    pub divide: Divide,
    pub elapsed: Duration,
}

/// What `go` delivers when the search ends: the result, or the game's
/// outcome when it was already over.
pub enum SearchEnd {
    Done(SearchResult),
    GameOver(Outcome),
    /// The search thread panicked (a bug; only where panics unwind, as in
    /// debug builds). `fallback` is a legal move to play all the same.
    Failed {
        fallback: Option<Move>,
    },
}

/// What the engine tells on its own, outside any command's answer (from
/// the background check of the databases).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// A database file is not used, or a probe needed one that is missing.
    TablebaseProblem(String),
    /// Every database file has been checked: how many are in use, and how
    /// many are not.
    TablebasesChecked { usable: usize, refused: usize },
    /// A packed folder is in use: its tables, stored and derived, and
    /// where it is (each index and block is checked as it is first read).
    TablebasesPacked { tables: usize, at: String },
}

/// Where the engine's notices go.
pub type Notifier = Arc<dyn Fn(Notice) + Send + Sync>;

/// What `perft` delivers when it ends.
pub enum PerftEnd {
    Done(PerftReport),
    /// The perft thread panicked (a bug, as for [`SearchEnd::Failed`]).
    Failed,
}

/// A job started and not yet over: natively its thread; on WebAssembly
/// the job itself, until someone runs it.
#[cfg(not(target_family = "wasm"))]
type Running = std::thread::JoinHandle<()>;
#[cfg(target_family = "wasm")]
pub type Running = Box<dyn FnOnce() + Send>;

/// Hands a background job's answer to its callback exactly once, and
/// clears the engine's busy flag first. Dropped without an answer (the
/// job panicked), it delivers `failed`, so a GUI still gets its reply and
/// the engine is free again.
struct Delivery<T> {
    busy: Arc<AtomicBool>,
    done: Option<Box<dyn FnOnce(T) + Send>>,
    failed: Option<T>,
}

impl<T> Delivery<T> {
    fn deliver(mut self, answer: T) {
        self.busy.store(false, Relaxed);
        if let Some(done) = self.done.take() {
            done(answer);
        }
    }
}

impl<T> Drop for Delivery<T> {
    fn drop(&mut self) {
        self.busy.store(false, Relaxed);
        if let (Some(done), Some(failed)) = (self.done.take(), self.failed.take()) {
            done(failed);
        }
    }
}

pub struct Engine {
    rules: Rules,
    game: Game,
    settings: Settings,
    shared: Arc<SearchShared>,
    search: Mutex<Option<Running>>,
    searching: Arc<AtomicBool>,
    /// The databases of `TablebasePath`, when they fit the rules.
    tablebases: Option<Arc<Tablebases>>,
    /// Databases handed in by [`Engine::share_tablebases`], used instead
    /// of opening `TablebasePath`'s own.
    shared_tablebases: Option<Arc<Tablebases>>,
    notifier: Option<Notifier>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        let rules = Rules::default();
        let settings = Settings::default();
        // The default size is small enough that allocation cannot fail in
        // practice; fall back to 1 MB all the same.
        let tt = Tt::new(settings.hash_mb)
            .or_else(|_| Tt::new(1))
            .expect("a 1 MB table");
        Engine {
            rules,
            game: Game::new(rules),
            settings,
            shared: Arc::new(SearchShared::new(tt)),
            search: Mutex::new(None),
            searching: Arc::new(AtomicBool::new(false)),
            tablebases: None,
            shared_tablebases: None,
            notifier: None,
        }
    }

    /// Sends the engine's notices (the databases' background check) to
    /// `notifier`, from whatever thread finds them.
    pub fn set_notifier(&mut self, notifier: Notifier) {
        self.notifier = Some(notifier);
    }

    /// Plays from databases opened (and checked) by someone else, shared
    /// by many engines, instead of opening `TablebasePath` itself; they
    /// are used while they fit the rules.
    pub fn share_tablebases(&mut self, tables: Arc<Tablebases>) {
        self.shared_tablebases = Some(tables);
        let rules = self.rules;
        let _ = self.open_tablebases(&rules);
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Whether a search is running. It ends just before its result is
    /// delivered, so a GUI may send the next command as soon as it reads
    /// `bestmove`.
    pub fn is_searching(&self) -> bool {
        self.searching.load(Relaxed)
    }

    /// `Err(Busy)` while a search or perft runs.
    pub fn ensure_idle(&self) -> Result<(), EngineError> {
        if self.is_searching() {
            Err(EngineError::Busy)
        } else {
            Ok(())
        }
    }

    /// Sets an option by its (case-insensitive) name. Rule options reset
    /// the game to the start position of the new rules.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), EngineError> {
        let id =
            EngineOption::from_name(name).ok_or_else(|| EngineError::UnknownOption(name.into()))?;
        self.set(id, value.unwrap_or(""))
    }

    /// Sets an option from its text value; on error nothing changes.
    pub fn set(&mut self, id: EngineOption, raw: &str) -> Result<(), EngineError> {
        self.ensure_idle()?;
        let bad = |error| EngineError::BadOptionValue {
            name: id.name(),
            error,
        };
        let value = id.kind().parse(raw).map_err(bad)?;
        // The kind checked the range, so the narrowing casts are exact.
        let (int, flag) = match &value {
            OptionValue::Int(v) => (*v, false),
            OptionValue::Bool(b) => (0, *b),
            OptionValue::Choice(_) | OptionValue::Press | OptionValue::Text(_) => (0, false),
        };
        let mut rules = self.rules;
        match id {
            EngineOption::Hash => {
                let tt = Tt::new(int as usize)?;
                self.shared = Arc::new(SearchShared::new(tt));
                self.settings.hash_mb = int as usize;
            }
            EngineOption::ClearHash => self.shared.tt.clear(),
            EngineOption::Threads => self.settings.threads = int as usize,
            EngineOption::MultiPv => self.settings.multipv = int as usize,
            EngineOption::MoveOverhead => self.settings.move_overhead = int as u64,
            EngineOption::Ponder => self.settings.ponder = flag,
            EngineOption::SkillLevel => self.settings.skill = int as u8,
            EngineOption::ShowCurrMove => self.settings.show_currmove = flag,
            EngineOption::ShowWdl => self.settings.show_wdl = flag,
            EngineOption::TablebasePath => {
                if let OptionValue::Text(path) = &value {
                    self.settings.tablebase_path = path.clone();
                }
                // The path is kept even when some files are unusable:
                // the others are used, and the error names the rest.
                let problems = self.open_tablebases(&rules);
                if !problems.is_empty() {
                    return Err(EngineError::Tablebases(problems.join("; ")));
                }
            }
            EngineOption::Variant => {
                let v: Variant = value.to_string().parse().map_err(|_| {
                    bad(options::BadValue {
                        value: raw.trim().to_string(),
                        expected: Variant::NAMES.join(", "),
                    })
                })?;
                self.settings.variant = v;
                rules = v.rules();
            }
            EngineOption::Rule(r) => r.set(&mut rules, raw).map_err(bad)?,
        }
        if rules != self.rules {
            self.rules = rules;
            self.game = Game::new(rules);
            // Databases are only used under the rules they were built for.
            let _ = self.open_tablebases(&rules);
        }
        Ok(())
    }

    /// Points the engine at `TablebasePath` (or the shared databases)
    /// under `rules`; the problems found at once (no directory, no files,
    /// files for other rules or versions). Every file's checksum is then
    /// checked in the background, and a file is used only once it has
    /// passed; the outcome comes as [`Notice`]s.
    fn open_tablebases(&mut self, rules: &Rules) -> Vec<String> {
        self.tablebases = None;
        if let Some(shared) = &self.shared_tablebases {
            let fits = shared.fits(rules) && shared.limits() == crate::tb::NMoveLimits::of(rules);
            if fits {
                self.tablebases = Some(Arc::clone(shared));
            }
            return Vec::new();
        }
        let path = self.settings.tablebase_path.trim();
        if path.is_empty() {
            return Vec::new();
        }
        let notify: Option<Notify> = self.notifier.clone().map(|n| {
            let notify: Notify =
                Arc::new(move |what: &str| n(Notice::TablebaseProblem(what.into())));
            notify
        });
        let opened = if pack::read::is_url(path) {
            match pack::read::url_source(path) {
                Some(source) => Tablebases::for_pack(source, rules, notify),
                None => {
                    return vec![format!(
                        "{path}: a URL needs the engine in WebAssembly, whose host fetches it; \
                         give the folder of the packed databases on disk"
                    )];
                }
            }
        } else if cfg!(target_family = "wasm") {
            return vec![format!(
                "{path}: WebAssembly has no files; give the http:// or https:// URL of a packed folder"
            )];
        } else {
            Tablebases::for_play(std::path::Path::new(path), rules, notify)
        };
        let tables = match opened {
            Ok(t) => Arc::new(t),
            Err(e) => return vec![e.to_string()],
        };
        // Headers now (a file for other rules is named at once); the
        // checksums in the background.
        let (usable, problems) = tables.open_all();
        if usable == 0 {
            return problems;
        }
        let notifier = self.notifier.clone();
        if let Some(pack) = tables.pack() {
            if let Some(n) = &notifier {
                n(Notice::TablebasesPacked {
                    tables: pack.table_count(),
                    at: pack.describe(),
                });
            }
            self.tablebases = Some(tables);
            return problems;
        }
        tables.start_checks(move |usable, refused| {
            if let Some(n) = notifier {
                n(Notice::TablebasesChecked {
                    usable,
                    refused: refused.len(),
                });
            }
        });
        self.tablebases = Some(tables);
        problems
    }

    /// The databases' probe of the current position: its value and, best
    /// first, each legal move's for the side to move (`None` where they do
    /// not hold the position: not the moving phase, or no usable file).
    pub fn tb_probe(&self) -> Result<RootProbe, EngineError> {
        let tb = self.tablebases.as_deref().ok_or_else(|| {
            EngineError::Tablebases("no databases in use (setoption name TablebasePath)".into())
        })?;
        tb.drop_changed_files();
        let pos = self.game.position();
        Ok(tb.fetching(|| probe_root(tb, &self.rules, pos)))
    }

    /// Waits until the background check of the databases in use is over
    /// (at once when there are none).
    pub fn wait_for_tablebases(&self) {
        if let Some(tb) = &self.tablebases {
            tb.wait_for_checks();
        }
    }

    /// Waits until the background check of the databases in use is over,
    /// or `timeout` has passed: whether it is over, and how far it has
    /// come (`None`: no databases in use).
    pub fn wait_for_tablebases_within(
        &self,
        timeout: std::time::Duration,
    ) -> (bool, Option<crate::tb::probe::CheckProgress>) {
        match &self.tablebases {
            None => (true, None),
            Some(tb) => (
                tb.wait_for_checks_within(timeout),
                Some(tb.check_progress()),
            ),
        }
    }

    /// The databases in use, if any.
    pub fn tablebases(&self) -> Option<&Tablebases> {
        self.tablebases.as_deref()
    }

    /// An option's current value (`Press` for a button).
    pub fn option(&self, id: EngineOption) -> OptionValue {
        let s = &self.settings;
        let int = |v: usize| OptionValue::Int(v as i64);
        match id {
            EngineOption::Hash => int(s.hash_mb),
            EngineOption::ClearHash => OptionValue::Press,
            EngineOption::Threads => int(s.threads),
            EngineOption::MultiPv => int(s.multipv),
            EngineOption::MoveOverhead => int(s.move_overhead as usize),
            EngineOption::Ponder => OptionValue::Bool(s.ponder),
            EngineOption::SkillLevel => int(s.skill.into()),
            EngineOption::ShowCurrMove => OptionValue::Bool(s.show_currmove),
            EngineOption::ShowWdl => OptionValue::Bool(s.show_wdl),
            EngineOption::TablebasePath => OptionValue::Text(s.tablebase_path.clone()),
            EngineOption::Variant => OptionValue::Choice(s.variant.name()),
            EngineOption::Rule(r) => r.get(&self.rules),
        }
    }

    /// Forgets the previous game: clears the table, back to the start.
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.ensure_idle()?;
        self.shared.tt.clear();
        self.game = Game::new(self.rules);
        Ok(())
    }

    /// Sets the game to search from: its start, moves and history (for the
    /// draw rules), played under the engine's rules; on error nothing
    /// changes. The protocols make the game from their text
    /// ([`Game::from_text`]).
    pub fn set_game(&mut self, game: Game) -> Result<(), EngineError> {
        self.ensure_idle()?;
        if *game.rules() != self.rules {
            return Err(EngineError::OtherRules);
        }
        self.game = game;
        Ok(())
    }

    /// Sets the position to search from, as a game that starts there.
    pub fn set_position(&mut self, position: Position) -> Result<(), EngineError> {
        self.set_game(Game::from_position(self.rules, position))
    }

    /// The legal whole turns of the current position (none once the game
    /// is over, draws by the game's history included).
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.game.outcome().is_some() {
            return Vec::new();
        }
        let mut list = MoveList::new();
        self.game.position().legal_moves(&self.rules, &mut list);
        list.iter().copied().collect()
    }

    /// Starts perft from the current position on the search thread, with
    /// a memo table of `Hash` MB (at least 16). `stop` ends it early; then
    /// the report lists only the root moves counted in full.
    pub fn perft(
        &self,
        depth: u32,
        done: Box<dyn FnOnce(PerftEnd) + Send>,
    ) -> Result<(), EngineError> {
        let pos = *self.game.position();
        let rules = self.rules;
        let memo_mb = self.settings.hash_mb.max(16);
        let shared = Arc::clone(&self.shared);
        self.spawn(done, PerftEnd::Failed, false, move |delivery| {
            let start = Instant::now();
            let mut table = PerftTable::new(memo_mb);
            let divide = divide(&pos, &rules, depth, &mut table, &shared.stop);
            delivery.deliver(PerftEnd::Done(PerftReport {
                depth,
                divide,
                elapsed: start.elapsed(),
            }));
        })
    }

    /// Runs `job` on the search thread, the engine busy until it delivers
    /// its answer (or `failed`, should it panic).
    fn spawn<T: Send + 'static>(
        &self,
        done: Box<dyn FnOnce(T) + Send>,
        failed: T,
        ponder: bool,
        job: impl FnOnce(Delivery<T>) + Send + 'static,
    ) -> Result<(), EngineError> {
        self.ensure_idle()?;
        // The previous job, if any, has delivered its answer and is about
        // to end.
        self.wait();
        self.shared.begin(ponder);
        self.searching.store(true, Relaxed);
        let delivery = Delivery {
            busy: Arc::clone(&self.searching),
            done: Some(done),
            failed: Some(failed),
        };
        #[cfg(not(target_family = "wasm"))]
        let running = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || job(delivery))
            .map_err(|e| {
                self.searching.store(false, Relaxed);
                EngineError::Thread(e.to_string())
            })?;
        // No threads: the host runs the job when the command that started
        // it has returned (or `wait` runs it).
        #[cfg(target_family = "wasm")]
        let running: Running = Box::new(move || job(delivery));
        *self.search.lock().unwrap_or_else(|e| e.into_inner()) = Some(running);
        Ok(())
    }

    /// Search limits from `go`'s parameters, for the side to move.
    pub fn limits(&self, go: &GoParams) -> Result<Limits, EngineError> {
        let pos = self.game.position();
        let searchmoves = go
            .searchmoves
            .iter()
            .map(|&m| {
                pos.find_legal(self.rules(), m)
                    .ok_or(EngineError::SearchMove(m))
            })
            .collect::<Result<Vec<Move>, EngineError>>()?;
        let side = pos.side_to_move().index();
        let clock = Clock {
            time_left: go.time[side],
            increment: go.inc[side].unwrap_or(0),
            moves_to_go: go.movestogo,
            movetime: go.movetime,
        };
        // With databases for these rules the moving phase costs next to
        // nothing, so the placing phase may take more of the clock.
        let phases = search::time::Phases::placing(
            self.rules.pieces as u32,
            pos.in_hand(pos.side_to_move()) as u32,
            self.tablebases.is_some(),
        );
        let budget = search::time::budget(&clock, phases, self.settings.move_overhead);
        let no_limit =
            go.depth.is_none() && go.nodes.is_none() && go.mate.is_none() && budget.is_none();
        // An infinite search runs until `stop`, whatever else `go` said.
        let infinite = go.infinite || no_limit;
        Ok(Limits {
            depth: go.depth,
            nodes: go.nodes.filter(|_| !infinite),
            mate: go.mate,
            budget: budget.filter(|_| !infinite),
            infinite,
            searchmoves,
            multipv: self.settings.multipv,
            skill: self.settings.skill,
            threads: self.settings.threads,
            currmove: self.settings.show_currmove,
            seed: None,
            tablebases: self.tablebases.clone(),
        })
    }

    /// Starts a search on its own thread. `reporter` receives progress,
    /// `done` the result (exactly once). Returns whether the search is
    /// infinite (it answers only after `stop`).
    pub fn go(
        &self,
        go: &GoParams,
        reporter: Arc<dyn Reporter + Send>,
        done: Box<dyn FnOnce(SearchEnd) + Send>,
    ) -> Result<bool, EngineError> {
        self.ensure_idle()?;
        let limits = self.limits(go)?;
        let infinite = limits.infinite;
        if let Some(outcome) = self.game.outcome() {
            done(SearchEnd::GameOver(outcome));
            return Ok(false);
        }
        let fallback = self.legal_moves().first().copied();
        let shared = Arc::clone(&self.shared);
        let game = self.game.clone();
        let started = Instant::now();
        self.spawn(
            done,
            SearchEnd::Failed { fallback },
            go.ponder,
            move |delivery| {
                let result = search::run(&game, &limits, &shared, reporter.as_ref(), started);
                delivery.deliver(SearchEnd::Done(result));
            },
        )?;
        Ok(infinite)
    }

    /// Runs a search to the end on a thread of its own (on WebAssembly, on
    /// this one) and returns it.
    pub fn search_blocking(&self, limits: Limits) -> Result<SearchResult, EngineError> {
        self.ensure_idle()?;
        let shared = &self.shared;
        shared.begin(false);
        struct Silent;
        impl Reporter for Silent {
            fn info(&self, _: &search::Info) {}
            fn currmove(&self, _: u32, _: Move, _: usize) {}
        }
        let game = &self.game;
        if cfg!(target_family = "wasm") {
            return Ok(search::run(game, &limits, shared, &Silent, Instant::now()));
        }
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn_scoped(s, || {
                    search::run(game, &limits, shared, &Silent, Instant::now())
                })
                .map_err(|e| EngineError::Thread(e.to_string()))?
                .join()
                .map_err(|_| EngineError::Thread("the search thread failed".into()))
        })
    }

    /// Asks a running search to stop (it answers within milliseconds).
    pub fn stop(&self) {
        self.shared.stop();
    }

    /// The opponent played the expected move: the ponder search goes on
    /// as a normal one, its clock starting now.
    pub fn ponderhit(&self, go_started: Instant) {
        self.shared.ponder_hit(go_started.elapsed());
    }

    /// Waits for the running search, if any, to finish (on WebAssembly:
    /// runs it to the end here).
    pub fn wait(&self) {
        let running = self.search.lock().unwrap_or_else(|e| e.into_inner()).take();
        #[cfg(not(target_family = "wasm"))]
        if let Some(handle) = running {
            let _ = handle.join();
        }
        #[cfg(target_family = "wasm")]
        if let Some(job) = running {
            job();
        }
    }

    /// The job started and not yet run, for the host to run when it no
    /// longer holds the engine (WebAssembly: it then hears the lines that
    /// come meanwhile through [`crate::host::poll`]).
    #[cfg(target_family = "wasm")]
    pub fn take_job(&self) -> Option<Running> {
        self.search.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::OptionKind;

    /// The values to try for an option: every value of a check or combo,
    /// the ends and the default of a spin (`Hash` stops at 64 MB: its
    /// maximum would really allocate 32 GB).
    fn samples(option: EngineOption) -> Vec<OptionValue> {
        match option.kind() {
            OptionKind::Spin { default, min, max } => {
                let max = if option == EngineOption::Hash {
                    64
                } else {
                    max
                };
                vec![min, default, max, min]
                    .into_iter()
                    .map(OptionValue::Int)
                    .collect()
            }
            OptionKind::Check { .. } => vec![OptionValue::Bool(true), OptionValue::Bool(false)],
            OptionKind::Combo { vars, .. } => vars.iter().map(|v| OptionValue::Choice(v)).collect(),
            OptionKind::Button => vec![OptionValue::Press],
            OptionKind::Text { .. } => vec![OptionValue::Text(String::new())],
        }
    }

    #[test]
    fn every_listed_option_sets_and_reads_back() {
        let mut engine = Engine::new();
        for option in EngineOption::all() {
            assert_eq!(
                Engine::new().option(option),
                option.kind().default_value(),
                "{} starts at its listed default",
                option.name()
            );
            for value in samples(option) {
                engine
                    .set_option(option.name(), Some(&value.to_string()))
                    .unwrap_or_else(|e| panic!("{} = {value}: {e}", option.name()));
                assert_eq!(engine.option(option), value, "{}", option.name());
            }
        }
    }

    #[test]
    fn a_refused_value_changes_nothing() {
        let mut engine = Engine::new();
        engine.set_option("Variant", Some("lasker")).unwrap();
        let rules = *engine.rules();
        for (name, value) in [
            ("Variant", "chess"),
            ("Pieces", "13"),
            ("Hash", "0"),
            ("Threads", "x"),
            ("BoardFullAction", "nobody"),
            ("Nonsense", "1"),
        ] {
            match engine.set_option(name, Some(value)) {
                Err(EngineError::UnknownOption(unknown)) => assert_eq!(unknown, "Nonsense"),
                Err(EngineError::BadOptionValue {
                    name: refused,
                    error,
                }) => {
                    assert_eq!(refused, name);
                    assert_eq!(error.value, value);
                }
                other => panic!("{name}={value}: {other:?}"),
            }
            assert_eq!(engine.rules(), &rules);
            assert_eq!(
                engine.option(EngineOption::Variant),
                OptionValue::Choice("lasker")
            );
            assert_eq!(engine.option(EngineOption::Hash), OptionValue::Int(64));
        }
    }

    /// A search thread that panics (here through its reporter) still
    /// answers once, with a legal move, and leaves the engine free.
    #[test]
    #[cfg(panic = "unwind")]
    fn a_panicking_search_answers_and_frees_the_engine() {
        struct Boom;
        impl Reporter for Boom {
            fn info(&self, _: &search::Info) {
                panic!("a reporter failure, as this test intends");
            }
            fn currmove(&self, _: u32, _: Move, _: usize) {}
        }
        let engine = Engine::new();
        let (tx, rx) = std::sync::mpsc::channel();
        let go = GoParams {
            depth: Some(3),
            ..GoParams::default()
        };
        let done = Box::new(move |end| {
            let _ = tx.send(end);
        });
        engine.go(&go, Arc::new(Boom), done).unwrap();
        let end = rx.recv_timeout(Duration::from_secs(60)).expect("an answer");
        let SearchEnd::Failed { fallback: Some(m) } = end else {
            panic!("expected a failed search with a fallback move");
        };
        assert!(engine.legal_moves().contains(&m));
        assert!(rx.try_recv().is_err(), "one answer only");
        engine.wait();
        assert!(!engine.is_searching());
        // The engine searches normally afterwards.
        let limits = engine.limits(&go).unwrap();
        assert!(engine.search_blocking(limits).unwrap().best.is_some());
    }
}
