//! What a finished game leaves behind: its moves with the engines' scores
//! and times, how it ended and the result.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::core::{Color, DrawReason, Move, Outcome};
use crate::matches::engine::dialect::EngineScore;
use crate::matches::openings::Opening;

/// One game to play.
#[derive(Clone, Debug)]
pub struct GameJob {
    /// Game number from 0, in schedule order.
    pub index: usize,
    /// The pairing (first engine against opponent `pairing + 1`).
    pub pairing: usize,
    /// The pair of games with colours reversed this game belongs to.
    pub pair: usize,
    /// Engine indices.
    pub white: usize,
    pub black: usize,
    pub opening: Arc<Opening>,
}

impl GameJob {
    /// The engine index playing `side`.
    pub fn engine(&self, side: Color) -> usize {
        match side {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }
}

/// One turn of the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    pub mv: Move,
    /// From the opening, not chosen by an engine.
    pub book: bool,
    pub score: Option<EngineScore>,
    pub depth: Option<u32>,
    /// From `go` to `bestmove`.
    pub time: Duration,
}

/// The moves of one side that took longer than their movetime (plus
/// `--time-margin`) without being forfeited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overruns {
    pub moves: u32,
    /// The longest of them.
    pub longest: Duration,
}

impl Overruns {
    pub fn add(&mut self, time: Duration) {
        self.moves += 1;
        self.longest = self.longest.max(time);
    }
}

/// The time one side spent on its turns, from `go` to `bestmove` (a
/// turn answered in two parts, a step and its removal, counts once with
/// both times): what lets a report compare the time the engines really
/// took, whatever they were told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Thinking {
    pub turns: u32,
    pub time: Duration,
}

impl Thinking {
    /// The mean time of a turn, if any was played.
    pub fn mean(&self) -> Option<Duration> {
        (self.turns > 0).then(|| self.time / self.turns)
    }
}

impl std::ops::AddAssign for Thinking {
    fn add_assign(&mut self, other: Thinking) {
        self.turns += other.turns;
        self.time += other.time;
    }
}

/// How an engine forfeited a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    IllegalMove,
    MalformedMove,
    MissingMove,
    Crash,
    Hang,
    TimeForfeit,
}

impl Fault {
    pub const ALL: [Fault; 6] = [
        Fault::IllegalMove,
        Fault::MalformedMove,
        Fault::MissingMove,
        Fault::Crash,
        Fault::Hang,
        Fault::TimeForfeit,
    ];

    /// The PGN `Termination` value.
    pub fn keyword(self) -> &'static str {
        match self {
            Fault::IllegalMove => "illegal move",
            Fault::MalformedMove => "malformed move",
            Fault::MissingMove => "missing move",
            Fault::Crash => "crash",
            Fault::Hang => "hang",
            Fault::TimeForfeit => "time forfeit",
        }
    }
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The rules ended it: a win, or a draw by repetition, the N-move
    /// rules or a full board.
    Rules(Outcome),
    /// `--max-moves` full moves were played: a draw.
    MaxMoves,
    /// The databases' value (`--tb`): `None` is a draw.
    Adjudicated { winner: Option<Color> },
    /// The engine playing `side` forfeited.
    Fault { side: Color, fault: Fault },
}

impl Termination {
    /// The PGN `Termination` value: `normal`, `max moves`, `adjudication`
    /// or the fault.
    pub fn keyword(self) -> &'static str {
        match self {
            Termination::Rules(_) => "normal",
            Termination::MaxMoves => "max moves",
            Termination::Adjudicated { .. } => "adjudication",
            Termination::Fault { fault, .. } => fault.keyword(),
        }
    }

    /// The keyword `text` names (as a report reads back), if it is one.
    pub fn keyword_named(text: &str) -> Option<&'static str> {
        let rules = [
            Termination::Rules(Outcome::Draw(DrawReason::FullBoard)),
            Termination::MaxMoves,
            Termination::Adjudicated { winner: None },
        ];
        rules
            .into_iter()
            .chain(Fault::ALL.map(|fault| Termination::Fault {
                side: Color::White,
                fault,
            }))
            .map(Termination::keyword)
            .find(|k| *k == text)
    }

    /// White's half points: 2 for a win, 1 for a draw, 0 for a loss.
    pub fn white_half_points(self) -> u8 {
        match self {
            Termination::Rules(Outcome::Win { winner, .. }) => 2 * (winner == Color::White) as u8,
            Termination::Rules(Outcome::Draw(_))
            | Termination::MaxMoves
            | Termination::Adjudicated { winner: None } => 1,
            Termination::Adjudicated {
                winner: Some(winner),
            } => 2 * (winner == Color::White) as u8,
            Termination::Fault { side, .. } => 2 * (side == Color::Black) as u8,
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn result_text(self) -> &'static str {
        match self.white_half_points() {
            2 => "1-0",
            0 => "0-1",
            _ => "1/2-1/2",
        }
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The game as scheduled: number, pairing, colours, opening.
    pub job: GameJob,
    /// Book moves first, then the engines' moves.
    pub moves: Vec<MoveRecord>,
    /// `info string error ...` lines the engines sent during the game,
    /// prefixed with their colour.
    pub complaints: Vec<String>,
    /// Overruns by colour (`Color::index`).
    pub overruns: [Overruns; 2],
    /// The engines' turns and their time, by colour.
    pub thinking: [Thinking; 2],
    pub termination: Termination,
    /// A sentence: the rules' verdict or what the engine did wrong.
    pub detail: String,
    /// What the databases (`--tb`) give the game's first position after
    /// its opening: `1-0`, `0-1` or `1/2-1/2`.
    pub opening_value: Option<&'static str>,
    pub started: SystemTime,
    pub duration: Duration,
}

impl GameRecord {
    pub fn engine(&self, side: Color) -> usize {
        self.job.engine(side)
    }
}

/// A game that was not played: an engine does not play the referee's
/// rules (a Sanmill engine reported, at the game's first position, other
/// rule options, another position or other legal moves), so its result
/// would say nothing about the engines' strength.
#[derive(Clone, Debug)]
pub struct NotCounted {
    pub job: GameJob,
    /// A sentence naming the engine and what differs.
    pub reason: String,
}

/// What the referee leaves behind for a game.
#[derive(Clone, Debug)]
pub enum Played {
    Game(GameRecord),
    NotCounted(NotCounted),
}
