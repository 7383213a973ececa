//! Whole-turn perft: counts the leaves of the move tree, with the last ply
//! counted in bulk and transpositions memoised in a hash table.
//!
//! A finished game (fewer than three pieces, no legal move) has no
//! children; draw rules are not applied.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::moves::{Move, MoveList};
use super::position::Position;
use super::rules::Rules;

/// A memo of subtree counts. Keys are exact (the position packed into 59
/// bits plus the depth, the board taken in the least of its 16 symmetric
/// forms, which all have the same counts) except under one-time-use mills,
/// whose record does not fit and which fall back on the 64-bit zobrist key,
/// as do the rare states of later variants (marked points, removals owed
/// next or of one's own pieces).
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
        // The record of formed mills, marked points and removals owed by
        // the side not to move, of one's own pieces or more than three do
        // not fit the packed key.
        let unpacked = (pos.marked.0
            | pos.next_owed as u8 as u32
            | pos.own_removal as u32
            | (pos.pending >> 2) as u32)
            != 0;
        if rules.one_time_mills || unpacked {
            return (pos.key() ^ (depth as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1;
        }
        let (white, black) = canonical(pos.board[0].0, pos.board[1].0);
        (white as u64)
            | (black as u64) << 24
            | (pos.side as u64) << 48
            | (pos.hand[0] as u64) << 49
            | (pos.hand[1] as u64) << 53
            | (pos.pending as u64) << 57
            | (depth as u64) << 59
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        // Every key bit must reach the index bits: mix before masking.
        let mut h = key ^ (key >> 33);
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        (h ^ (h >> 33)) as usize & self.mask
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

/// Rotates every ring of a 24-bit board one quarter turn (two slots).
#[inline]
fn rotate(x: u32) -> u32 {
    ((x << 2) & 0x00fc_fcfc) | ((x >> 6) & 0x0003_0303)
}

/// Mirrors every ring (slot k to slot 8 - k) and swaps inner and outer.
#[inline]
fn mirror_swap(x: u32) -> u32 {
    // Reversing the 32 bits reverses each byte and the byte order; the
    // one-slot rotation then maps slot 7 - k to 8 - k.
    let r = x.reverse_bits() >> 8;
    ((r << 1) & 0x00fe_fefe) | ((r >> 7) & 0x0001_0101)
}

/// Swaps the inner and outer rings.
#[inline]
fn swap_rings(x: u32) -> u32 {
    x.swap_bytes() >> 8
}

/// The least of the 16 symmetric images of the board (rotations,
/// reflections, inner/outer swap), which keep lines and adjacency, with or
/// without diagonals.
#[inline]
pub fn canonical(white: u32, black: u32) -> (u32, u32) {
    let mut best = ((black as u64) << 24) | white as u64;
    let (mut w, mut b) = (white, black);
    for flip in 0..2 {
        if flip == 1 {
            (w, b) = (mirror_swap(w), mirror_swap(b));
        }
        for _ in 0..4 {
            for (ww, bb) in [(w, b), (swap_rings(w), swap_rings(b))] {
                best = best.min(((bb as u64) << 24) | ww as u64);
            }
            (w, b) = (rotate(w), rotate(b));
        }
    }
    ((best & 0xff_ffff) as u32, (best >> 24) as u32)
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
    static NEVER: AtomicBool = AtomicBool::new(false);
    count(pos, rules, depth, table, &NEVER)
}

/// Nodes this deep or deeper look at the stop flag: a relaxed load per
/// node with thousands of leaves below it costs nothing measurable.
const STOP_CHECK_DEPTH: u32 = 3;

/// The counting itself. Once `stop` is set the counts are meaningless:
/// nothing more is stored in the memo, and the caller must discard them.
fn count(
    pos: &Position,
    rules: &Rules,
    depth: u32,
    table: &mut PerftTable,
    stop: &AtomicBool,
) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(rules),
        _ => {
            if depth >= STOP_CHECK_DEPTH {
                // Where the count runs on the only thread (WebAssembly),
                // `stop` comes in here.
                crate::host::poll(0);
                if stop.load(Relaxed) {
                    return 0;
                }
            }
            // Depths of 32 and more do not fit the key (and are never
            // reached in practice); they are counted without the memo.
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
                n += count(&pos.play_unchecked(rules, m), rules, depth - 1, table, stop);
            }
            if memo && !(depth >= STOP_CHECK_DEPTH && stop.load(Relaxed)) {
                table.store(key, n);
            }
            n
        }
    }
}

/// The count below each root move, in move-generation order, until
/// `stop` is set: then only the root moves counted in full are listed.
pub fn divide(
    pos: &Position,
    rules: &Rules,
    depth: u32,
    table: &mut PerftTable,
    stop: &AtomicBool,
) -> Divide {
    let mut list = MoveList::new();
    pos.legal_moves(rules, &mut list);
    let mut counts = Vec::with_capacity(list.len());
    for &m in list.iter() {
        let n = if depth <= 1 {
            1
        } else {
            count(&pos.play_unchecked(rules, m), rules, depth - 1, table, stop)
        };
        if stop.load(Relaxed) {
            return Divide {
                counts,
                root_moves: list.len(),
            };
        }
        counts.push((m, n));
    }
    Divide {
        counts,
        root_moves: list.len(),
    }
}

/// What [`divide`] counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divide {
    /// Each root move counted in full, with its count.
    pub counts: Vec<(Move, u64)>,
    /// How many root moves there are.
    pub root_moves: usize,
}

impl Divide {
    /// Whether every root move was counted (the perft was not stopped).
    pub fn is_complete(&self) -> bool {
        self.counts.len() == self.root_moves
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().map(|c| c.1).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Point, Variant};

    /// Every symmetry maps lines to lines and edges to edges, so it keeps
    /// move counts: check against the geometry tables.
    #[test]
    fn symmetries_keep_lines_and_adjacency() {
        for diagonals in [false, true] {
            let g = crate::core::geometry::Geometry::get(diagonals);
            for f in [rotate, mirror_swap, swap_rings] {
                let lines: Vec<u32> = g.lines.iter().map(|l| l.0).collect();
                for l in &lines {
                    assert!(lines.contains(&f(*l)), "line {l:x} maps to {:x}", f(*l));
                }
                for p in Point::ALL {
                    let image = f(p.bb().0).trailing_zeros() as usize;
                    let adj_image: u32 = g.adjacent[p.index()]
                        .map(|q| f(q.bb().0))
                        .fold(0, |a, b| a | b);
                    assert_eq!(adj_image, g.adjacent[image].0);
                }
            }
        }
    }

    #[test]
    fn symmetric_positions_have_equal_counts() {
        let rules = Variant::Twelve.rules();
        let pos = Position::from_fen(
            "O*@*****/**O**@**/******@O w p p 3 9 3 9 0 0 0 0 0 0 0 0 1",
            &rules,
        )
        .unwrap();
        let (w, b) = canonical(pos.board[0].0, pos.board[1].0);
        let mut image = pos;
        image.board = [crate::core::Bitboard(w), crate::core::Bitboard(b)];
        image.key = image.compute_key();
        assert_ne!(
            image.board, pos.board,
            "the test wants a position that is not already canonical"
        );
        assert_eq!(perft_plain(&pos, &rules, 3), perft_plain(&image, &rules, 3));
    }

    #[test]
    fn a_stopped_divide_lists_only_whole_root_moves() {
        let rules = Variant::Nine.rules();
        let pos = Position::startpos(&rules);
        let go = AtomicBool::new(false);
        let full = divide(&pos, &rules, 3, &mut PerftTable::new(1), &go);
        assert!(full.is_complete());
        assert_eq!(full.total(), 24 * 23 * 22);
        let stopped = AtomicBool::new(true);
        let part = divide(&pos, &rules, 4, &mut PerftTable::new(1), &stopped);
        assert!(!part.is_complete());
        assert_eq!(part.root_moves, 24);
        assert!(part.counts.is_empty());
        // A stopped count stores nothing: the memo still gives true counts.
        let mut table = PerftTable::new(1);
        let _ = divide(&pos, &rules, 5, &mut table, &stopped);
        assert_eq!(divide(&pos, &rules, 3, &mut table, &go), full);
    }
}
