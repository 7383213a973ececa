//! Whole-turn perft: counts the leaves of the move tree, with the last ply
//! counted in bulk and transpositions memoised in a hash table.
//!
//! A finished game (fewer than three pieces, no legal move) has no
//! children; draw rules are not applied.

use super::moves::{Move, MoveList};
use super::position::Position;
use super::rules::Rules;

/// A memo of subtree counts. Keys are exact (the position packed into 59
/// bits plus the depth) except under one-time-use mills, whose record does
/// not fit and which fall back on the 64-bit zobrist key.
pub struct PerftTable {
    entries: Vec<[u64; 2]>,
    mask: usize,
}

impl PerftTable {
    /// A table of about `mb` megabytes (at least 1024 entries).
    pub fn new(mb: usize) -> PerftTable {
        let wanted = (mb.max(1) << 20) / std::mem::size_of::<[u64; 2]>();
        let size = (wanted.max(1024) + 1).next_power_of_two() / 2;
        PerftTable {
            entries: vec![[0, 0]; size],
            mask: size - 1,
        }
    }

    #[inline]
    fn key(pos: &Position, rules: &Rules, depth: u32) -> u64 {
        if rules.one_time_mills {
            return (pos.key() ^ (depth as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1;
        }
        let b = pos.board;
        (b[0].0 as u64)
            | (b[1].0 as u64) << 24
            | (pos.side as u64) << 48
            | (pos.hand[0] as u64) << 49
            | (pos.hand[1] as u64) << 53
            | (pos.pending as u64) << 57
            | (depth as u64) << 59
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20) as usize & self.mask
    }

    #[inline]
    fn probe(&self, key: u64) -> Option<u64> {
        let e = self.entries[self.slot(key)];
        (e[0] == key).then_some(e[1])
    }

    #[inline]
    fn store(&mut self, key: u64, count: u64) {
        let i = self.slot(key);
        self.entries[i] = [key, count];
    }
}

/// Perft without memoisation (for tests that check the memo).
pub fn perft_plain(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(rules),
        _ => {
            let mut list = MoveList::new();
            pos.legal_moves(rules, &mut list);
            list.iter()
                .map(|&m| perft_plain(&pos.play_unchecked(rules, m), rules, depth - 1))
                .sum()
        }
    }
}

/// Perft with a memo table.
pub fn perft(pos: &Position, rules: &Rules, depth: u32, table: &mut PerftTable) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(rules),
        _ => {
            // Depths up to 31 fit in the packed key.
            let memo = depth < 32;
            let key = PerftTable::key(pos, rules, depth);
            if memo {
                if let Some(n) = table.probe(key) {
                    return n;
                }
            }
            let mut list = MoveList::new();
            pos.legal_moves(rules, &mut list);
            let mut n = 0;
            for &m in list.iter() {
                n += perft(&pos.play_unchecked(rules, m), rules, depth - 1, table);
            }
            if memo {
                table.store(key, n);
            }
            n
        }
    }
}

/// The count below each root move, in move-generation order.
pub fn divide(
    pos: &Position,
    rules: &Rules,
    depth: u32,
    table: &mut PerftTable,
) -> Vec<(Move, u64)> {
    let mut list = MoveList::new();
    pos.legal_moves(rules, &mut list);
    list.iter()
        .map(|&m| {
            let n = if depth <= 1 {
                1
            } else {
                perft(&pos.play_unchecked(rules, m), rules, depth - 1, table)
            };
            (m, n)
        })
        .collect()
}
