//! The step of a turn (a placement, a slide or a fly): checked, or played
//! without checks with the mills it closes, and whether the side to move
//! can slide or fly at all.

use super::{PlayError, Position};
use crate::core::point::{Bitboard, Color, Point};
use crate::core::rules::Rules;
use crate::core::zobrist;

impl Position {
    /// Whether `c`, with no pieces in hand, may fly.
    #[inline]
    pub fn can_fly(&self, rules: &Rules, c: Color) -> bool {
        rules.flying
            && self.hand[c.index()] == 0
            && self.board[c.index()].count() <= rules.fly_at as u32
    }

    /// Whether the side to move, in its moving phase, can neither slide
    /// nor fly (with the blocked-removes rule it then removes instead).
    pub fn is_stuck(&self, rules: &Rules) -> bool {
        let us = self.side;
        if self.placing_turn || self.hand[us.index()] > 0 {
            return false;
        }
        let empty = self.empty();
        if empty.is_empty() {
            return true;
        }
        if self.can_fly(rules, us) {
            return false;
        }
        (self.board[us.index()] & rules.geometry().neighbours(empty)).is_empty()
    }

    /// Checks the step of a turn played with [`Position::play`]: no removal
    /// owed, an empty destination, a piece in hand to place, or an own
    /// piece that may move (not while placing unless the rules allow it)
    /// to a neighbouring point unless it flies.
    pub(super) fn check_step(
        &self,
        rules: &Rules,
        from: Option<Point>,
        to: Point,
    ) -> Result<(), PlayError> {
        let us = self.side;
        if self.pending > 0 {
            return Err(PlayError::RemovalOwed);
        }
        if !self.empty().contains(to) {
            return Err(PlayError::Occupied(to));
        }
        match from {
            None if self.hand[us.index()] == 0 => return Err(PlayError::NoPieceInHand(to)),
            None => {}
            Some(from) => {
                if !self.board[us.index()].contains(from) {
                    return Err(PlayError::NotOwnPiece(from));
                }
                let placing = self.hand[us.index()] > 0;
                if placing && !rules.move_in_placing {
                    return Err(PlayError::MustPlace);
                }
                let flies = !placing && self.can_fly(rules, us);
                if !flies && !rules.geometry().adjacent[from.index()].contains(to) {
                    return Err(PlayError::NotAdjacent(from, to));
                }
            }
        }
        Ok(())
    }

    /// How many removals a step to `to` earns, with `own` the mover's pieces
    /// after the step (0 when it closes no mill that counts).
    #[inline]
    pub(crate) fn removals_earned(&self, rules: &Rules, to: Point, own: Bitboard) -> u8 {
        let spent = if rules.one_time_mills {
            self.formed[self.side.index()]
        } else {
            Bitboard::EMPTY
        };
        let n = rules.geometry().unspent_mills_through(to, own, spent);
        if n > 1 && !rules.remove_multiple {
            1
        } else {
            n as u8
        }
    }

    /// Plays the step of a turn (placement, slide or fly) without checks
    /// and returns the removals it earns; the turn is not ended.
    #[inline]
    pub(crate) fn do_step(&mut self, rules: &Rules, from: Option<Point>, to: Point) -> u8 {
        self.apply_step(from, to);
        let us = self.side;
        let own = self.board[us.index()];
        let earned = self.removals_earned(rules, to, own);
        if earned > 0 && rules.one_time_mills {
            self.record_formed_mills(rules, to);
        }
        earned
    }

    /// Moves or places the piece, keeping the key, hand and counters.
    #[inline]
    pub(super) fn apply_step(&mut self, from: Option<Point>, to: Point) {
        let us = self.side;
        let own = match from {
            Some(from) => {
                self.key ^= zobrist::piece(us, from) ^ zobrist::piece(us, to);
                self.rule50 = self.rule50.saturating_add(1);
                self.board[us.index()].without(from).with(to)
            }
            None => {
                let h = self.hand[us.index()];
                self.key ^=
                    zobrist::piece(us, to) ^ zobrist::hand(us, h) ^ zobrist::hand(us, h - 1);
                self.hand[us.index()] = h - 1;
                self.rule50 = 0;
                self.board[us.index()].with(to)
            }
        };
        self.board[us.index()] = own;
    }

    /// Records the lines through `to` that the step completes as formed
    /// (one-time-use mills), keeping the key.
    pub(super) fn record_formed_mills(&mut self, rules: &Rules, to: Point) {
        let us = self.side;
        let own = self.board[us.index()];
        let g = rules.geometry();
        for part in g.partners[to.index()]
            .iter()
            .take(g.line_count[to.index()] as usize)
        {
            let line = part.with(to);
            if own.includes(line) && !self.formed[us.index()].includes(line) {
                for p in line & !self.formed[us.index()] {
                    self.key ^= zobrist::formed(us, p);
                }
                self.formed[us.index()] |= line;
            }
        }
    }
}
