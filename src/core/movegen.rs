//! Legal move generation (whole turns, removals included) and fast move
//! counting for perft's last ply.

use super::moves::{Move, MoveList};
use super::point::{Bitboard, Point};
use super::position::Position;
use super::rules::{PlacingMill, Rules};

/// What every step of one generation shares.
struct StepGen {
    /// The empty points that complete a line of the mover's pieces.
    closers: Bitboard,
    /// The opponent's pieces a mill may remove.
    removable: Bitboard,
    /// Only steps that earn a removal are wanted.
    mills_only: bool,
}

impl Position {
    /// Appends every legal whole turn to `list` (which is cleared first).
    /// A finished game (fewer than three pieces) has no moves.
    pub fn legal_moves(&self, rules: &Rules, list: &mut MoveList) {
        self.generate(rules, list, false);
    }

    /// Appends only the legal turns that close a mill (and so remove), for
    /// the quiescence search; `list` is cleared first.
    pub fn mill_moves(&self, rules: &Rules, list: &mut MoveList) {
        self.generate(rules, list, true);
    }

    fn generate(&self, rules: &Rules, list: &mut MoveList, mills_only: bool) {
        list.clear();
        let us = self.side;
        if self.material(us) < Rules::MIN_PIECES as u32
            || self.material(us.opponent()) < Rules::MIN_PIECES as u32
        {
            return;
        }
        if self.pending > 0 {
            self.push_removals(rules, None, *self, self.pending, list);
            return;
        }
        let own = self.board[us.index()];
        let empty = self.empty();
        let g = rules.geometry();
        let adjacent = &g.adjacent;
        // A step can close a mill only on a point that completes a line of
        // the pieces before the step (a slide only takes one away).
        let mut closers = g.closing_points(own, empty);
        if self.hand[us.index()] > 0 && rules.placing_mill != PlacingMill::RemoveFromBoard {
            closers = self.placing_closers(rules, closers);
        }
        let ctx = StepGen {
            closers,
            // The opponent's removable pieces do not depend on our step.
            removable: if closers.nonempty() {
                self.removable(rules)
            } else {
                Bitboard::EMPTY
            },
            mills_only,
        };
        let targets = if mills_only { closers } else { empty };
        if self.hand[us.index()] > 0 {
            for to in targets {
                self.push_step(rules, &ctx, Move::place(to), to, own.with(to), list);
            }
            if rules.move_in_placing {
                for from in own {
                    let rest = own.without(from);
                    for to in adjacent[from.index()] & targets {
                        let step = Move::slide(from, to);
                        self.push_step(rules, &ctx, step, to, rest.with(to), list);
                    }
                }
            }
        } else {
            let flying = self.can_fly(rules, us);
            for from in own {
                let rest = own.without(from);
                let reach = if flying {
                    targets
                } else {
                    adjacent[from.index()] & targets
                };
                for to in reach {
                    let step = Move::slide(from, to);
                    self.push_step(rules, &ctx, step, to, rest.with(to), list);
                }
            }
            if rules.blocked_removes && list.is_empty() {
                self.push_blocked_removals(rules, list);
            }
        }
    }

    /// The closing points whose placements remove from the board under a
    /// placing-mill rule other than the standard one: none while the
    /// mills take from the opponent's hand or wait for the end of placing.
    /// (Slides while placing still remove from the board.)
    #[cold]
    #[inline(never)]
    fn placing_closers(&self, rules: &Rules, closers: Bitboard) -> Bitboard {
        match rules.placing_mill {
            PlacingMill::RemoveFromHand if self.hand[self.side.opponent().index()] > 0 => {
                Bitboard::EMPTY
            }
            PlacingMill::ByMillCounts => Bitboard::EMPTY,
            _ => closers,
        }
    }

    /// A stuck side's removals under the blocked-removes rule.
    #[cold]
    #[inline(never)]
    fn push_blocked_removals(&self, rules: &Rules, list: &mut MoveList) {
        for r in self.blocked_targets(rules) {
            list.push(Move::remove_only(r));
        }
    }

    /// Pushes a step to `to` and, when it closes a mill, one move per
    /// removal choice. Most steps close nothing: that path is inlined into
    /// the generation loops, the rest is not.
    #[inline(always)]
    fn push_step(
        &self,
        rules: &Rules,
        ctx: &StepGen,
        step: Move,
        to: Point,
        own_after: Bitboard,
        list: &mut MoveList,
    ) {
        if ctx.closers.contains(to) {
            self.push_closing_step(rules, ctx, step, to, own_after, list);
        } else if !ctx.mills_only {
            list.push(step);
        }
    }

    /// `push_step` for a step to a point that completes a line of the
    /// mover's pieces before the step (the step may still close nothing).
    #[inline(never)]
    fn push_closing_step(
        &self,
        rules: &Rules,
        ctx: &StepGen,
        step: Move,
        to: Point,
        own_after: Bitboard,
        list: &mut MoveList,
    ) {
        let earned = self.removals_earned(rules, to, own_after);
        // A step that leaves a side stuck removes as a stuck side does.
        let removable = if rules.blocked_removes && earned > 0 {
            let mut after = *self;
            after.do_step(rules, step.from(), to);
            after.removal_targets(rules)
        } else {
            ctx.removable
        };
        if earned == 0 || removable.is_empty() {
            if !ctx.mills_only {
                list.push(step);
            }
        } else if earned == 1 {
            for r in removable {
                list.push(step.with_removal(r));
            }
        } else {
            let mut after = *self;
            after.do_step(rules, step.from(), to);
            self.push_removals(rules, Some(step), after, earned, list);
        }
    }

    /// Pushes every way to make `owed` removals from `after` (the position
    /// after the step, side to move unchanged), appended to `step`.
    fn push_removals(
        &self,
        rules: &Rules,
        step: Option<Move>,
        after: Position,
        owed: u8,
        list: &mut MoveList,
    ) {
        let removable = after.removal_targets(rules);
        // One turn removes at most three (a move holds three removals);
        // more owed are paid over several turns of the same side.
        let owed = owed.min(3);
        if owed == 1 {
            for r in removable {
                list.push(match step {
                    Some(s) => s.with_removal(r),
                    None => Move::remove_only(r),
                });
            }
            return;
        }
        // Several removals: each choice is made on the board the earlier
        // ones left, so enumerate sequences and keep one per set.
        let mut chosen = [Point::ALL[0]; 3];
        let mut seen = SeenSets::new();
        enumerate_removals(rules, step, after, owed, &mut chosen, 0, &mut seen, list);
    }

    /// Whether `m` is one of the legal whole turns here, exactly as the
    /// generator lists it. Steps with at most one removal are checked
    /// directly (a hash-table move is checked this way before it is
    /// searched without generating); pending and multiple removals fall
    /// back to generating.
    pub fn is_legal(&self, rules: &Rules, m: Move) -> bool {
        let us = self.side;
        if self.material(us) < Rules::MIN_PIECES as u32
            || self.material(us.opponent()) < Rules::MIN_PIECES as u32
        {
            return false;
        }
        let Some(to) = m.to() else {
            return (self.pending > 0 || rules.blocked_removes) && self.is_generated(rules, m);
        };
        if self.pending > 0 || !self.empty().contains(to) {
            return false;
        }
        let own = self.board[us.index()];
        let placing = self.hand[us.index()] > 0;
        let own_after = match m.from() {
            None if placing => own.with(to),
            None => return false,
            Some(from) => {
                let adjacent = rules.geometry().adjacent[from.index()].contains(to);
                let reachable = if placing {
                    rules.move_in_placing && adjacent
                } else {
                    adjacent || self.can_fly(rules, us)
                };
                if !own.contains(from) || !reachable {
                    return false;
                }
                own.without(from).with(to)
            }
        };
        if rules.placing_mill != PlacingMill::RemoveFromBoard || rules.blocked_removes {
            return self.is_generated(rules, m);
        }
        match self.removals_earned(rules, to, own_after) {
            0 => m.removal_count() == 0,
            1 => {
                // The opponent's removable pieces do not depend on our step.
                let removable = self.removable(rules);
                let mut removals = m.removals();
                match (removals.next(), removals.next()) {
                    (None, _) => removable.is_empty(),
                    (Some(r), None) => removable.contains(r),
                    _ => false,
                }
            }
            _ => self.is_generated(rules, m),
        }
    }

    fn is_generated(&self, rules: &Rules, m: Move) -> bool {
        let mut list = MoveList::new();
        self.legal_moves(rules, &mut list);
        list.contains(m)
    }

    /// Whether there are at least two legal turns: a lower bound from the
    /// empty points or the free slides settles almost every position
    /// without generating.
    pub fn has_several_moves(&self, rules: &Rules) -> bool {
        let us = self.side;
        let own = self.board[us.index()];
        let empty = self.empty();
        if self.pending == 0
            && self.material(us) >= Rules::MIN_PIECES as u32
            && self.material(us.opponent()) >= Rules::MIN_PIECES as u32
        {
            // Every counted (piece, target) pair is at least one turn.
            let lower = if self.hand[us.index()] > 0 {
                empty.count()
            } else if self.can_fly(rules, us) {
                own.count() * empty.count()
            } else {
                rules.geometry().mobility(own, empty)
            };
            if lower >= 2 {
                return true;
            }
        }
        let mut list = MoveList::new();
        self.legal_moves(rules, &mut list);
        list.len() >= 2
    }

    /// The number of legal whole turns, counted without building them
    /// where the rules allow (perft's last ply).
    pub fn count_moves(&self, rules: &Rules) -> u64 {
        let us = self.side;
        // `|` rather than `||`: flags read together, one branch.
        if (self.pending > 0)
            | rules.remove_multiple
            | rules.one_time_mills
            | rules.blocked_removes
            | (rules.placing_mill != PlacingMill::RemoveFromBoard && self.hand[us.index()] > 0)
            || self.material(us) < Rules::MIN_PIECES as u32
            || self.material(us.opponent()) < Rules::MIN_PIECES as u32
        {
            let mut list = MoveList::new();
            self.legal_moves(rules, &mut list);
            return list.len() as u64;
        }
        let g = rules.geometry();
        let own = self.board[us.index()];
        let empty = self.empty();
        // A mill-closing step has one move per removable piece, or one move
        // when nothing can be removed.
        let extra = (self.removable(rules).count() as u64).saturating_sub(1);
        let mut n = 0u64;
        if self.hand[us.index()] > 0 {
            n += empty.count() as u64 + extra * g.closing_points(own, empty).count() as u64;
            if rules.move_in_placing {
                n += count_slides(rules, own, empty, false, extra);
            }
        } else {
            n += count_slides(rules, own, empty, self.can_fly(rules, us), extra);
        }
        n
    }
}

fn count_slides(rules: &Rules, own: Bitboard, empty: Bitboard, flying: bool, extra: u64) -> u64 {
    let g = rules.geometry();
    let mut n = 0u64;
    for from in own {
        let rest = own.without(from);
        let targets = if flying {
            empty
        } else {
            g.adjacent[from.index()] & empty
        };
        n += targets.count() as u64;
        if extra > 0 {
            let closers = if flying {
                g.closing_points(rest, empty).count()
            } else {
                targets.filter(|&to| g.mills_through(to, rest) > 0).count() as u32
            };
            n += extra * closers as u64;
        }
    }
    n
}

/// The sets of points already removed on the way through
/// [`enumerate_removals`]: an open-addressing table of 24-bit sets. The
/// board after a set of removals does not depend on their order, so each
/// set is explored (and listed) once, by the first order that reaches it.
struct SeenSets {
    slots: [u32; SeenSets::SIZE],
}

impl SeenSets {
    /// More than the sets of two or three of 24 points (276 + 2,024), so
    /// the table never fills.
    const SIZE: usize = 4096;

    fn new() -> SeenSets {
        SeenSets {
            slots: [0; SeenSets::SIZE],
        }
    }

    /// Adds `set` (not empty); whether it was new.
    #[inline]
    fn insert(&mut self, set: Bitboard) -> bool {
        let mut i = (set.0.wrapping_mul(0x9E37_79B1) >> 20) as usize;
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = set.0;
                    return true;
                }
                v if v == set.0 => return false,
                _ => i = (i + 1) % SeenSets::SIZE,
            }
        }
    }
}

/// Every removal sequence of up to `owed` from `pos`, each choice made on
/// the board the earlier ones left, listed once per set of points.
#[allow(clippy::too_many_arguments)]
fn enumerate_removals(
    rules: &Rules,
    step: Option<Move>,
    pos: Position,
    owed: u8,
    chosen: &mut [Point; 3],
    depth: usize,
    seen: &mut SeenSets,
    list: &mut MoveList,
) {
    if depth >= 2 {
        let set = chosen[..depth]
            .iter()
            .fold(Bitboard::EMPTY, |b, &p| b.with(p));
        if !seen.insert(set) {
            return;
        }
    }
    let victim = pos.removal_victim();
    let removable = pos.removal_targets(rules);
    let done = owed == 0 || removable.is_empty() || pos.material(victim) < Rules::MIN_PIECES as u32;
    if done {
        if depth == 0 {
            return;
        }
        let mut m = step;
        for &p in &chosen[..depth] {
            m = Some(match m {
                Some(m) => m.with_removal(p),
                None => Move::remove_only(p),
            });
        }
        if let Some(m) = m {
            list.push(m);
        }
        return;
    }
    for r in removable {
        let mut next = pos;
        next.remove_victim(rules, r);
        chosen[depth] = r;
        enumerate_removals(rules, step, next, owed - 1, chosen, depth + 1, seen, list);
    }
}

#[cfg(test)]
mod tests {
    use crate::core::{Move, MoveList, Point, Position, Rules, Variant};

    /// `is_legal` agrees with the generated list on the legal moves, on
    /// the previous position's moves, and on variations of each: other
    /// removals, no removal, a second removal, every placement.
    fn check_is_legal(rules: &Rules, pos: &Position, all: &MoveList, previous: &[Move]) {
        let mut candidates: Vec<Move> = all.iter().chain(previous).copied().collect();
        for &m in all.iter().chain(previous) {
            candidates.push(m.step());
            for p in Point::ALL {
                candidates.push(m.step().with_removal(p));
                candidates.push(m.with_removal(p));
                candidates.push(Move::remove_only(p));
                candidates.push(Move::place(p));
                if let Some(from) = m.from() {
                    candidates.push(Move::slide(from, p));
                }
            }
        }
        for m in candidates {
            assert_eq!(
                pos.is_legal(rules, m),
                all.contains(m),
                "{m} at {}",
                pos.fen(rules)
            );
        }
    }

    /// `mill_moves` is exactly the removing subset of `legal_moves`, and
    /// `count_moves` agrees with the list, along a few long random games.
    #[test]
    fn mill_moves_and_counts_agree_with_generation() {
        for variant in Variant::ALL {
            let rules = variant.rules();
            let mut pos = Position::startpos(&rules);
            let (mut all, mut mills) = (MoveList::new(), MoveList::new());
            let mut seed = 0x1234_5678_u64 ^ variant as u64;
            let mut previous = Vec::new();
            for _ in 0..300 {
                pos.legal_moves(&rules, &mut all);
                pos.mill_moves(&rules, &mut mills);
                let expected: Vec<_> = all
                    .iter()
                    .copied()
                    .filter(|m| m.removal_count() > 0)
                    .collect();
                assert_eq!(mills.to_vec(), expected, "{}", pos.fen(&rules));
                assert_eq!(
                    pos.count_moves(&rules),
                    all.len() as u64,
                    "{}",
                    pos.fen(&rules)
                );
                if pos.outcome(&rules).is_none() {
                    assert!(pos.has_legal_move(&rules) && !all.is_empty());
                } else {
                    assert!(all.is_empty(), "a finished game has no moves");
                }
                assert_eq!(pos.has_several_moves(&rules), all.len() >= 2);
                check_is_legal(&rules, &pos, &all, &previous);
                previous = all.to_vec();
                if all.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                pos = pos.play_unchecked(&rules, all[(seed >> 33) as usize % all.len()]);
            }
        }
    }
}
