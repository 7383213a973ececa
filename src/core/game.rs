//! A game: the rules, the start position, the moves played and the keys of
//! the positions they reached, for the draw rules that need history.

use super::fen::FenError;
use super::moves::{Move, MoveParseError};
use super::position::{DrawReason, Outcome, PlayError, Position};
use super::rules::Rules;

/// A game from a start position through a list of moves.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// Keys of the positions after each complete turn, the start included.
    history: Vec<u64>,
}

/// Why a `position ... moves` list was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error(transparent)]
    Fen(#[from] FenError),
    #[error("move {index} `{text}`: {source}")]
    BadMove {
        index: usize,
        text: String,
        source: MoveParseError,
    },
    #[error("move {index} `{text}` is illegal: {source}")]
    Illegal {
        index: usize,
        text: String,
        source: PlayError,
    },
}

impl Game {
    pub fn new(rules: Rules) -> Game {
        Game::from_position(rules, Position::startpos(&rules))
    }

    pub fn from_position(rules: Rules, start: Position) -> Game {
        Game {
            rules,
            start,
            position: start,
            moves: Vec::new(),
            history: vec![start.key()],
        }
    }

    /// A game from a start position and move texts (whole turns, or
    /// Sanmill's separate removal tokens); nothing changes on error.
    pub fn from_moves<'a>(
        rules: Rules,
        start: Position,
        moves: impl IntoIterator<Item = &'a str>,
    ) -> Result<Game, GameError> {
        let mut game = Game::from_position(rules, start);
        for (i, text) in moves.into_iter().enumerate() {
            let index = i + 1;
            let m: Move = text.parse().map_err(|source| GameError::BadMove {
                index,
                text: text.to_string(),
                source,
            })?;
            game.play(m).map_err(|source| GameError::Illegal {
                index,
                text: text.to_string(),
                source,
            })?;
        }
        Ok(game)
    }

    #[inline]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    #[inline]
    pub fn position(&self) -> &Position {
        &self.position
    }

    #[inline]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The moves as played (partial turns stay separate).
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Keys of the positions reached after complete turns, oldest first.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// Plays a move (checked), refusing it once the game is over.
    pub fn play(&mut self, m: Move) -> Result<(), PlayError> {
        if let Some(outcome) = self.outcome() {
            return Err(PlayError::GameOver(outcome.describe()));
        }
        let next = self.position.play(&self.rules, m)?;
        self.position = next;
        self.moves.push(m);
        if next.pending_removals() == 0 {
            self.history.push(next.key());
        }
        Ok(())
    }

    /// How often the current position has occurred (itself included).
    pub fn repetitions(&self) -> usize {
        let key = self.position.key();
        let window = self.position.rule50() as usize + 1;
        self.history
            .iter()
            .rev()
            .take(window)
            .filter(|&&k| k == key)
            .count()
    }

    /// The result, if the game is over: the position's own verdict, then
    /// threefold repetition and the N-move rules.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.position.outcome(&self.rules) {
            return Some(o);
        }
        draw_by_rule(&self.rules, &self.position, self.repetitions())
    }
}

/// The draw the rules declare for a position seen `repetitions` times, if
/// any (shared by the game and the search).
#[inline]
pub fn draw_by_rule(rules: &Rules, pos: &Position, repetitions: usize) -> Option<Outcome> {
    if pos.pending_removals() > 0 {
        return None;
    }
    if rules.threefold && repetitions >= 3 {
        return Some(Outcome::Draw(DrawReason::ThreefoldRepetition));
    }
    let plies = pos.rule50();
    if rules.n_move_rule > 0 && plies >= rules.n_move_rule {
        return Some(Outcome::Draw(DrawReason::NMoveRule));
    }
    if rules.endgame_n_move_rule > 0 && plies >= rules.endgame_n_move_rule && pos.in_endgame(rules)
    {
        return Some(Outcome::Draw(DrawReason::EndgameNMoveRule));
    }
    None
}

impl Position {
    /// Whether a side is down to three pieces with none in hand, when the
    /// endgame N-move rule applies.
    #[inline]
    pub fn in_endgame(&self, _rules: &Rules) -> bool {
        use super::point::Color;
        Color::ALL
            .iter()
            .any(|&c| self.in_hand(c) == 0 && self.pieces(c).count() == Rules::MIN_PIECES as u32)
    }
}
