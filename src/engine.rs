//! The engine API, which knows nothing of text: options, the current game,
//! `go`/`stop`/`ponderhit` with a background search thread, and perft.
//! The protocol layer, the tools and the tests all drive this.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::core::game::GameError;
use crate::core::perft::{PerftTable, divide};
use crate::core::{FullBoardAction, Game, Move, MoveList, Outcome, Position, Rules, Variant};
use crate::search::{self, Clock, Limits, Reporter, SearchResult, Shared, Tt};

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
    pub searchmoves: Vec<String>,
}

/// What an option looks like to a GUI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
    Button,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
}

const VARIANT_NAMES: &[&str] = &[
    "nine",
    "twelve",
    "morabaraba",
    "russian",
    "lasker",
    "cheng-san-qi",
];

/// Every option, in the order `uci` lists them.
pub fn option_specs() -> Vec<OptionSpec> {
    use OptionKind::*;
    let d = Rules::default();
    let spin = |name, default: i64, min, max| OptionSpec {
        name,
        kind: Spin { default, min, max },
    };
    let check = |name, default| OptionSpec {
        name,
        kind: Check { default },
    };
    vec![
        spin("Hash", 64, 1, 32768),
        OptionSpec {
            name: "Clear Hash",
            kind: Button,
        },
        spin("Threads", 1, 1, 256),
        spin("MultiPV", 1, 1, 256),
        spin("MoveOverhead", 30, 0, 5000),
        check("Ponder", false),
        spin("Skill Level", 20, 0, 20),
        check("ShowCurrMove", false),
        OptionSpec {
            name: "Variant",
            kind: Combo {
                default: "nine",
                vars: VARIANT_NAMES,
            },
        },
        spin("Pieces", d.pieces as i64, 9, 12),
        check("Flying", d.flying),
        spin("FlyPieceCount", d.fly_at as i64, 3, 4),
        check("DiagonalLines", d.diagonals),
        check("MayRemoveFromMillsAlways", d.remove_from_mills_always),
        check("MayRemoveMultiple", d.remove_multiple),
        check("MayMoveInPlacingPhase", d.move_in_placing),
        check("OneTimeUseMill", d.one_time_mills),
        spin("NMoveRule", d.n_move_rule as i64, 0, 10000),
        spin("EndgameNMoveRule", d.endgame_n_move_rule as i64, 0, 10000),
        check("ThreefoldRepetition", d.threefold),
        OptionSpec {
            name: "BoardFullAction",
            kind: Combo {
                default: FullBoardAction::NAMES[0],
                vars: &FullBoardAction::NAMES,
            },
        },
    ]
}

/// Engine settings that are not rules.
#[derive(Clone, Debug)]
pub struct Settings {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: u64,
    pub ponder: bool,
    pub skill: u8,
    pub show_currmove: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            hash_mb: 64,
            threads: 1,
            multipv: 1,
            move_overhead: 30,
            ponder: false,
            skill: 20,
            show_currmove: false,
        }
    }
}

/// Everything the engine can refuse.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("a search is running; send `stop` first")]
    Busy,
    #[error("unknown option `{0}` (`uci` lists them)")]
    UnknownOption(String),
    #[error("option `{name}`: `{value}` is not valid ({expected})")]
    BadOptionValue {
        name: &'static str,
        value: String,
        expected: String,
    },
    #[error("position: {0}")]
    Position(#[from] GameError),
    #[error("{0}")]
    Hash(#[from] search::tt::TtAllocError),
    #[error("searchmoves: `{0}` is not a legal move here")]
    SearchMove(String),
    #[error("cannot start the search thread: {0}")]
    Thread(String),
}

/// The perft answer.
#[derive(Clone, Debug)]
pub struct PerftReport {
    pub divide: Vec<(Move, u64)>,
    pub total: u64,
    pub elapsed: Duration,
}

/// What `go` delivers when the search ends: the result, or the game's
/// outcome when it was already over.
pub enum SearchEnd {
    Done(SearchResult),
    GameOver(Outcome),
}

pub struct Engine {
    rules: Rules,
    game: Game,
    settings: Settings,
    shared: Arc<Shared>,
    search: Mutex<Option<JoinHandle<()>>>,
    searching: Arc<AtomicBool>,
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
            shared: Arc::new(Shared::new(tt)),
            search: Mutex::new(None),
            searching: Arc::new(AtomicBool::new(false)),
        }
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

    fn ensure_idle(&self) -> Result<(), EngineError> {
        if self.is_searching() {
            Err(EngineError::Busy)
        } else {
            Ok(())
        }
    }

    /// Sets an option by its (case-insensitive) name. Rule options reset
    /// the game to the start position of the new rules.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), EngineError> {
        self.ensure_idle()?;
        let spec = option_specs()
            .into_iter()
            .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| EngineError::UnknownOption(name.to_string()))?;
        let raw = value.unwrap_or("").trim();
        let bad = |expected: String| EngineError::BadOptionValue {
            name: spec.name,
            value: raw.to_string(),
            expected,
        };
        let int = match spec.kind {
            OptionKind::Spin { min, max, .. } => {
                let v: i64 = raw
                    .parse()
                    .map_err(|_| bad(format!("an integer from {min} to {max}")))?;
                if v < min || v > max {
                    return Err(bad(format!("an integer from {min} to {max}")));
                }
                v
            }
            _ => 0,
        };
        let flag = match spec.kind {
            OptionKind::Check { .. } => match raw.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(bad("`true` or `false`".into())),
            },
            _ => false,
        };
        let mut rules = self.rules;
        match spec.name {
            "Hash" => {
                let tt = Tt::new(int as usize)?;
                self.shared = Arc::new(Shared::new(tt));
                self.settings.hash_mb = int as usize;
                return Ok(());
            }
            "Clear Hash" => {
                self.shared.tt.clear();
                return Ok(());
            }
            "Threads" => self.settings.threads = int as usize,
            "MultiPV" => self.settings.multipv = int as usize,
            "MoveOverhead" => self.settings.move_overhead = int as u64,
            "Ponder" => self.settings.ponder = flag,
            "Skill Level" => self.settings.skill = int as u8,
            "ShowCurrMove" => self.settings.show_currmove = flag,
            "Variant" => {
                let v: Variant = raw
                    .parse()
                    .map_err(|_| bad(format!("one of {}", VARIANT_NAMES.join(", "))))?;
                rules = v.rules();
            }
            "Pieces" => rules.pieces = int as u8,
            "Flying" => rules.flying = flag,
            "FlyPieceCount" => rules.fly_at = int as u8,
            "DiagonalLines" => rules.diagonals = flag,
            "MayRemoveFromMillsAlways" => rules.remove_from_mills_always = flag,
            "MayRemoveMultiple" => rules.remove_multiple = flag,
            "MayMoveInPlacingPhase" => rules.move_in_placing = flag,
            "OneTimeUseMill" => rules.one_time_mills = flag,
            "NMoveRule" => rules.n_move_rule = int as u16,
            "EndgameNMoveRule" => rules.endgame_n_move_rule = int as u16,
            "ThreefoldRepetition" => rules.threefold = flag,
            "BoardFullAction" => {
                rules.full_board = raw
                    .parse()
                    .map_err(|_| bad(FullBoardAction::NAMES.join(" or ")))?;
            }
            other => return Err(EngineError::UnknownOption(other.to_string())),
        }
        if rules != self.rules {
            self.rules = rules;
            self.game = Game::new(rules);
        }
        Ok(())
    }

    /// Forgets the previous game: clears the table, back to the start.
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.ensure_idle()?;
        self.shared.tt.clear();
        self.game = Game::new(self.rules);
        Ok(())
    }

    /// Sets the position; on error nothing changes.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[String]) -> Result<(), EngineError> {
        self.ensure_idle()?;
        let start = match fen {
            None => Position::startpos(&self.rules),
            Some(f) => Position::from_fen(f, &self.rules).map_err(GameError::from)?,
        };
        self.game = Game::from_moves(self.rules, start, moves.iter().map(String::as_str))?;
        Ok(())
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

    /// Perft from the current position, with a memo table of `Hash` MB.
    pub fn perft(&self, depth: u32) -> Result<PerftReport, EngineError> {
        self.ensure_idle()?;
        let start = Instant::now();
        let mut table = PerftTable::new(self.settings.hash_mb.max(16));
        let divide = divide(self.game.position(), &self.rules, depth, &mut table);
        let total = divide.iter().map(|d| d.1).sum();
        Ok(PerftReport {
            divide,
            total,
            elapsed: start.elapsed(),
        })
    }

    /// Search limits from `go`'s parameters, for the side to move.
    pub fn limits(&self, go: &GoParams) -> Result<Limits, EngineError> {
        let pos = self.game.position();
        let mut searchmoves = Vec::new();
        for text in &go.searchmoves {
            let m = text
                .parse::<Move>()
                .ok()
                .and_then(|m| pos.find_legal(self.rules(), m));
            searchmoves.push(m.ok_or_else(|| EngineError::SearchMove(text.clone()))?);
        }
        let side = pos.side_to_move().index();
        let clock = Clock {
            time_left: go.time[side],
            increment: go.inc[side].unwrap_or(0),
            moves_to_go: go.movestogo,
            movetime: go.movetime,
        };
        let budget = search::time::budget(
            &clock,
            pos.in_hand(pos.side_to_move()) as u32,
            self.settings.move_overhead,
        );
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
        // The previous search thread, if any, has delivered its result and
        // is about to end.
        self.wait();
        let shared = Arc::clone(&self.shared);
        shared.stop.store(false, Relaxed);
        shared.pondering.store(go.ponder, Relaxed);
        let searching = Arc::clone(&self.searching);
        searching.store(true, Relaxed);
        shared.clock_offset_us.store(0, Relaxed);
        let game = self.game.clone();
        let started = Instant::now();
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let result = search::run(&game, &limits, &shared, reporter.as_ref(), started);
                searching.store(false, Relaxed);
                done(SearchEnd::Done(result));
            })
            .map_err(|e| {
                self.searching.store(false, Relaxed);
                EngineError::Thread(e.to_string())
            })?;
        *self.search.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
        Ok(infinite)
    }

    /// Runs a search to the end on a thread of its own and returns it.
    pub fn search_blocking(&self, limits: Limits) -> Result<SearchResult, EngineError> {
        self.ensure_idle()?;
        let shared = &self.shared;
        shared.stop.store(false, Relaxed);
        shared.pondering.store(false, Relaxed);
        shared.clock_offset_us.store(0, Relaxed);
        struct Silent;
        impl Reporter for Silent {
            fn info(&self, _: &search::Info) {}
            fn currmove(&self, _: u32, _: Move, _: usize) {}
        }
        let game = &self.game;
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
        self.shared.pondering.store(false, Relaxed);
        self.shared.stop.store(true, Relaxed);
    }

    /// The opponent played the expected move: the ponder search goes on
    /// as a normal one, its clock starting now.
    pub fn ponderhit(&self, go_started: Instant) {
        let offset = go_started.elapsed().as_micros() as u64;
        self.shared.clock_offset_us.store(offset, Relaxed);
        self.shared.pondering.store(false, Relaxed);
    }

    /// Waits for the running search, if any, to finish.
    pub fn wait(&self) {
        let handle = self.search.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = handle {
            let _ = h.join();
        }
    }
}
