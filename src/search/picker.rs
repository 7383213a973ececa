//! The moves of one search node in the order they are tried: the hash
//! move first, then the generated moves best-scored first, picked one at
//! a time. The move list and its scores are pooled buffers, taken when the
//! node starts and given back when its picker is dropped, so that no node
//! allocates or builds 8 KB of lists on the stack.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

use super::ordering::{OrderingTables, pick};
use super::params::ORDER_BLOCK;
use crate::core::moves::MAX_MOVES;
use crate::core::{Move, MoveList, Position, Rules};

/// A move list and an ordering score for each of its moves.
pub(super) struct Buffers {
    pub moves: MoveList,
    pub scores: [i32; MAX_MOVES],
}

/// One thread's spare [`Buffers`]: as many as nodes were ever live at
/// once (one per ply of the deepest line so far).
#[derive(Default)]
pub(super) struct BufferPool {
    free: RefCell<Vec<Box<Buffers>>>,
}

impl BufferPool {
    /// A spare pair of buffers (a new one when all are in use), given back
    /// when the guard is dropped.
    #[inline]
    pub(super) fn take(&self) -> Pooled<'_> {
        let buffers = self.free.borrow_mut().pop().unwrap_or_else(|| {
            Box::new(Buffers {
                moves: MoveList::new(),
                scores: [0; MAX_MOVES],
            })
        });
        Pooled {
            buffers: Some(buffers),
            pool: self,
        }
    }
}

/// Buffers on loan from a [`BufferPool`].
pub(super) struct Pooled<'p> {
    /// Always `Some` until `drop` hands it back.
    buffers: Option<Box<Buffers>>,
    pool: &'p BufferPool,
}

impl Deref for Pooled<'_> {
    type Target = Buffers;
    #[inline]
    fn deref(&self) -> &Buffers {
        self.buffers.as_deref().expect("held until dropped")
    }
}

impl DerefMut for Pooled<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Buffers {
        self.buffers.as_deref_mut().expect("held until dropped")
    }
}

impl Drop for Pooled<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some(buffers) = self.buffers.take() {
            self.pool.free.borrow_mut().push(buffers);
        }
    }
}

/// A move as the picker hands it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Picked {
    pub mv: Move,
    /// Neither the hash move, nor a removal, nor a block of an opponent's
    /// mill: the moves late-move reductions shorten and history learns from.
    pub quiet: bool,
}

/// Where a picker is in its staged order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The hash move comes next; nothing is generated yet.
    HashMove,
    /// The moves are to be scored (and generated, after a hash move).
    Score,
    /// Scored: the rest come out best first.
    Ordered,
}

/// The moves of one node, staged: a legal hash move is tried first, and the
/// other moves are generated and scored only if it does not cut off.
pub(super) struct MovePicker<'p> {
    pos: &'p Position,
    ply: usize,
    tt_move: Option<Move>,
    buffers: Pooled<'p>,
    stage: Stage,
    /// Moves handed out so far, the hash move included; once scored, also
    /// the list index of the next move (the hash move is picked to the
    /// front).
    index: usize,
    /// Whether the move at `index` is already picked into place (by `peek`).
    peeked: bool,
}

impl<'p> MovePicker<'p> {
    /// A picker for `pos` at `ply`. `tt_move` must be legal there. Without
    /// one the moves are generated now, so that `has_no_moves` and
    /// `is_forced` can answer from the list.
    #[inline]
    pub(super) fn new(
        pool: &'p BufferPool,
        pos: &'p Position,
        rules: &Rules,
        ply: usize,
        tt_move: Option<Move>,
    ) -> MovePicker<'p> {
        let mut buffers = pool.take();
        let stage = if tt_move.is_some() {
            Stage::HashMove
        } else {
            pos.legal_moves(rules, &mut buffers.moves);
            Stage::Score
        };
        MovePicker {
            pos,
            ply,
            tt_move,
            buffers,
            stage,
            index: 0,
            peeked: false,
        }
    }

    /// Whether the side to move has no legal move (asked before `next`).
    #[inline]
    pub(super) fn has_no_moves(&self) -> bool {
        self.tt_move.is_none() && self.buffers.moves.is_empty()
    }

    /// Whether the node has exactly one legal move (asked before `next`).
    #[inline]
    pub(super) fn is_forced(&self, rules: &Rules) -> bool {
        match self.tt_move {
            Some(_) => !self.pos.has_several_moves(rules),
            None => self.buffers.moves.len() == 1,
        }
    }

    /// The next move to try, or `None` when all have been handed out.
    /// `ordering` scores the moves once, when the first of them is asked
    /// for.
    #[inline]
    pub(super) fn next(&mut self, rules: &Rules, ordering: &OrderingTables) -> Option<Picked> {
        match self.stage {
            Stage::HashMove => {
                self.stage = Stage::Score;
                self.index = 1;
                return self.tt_move.map(|mv| Picked { mv, quiet: false });
            }
            Stage::Score => self.score(rules, ordering),
            Stage::Ordered => {}
        }
        let i = self.index;
        let Buffers { moves, scores } = &mut *self.buffers;
        let n = moves.len();
        if i >= n {
            return None;
        }
        let (moves, scores) = (moves.as_mut_slice(), &mut scores[..n]);
        if !self.peeked {
            pick(moves, scores, i);
        }
        self.peeked = false;
        self.index += 1;
        let mv = moves[i];
        Some(Picked {
            mv,
            quiet: !mv.has_removal() && scores[i] < ORDER_BLOCK,
        })
    }

    /// The move that `next` will hand out, picked into place now (picking
    /// is deterministic, so the search can make its child early). `None`
    /// while the moves are not yet scored (right after the hash move) and
    /// after the last move.
    #[inline]
    pub(super) fn peek(&mut self) -> Option<Move> {
        if self.stage != Stage::Ordered {
            return None;
        }
        let i = self.index;
        let Buffers { moves, scores } = &mut *self.buffers;
        let n = moves.len();
        if i >= n {
            return None;
        }
        pick(moves.as_mut_slice(), &mut scores[..n], i);
        self.peeked = true;
        Some(moves[i])
    }

    /// Generates the moves if the hash move went first, and scores them;
    /// the hash move, already tried, goes to the front.
    fn score(&mut self, rules: &Rules, ordering: &OrderingTables) {
        self.stage = Stage::Ordered;
        let Buffers { moves, scores } = &mut *self.buffers;
        if self.tt_move.is_some() {
            self.pos.legal_moves(rules, moves);
        }
        let n = moves.len();
        ordering.score(
            self.pos,
            rules,
            self.ply,
            self.tt_move,
            moves,
            &mut scores[..n],
        );
        if self.tt_move.is_some() {
            pick(moves.as_mut_slice(), &mut scores[..n], 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    fn all_moves(rules: &Rules, pos: &Position) -> Vec<Move> {
        let mut list = MoveList::new();
        pos.legal_moves(rules, &mut list);
        list.to_vec()
    }

    fn drain(picker: &mut MovePicker, rules: &Rules, ordering: &OrderingTables) -> Vec<Move> {
        std::iter::from_fn(|| picker.next(rules, ordering))
            .map(|p| p.mv)
            .collect()
    }

    /// A placing position with a mill to close (white a7 d7, g7 empty)
    /// and one of black's to block.
    fn position(rules: &Rules) -> Position {
        Position::from_fen(
            "********/********/OO**@@** w p p 2 7 2 7 0 0 0 0 0 0 0 0 1",
            rules,
        )
        .expect("test FEN")
    }

    #[test]
    fn every_move_comes_once_hash_move_first() {
        let rules = Variant::Nine.rules();
        let pos = position(&rules);
        let ordering = OrderingTables::new(8);
        let pool = BufferPool::default();
        let mut expected = all_moves(&rules, &pos);
        expected.sort_by_key(|m| m.raw());
        for &tt in &expected {
            let mut picker = MovePicker::new(&pool, &pos, &rules, 0, Some(tt));
            assert!(!picker.has_no_moves());
            let got = drain(&mut picker, &rules, &ordering);
            assert_eq!(got[0], tt);
            let mut sorted = got.clone();
            sorted.sort_by_key(|m| m.raw());
            assert_eq!(sorted, expected, "hash move {tt}");
        }
        let mut picker = MovePicker::new(&pool, &pos, &rules, 0, None);
        let mut got = drain(&mut picker, &rules, &ordering);
        got.sort_by_key(|m| m.raw());
        assert_eq!(got, expected);
    }

    #[test]
    fn peek_shows_what_next_hands_out() {
        let rules = Variant::Nine.rules();
        let pos = position(&rules);
        let ordering = OrderingTables::new(8);
        let pool = BufferPool::default();
        let plain = drain(
            &mut MovePicker::new(&pool, &pos, &rules, 0, None),
            &rules,
            &ordering,
        );
        let mut picker = MovePicker::new(&pool, &pos, &rules, 0, None);
        let mut peeked = Vec::new();
        while let Some(p) = picker.next(&rules, &ordering) {
            peeked.push(p.mv);
            if let Some(ahead) = picker.peek() {
                assert_eq!(picker.peek(), Some(ahead), "peeking twice");
            }
        }
        assert_eq!(peeked, plain);
        assert_eq!(picker.peek(), None);
        // The mill closure comes first.
        assert!(plain[0].has_removal());
    }

    #[test]
    fn buffers_go_back_to_the_pool() {
        let rules = Variant::Nine.rules();
        let pos = position(&rules);
        let pool = BufferPool::default();
        {
            let _outer = MovePicker::new(&pool, &pos, &rules, 0, None);
            let _inner = MovePicker::new(&pool, &pos, &rules, 1, None);
        }
        assert_eq!(pool.free.borrow().len(), 2);
        let _again = MovePicker::new(&pool, &pos, &rules, 0, None);
        assert_eq!(pool.free.borrow().len(), 1);
    }

    #[test]
    fn the_hash_move_is_not_quiet() {
        let rules = Variant::Nine.rules();
        let pos = position(&rules);
        let ordering = OrderingTables::new(8);
        let pool = BufferPool::default();
        let quiet = all_moves(&rules, &pos)
            .into_iter()
            .find(|m| !m.has_removal())
            .expect("a quiet placement");
        let mut picker = MovePicker::new(&pool, &pos, &rules, 0, Some(quiet));
        assert_eq!(
            picker.next(&rules, &ordering),
            Some(Picked {
                mv: quiet,
                quiet: false
            })
        );
        assert!(picker.peek().is_none(), "nothing scored yet");
    }
}
