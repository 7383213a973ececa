//! The placing-mill rules: what a mill closed by a placement earns when
//! it is not the standard removal from the board (pieces taken from the
//! opponent's hand, removals that only mark their points, or none until
//! placing ends).

use super::Position;
use crate::core::moves::Move;
use crate::core::point::Point;
use crate::core::rules::{PlacingMill, Rules};
use crate::core::zobrist;

impl Position {
    /// A placement that closes a mill under the remove-from-hand rule
    /// takes that many pieces from the opponent's hand; returns the
    /// removals still owed from the board (the hand ran out).
    pub(crate) fn take_from_hand(&mut self, earned: u8) -> u8 {
        let them = self.side.opponent();
        let h = self.hand[them.index()];
        let taken = earned.min(h);
        self.key ^= zobrist::hand(them, h) ^ zobrist::hand(them, h - taken);
        self.hand[them.index()] = h - taken;
        earned - taken
    }

    /// The board removals a mill closed by this turn's step earns (`earned`
    /// by the lines), after the placing-mill rule: taken from the hand, or
    /// none until placing ends. Steps that move pieces always remove from
    /// the board.
    #[inline]
    pub(crate) fn placing_mill_effect(&mut self, rules: &Rules, placement: bool, earned: u8) -> u8 {
        if !placement || earned == 0 {
            return earned;
        }
        match rules.placing_mill {
            PlacingMill::RemoveFromBoard | PlacingMill::MarkAndDelay => earned,
            PlacingMill::RemoveFromHand => self.take_from_hand(earned),
            PlacingMill::ByMillCounts => 0,
        }
    }

    /// The rest of `play_unchecked` under a placing-mill rule other than
    /// the standard one: the hand removal of a placement that closes a mill
    /// (remove-from-hand; the move lists board removals only once the
    /// hand is empty), or removals that only mark (mark-and-delay).
    #[cold]
    #[inline(never)]
    pub(super) fn finish_placing_mill_unchecked(
        mut self,
        rules: &Rules,
        to: Point,
        m: Move,
    ) -> Position {
        if rules.placing_mill == PlacingMill::RemoveFromHand && m.from().is_none() {
            let own = self.board[self.side.index()];
            let earned = self.removals_earned(rules, to, own);
            if earned > 0 && self.hand[self.side.opponent().index()] > 0 {
                let left = self.take_from_hand(earned);
                debug_assert!(left as usize == m.removal_count() || left == 0);
            }
        }
        for r in m.removals() {
            self.do_remove(rules, r);
        }
        self.end_turn(rules);
        #[cfg(debug_assertions)]
        self.assert_invariants(rules);
        self
    }
}
