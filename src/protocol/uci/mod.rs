//! Our dialect, the UCI-style text protocol: a session that parses lines
//! into [`Command`]s, drives the [`Engine`] and prints the replies. The
//! search runs on its own thread, so `isready`, `stop` and `quit` are
//! answered at once during a search.

pub mod command;
pub mod output;

use std::sync::Arc;
use std::time::Instant;

pub use command::{Command, CommandError, GoParams, StartSpec};

use crate::core::Move;
use crate::engine::{Engine, EngineError, EngineOption, PerftEnd, SearchEnd};
use crate::protocol::line::{Dialect, Flow, Out};
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

/// The answer to `help`: the commands in a few lines (protocol.md has all).
pub const HELP: &str = "\
mulino speaks a UCI-style protocol; protocol.md describes every command.
  uci | isready | ucinewgame | quit     handshake, sync, new game, exit
  setoption name <id> [value <x>]       options as `uci` lists them
  position startpos|fen <FEN> [moves <m1> ...]
  go [depth N] [movetime MS] [wtime MS btime MS winc MS binc MS]
     [nodes N] [mate N] [infinite] [ponder] [searchmoves <m> ...]
  stop | ponderhit                      end the search, or the pondering
  d | moves                             show the board, list legal moves
  tbprobe                               database values (TablebasePath)
  perft N | bench [N]                   count the move tree, speed test
Moves: `d6` places, `d6-d5` moves, `xb4` after either removes (`d6-d5xb4`).";

struct LineReporter(Out);

impl Reporter for LineReporter {
    fn info(&self, info: &Info) {
        self.0.line(&output::info_line(info));
    }
    fn currmove(&self, depth: u32, mv: Move, number: usize) {
        self.0.line(&format!(
            "info depth {depth} currmove {mv} currmovenumber {number}"
        ));
    }
}

/// The protocol's state: the engine and where replies go.
pub struct Session {
    engine: Engine,
    out: Out,
    go_started: Instant,
    /// Whether the running search waits for `stop` (infinite), or for
    /// `ponderhit`/`stop` (pondering).
    infinite: bool,
    pondering: bool,
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
            infinite: false,
            pondering: false,
        }
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

    /// Handles one line of text; an error becomes one `info string error`.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        self.try_line(line).unwrap_or_else(|e| {
            self.out.error(&e);
            Flow::Continue
        })
    }

    /// Handles one line of text and returns its error, if any, unprinted.
    pub fn try_line(&mut self, line: &str) -> Result<Flow, LineError> {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.contains('\0') {
            return Err(LineError::Nul);
        }
        let cmd = line.parse::<Command>()?;
        Ok(self.execute(cmd)?)
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
                out.line("readyok");
                Ok(())
            }
            Command::SetOption { name, value } => self.engine.set_option(&name, value.as_deref()),
            Command::UciNewGame => self.engine.new_game(),
            Command::Position { start, moves } => {
                let fen = match &start {
                    StartSpec::StartPos => None,
                    StartSpec::Fen(f) => Some(f.as_str()),
                };
                self.engine.set_position(fen, &moves)
            }
            Command::Go(params) => self.go(&params),
            Command::Stop => {
                self.engine.stop();
                Ok(())
            }
            Command::PonderHit => {
                if self.pondering {
                    self.engine.ponderhit(self.go_started);
                    self.pondering = false;
                }
                Ok(())
            }
            Command::Quit => return Ok(Flow::Quit),
            Command::Help => {
                out.line(HELP);
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

    fn go(&mut self, params: &GoParams) -> Result<(), EngineError> {
        let out = self.out.clone();
        let reporter = Arc::new(LineReporter(out.clone()));
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
        let started = Instant::now();
        let infinite = self.engine.go(params, reporter, done)?;
        self.go_started = started;
        self.infinite = infinite;
        self.pondering = params.ponder;
        Ok(())
    }

    fn perft(&mut self, depth: u32) -> Result<(), EngineError> {
        let out = self.out.clone();
        let done = Box::new(move |end: PerftEnd| match end {
            PerftEnd::Done(report) => out.line(&output::perft_report(&report)),
            PerftEnd::Failed => out.error(&"perft failed (a bug: please report it)"),
        });
        self.engine.perft(depth, done)?;
        self.infinite = false;
        self.pondering = false;
        Ok(())
    }
}

impl Dialect for Session {
    fn handle_bytes(&mut self, raw: &[u8]) -> Flow {
        Session::handle_bytes(self, raw)
    }

    fn finish(&mut self) {
        if self.infinite || self.pondering {
            self.engine.stop();
        }
        self.engine.wait();
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
