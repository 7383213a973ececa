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
    /// Whether the start counts as an occurrence for threefold repetition.
    start_repetition: StartRepetition,
}

/// Whether a game's start position counts as its first occurrence for
/// threefold repetition. Ours and Sanmill's count it; Nine Morris 3D
/// (GBGP) does not: there a set-up position is not a repetition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StartRepetition {
    #[default]
    Counts,
    Ignored,
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
            start_repetition: StartRepetition::Counts,
        }
    }

    /// A game from a start position and move texts (whole turns, or
    /// Sanmill's separate removal tokens); nothing changes on error.
    pub fn from_moves<'a>(
        rules: Rules,
        start: Position,
        moves: impl IntoIterator<Item = &'a str>,
    ) -> Result<Game, GameError> {
        Game::from_moves_with(rules, start, StartRepetition::Counts, moves)
    }

    /// [`Game::from_moves`], saying whether the start counts for
    /// threefold repetition.
    pub fn from_moves_with<'a>(
        rules: Rules,
        start: Position,
        start_repetition: StartRepetition,
        moves: impl IntoIterator<Item = &'a str>,
    ) -> Result<Game, GameError> {
        let mut game = Game::from_position(rules, start);
        game.start_repetition = start_repetition;
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

    /// A game from text, as a protocol's `position` gives it: a FEN (the
    /// rules' start position when `None`) and move texts.
    pub fn from_text<'a>(
        rules: Rules,
        fen: Option<&str>,
        moves: impl IntoIterator<Item = &'a str>,
    ) -> Result<Game, GameError> {
        let start = match fen {
            None => Position::startpos(&rules),
            Some(fen) => Position::from_fen(fen, &rules)?,
        };
        Game::from_moves(rules, start, moves)
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
        let counted = match self.start_repetition {
            StartRepetition::Counts => &self.history[..],
            StartRepetition::Ignored => &self.history[1..],
        };
        counted
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    /// A shuffle from a moving position: with the start counted, its third
    /// occurrence comes at ply 8; ignored, the first move's position is the
    /// first to occur three times, at ply 9.
    #[test]
    fn the_start_counts_for_repetition_or_not() {
        let rules = Variant::Nine.rules();
        let start = Position::from_fen(
            "O**O*O*@/O*@*****/****@**@ w m s 4 0 4 0 0 0 0 0 0 0 0 0 10",
            &rules,
        )
        .unwrap();
        // A move that closes no mill and does not take `avoid`.
        let quiet = |pos: &Position, avoid: Option<crate::core::Point>| {
            let mut list = crate::core::MoveList::new();
            pos.legal_moves(&rules, &mut list);
            *list
                .iter()
                .find(|m| !m.has_removal() && m.to() != avoid)
                .unwrap()
        };
        let reverse = |m: Move| Move::slide(m.to().unwrap(), m.from().unwrap());
        let there = quiet(&start, None);
        let next = start.play_unchecked(&rules, there);
        let reply = quiet(&next, there.from());
        let back = next.play_unchecked(&rules, reply);
        let undo_there = reverse(there);
        let after_undo = back.play_unchecked(&rules, undo_there);
        let undo_reply = reverse(reply);
        let cycle = [there, reply, undo_there, undo_reply].map(|m| m.to_string());
        let plies =
            |n: usize| -> Vec<&str> { cycle.iter().cycle().take(n).map(String::as_str).collect() };
        assert_eq!(
            after_undo.play_unchecked(&rules, undo_reply).key(),
            start.key()
        );
        let counted = |n| Game::from_moves(rules, start, plies(n));
        let ignored = |n| Game::from_moves_with(rules, start, StartRepetition::Ignored, plies(n));
        assert_eq!(counted(7).unwrap().outcome(), None);
        assert_eq!(
            counted(8).unwrap().outcome(),
            Some(Outcome::Draw(DrawReason::ThreefoldRepetition))
        );
        assert_eq!(ignored(8).unwrap().outcome(), None);
        assert_eq!(
            ignored(9).unwrap().outcome(),
            Some(Outcome::Draw(DrawReason::ThreefoldRepetition))
        );
    }
}
