//! The end of placing: the variants' rules when both hands are empty
//! (marked points cleared, the side to move set, removals by mill counts,
//! the removals that follow a full board).

use super::Position;
use crate::core::point::{Bitboard, Color};
use crate::core::rules::{FullBoardAction, PlacingMill, Rules};
use crate::core::zobrist;

impl Position {
    /// `end_turn`'s rare part, after a placing turn: hand over removals owed next, or apply the
    /// rules of the end of placing (Sanmill's placing-to-moving boundary).
    #[cold]
    #[inline(never)]
    pub(super) fn after_placing_turn_rare(&mut self, rules: &Rules) {
        debug_assert!(
            !self.own_removal && self.next_owed == 0,
            "removal-only turns settle what they owe first"
        );
        if !((self.hand[0] | self.hand[1]) == 0 && rules.placing_end_matters()) {
            return;
        }
        for p in self.marked {
            self.key ^= zobrist::marked(p);
        }
        self.marked = Bitboard::EMPTY;
        let first = if rules.defender_moves_first {
            Color::Black
        } else {
            Color::White
        };
        if rules.placing_mill == PlacingMill::ByMillCounts {
            self.set_side(Color::White);
            self.owe_by_mill_counts(rules);
            return;
        }
        // Where the turn keeps its natural order at the end of placing
        // (hands that empty unevenly), only the defender rule changes it.
        let natural = rules.placing_mill == PlacingMill::RemoveFromHand || rules.move_in_placing;
        if !natural || rules.defender_moves_first {
            self.set_side(first);
        }
        if self.empty().is_empty() {
            let remover = match rules.full_board {
                FullBoardAction::FirstThenSecondRemove => Color::White,
                FullBoardAction::SecondThenFirstRemove => Color::Black,
                FullBoardAction::FirstPlayerLoses | FullBoardAction::Draw => return,
            };
            self.set_side(remover);
            self.set_pending(1);
            self.set_next_owed(1);
        }
    }

    /// The removals by mill counts at the end of placing (White first).
    fn owe_by_mill_counts(&mut self, rules: &Rules) {
        let g = rules.geometry();
        let mills = |b: Bitboard| g.lines.iter().filter(|&&l| b.includes(l)).count() as i8;
        let (w, b) = (mills(self.board[0]), mills(self.board[1]));
        let (white, black) = match (w, b) {
            (0, 0) => (-1, -1),
            (_, 0) => (2, 1),
            (0, _) => (1, 2),
            _ if w == b => (w, b),
            _ if w > b => (b + 1, b),
            _ => (w, w + 1),
        };
        self.set_pending(white.unsigned_abs());
        if white < 0 {
            self.own_removal = true;
            self.key ^= zobrist::KEYS.own_removal;
        }
        self.set_next_owed(black);
    }
}
