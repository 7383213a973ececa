//! Move ordering: hash move, mill closures by what they remove, blocks of
//! the opponent's open mills, killers, and a history table.

use super::eval::threats_through;
use super::params::{HISTORY_MAX, ORDER_BLOCK, ORDER_KILLER, ORDER_MILL, ORDER_TT};
use crate::core::{Bitboard, Move, Position, Rules};

/// History entries per side: one per step (`Move::step_index`). Only
/// quiet moves (no removal) are scored or updated by history.
const HISTORY_SIZE: usize = 1024;

/// Per-thread ordering memory.
pub struct OrderingTables {
    pub killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
}

impl OrderingTables {
    pub fn new(max_ply: usize) -> OrderingTables {
        OrderingTables {
            killers: vec![[None; 2]; max_ply + 1],
            history: vec![0; 2 * HISTORY_SIZE],
        }
    }

    #[inline]
    fn hist(&self, side: usize, m: Move) -> i32 {
        self.history[side * HISTORY_SIZE + m.step_index()]
    }

    /// Rewards the move that caused a cut-off and punishes the quiet
    /// moves tried before it.
    pub fn update(&mut self, side: usize, ply: usize, best: Move, tried: &[Move], depth: i32) {
        let bonus = (depth * depth).min(400);
        let mut apply = |m: Move, delta: i32| {
            let h = &mut self.history[side * HISTORY_SIZE + m.step_index()];
            *h += delta - *h * delta.abs() / HISTORY_MAX;
        };
        apply(best, bonus);
        for &m in tried {
            if m != best {
                apply(m, -bonus);
            }
        }
        let k = &mut self.killers[ply];
        if k[0] != Some(best) {
            k[1] = k[0];
            k[0] = Some(best);
        }
    }

    /// Scores for ordering `moves` at `pos` (higher first).
    pub fn score(
        &self,
        pos: &Position,
        rules: &Rules,
        ply: usize,
        tt_move: Option<Move>,
        moves: &[Move],
        out: &mut [i32],
    ) {
        let us = pos.side_to_move();
        let them = us.opponent();
        let g = rules.geometry();
        let empty = pos.empty();
        let theirs = pos.pieces(them);
        // Points where the opponent could complete a line next turn.
        let their_closers: Bitboard = g.closing_points(theirs, empty);
        let killers = self.killers[ply.min(self.killers.len() - 1)];
        for (m, o) in moves.iter().zip(out.iter_mut()) {
            let m = *m;
            *o = if Some(m) == tt_move {
                ORDER_TT
            } else if m.has_removal() {
                let mut v = ORDER_MILL + 1000 * m.removal_count() as i32;
                for r in m.removals() {
                    v += 100 * threats_through(rules, r, theirs, empty)
                        + g.adjacent[r.index()].count() as i32;
                }
                v
            } else if m.to().is_some_and(|t| their_closers.contains(t)) {
                ORDER_BLOCK
            } else if killers[0] == Some(m) {
                ORDER_KILLER + 1
            } else if killers[1] == Some(m) {
                ORDER_KILLER
            } else {
                self.hist(us.index(), m)
            };
        }
    }
}

/// The quiet moves searched at a node, the first 64 of them: those a
/// cut-off by a later quiet move punishes in the history table.
pub struct QuietsTried {
    moves: [Move; 64],
    len: usize,
}

impl Default for QuietsTried {
    #[inline]
    fn default() -> QuietsTried {
        QuietsTried {
            // Filler: entries past `len` are never read.
            moves: [Move::place(crate::core::Point::ALL[0]); 64],
            len: 0,
        }
    }
}

impl QuietsTried {
    /// Records `m` (ignored once 64 are held).
    #[inline]
    pub fn push(&mut self, m: Move) {
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = m;
            self.len += 1;
        }
    }

    /// How many were recorded (at most 64).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

/// Picks the best-scored remaining move into position `i` (selection sort
/// step, so a cut-off early saves sorting the rest).
#[inline]
pub fn pick(moves: &mut [Move], scores: &mut [i32], i: usize) {
    let Some((&first, rest)) = scores[i..].split_first() else {
        return;
    };
    // The first of equal scores wins; iterating the slice keeps the loop
    // free of bounds checks.
    let (mut best, mut best_score) = (i, first);
    for (j, &s) in (i + 1..).zip(rest) {
        if s > best_score {
            best = j;
            best_score = s;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
}
