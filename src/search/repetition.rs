//! Draw detection along the search line: the keys of the game's positions
//! and of the line searched from the root, with a filter that answers
//! "seen once" without scanning.

use crate::core::game::draw_by_rule;
use crate::core::{Position, Rules};

/// Buckets of the repetition filter (a power of two, minus one).
const KEY_FILTER_MASK: usize = 4095;

/// The keys of the positions before the current node, the game's first.
pub(super) struct RepetitionTracker {
    /// Keys of the game's positions, then of the current line's.
    keys: Vec<u64>,
    /// How many keys in `keys` fall in each bucket of their low bits.
    key_counts: Box<[u16; KEY_FILTER_MASK + 1]>,
    /// Where the search line starts in `keys` (the root's index).
    root_index: usize,
}

impl RepetitionTracker {
    /// A tracker for a search from the last position of `history` (the
    /// game's keys, oldest first, the root's last), with room for a line
    /// of `max_ply` more.
    pub(super) fn new(history: &[u64], max_ply: usize) -> RepetitionTracker {
        let mut keys = Vec::with_capacity(history.len() + max_ply + 2);
        keys.extend_from_slice(history);
        let root_index = keys.len().saturating_sub(1);
        let mut key_counts = Box::new([0u16; KEY_FILTER_MASK + 1]);
        for &k in &keys {
            key_counts[k as usize & KEY_FILTER_MASK] += 1;
        }
        RepetitionTracker {
            keys,
            key_counts,
            root_index,
        }
    }

    /// Enters a child: `key` is its position's.
    #[inline]
    pub(super) fn push(&mut self, key: u64) {
        self.keys.push(key);
        self.key_counts[key as usize & KEY_FILTER_MASK] += 1;
    }

    /// Leaves the child entered last.
    #[inline]
    pub(super) fn pop(&mut self) {
        if let Some(key) = self.keys.pop() {
            self.key_counts[key as usize & KEY_FILTER_MASK] -= 1;
        }
    }

    /// Whether the position at the end of the line is drawn by repetition
    /// or the N-move rules: a repeat within the search line counts at once,
    /// one reaching back into the game needs two earlier occurrences.
    pub(super) fn is_draw(&self, rules: &Rules, pos: &Position) -> bool {
        if pos.pending_removals() > 0 {
            return false;
        }
        let key = pos.key();
        // Most positions occur once: the filter says so without a scan.
        if !rules.threefold || self.key_counts[key as usize & KEY_FILTER_MASK] <= 1 {
            return draw_by_rule(rules, pos, 1).is_some();
        }
        let last = self.keys.len() - 1;
        let window = (pos.rule50() as usize).min(last);
        let mut in_game = 0;
        for i in (last - window..last).rev() {
            if self.keys[i] == key {
                if i >= self.root_index && rules.threefold {
                    return true;
                }
                in_game += 1;
            }
        }
        draw_by_rule(rules, pos, in_game + 1).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Move, MoveList, Variant};

    /// White and black each step a piece out and back: four positions
    /// from `start`, the last of which is `start` again.
    fn shuffle(rules: &Rules, start: &Position) -> [Position; 4] {
        let slides = |pos: &Position| {
            let mut list = MoveList::new();
            pos.legal_moves(rules, &mut list);
            list.iter()
                .copied()
                .filter(|m| !m.has_removal() && !m.is_placement())
                .collect::<Vec<Move>>()
        };
        let back = |m: Move| Move::slide(m.to().unwrap(), m.from().unwrap());
        for white in slides(start) {
            let p1 = start.play_unchecked(rules, white);
            for black in slides(&p1) {
                let p2 = p1.play_unchecked(rules, black);
                if !p2.is_legal(rules, back(white)) {
                    continue;
                }
                let p3 = p2.play_unchecked(rules, back(white));
                if p3.is_legal(rules, back(black)) {
                    return [p1, p2, p3, p3.play_unchecked(rules, back(black))];
                }
            }
        }
        panic!("no shuffle from {}", start.fen(rules));
    }

    fn setup() -> (Rules, Position, [Position; 4]) {
        let rules = Variant::Nine.rules();
        // Ten plies since the last placement: the game before the root may
        // hold repeats of it.
        let start = Position::from_fen(
            "O*O*@*@*/********/O*O*@*@* w m s 4 0 4 0 0 0 0 0 0 0 0 10 1",
            &rules,
        )
        .unwrap();
        let line = shuffle(&rules, &start);
        assert_eq!(line[3].key(), start.key());
        (rules, start, line)
    }

    #[test]
    fn a_repeat_within_the_line_is_a_draw_at_once() {
        let (rules, start, line) = setup();
        let mut tracker = RepetitionTracker::new(&[start.key()], 8);
        for pos in &line[..3] {
            tracker.push(pos.key());
            assert!(!tracker.is_draw(&rules, pos));
        }
        tracker.push(line[3].key());
        assert!(tracker.is_draw(&rules, &line[3]), "the root repeated");
        // Leaving the line forgets it.
        for _ in &line {
            tracker.pop();
        }
        tracker.push(line[0].key());
        assert!(!tracker.is_draw(&rules, &line[0]));
    }

    #[test]
    fn a_repeat_of_the_game_needs_two_earlier_occurrences() {
        let (rules, start, line) = setup();
        let once: Vec<u64> = [start.key()]
            .into_iter()
            .chain(line[..3].iter().map(Position::key))
            .collect();
        let mut tracker = RepetitionTracker::new(&once, 8);
        tracker.push(line[3].key());
        assert!(!tracker.is_draw(&rules, &line[3]));

        let twice: Vec<u64> = once.iter().chain(&once).copied().collect();
        let mut tracker = RepetitionTracker::new(&twice, 8);
        tracker.push(line[3].key());
        assert!(tracker.is_draw(&rules, &line[3]));
    }
}
