//! Removals: which pieces a removal may take (mill protection, a stuck
//! side's removal under the blocked-removes rule, owed removals of one's
//! own pieces), taking them, and the turns that only remove.

use super::{PlayError, Position};
use crate::core::moves::{Move, MoveList};
use crate::core::point::{Bitboard, Color, Point};
use crate::core::rules::{PlacingMill, Rules};
use crate::core::zobrist;

/// The pieces of `pieces` that a removal may take: those in no mill, or
/// all of them when every one stands in a mill or the rules allow it.
#[inline]
fn unprotected(rules: &Rules, pieces: Bitboard) -> Bitboard {
    if rules.remove_from_mills_always {
        return pieces;
    }
    let free = pieces & !rules.geometry().pieces_in_mills(pieces);
    if free.nonempty() { free } else { pieces }
}

impl Position {
    /// The opponent's pieces the side to move may remove now.
    #[inline]
    pub fn removable(&self, rules: &Rules) -> Bitboard {
        unprotected(rules, self.board[self.side.opponent().index()])
    }

    /// The pieces the side to move may remove now, whatever the reason:
    /// a stuck side under the blocked-removes rule takes an opposing piece
    /// next to one of its own (mills give no protection); owed removals
    /// of its own pieces take those; otherwise [`Position::removable`].
    pub fn removal_targets(&self, rules: &Rules) -> Bitboard {
        let (us, them) = (self.side.index(), self.side.opponent().index());
        if rules.blocked_removes && self.is_stuck(rules) {
            return self.board[them] & rules.geometry().neighbours(self.board[us]);
        }
        if self.own_removal {
            return unprotected(rules, self.board[us]);
        }
        self.removable(rules)
    }

    /// The opposing pieces a stuck side may remove under the
    /// blocked-removes rule (empty when it is not stuck).
    pub fn blocked_targets(&self, rules: &Rules) -> Bitboard {
        if !self.is_stuck(rules) {
            return Bitboard::EMPTY;
        }
        let (us, them) = (self.side.index(), self.side.opponent().index());
        self.board[them] & rules.geometry().neighbours(self.board[us])
    }

    /// The colour whose pieces the pending removals take.
    #[inline]
    pub(crate) fn removal_victim(&self) -> Color {
        if self.own_removal {
            self.side
        } else {
            self.side.opponent()
        }
    }

    /// Removes the opponent's piece at `p` without checks or marks.
    #[inline]
    pub(super) fn remove_opponent(&mut self, p: Point) {
        let them = self.side.opponent();
        self.board[them.index()] = self.board[them.index()].without(p);
        self.key ^= zobrist::piece(them, p);
        self.rule50 = 0;
    }

    /// Removes the opponent's piece at `p` without checks (during placing
    /// under the mark-and-delay rule, marks its point instead).
    #[inline]
    pub(crate) fn do_remove(&mut self, rules: &Rules, p: Point) {
        self.remove_opponent(p);
        if rules.placing_mill == PlacingMill::MarkAndDelay && self.placing_turn {
            self.marked = self.marked.with(p);
            self.key ^= zobrist::marked(p);
        }
    }

    /// Whether `step`, a step without removals, closes a mill here:
    /// played alone, it is half a turn, and the removal its side then
    /// owes completes it. (The removals owed when placing ends open a
    /// turn of their own, even where the side that placed last owes
    /// them.)
    pub fn is_half_turn(&self, rules: &Rules, step: Move) -> bool {
        if step.to().is_none() || step.removals().next().is_some() {
            return false;
        }
        let mut list = MoveList::new();
        self.legal_moves(rules, &mut list);
        list.iter()
            .any(|m| m.step() == step && m.removals().next().is_some())
    }

    /// Removes a piece of the colour the pending removals take.
    #[inline]
    pub(crate) fn remove_victim(&mut self, rules: &Rules, p: Point) {
        if self.own_removal {
            let us = self.side;
            self.board[us.index()] = self.board[us.index()].without(p);
            self.key ^= zobrist::piece(us, p);
            self.rule50 = 0;
        } else {
            self.do_remove(rules, p);
        }
    }

    /// A turn that only removes: owed removals (all of them, or three of
    /// more), or a stuck side's removal before it moves again.
    #[cold]
    #[inline(never)]
    pub(super) fn play_removals_unchecked(&self, rules: &Rules, m: Move) -> Position {
        let mut next = *self;
        if self.pending == 0 {
            for r in m.removals() {
                next.do_remove(rules, r);
            }
        } else {
            let mut n = 0;
            for r in m.removals() {
                next.remove_victim(rules, r);
                n += 1;
            }
            next.set_pending(self.pending.saturating_sub(n));
            if next.pending == 0
                || next.material(next.removal_victim()) < Rules::MIN_PIECES as u32
                || next.removal_targets(rules).is_empty()
            {
                next.end_removal_turn(rules);
            }
        }
        #[cfg(debug_assertions)]
        next.assert_invariants(rules);
        next
    }

    /// A checked removal-only move with no removal owed: a stuck side under
    /// the blocked-removes rule removes one opposing piece and stays to
    /// move.
    pub(super) fn play_blocked_removal(
        &self,
        rules: &Rules,
        m: Move,
    ) -> Result<Position, PlayError> {
        let mut next = *self;
        if !(rules.blocked_removes && self.is_stuck(rules)) {
            return Err(PlayError::NoRemovalOwed);
        }
        let mut removals = m.removals();
        let (Some(r), None) = (removals.next(), removals.next()) else {
            return Err(PlayError::TooManyRemovals);
        };
        if !self.removal_targets(rules).contains(r) {
            return Err(PlayError::NotRemovable(r));
        }
        next.do_remove(rules, r);
        #[cfg(debug_assertions)]
        next.assert_invariants(rules);
        Ok(next)
    }

    /// Pays owed removals with `m`'s removals, checking each, and ends the
    /// turn once nothing more is owed or can be taken (any removal left
    /// over in `m` is then too many).
    pub(super) fn pay_removals(&mut self, rules: &Rules, m: Move) -> Result<(), PlayError> {
        for r in m.removals() {
            if self.pending == 0 {
                return Err(PlayError::TooManyRemovals);
            }
            if !self.removal_targets(rules).contains(r) {
                return Err(PlayError::NotRemovable(r));
            }
            self.remove_victim(rules, r);
            self.set_pending(self.pending - 1);
            let victim = self.removal_victim();
            if self.pending == 0
                || self.material(victim) < 3
                || self.removal_targets(rules).is_empty()
            {
                if m.removals().skip_while(|&x| x != r).nth(1).is_some() {
                    return Err(PlayError::TooManyRemovals);
                }
                self.end_removal_turn(rules);
                break;
            }
        }
        Ok(())
    }

    /// Ends a turn whose owed removals are paid: the opponent then owes
    /// what was owed next (the end of placing's second removals).
    fn end_removal_turn(&mut self, rules: &Rules) {
        if self.own_removal {
            self.own_removal = false;
            self.key ^= zobrist::KEYS.own_removal;
        }
        let n = self.next_owed;
        self.set_next_owed(0);
        self.end_turn(rules);
        if n != 0 {
            self.set_pending(n.unsigned_abs());
            if n < 0 {
                self.own_removal = true;
                self.key ^= zobrist::KEYS.own_removal;
            }
        }
    }
}
