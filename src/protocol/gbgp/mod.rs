//! GBGP, the UCI-like dialect of the Nine Morris 3D GUI, beside our own
//! protocol and over the same [`Engine`]: a second parser
//! ([`command`], [`fen`]) and formatter, chosen when the first command of
//! a session is `gbgp` (see [`crate::protocol::run`]). It shares only the
//! line I/O of [`crate::protocol::line`] with our dialect.
//!
//! What differs from our protocol: the handshake ends in `gbgpok` and
//! offers one option, `TwelveMensMorris`; positions are
//! `startpos` or `pos <w:w...:b...:n>`; `go` has `wtime`/`btime` without
//! increment, `movetime`, `depth`, or nothing (until `stop`); scores are
//! `score eval <n>` from White's side or `score win <n>` (plies to a forced
//! win, positive when White wins); a finished game answers `bestmove none`.

pub mod command;
pub mod fen;

use std::sync::Arc;

use crate::core::{Color, Game, Move, Position, StartRepetition, Variant};
use crate::engine::{Engine, EngineError, EngineOption, GoParams, SearchEnd};
use crate::protocol::line::{Dialect, Flow, Out};
use crate::search::{Info, Reporter, Score};
use command::{Command, GbgpCommandError, Go, Start};
use fen::GbgpFenError;

/// The one option GBGP knows.
pub const TWELVE_OPTION: &str = "TwelveMensMorris";

/// Why a GBGP line was refused: it changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum GbgpError {
    #[error(transparent)]
    Command(#[from] GbgpCommandError),
    #[error("position: {0}")]
    Fen(#[from] GbgpFenError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("unknown option `{0}` (the only option is TwelveMensMorris)")]
    UnknownOption(String),
    #[error("option TwelveMensMorris: `{0}` is not valid (`true` or `false`)")]
    BadValue(String),
    #[error("input is not valid UTF-8 (byte {0})")]
    Utf8(usize),
    #[error("input contains a NUL byte")]
    Nul,
}

/// Search progress as GBGP `info` lines: scores from White's side.
struct GbgpReporter {
    out: Out,
    /// The side to move at the root, whose view the search's scores take.
    root_side: Color,
}

/// A search score as GBGP writes it, from White's side.
fn gbgp_score(score: Score, root_side: Color) -> String {
    let white = root_side == Color::White;
    match score {
        Score::Cp(cp) => format!("eval {}", if white { cp } else { -cp }),
        // A win for the side to move in n moves takes 2n - 1 plies (it
        // makes the last one); a loss in n moves takes 2n.
        Score::Mate(n) => {
            let (plies, root_wins) = if n > 0 {
                (2 * n - 1, true)
            } else {
                (-2 * n, false)
            };
            let white_wins = root_wins == white;
            format!("win {}", if white_wins { plies } else { -plies })
        }
    }
}

impl Reporter for GbgpReporter {
    fn info(&self, info: &Info) {
        // GBGP shows one line of play.
        if info.multipv > 1 {
            return;
        }
        let mut line = format!(
            "info depth {} time {} nodes {} score {} pv",
            info.depth,
            info.time_ms,
            info.nodes,
            gbgp_score(info.score, self.root_side)
        );
        for m in &info.pv {
            line.push(' ');
            line.push_str(&m.to_string());
        }
        self.out.line(&line);
    }

    fn currmove(&self, _: u32, _: Move, _: usize) {}
}

/// A GBGP session: the engine and where replies go.
pub struct Session {
    engine: Engine,
    out: Out,
    /// Whether the running search waits for `stop` (a bare `go`).
    infinite: bool,
}

impl Session {
    pub fn new(out: Out) -> Session {
        Session {
            engine: Engine::new(),
            out,
            infinite: false,
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Answers `gbgp`: the names, the one option and `gbgpok`.
    pub fn handshake(&self) {
        self.out
            .line(&format!("id name mulino {}", env!("CARGO_PKG_VERSION")));
        self.out.line("id author the mulino developers");
        self.out.line(&format!(
            "option name {TWELVE_OPTION} type check default false"
        ));
        self.out.line("gbgpok");
    }

    /// Handles one input line (raw bytes); an error becomes one
    /// `info string error` line.
    pub fn handle_bytes(&mut self, raw: &[u8]) -> Flow {
        let result = match std::str::from_utf8(raw) {
            Ok(text) => self.try_line(text),
            Err(e) => Err(GbgpError::Utf8(e.valid_up_to())),
        };
        result.unwrap_or_else(|e| {
            self.out.error(&e);
            Flow::Continue
        })
    }

    /// Handles one line of text and returns its error, if any, unprinted.
    pub fn try_line(&mut self, line: &str) -> Result<Flow, GbgpError> {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.contains('\0') {
            return Err(GbgpError::Nul);
        }
        match line.parse::<Command>()? {
            Command::Nothing | Command::Debug(_) => {}
            Command::Gbgp => self.handshake(),
            Command::IsReady => self.out.line("readyok"),
            Command::NewGame => self.engine.new_game()?,
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref())?,
            Command::Position { start, moves } => {
                let start = match start {
                    Start::StartPos => Position::startpos(self.engine.rules()),
                    Start::Pos(text) => fen::parse(&text, self.engine.rules())?,
                };
                // Nine Morris 3D does not count the set-up position as an
                // occurrence for threefold repetition.
                let rules = *self.engine.rules();
                let moves = moves.iter().map(String::as_str);
                let game = Game::from_moves_with(rules, start, StartRepetition::Ignored, moves)
                    .map_err(EngineError::from)?;
                self.engine.set_game(game)?;
            }
            Command::Go(go) => self.go(&go)?,
            Command::Stop => self.engine.stop(),
            Command::Quit => return Ok(Flow::Quit),
        }
        Ok(Flow::Continue)
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), GbgpError> {
        if !name.trim().eq_ignore_ascii_case(TWELVE_OPTION) {
            return Err(GbgpError::UnknownOption(name.to_string()));
        }
        let raw = value.unwrap_or("").trim();
        let variant = match raw.to_ascii_lowercase().as_str() {
            "true" => Variant::Twelve,
            "false" => Variant::Nine,
            _ => return Err(GbgpError::BadValue(raw.to_string())),
        };
        self.engine.set(EngineOption::Variant, variant.name())?;
        Ok(())
    }

    fn go(&mut self, go: &Go) -> Result<(), GbgpError> {
        let params = GoParams {
            depth: go.depth,
            movetime: go.movetime,
            time: [go.wtime, go.btime],
            ..GoParams::default()
        };
        let out = self.out.clone();
        let reporter = Arc::new(GbgpReporter {
            out: out.clone(),
            root_side: self.engine.game().position().side_to_move(),
        });
        let done = Box::new(move |end: SearchEnd| {
            let best = match end {
                SearchEnd::GameOver(_) => None,
                // A search always has a move where the game goes on.
                SearchEnd::Done(r) => r.best,
                SearchEnd::Failed { fallback } => {
                    out.error(&"the search failed (a bug: please report it)");
                    fallback
                }
            };
            match best {
                Some(m) => out.line(&format!("bestmove {m}")),
                None => out.line("bestmove none"),
            }
        });
        self.infinite = self.engine.go(&params, reporter, done)?;
        Ok(())
    }
}

impl Dialect for Session {
    fn handle_bytes(&mut self, raw: &[u8]) -> Flow {
        Session::handle_bytes(self, raw)
    }

    /// A bare `go` is stopped; a search with a natural end finishes.
    fn finish(&mut self) {
        self.stop_open_ended();
        self.engine.wait();
    }

    fn stop_open_ended(&mut self) {
        if self.infinite {
            self.engine.stop();
        }
    }

    fn quit(&mut self) {
        self.engine.stop();
        self.engine.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_from_whites_side() {
        assert_eq!(gbgp_score(Score::Cp(40), Color::White), "eval 40");
        assert_eq!(gbgp_score(Score::Cp(40), Color::Black), "eval -40");
        // White to move wins in 2 moves: 3 plies.
        assert_eq!(gbgp_score(Score::Mate(2), Color::White), "win 3");
        // Black to move wins in 2 moves: White loses, in 3 plies.
        assert_eq!(gbgp_score(Score::Mate(2), Color::Black), "win -3");
        // White to move is lost in 2 moves: Black wins in 4 plies.
        assert_eq!(gbgp_score(Score::Mate(-2), Color::White), "win -4");
        assert_eq!(gbgp_score(Score::Mate(-2), Color::Black), "win 4");
    }
}
