//! Legal move generation (whole turns, removals included) and fast move
//! counting for perft's last ply.

use super::moves::{Move, MoveList};
use super::point::{Bitboard, Point};
use super::position::Position;
use super::rules::Rules;

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
        // With `mills_only`, only points that complete a line are tried.
        let closing = |rest: Bitboard| {
            if mills_only {
                g.closing_points(rest, empty)
            } else {
                empty
            }
        };
        if self.hand[us.index()] > 0 {
            for to in closing(own) {
                self.push_step(rules, Move::place(to), own.with(to), list, mills_only);
            }
            if rules.move_in_placing {
                for from in own {
                    let rest = own.without(from);
                    for to in adjacent[from.index()] & closing(rest) {
                        let step = Move::slide(from, to);
                        self.push_step(rules, step, rest.with(to), list, mills_only);
                    }
                }
            }
        } else {
            let flying = self.can_fly(rules, us);
            for from in own {
                let rest = own.without(from);
                let targets = if flying {
                    closing(rest)
                } else {
                    adjacent[from.index()] & closing(rest)
                };
                for to in targets {
                    let step = Move::slide(from, to);
                    self.push_step(rules, step, rest.with(to), list, mills_only);
                }
            }
        }
    }

    /// Pushes a step and, when it closes a mill, one move per removal choice.
    #[inline]
    fn push_step(
        &self,
        rules: &Rules,
        step: Move,
        own_after: Bitboard,
        list: &mut MoveList,
        mills_only: bool,
    ) {
        let to = step.to().unwrap_or(Point::ALL[0]);
        let earned = self.removals_earned(rules, to, own_after);
        if earned == 0 {
            if !mills_only {
                list.push(step);
            }
            return;
        }
        let mut after = *self;
        after.do_step(rules, step.from(), to);
        if after.removable(rules).is_empty() {
            if !mills_only {
                list.push(step);
            }
        } else {
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
        let removable = after.removable(rules);
        if owed == 1 || !rules.remove_multiple {
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
        let first = list.len();
        let mut chosen = [Point::ALL[0]; 3];
        enumerate_removals(rules, step, after, owed, &mut chosen, 0, first, list);
    }

    /// The number of legal whole turns, counted without building them
    /// where the rules allow (perft's last ply).
    pub fn count_moves(&self, rules: &Rules) -> u64 {
        let us = self.side;
        if self.pending > 0
            || rules.remove_multiple
            || rules.one_time_mills
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

#[allow(clippy::too_many_arguments)]
fn enumerate_removals(
    rules: &Rules,
    step: Option<Move>,
    pos: Position,
    owed: u8,
    chosen: &mut [Point; 3],
    depth: usize,
    first: usize,
    list: &mut MoveList,
) {
    let them = pos.side.opponent();
    let removable = pos.removable(rules);
    let done = owed == 0 || removable.is_empty() || pos.material(them) < Rules::MIN_PIECES as u32;
    if done {
        if depth == 0 {
            return;
        }
        let set = chosen[..depth]
            .iter()
            .fold(Bitboard::EMPTY, |b, &p| b.with(p));
        let duplicate = list[first..]
            .iter()
            .any(|m| m.removals().fold(Bitboard::EMPTY, |b, p| b.with(p)) == set);
        if !duplicate {
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
        }
        return;
    }
    for r in removable {
        let mut next = pos;
        next.do_remove(r);
        chosen[depth] = r;
        enumerate_removals(rules, step, next, owed - 1, chosen, depth + 1, first, list);
    }
}

#[cfg(test)]
mod tests {
    use crate::core::{MoveList, Position, Variant};

    /// `mill_moves` is exactly the removing subset of `legal_moves`, and
    /// `count_moves` agrees with the list, along a few long random games.
    #[test]
    fn mill_moves_and_counts_agree_with_generation() {
        for variant in Variant::ALL {
            let rules = variant.rules();
            let mut pos = Position::startpos(&rules);
            let (mut all, mut mills) = (MoveList::new(), MoveList::new());
            let mut seed = 0x1234_5678_u64 ^ variant as u64;
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
