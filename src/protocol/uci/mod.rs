//! Our dialect, the UCI-style text protocol: a session that parses lines
//! into [`Command`]s, drives the [`Engine`] and prints the replies.
//!
//! Commands are carried out in the order they came, as Stockfish does: a
//! search or perft runs on its own thread, and a command that needs the
//! engine idle (`position`, `go`, `setoption`, ...) waits in a queue until
//! it has ended, with every line after it. `isready` is answered, and
//! `stop` and `ponderhit` taken, at once, whatever waits (protocol.md, §1,
//! has the rules).

pub mod command;
pub mod help;
pub mod output;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

pub use command::{Command, CommandError, GoParams, StartSpec};

use crate::core::{Game, Move};
use crate::engine::{Engine, EngineError, EngineOption, PerftEnd, SearchEnd};
use crate::protocol::line::{Dialect, Event, Flow, Out, Wake};
use crate::search::{Info, Reporter};

/// Why a line was refused: it changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("input contains a NUL byte")]
    Nul,
    #[error(transparent)]
    Command(#[from] CommandError),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Prints a search's lines; the flag is `UCI_ShowWDL` as the search
/// started.
struct LineReporter(Out, bool);

impl Reporter for LineReporter {
    fn info(&self, info: &Info) {
        self.0.line(&output::info_line(info, self.1));
    }
    fn currmove(&self, depth: u32, mv: Move, number: usize) {
        self.0.line(&format!(
            "info depth {depth} currmove {mv} currmovenumber {number}"
        ));
    }
}

/// A line waiting for its turn: a command, or the error of a line that
/// did not parse (told in its place among the answers).
enum Pending {
    Command(Command),
    Error(LineError),
}

/// What runs on the engine's thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Job {
    Search,
    Perft,
}

/// The protocol's state: the engine, where replies go, and the lines
/// waiting for the engine.
pub struct Session {
    engine: Engine,
    out: Out,
    go_started: Instant,
    /// The last job started (it runs while the engine is searching).
    job: Option<Job>,
    /// Whether the running search waits for `stop` (infinite), or for
    /// `ponderhit`/`stop` (pondering).
    infinite: bool,
    pondering: bool,
    /// Lines that came while a job ran or other lines waited, in order.
    pending: VecDeque<Pending>,
    /// Told when a job ends, so that the lines waiting for it go on.
    wake: Option<Wake>,
}

impl Session {
    pub fn new(out: Out) -> Session {
        let mut engine = Engine::new();
        let notices = out.clone();
        engine.set_notifier(Arc::new(move |n| notices.line(&output::notice_line(&n))));
        Session {
            engine,
            out,
            go_started: Instant::now(),
            job: None,
            infinite: false,
            pondering: false,
            pending: VecDeque::new(),
            wake: None,
        }
    }

    /// Where to say that a job ended (the loop that feeds this session):
    /// without it, a line that must wait for a job waits for it here.
    pub fn wake_with(&mut self, wake: Wake) {
        self.wake = Some(wake);
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Handles one input line (raw bytes: any encoding, any content).
    pub fn handle_bytes(&mut self, raw: &[u8]) -> Flow {
        match std::str::from_utf8(raw) {
            Ok(text) => self.handle_line(text),
            Err(e) => {
                self.out.error(&format!(
                    "input is not valid UTF-8 (byte {})",
                    e.valid_up_to()
                ));
                Flow::Continue
            }
        }
    }

    /// Handles one line of text, in its turn: an error becomes one `info
    /// string error`.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        let item =
            match parse(line) {
                Ok(Command::IsReady) => {
                    self.ready();
                    return Flow::Continue;
                }
                // The running job ends now, whatever waits behind it.
                Ok(Command::Stop) => {
                    self.engine.stop();
                    return Flow::Continue;
                }
                Ok(Command::PonderHit) => {
                    self.ponderhit();
                    return Flow::Continue;
                }
                Ok(cmd) => {
                    if self.open_ended() && needs_idle(&cmd) && self.pending.is_empty() {
                        self.out.line(&format!(
                        "info string `{}` waits for the running search, which ends with `stop`{}",
                        line.split_whitespace().next().unwrap_or_default(),
                        if self.pondering { " or `ponderhit`" } else { "" }
                    ));
                    }
                    Pending::Command(cmd)
                }
                Err(e) => Pending::Error(e),
            };
        self.pending.push_back(item);
        self.run_pending()
    }

    /// Handles one line of text at once, whatever runs, and returns its
    /// error, if any, unprinted (a command given on the command line).
    pub fn try_line(&mut self, line: &str) -> Result<Flow, LineError> {
        let cmd = parse(line)?;
        Ok(self.execute(cmd)?)
    }

    /// Whether a search runs that ends only with `stop` (or `ponderhit`).
    fn open_ended(&self) -> bool {
        self.running() == Some(Job::Search) && (self.infinite || self.pondering)
    }

    /// The job running on the engine's thread, if any.
    fn running(&self) -> Option<Job> {
        self.job.filter(|_| self.engine.is_searching())
    }

    /// Carries out the waiting lines in order, up to the first that must
    /// wait for the running job.
    fn run_pending(&mut self) -> Flow {
        loop {
            let must_wait = match self.pending.front() {
                None => return Flow::Continue,
                Some(Pending::Error(_)) => false,
                Some(Pending::Command(cmd)) => match self.running() {
                    None => false,
                    // A perft gives its total before `quit` is taken.
                    Some(Job::Perft) => needs_idle(cmd) || *cmd == Command::Quit,
                    Some(Job::Search) => needs_idle(cmd),
                },
            };
            if must_wait {
                if self.wake.is_none() {
                    // Nobody will say when the job ends: wait for it here.
                    self.engine.wait();
                    continue;
                }
                return Flow::Continue;
            }
            let Some(item) = self.pending.pop_front() else {
                return Flow::Continue;
            };
            let result = match item {
                Pending::Error(e) => Err(e),
                Pending::Command(Command::Quit) => {
                    // A search answers first, as Stockfish's does.
                    self.engine.stop();
                    self.engine.wait();
                    return Flow::Quit;
                }
                Pending::Command(cmd) => self.execute(cmd).map_err(LineError::from),
            };
            if let Err(e) = result {
                self.out.error(&e);
            }
        }
    }

    fn execute(&mut self, cmd: Command) -> Result<Flow, EngineError> {
        let out = self.out.clone();
        match cmd {
            Command::Nothing => Ok(()),
            Command::Uci => {
                out.line(&format!("id name mulino {}", env!("CARGO_PKG_VERSION")));
                out.line("id author the mulino developers");
                for option in EngineOption::all() {
                    out.line(&output::option_line(option));
                }
                out.line("uciok");
                Ok(())
            }
            Command::IsReady => {
                self.ready();
                Ok(())
            }
            Command::SetOption { name, value } => self.engine.set_option(&name, value.as_deref()),
            Command::UciNewGame => self.engine.new_game(),
            Command::Position { start, moves } => {
                self.engine.ensure_idle()?;
                let fen = match &start {
                    StartSpec::StartPos => None,
                    StartSpec::Fen(f) => Some(f.as_str()),
                };
                let moves = moves.iter().map(String::as_str);
                self.engine
                    .set_game(Game::from_text(*self.engine.rules(), fen, moves)?)
            }
            Command::Go(params) => self.go(&params),
            Command::Stop => {
                self.engine.stop();
                Ok(())
            }
            Command::PonderHit => {
                self.ponderhit();
                Ok(())
            }
            Command::Quit => return Ok(Flow::Quit),
            Command::Help(topic) => {
                match topic {
                    None => out.line(&help::overview()),
                    // The parser took only commands that help knows.
                    Some(command) => out.line(&help::of(&command).unwrap_or_default()),
                }
                Ok(())
            }
            Command::Display => {
                let tb = self.engine.tb_probe().ok().map(|r| r.value);
                out.line(&output::display(self.engine.game(), tb));
                Ok(())
            }
            Command::TbProbe => self.engine.tb_probe().map(|r| {
                out.line(&format!("tbprobe value {}", output::tb_value(r.value)));
                for (m, v) in r.moves {
                    out.line(&format!("tbprobe move {m} {}", output::tb_value(v)));
                }
            }),
            Command::Moves => {
                let moves: Vec<String> = self
                    .engine
                    .legal_moves()
                    .iter()
                    .map(Move::to_string)
                    .collect();
                out.line(&moves.join(" "));
                Ok(())
            }
            Command::Perft(depth) => self.perft(depth),
            Command::Bench(depth) => {
                self.engine.ensure_idle()?;
                let depth = depth.unwrap_or(crate::bench::DEFAULT_DEPTH);
                crate::bench::run(depth).map(|r| {
                    out.line(&format!(
                        "info string bench: {} positions, depth {depth}",
                        r.positions
                    ));
                    out.line(&format!("Nodes searched: {}", r.nodes));
                    out.line(&format!("Nodes/second: {}", r.nps()));
                    out.line(&format!("Time: {} ms", r.elapsed.as_millis()));
                })
            }
        }?;
        Ok(Flow::Continue)
    }

    /// `isready`: at once while a search or perft runs; otherwise once the
    /// databases of `TablebasePath` are checked, saying every few seconds
    /// how far the check has come, so that a game started after it uses
    /// every file from its first move.
    fn ready(&mut self) {
        if self.running().is_none() {
            const EVERY: std::time::Duration = std::time::Duration::from_secs(3);
            loop {
                let (done, progress) = self.engine.wait_for_tablebases_within(EVERY);
                match progress {
                    Some(p) if !done => self.out.line(&format!(
                        "info string TablebasePath: checking the files, {} of {} ({:.1} of {:.1} GB)",
                        p.files_done,
                        p.files,
                        p.bytes_done as f64 / 1e9,
                        p.bytes as f64 / 1e9
                    )),
                    _ => break,
                }
            }
        }
        self.out.line("readyok");
    }

    /// The opponent played the move pondered on: the search goes on as a
    /// normal one.
    fn ponderhit(&mut self) {
        if self.pondering {
            self.engine.ponderhit(self.go_started);
            self.pondering = false;
        }
    }

    /// Says that a job ended (once it has answered).
    fn waker(&self) -> impl Fn() + Send + 'static {
        let wake = self.wake.clone();
        move || {
            if let Some(w) = &wake {
                let _ = w.send(Event::Idle);
            }
        }
    }

    fn go(&mut self, params: &GoParams) -> Result<(), EngineError> {
        let out = self.out.clone();
        let wake = self.waker();
        let show_wdl = self.engine.settings().show_wdl;
        let reporter = Arc::new(LineReporter(out.clone(), show_wdl));
        let done = Box::new(move |end: SearchEnd| match end {
            SearchEnd::GameOver(outcome) => {
                out.line(&format!("info string game over: {}", outcome.describe()));
                out.line("bestmove (none)");
            }
            SearchEnd::Failed { fallback } => {
                out.error(&"the search failed (a bug: please report it)");
                match fallback {
                    Some(m) => out.line(&format!("bestmove {m}")),
                    None => out.line("bestmove (none)"),
                }
            }
            SearchEnd::Done(r) => match (r.best, r.ponder) {
                (Some(b), Some(p)) => out.line(&format!("bestmove {b} ponder {p}")),
                (Some(b), None) => out.line(&format!("bestmove {b}")),
                (None, _) => out.line("bestmove (none)"),
            },
        });
        let done = Box::new(move |end: SearchEnd| {
            done(end);
            wake();
        });
        let started = Instant::now();
        let infinite = self.engine.go(params, reporter, done)?;
        self.job = Some(Job::Search);
        self.go_started = started;
        self.infinite = infinite;
        self.pondering = params.ponder;
        Ok(())
    }

    fn perft(&mut self, depth: u32) -> Result<(), EngineError> {
        let out = self.out.clone();
        let wake = self.waker();
        let done = Box::new(move |end: PerftEnd| {
            match end {
                PerftEnd::Done(report) => out.line(&output::perft_report(&report)),
                PerftEnd::Failed => out.error(&"perft failed (a bug: please report it)"),
            }
            wake();
        });
        self.engine.perft(depth, done)?;
        self.job = Some(Job::Perft);
        self.infinite = false;
        self.pondering = false;
        Ok(())
    }
}

/// A line as a command (the NUL byte refused first).
fn parse(line: &str) -> Result<Command, LineError> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.contains('\0') {
        return Err(LineError::Nul);
    }
    Ok(line.parse::<Command>()?)
}

/// Whether a command needs the engine idle: it changes or reads the game,
/// or runs a job of its own. The others (`stop`, `ponderhit`, `quit`,
/// `uci`, `help`, `d`, `moves`) are carried out while a search runs, in
/// their turn.
fn needs_idle(cmd: &Command) -> bool {
    !matches!(
        cmd,
        Command::Stop
            | Command::PonderHit
            | Command::Quit
            | Command::Uci
            | Command::Help(_)
            | Command::Display
            | Command::Moves
            | Command::IsReady
            | Command::Nothing
    )
}

impl Dialect for Session {
    fn handle_bytes(&mut self, raw: &[u8]) -> Flow {
        Session::handle_bytes(self, raw)
    }

    fn resume(&mut self) -> Flow {
        self.run_pending()
    }

    /// End of input: every finite job finishes and every waiting line is
    /// carried out in turn; a search that could only end with `stop` is
    /// stopped, as nothing can send it any more.
    fn finish(&mut self) {
        loop {
            self.stop_open_ended();
            self.engine.wait();
            if self.pending.is_empty() {
                return;
            }
            if self.run_pending() == Flow::Quit {
                return;
            }
        }
    }

    fn stop_open_ended(&mut self) {
        if self.open_ended() {
            self.engine.stop();
        }
    }

    fn quit(&mut self) {
        self.engine.stop();
        self.engine.wait();
    }
}

/// Runs one command given on the command line, then waits for a search
/// it started to finish (Stockfish's `stockfish bench` habit). A refused
/// command is returned, for the caller to report on stderr.
pub fn run_once(line: &str, out: Out) -> Result<(), LineError> {
    let mut session = Session::new(out);
    if session.try_line(line)? == Flow::Continue {
        session.finish();
    }
    Ok(())
}
