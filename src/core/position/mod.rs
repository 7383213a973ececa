//! A position: the pieces, the hands, the side to move and the pending
//! removals, with copy-make play of whole turns and of their parts.
//!
//! This file holds the state, its accessors and key, the end of a turn and
//! the two ways to play a move (unchecked, as generated; checked, in whole
//! or in part); the rules' parts live beside it: the step of a turn
//! (`step.rs`), the placing-mill rules (`placing_mill.rs`), removals
//! (`removal.rs`), the end of placing (`placing_end.rs`) and the game's
//! outcome (`outcome.rs`).

mod outcome;
mod placing_end;
mod placing_mill;
mod removal;
mod step;

pub use outcome::{DrawReason, Outcome, WinReason};

use super::moves::{Move, MoveList};
use super::point::{Bitboard, Color, Point};
use super::rules::{PlacingMill, Rules};
use super::zobrist;

/// Everything that decides the legal moves from here on (with the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: [Bitboard; 2],
    pub(crate) hand: [u8; 2],
    pub(crate) side: Color,
    /// Removals the side to move still owes (a turn cut after its step).
    pub(crate) pending: u8,
    /// Whether the side to move began this turn with pieces in hand (only
    /// shown by the FEN's phase letter while a removal is pending).
    pub(crate) placing_turn: bool,
    /// One-time-use mills: the points of every mill each side has formed.
    pub(crate) formed: [Bitboard; 2],
    /// Plies since the last placement or removal.
    pub(crate) rule50: u16,
    pub(crate) fullmove: u16,
    /// Points whose pieces a mill removed during placing under the
    /// mark-and-delay rule: occupied, in no mill, cleared when placing ends.
    pub(crate) marked: Bitboard,
    /// The pending removals take the side to move's own pieces (removals
    /// by mill counts when neither side has a mill).
    pub(crate) own_removal: bool,
    /// Removals the opponent owes as soon as this turn ends (negative: of
    /// its own pieces): the second half of the removals that follow the
    /// end of placing.
    pub(crate) next_owed: i8,
    pub(crate) key: u64,
}

/// Why a move could not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("the game is over ({0})")]
    GameOver(String),
    #[error("a removal is owed: only removals (like `xb4`) may be played")]
    RemovalOwed,
    #[error("a removal-only move needs a pending removal")]
    NoRemovalOwed,
    #[error("no piece in hand to place at {0}")]
    NoPieceInHand(Point),
    #[error("pieces in hand must be placed, not moved")]
    MustPlace,
    #[error("{0} is not empty")]
    Occupied(Point),
    #[error("there is no own piece on {0}")]
    NotOwnPiece(Point),
    #[error("{0} is not adjacent to {1}")]
    NotAdjacent(Point, Point),
    #[error(
        "nothing may be removed: the step closes no mill, or the opponent has no removable piece"
    )]
    NothingToRemove,
    #[error("{0} cannot be removed (empty, own piece, or protected by a mill)")]
    NotRemovable(Point),
    #[error("too many removals")]
    TooManyRemovals,
}

impl Position {
    /// The empty board with every piece in hand, White to move.
    pub fn startpos(rules: &Rules) -> Position {
        let mut pos = Position {
            board: [Bitboard::EMPTY; 2],
            hand: [rules.pieces; 2],
            side: Color::White,
            pending: 0,
            placing_turn: rules.pieces > 0,
            formed: [Bitboard::EMPTY; 2],
            rule50: 0,
            fullmove: 1,
            marked: Bitboard::EMPTY,
            own_removal: false,
            next_owed: 0,
            key: 0,
        };
        pos.key = pos.compute_key();
        pos
    }

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline]
    pub fn pieces(&self, c: Color) -> Bitboard {
        self.board[c.index()]
    }

    #[inline]
    pub fn in_hand(&self, c: Color) -> u8 {
        self.hand[c.index()]
    }

    /// The points that are not empty: pieces and marked points.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.board[0] | self.board[1] | self.marked
    }

    /// Marked points (mark-and-delay rules): removed pieces that block
    /// their points until placing ends.
    #[inline]
    pub fn marked(&self) -> Bitboard {
        self.marked
    }

    /// Whether the pending removals take the side to move's own pieces.
    #[inline]
    pub fn owes_own_pieces(&self) -> bool {
        self.own_removal
    }

    /// Removals the opponent owes once this turn ends (negative: of its
    /// own pieces).
    #[inline]
    pub fn next_owed(&self) -> i8 {
        self.next_owed
    }

    #[inline]
    pub fn empty(&self) -> Bitboard {
        !self.occupied()
    }

    /// Removals the side to move still owes before its turn ends.
    #[inline]
    pub fn pending_removals(&self) -> u8 {
        self.pending
    }

    #[inline]
    pub fn formed_mills(&self, c: Color) -> Bitboard {
        self.formed[c.index()]
    }

    #[inline]
    pub fn rule50(&self) -> u16 {
        self.rule50
    }

    /// The same position with the N-move counter (FEN field 16) at
    /// `plies` (the key does not depend on it).
    pub fn with_rule50(mut self, plies: u16) -> Position {
        self.rule50 = plies;
        self
    }

    #[inline]
    pub fn fullmove(&self) -> u16 {
        self.fullmove
    }

    /// The zobrist key: points, side to move, hands, pending removals and
    /// the one-time-use mill record.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Pieces on the board and in hand.
    #[inline]
    pub fn material(&self, c: Color) -> u32 {
        self.board[c.index()].count() + self.hand[c.index()] as u32
    }

    /// Whether the side to move is placing (it has pieces in hand).
    #[inline]
    pub fn is_placing(&self) -> bool {
        self.hand[self.side.index()] > 0
    }

    /// The key recomputed from scratch (the debug invariant checks that the
    /// incremental key always equals it).
    pub fn compute_key(&self) -> u64 {
        let mut k = 0;
        for c in Color::ALL {
            for p in self.board[c.index()] {
                k ^= zobrist::piece(c, p);
            }
            for p in self.formed[c.index()] {
                k ^= zobrist::formed(c, p);
            }
            k ^= zobrist::hand(c, self.hand[c.index()]);
        }
        if self.side == Color::Black {
            k ^= zobrist::KEYS.black_to_move;
        }
        for p in self.marked {
            k ^= zobrist::marked(p);
        }
        if self.own_removal {
            k ^= zobrist::KEYS.own_removal;
        }
        k ^ zobrist::pending(self.pending) ^ zobrist::next_owed(self.next_owed)
    }

    /// Ends the turn: no removal owed, the other side to move (then the
    /// rules of the end of placing, and removals owed next, if any).
    #[inline]
    pub(crate) fn end_turn(&mut self, rules: &Rules) {
        self.key ^= zobrist::pending(self.pending) ^ zobrist::KEYS.black_to_move;
        self.pending = 0;
        if self.side == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        let was_placing = self.placing_turn;
        self.side = self.side.opponent();
        self.placing_turn = self.hand[self.side.index()] > 0;
        // Rare: a placing turn hands the move to a side with nothing in
        // hand (the end of placing; the standard rules then simply
        // alternate). Removals owed next are handed over by
        // `end_removal_turn`: only a removal-only turn ends with them.
        if was_placing & !self.placing_turn {
            self.after_placing_turn_rare(rules);
        }
    }

    fn set_side(&mut self, c: Color) {
        if self.side != c {
            self.side = c;
            self.key ^= zobrist::KEYS.black_to_move;
        }
        self.placing_turn = self.hand[c.index()] > 0;
    }

    fn set_next_owed(&mut self, n: i8) {
        self.key ^= zobrist::next_owed(self.next_owed) ^ zobrist::next_owed(n);
        self.next_owed = n;
    }

    #[inline]
    fn set_pending(&mut self, n: u8) {
        self.key ^= zobrist::pending(self.pending) ^ zobrist::pending(n);
        self.pending = n;
    }

    /// Plays a whole turn the move generator produced. No legality checks
    /// beyond debug assertions.
    #[inline(always)]
    pub fn play_unchecked(&self, rules: &Rules, m: Move) -> Position {
        let mut next = *self;
        let Some(to) = m.to() else {
            return self.play_removals_unchecked(rules, m);
        };
        next.apply_step(m.from(), to);
        // Records exactly the lines that would have earned a removal.
        if rules.one_time_mills {
            next.record_formed_mills(rules, to);
        }
        if rules.placing_mill != PlacingMill::RemoveFromBoard {
            return next.finish_placing_mill_unchecked(rules, to, m);
        }
        for r in m.removals() {
            next.remove_opponent(r);
        }
        next.end_turn(rules);
        #[cfg(debug_assertions)]
        next.assert_invariants(rules);
        next
    }

    /// Plays a move after checking it: a whole turn, or part of one in
    /// Sanmill's style (a mill-closing step without its removal leaves the
    /// removal pending; a removal-only move pays pending removals).
    pub fn play(&self, rules: &Rules, m: Move) -> Result<Position, PlayError> {
        if let Some(outcome) = self.outcome(rules) {
            return Err(PlayError::GameOver(outcome.describe()));
        }
        let mut next = *self;
        if let Some(to) = m.to() {
            self.check_step(rules, m.from(), to)?;
            let earned = next.do_step(rules, m.from(), to);
            let earned = next.placing_mill_effect(rules, m.from().is_none(), earned);
            let owed = if next.removal_targets(rules).nonempty() {
                earned
            } else {
                0
            };
            if owed == 0 {
                if m.removal_count() > 0 {
                    return Err(PlayError::NothingToRemove);
                }
                next.end_turn(rules);
                return Ok(next);
            }
            next.set_pending(owed);
        } else if self.pending == 0 {
            return self.play_blocked_removal(rules, m);
        }
        next.pay_removals(rules, m)?;
        #[cfg(debug_assertions)]
        next.assert_invariants(rules);
        Ok(next)
    }

    /// The generated legal turn with `m`'s step and the same set of
    /// removals, in whatever order `m` lists them.
    pub fn find_legal(&self, rules: &Rules, m: Move) -> Option<Move> {
        let mut list = MoveList::new();
        self.legal_moves(rules, &mut list);
        let set = |m: Move| m.removals().fold(Bitboard::EMPTY, |b, p| b.with(p));
        list.iter()
            .copied()
            .find(|&l| l.step() == m.step() && set(l) == set(m))
    }

    /// Checks the redundant state (debug builds run it after every move).
    pub fn assert_invariants(&self, rules: &Rules) {
        assert_eq!(
            self.key,
            self.compute_key(),
            "incremental key differs from a recomputed one"
        );
        assert!(
            (self.board[0] & self.board[1]).is_empty(),
            "a point holds two pieces"
        );
        assert!(
            self.board[0].0 >> 24 == 0 && self.board[1].0 >> 24 == 0,
            "bits beyond the board"
        );
        assert!(
            (self.marked & (self.board[0] | self.board[1])).is_empty(),
            "a marked point holds a piece"
        );
        for c in Color::ALL {
            assert!(
                self.board[c.index()].count() + self.hand[c.index()] as u32 <= rules.pieces as u32
            );
        }
    }
}
