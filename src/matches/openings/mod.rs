//! Where games start: an [`Opening`] (a position and the moves already
//! played from it), read from the lines of an openings file or book
//! ([`book`]), and one chosen for every game pair, in file order or
//! shuffled, with seeded random plies ([`pairs`]).

pub mod book;
pub mod pairs;

use crate::core::{Game, Move, Position, Rules};

/// Where a game starts: a position and the moves already played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub start: Position,
    /// The start's FEN when it is not the rules' start position.
    pub fen: Option<String>,
    /// Whole turns (a step with its removals), book moves of the game.
    pub moves: Vec<Move>,
}

/// Why an opening was refused.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    #[error("cannot read openings file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {what}")]
    Line {
        path: String,
        line: usize,
        what: String,
    },
    #[error("{0} has no openings")]
    Empty(String),
    #[error("no random opening of {plies} plies that leaves the game open after 1000 tries")]
    NoRandomOpening { plies: u32 },
}

impl Opening {
    pub fn startpos(rules: &Rules) -> Opening {
        Opening {
            start: Position::startpos(rules),
            fen: None,
            moves: Vec::new(),
        }
    }

    /// The game after the opening's moves.
    pub fn game(&self, rules: &Rules) -> Game {
        let mut game = Game::from_position(*rules, self.start);
        for &m in &self.moves {
            // Every opening is replayed when it is made, so this holds.
            let _ = game.play(m);
        }
        game
    }

    /// The opening as a line of the openings file format.
    pub fn line(&self) -> String {
        let mut s = match &self.fen {
            None => "startpos".to_string(),
            Some(f) => format!("fen {f}"),
        };
        if !self.moves.is_empty() {
            s.push_str(" moves");
            for m in &self.moves {
                s.push(' ');
                s.push_str(&m.to_string());
            }
        }
        s
    }
}
