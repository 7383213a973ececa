//! A position: the pieces, the hands, the side to move and the pending
//! removals, with copy-make play of whole turns and of their parts.

use super::moves::{Move, MoveList};
use super::point::{Bitboard, Color, Point};
use super::rules::{FullBoardAction, PlacingMill, Rules};
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

/// Where the game stands, judged from the position alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win { winner: Color, reason: WinReason },
    Draw(DrawReason),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinReason {
    /// The loser has fewer than three pieces, on the board and in hand.
    FewerThanThree,
    /// The loser, to move, has no legal move.
    Blocked,
    /// The board filled up and the rules make the first player lose.
    FullBoard,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    FullBoard,
    ThreefoldRepetition,
    NMoveRule,
    EndgameNMoveRule,
}

impl Outcome {
    /// A sentence for `d` and `info string`.
    pub fn describe(self) -> String {
        match self {
            Outcome::Win { winner, reason } => {
                let loser = winner.opponent();
                let why = match reason {
                    WinReason::FewerThanThree => format!("{loser} has fewer than three pieces"),
                    WinReason::Blocked => format!("{loser} has no legal move"),
                    WinReason::FullBoard => {
                        "the board is full and the first player loses".to_string()
                    }
                };
                format!("{winner} wins: {why}")
            }
            Outcome::Draw(reason) => {
                let why = match reason {
                    DrawReason::FullBoard => "the board is full",
                    DrawReason::ThreefoldRepetition => "threefold repetition",
                    DrawReason::NMoveRule => "N-move rule",
                    DrawReason::EndgameNMoveRule => "endgame N-move rule",
                };
                format!("draw: {why}")
            }
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn result_text(self) -> &'static str {
        match self {
            Outcome::Win {
                winner: Color::White,
                ..
            } => "1-0",
            Outcome::Win {
                winner: Color::Black,
                ..
            } => "0-1",
            Outcome::Draw(_) => "1/2-1/2",
        }
    }
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

    /// Whether `c`, with no pieces in hand, may fly.
    #[inline]
    pub fn can_fly(&self, rules: &Rules, c: Color) -> bool {
        rules.flying
            && self.hand[c.index()] == 0
            && self.board[c.index()].count() <= rules.fly_at as u32
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

    /// The opponent's pieces the side to move may remove now.
    #[inline]
    pub fn removable(&self, rules: &Rules) -> Bitboard {
        unprotected(rules, self.board[self.side.opponent().index()])
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

    /// The colour whose pieces the pending removals take.
    #[inline]
    pub(crate) fn removal_victim(&self) -> Color {
        if self.own_removal {
            self.side
        } else {
            self.side.opponent()
        }
    }
    /// How many removals a step to `to` earns, with `own` the mover's pieces
    /// after the step (0 when it closes no mill that counts).
    #[inline]
    pub(crate) fn removals_earned(&self, rules: &Rules, to: Point, own: Bitboard) -> u8 {
        let g = rules.geometry();
        let parts = &g.partners[to.index()];
        let mut n = 0;
        for part in parts.iter().take(g.line_count[to.index()] as usize) {
            if own.includes(*part)
                && !(rules.one_time_mills && self.formed[self.side.index()].includes(part.with(to)))
            {
                n += 1;
            }
        }
        if n > 1 && !rules.remove_multiple {
            1
        } else {
            n
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
    fn apply_step(&mut self, from: Option<Point>, to: Point) {
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

    fn record_formed_mills(&mut self, rules: &Rules, to: Point) {
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

    /// Removes the opponent's piece at `p` without checks or marks.
    #[inline]
    fn remove_opponent(&mut self, p: Point) {
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

    /// `end_turn`'s rare part, after a placing turn: hand over removals owed next, or apply the
    /// rules of the end of placing (Sanmill's placing-to-moving boundary).
    #[cold]
    #[inline(never)]
    fn after_placing_turn_rare(&mut self, rules: &Rules) {
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

    /// The rest of `play_unchecked` under a placing-mill rule other than
    /// the standard one: the hand removal of a placement that closes a mill
    /// (remove-from-hand; the move lists board removals only once the
    /// hand is empty), or removals that only mark (mark-and-delay).
    #[cold]
    #[inline(never)]
    fn finish_placing_mill_unchecked(mut self, rules: &Rules, to: Point, m: Move) -> Position {
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

    /// A turn that only removes: owed removals (all of them, or three of
    /// more), or a stuck side's removal before it moves again.
    #[cold]
    #[inline(never)]
    fn play_removals_unchecked(&self, rules: &Rules, m: Move) -> Position {
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

    /// Plays a move after checking it: a whole turn, or part of one in
    /// Sanmill's style (a mill-closing step without its removal leaves the
    /// removal pending; a removal-only move pays pending removals).
    pub fn play(&self, rules: &Rules, m: Move) -> Result<Position, PlayError> {
        if let Some(outcome) = self.outcome(rules) {
            return Err(PlayError::GameOver(outcome.describe()));
        }
        let mut next = *self;
        let us = self.side;
        if let Some(to) = m.to() {
            if self.pending > 0 {
                return Err(PlayError::RemovalOwed);
            }
            if !self.empty().contains(to) {
                return Err(PlayError::Occupied(to));
            }
            match m.from() {
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
            // A stuck side under the blocked-removes rule removes one
            // opposing piece and stays to move.
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
            return Ok(next);
        }
        for r in m.removals() {
            if next.pending == 0 {
                return Err(PlayError::TooManyRemovals);
            }
            if !next.removal_targets(rules).contains(r) {
                return Err(PlayError::NotRemovable(r));
            }
            next.remove_victim(rules, r);
            next.set_pending(next.pending - 1);
            let victim = next.removal_victim();
            if next.pending == 0
                || next.material(victim) < 3
                || next.removal_targets(rules).is_empty()
            {
                if m.removals().skip_while(|&x| x != r).nth(1).is_some() {
                    return Err(PlayError::TooManyRemovals);
                }
                next.end_removal_turn(rules);
                break;
            }
        }
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

    /// The result if the game is over by the position alone (fewer than
    /// three pieces, no legal move, full board); draws that need the
    /// game's history are the `Game`'s business.
    pub fn outcome(&self, rules: &Rules) -> Option<Outcome> {
        let us = self.side;
        for c in [us, us.opponent()] {
            if self.material(c) < Rules::MIN_PIECES as u32 {
                return Some(Outcome::Win {
                    winner: c.opponent(),
                    reason: WinReason::FewerThanThree,
                });
            }
        }
        if self.pending > 0 || self.has_legal_move(rules) {
            return None;
        }
        if self.empty().is_empty() {
            match rules.full_board {
                FullBoardAction::FirstPlayerLoses => {
                    return Some(Outcome::Win {
                        winner: Color::Black,
                        reason: WinReason::FullBoard,
                    });
                }
                FullBoardAction::Draw => return Some(Outcome::Draw(DrawReason::FullBoard)),
                // The removals that follow a full board are owed when
                // placing ends; a full board met otherwise blocks.
                FullBoardAction::FirstThenSecondRemove | FullBoardAction::SecondThenFirstRemove => {
                }
            }
        }
        Some(Outcome::Win {
            winner: us.opponent(),
            reason: WinReason::Blocked,
        })
    }

    /// Whether the side to move has at least one legal turn (ignoring the
    /// piece count).
    pub fn has_legal_move(&self, rules: &Rules) -> bool {
        if self.pending > 0 {
            return self.removal_targets(rules).nonempty();
        }
        let empty = self.empty();
        let us = self.side;
        let can_step = if empty.is_empty() {
            false
        } else if self.hand[us.index()] > 0 || self.can_fly(rules, us) {
            self.board[us.index()].nonempty() || self.hand[us.index()] > 0
        } else {
            (self.board[us.index()] & rules.geometry().neighbours(empty)).nonempty()
        };
        can_step || (rules.blocked_removes && self.blocked_targets(rules).nonempty())
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
