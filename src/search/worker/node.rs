//! A node of a worker's search below the root: the principal variation
//! search (negamax alpha-beta) with its database probe, table cutoffs,
//! reverse futility, late-move pruning and reductions and the block
//! extension.

use super::{Worker, no_move_score};
use crate::core::{Bitboard, Move, Point, Position, Rules};
use crate::search::eval::{evaluate, threats_through};
use crate::search::ordering::QuietsTried;
use crate::search::params::{
    BLOCK_EXTENSION, LMP_MAX_DEPTH, LMR_MIN_DEPTH, LMR_MIN_MOVES, RFP_MARGIN, RFP_MAX_DEPTH,
    SE_DEPTH_SLACK, SE_MARGIN, SE_MIN_DEPTH, TB_PLACING_HORIZON,
};
use crate::search::picker::{MovePicker, Picked};
use crate::search::tablebase::is_draw;
use crate::search::tt::{Bound, TtHit};
use crate::search::{INFINITY, MATE, MATE_BOUND, MAX_PLY, draw_scaled, draw_window};

/// Late-move reductions by depth and move number: about
/// `0.75 + ln(depth) * ln(moves) / 2.25` plies, built at compile time.
static LMR_TABLE: [[i32; 64]; 64] = {
    let mut t = [[0; 64]; 64];
    let mut d = 1;
    while d < 64 {
        let mut m = 1;
        while m < 64 {
            // ln(x) * 1000 by a bit-length approximation (const fn has no
            // floating-point logarithm).
            let r = (750 + ln_milli(d as u32) * ln_milli(m as u32) / 2250) / 1000;
            t[d][m] = r as i32;
            m += 1;
        }
        d += 1;
    }
    t
};

/// Natural logarithm times 1000, from the bit length and a linear
/// interpolation of the mantissa (at most 0.065 below ln).
const fn ln_milli(x: u32) -> i64 {
    let bits = 31 - x.leading_zeros() as i64;
    let base = 1i64 << bits;
    let frac = ((x as i64 - base) * 1000) / base;
    // log2(1 + f) ~ f; ln(x) = log2(x) * ln 2.
    (bits * 1000 + frac) * 693 / 1000
}

#[inline]
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

#[inline]
fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// The stored score if the table's entry for this node is deep enough and
/// its bound settles the window.
#[inline]
fn tt_cutoff(hit: &TtHit, depth: i32, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
    if hit.depth < depth {
        return None;
    }
    let s = score_from_tt(hit.score, ply);
    let cut = match hit.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}

/// Plies taken off the `i`-th move (from 0) of a node searched to `depth`:
/// late quiet moves are searched shallower, more so off the PV.
#[inline]
fn late_move_reduction(quiet: bool, depth: i32, i: usize, pv_node: bool) -> i32 {
    if quiet && depth >= LMR_MIN_DEPTH && i >= LMR_MIN_MOVES {
        let r = LMR_TABLE[(depth as usize).min(63)][i.min(63)] + !pv_node as i32;
        r.clamp(1, depth - 1)
    } else {
        0
    }
}

/// Quiet moves searched at a non-PV node `depth` plies deep (at most
/// `LMP_MAX_DEPTH`) before late move pruning skips the rest, except those
/// that make a threat.
#[inline]
const fn late_move_count(depth: i32) -> usize {
    3 + (depth * depth) as usize
}

/// Whether `m` leaves, through the point it moves to, a line with two of
/// the mover's pieces and its third point empty: a threat, which late
/// move pruning keeps as chess engines keep checks.
#[inline]
fn makes_threat(rules: &Rules, pos: &Position, m: Move) -> bool {
    let Some(to) = m.to() else {
        return false;
    };
    let from = m.from().map_or(Bitboard::EMPTY, Point::bb);
    let ours = (pos.pieces(pos.side_to_move()) & !from).with(to);
    let empty = (pos.empty() | from).without(to);
    threats_through(rules, to, ours, empty) > 0
}

/// While both sides place: the opponent's one point that closes a mill,
/// if the side to move cannot close one itself; empty if not (or off).
/// Placing anywhere else loses a piece, so the block is the node's one
/// real move, and `search_moves` searches it a ply deeper.
#[inline]
fn forced_block(rules: &Rules, pos: &Position) -> Bitboard {
    let us = pos.side_to_move();
    let them = us.opponent();
    if !BLOCK_EXTENSION || pos.in_hand(us) == 0 || pos.in_hand(them) == 0 {
        return Bitboard::default();
    }
    let g = rules.geometry();
    let [fu, ft] = g.line_features_pair(pos.pieces(us), pos.pieces(them), pos.empty());
    if fu.closers.is_empty() && ft.closers.count() == 1 {
        ft.closers
    } else {
        Bitboard::default()
    }
}

impl Worker<'_> {
    /// The principal variation search of `pos`, `ply` plies from the root
    /// and `depth` plies deep, in the window `alpha..beta` (`pv_node`:
    /// an open window, on the line that may become the PV).
    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        self.nodes += 1;
        self.unflushed += 1;
        if self.check_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let us = pos.side_to_move();
        if pos.material(us) < Rules::MIN_PIECES as u32 {
            return -MATE + ply as i32;
        }
        if self.repetitions.is_draw(&self.rules, pos) {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(pos, &self.rules);
        }
        // A position in the databases has its value, beyond any evaluation;
        // a draw is searched on, for the chances it leaves, its score
        // scaled into a band around 0 once, at the first draw of a line
        // (the draws below it score on the same scale as the leaves).
        let (mut a, mut b, mut scaling) = (alpha, beta, false);
        if let Some(value) = self.probe(pos) {
            if !is_draw(&value) {
                return self.tb_value_score(pos, value, ply);
            }
            if !self.under_draw {
                (a, b) = match draw_window(alpha, beta) {
                    Err(settled) => return settled,
                    Ok(window) => window,
                };
                scaling = true;
                self.under_draw = true;
            }
        }
        let score = self.search_node(pos, depth, a, b, ply, pv_node);
        if scaling {
            self.under_draw = false;
            draw_scaled(score)
        } else {
            score
        }
    }

    /// `negamax` from mate distance pruning on: the node's own search.
    #[inline(always)]
    fn search_node(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        // Mate distance pruning.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        // A leaf just before the end of placing is searched on to the
        // databases' exact values instead of evaluated.
        let depth = match depth {
            1.. => depth,
            _ if self.placing_ends_in_databases(pos) => 1,
            _ => return self.quiesce(pos, alpha, beta, ply, 0),
        };
        let key = pos.key();
        let hit = self.shared.tt.probe(key);
        // The move a singular-extension test leaves out, if any.
        let excluded = self.excluded[ply];
        // A stored move is only a hint (another thread or another position
        // may have written it): it is checked before it is played.
        let tt_move = hit
            .and_then(|h| h.mv)
            .filter(|&m| pos.is_legal(&self.rules, m));
        if !pv_node && excluded.is_none() {
            if let Some(s) = hit.and_then(|h| tt_cutoff(&h, depth, alpha, beta, ply)) {
                return s;
            }
            if let Some(s) = self.reverse_futility(pos, depth, beta) {
                return s;
            }
        }
        let mut picker = MovePicker::new(self.pool, pos, &self.rules, ply, tt_move);
        if picker.has_no_moves() {
            return no_move_score(&self.rules, pos, ply);
        }
        // The table move, if it is singular: searched a ply deeper.
        let extended = match (hit, tt_move) {
            (Some(h), Some(m))
                if excluded.is_none() && self.is_singular(pos, &picker, &h, m, depth, ply) =>
            {
                Some(m)
            }
            _ => None,
        };
        if self.stopped {
            return 0;
        }
        let Some((best, best_move)) =
            self.search_moves(pos, &mut picker, depth, alpha, beta, ply, pv_node, extended)
        else {
            return 0; // stopped
        };
        if excluded.is_some() {
            // A search without one of the moves proves nothing of the node.
            return best;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared
            .tt
            .store(key, best_move, score_to_tt(best, ply), depth, bound);
        best
    }

    /// The move loop of `search_node`: `pos`'s moves, in the picker's
    /// order, until one fails high; the best score and move, or `None` if
    /// the search was stopped. `extended` (a singular table move) is
    /// searched a ply deeper, and the move the ply excludes not at all.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn search_moves(
        &mut self,
        pos: &Position,
        picker: &mut MovePicker<'_>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
        extended: Option<Move>,
    ) -> Option<(i32, Option<Move>)> {
        let us = pos.side_to_move();
        let excluded = self.excluded[ply];
        // A single legal move is searched at full depth (it is forced).
        let new_depth = if picker.is_forced(&self.rules) {
            depth
        } else {
            depth - 1
        };
        // A block of the opponent's one threat while placing is the
        // node's forced move: searched a ply deeper.
        let forced_block = forced_block(&self.rules, pos);
        // Late move pruning: at a shallow non-PV node with no removal owed
        // and no mate score in the window, only the first quiet moves.
        let lmp_count = (!pv_node
            && depth <= LMP_MAX_DEPTH
            && pos.pending_removals() == 0
            && alpha.abs() < MATE_BOUND)
            .then(|| late_move_count(depth));
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut quiets_tried = QuietsTried::default();
        // The next move's child, made early so that its table bucket is
        // on its way while the current move is searched.
        let mut ahead: Option<Position> = None;
        let mut i = 0;
        while let Some(Picked { mv: m, quiet }) = picker.next(&self.rules, &self.ordering) {
            if Some(m) == excluded {
                ahead = None;
                continue;
            }
            if quiet
                && best > -MATE_BOUND
                && lmp_count.is_some_and(|n| quiets_tried.len() >= n)
                && !makes_threat(&self.rules, pos, m)
            {
                ahead = None;
                continue;
            }
            let child = ahead.take().unwrap_or_else(|| self.play_prefetched(pos, m));
            // Children that probe the table are worth making one move
            // ahead (picking is deterministic, so the next pick is known).
            if depth >= 2 && crate::largemem::PREFETCHES {
                ahead = picker.peek().map(|next| self.play_prefetched(pos, next));
            }
            self.repetitions.push(child.key());
            let new_depth = match m.to() {
                Some(p) if forced_block.contains(p) && new_depth < depth => depth,
                _ if Some(m) == extended && new_depth < depth => depth,
                _ => new_depth,
            };
            let score = if i == 0 {
                self.child_score(pos, &child, new_depth, alpha, beta, ply + 1, pv_node)
            } else {
                let reduction = late_move_reduction(quiet, depth, i, pv_node);
                self.search_late(pos, &child, new_depth, reduction, alpha, beta, ply, pv_node)
            };
            self.repetitions.pop();
            if self.stopped {
                return None;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        if quiet {
                            let tried = quiets_tried.as_slice();
                            self.ordering.update(us.index(), ply, m, tried, depth);
                        }
                        break;
                    }
                }
            }
            if quiet {
                quiets_tried.push(m);
            }
            i += 1;
        }
        Some((best, best_move))
    }

    /// Whether `pos` is at most `TB_PLACING_HORIZON` placements from the
    /// moving phase, and the databases hold the material it would reach
    /// there without a removal.
    #[inline]
    fn placing_ends_in_databases(&self, pos: &Position) -> bool {
        use crate::core::Color::{Black, White};
        let Some(tb) = self.limits.tablebases.as_deref() else {
            return false;
        };
        let hands = pos.in_hand(White) as u32 + pos.in_hand(Black) as u32;
        hands > 0
            && hands <= TB_PLACING_HORIZON
            && tb.holds(pos.material(White), pos.material(Black))
    }

    /// `pos` after `m`, with the child's table bucket on its way to the
    /// cache.
    #[inline]
    fn play_prefetched(&self, pos: &Position, m: Move) -> Position {
        let child = pos.play_unchecked(&self.rules, m);
        self.shared.tt.prefetch(child.key());
        child
    }

    /// Reverse futility: far enough above beta at a shallow node, the
    /// static evaluation stands (not while a removal is owed).
    #[inline]
    fn reverse_futility(&self, pos: &Position, depth: i32, beta: i32) -> Option<i32> {
        if depth > RFP_MAX_DEPTH || pos.pending_removals() != 0 || beta.abs() >= MATE_BOUND {
            return None;
        }
        let stand = evaluate(pos, &self.rules);
        (stand - RFP_MARGIN * depth >= beta && pos.has_legal_move(&self.rules)).then_some(stand)
    }

    /// Singular extension (`params::SE_MIN_DEPTH`): whether the table
    /// move `m`, stored as a lower bound from nearly this depth, is the
    /// only move that keeps the node's score: searched without it, at
    /// half the depth, no other move reaches that score less a margin.
    fn is_singular(
        &mut self,
        pos: &Position,
        picker: &MovePicker<'_>,
        hit: &TtHit,
        m: Move,
        depth: i32,
        ply: usize,
    ) -> bool {
        let stored = score_from_tt(hit.score, ply);
        if depth < SE_MIN_DEPTH
            || hit.depth < depth - SE_DEPTH_SLACK
            || hit.bound == Bound::Upper
            || stored.abs() >= MATE_BOUND
            || ply as i32 >= 2 * self.root_depth
            || picker.is_forced(&self.rules)
        {
            return false;
        }
        let singular_beta = stored - SE_MARGIN * depth;
        self.excluded[ply] = Some(m);
        let score = self.search_node(pos, depth / 2, singular_beta - 1, singular_beta, ply, false);
        self.excluded[ply] = None;
        score < singular_beta
    }

    /// A move after the first: a null-window search, `reduction` plies
    /// shallower, searched again at full depth if it beats alpha, and
    /// (at a PV node) with the full window if it lands inside it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn search_late(
        &mut self,
        pos: &Position,
        child: &Position,
        new_depth: i32,
        reduction: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        let mut score = self.child_score(
            pos,
            child,
            new_depth - reduction,
            alpha,
            alpha + 1,
            ply + 1,
            false,
        );
        if score > alpha && reduction > 0 && !self.stopped {
            score = self.child_score(pos, child, new_depth, alpha, alpha + 1, ply + 1, false);
        }
        if score > alpha && score < beta && pv_node && !self.stopped {
            score = self.child_score(pos, child, new_depth, alpha, beta, ply + 1, true);
        }
        score
    }

    /// `child`'s score for `pos`'s side to move, searched in the window
    /// `alpha..beta` of that side: negated, unless the turn leaves the
    /// same side to move (some rules give a side two turns in a row).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn child_score(
        &mut self,
        pos: &Position,
        child: &Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        if child.side_to_move() == pos.side_to_move() {
            self.negamax(child, depth, alpha, beta, ply, pv_node)
        } else {
            -self.negamax(child, depth, -beta, -alpha, ply, pv_node)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::eval::tests::placed;

    fn points(b: Bitboard) -> Vec<String> {
        b.into_iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn the_block_of_a_single_threat_is_forced() {
        // White a7-d7 closes at g7; black, to move, has no line to close.
        let (pos, rules) = placed(&["d7", "d3", "a7"]);
        assert_eq!(points(forced_block(&rules, &pos)), ["g7"]);
        // Two closing points (a7-d7 at g7, a7-a1 at a4): no block holds.
        let (pos, rules) = placed(&["d7", "d3", "a7", "f4", "a1"]);
        assert!(forced_block(&rules, &pos).is_empty());
        // White's one threat (g7), but black's d3-e3 closes at c3 first.
        let (pos, rules) = placed(&["d7", "d3", "a7", "e3", "b4"]);
        assert!(forced_block(&rules, &pos).is_empty());
        // No threat at all.
        let (pos, rules) = placed(&["d7", "d3"]);
        assert!(forced_block(&rules, &pos).is_empty());
    }

    #[test]
    fn threats_are_lines_of_two_with_the_third_point_empty() {
        let (pos, rules) = placed(&["d7", "d3"]);
        let place = |p: &str| Move::place(p.parse().unwrap());
        // White d7: a7 and g7 make a7-d7 and d7-g7; d6 makes d7-d6.
        assert!(makes_threat(&rules, &pos, place("a7")));
        assert!(makes_threat(&rules, &pos, place("d6")));
        // Far from d7, and d1 beside black's d3 on d3-d2-d1.
        assert!(!makes_threat(&rules, &pos, place("b2")));
        assert!(!makes_threat(&rules, &pos, place("d1")));
        // Black's d3 has the line d3-d2-d1 and c3-d3-e3 open.
        let (pos, rules) = placed(&["d7", "d3", "a1"]);
        assert!(makes_threat(&rules, &pos, place("e3")));
        assert!(!makes_threat(&rules, &pos, place("g7")));
    }

    /// Runs `f` with a worker of one thread over a fresh table.
    fn with_worker<R>(rules: Rules, f: impl FnOnce(&mut Worker) -> R) -> R {
        use crate::search::picker::BufferPool;
        use crate::search::{Limits, SearchShared, Tt};
        let shared = SearchShared::new(Tt::new(1).expect("a 1 MB table"));
        let limits = Limits {
            threads: 1,
            skill: 20,
            multipv: 1,
            ..Limits::default()
        };
        let pool = BufferPool::default();
        let started = std::time::Instant::now();
        let mut worker = Worker::new(0, rules, &shared, &limits, &[], started, &pool);
        f(&mut worker)
    }

    #[test]
    fn only_a_move_that_nothing_else_matches_is_singular() {
        // Black must block white's a7-d7 at g7 (anything else loses a
        // piece). White, to move with a7-d7 and a1-d1 open against
        // black's a4-b4 (the position its own mirror image about the
        // fourth row), closes a mill at g7 or at its image g1 alike and
        // takes a4 or b4: each such move has a twin of the same value.
        // (From the empty board every placement has twins too, but a
        // search's order and table can score the twins' reduced searches
        // apart by more than the margin; and at depth 8 white here blocks
        // black's c4, a move with no twin.)
        let twins = ["a7", "a4", "d7", "b4", "a1", "d6", "d1", "d2"];
        let cases: [(&[&str], bool); 2] = [(&["d7", "d3", "a7"], true), (&twins, false)];
        for (placements, singular) in cases {
            let (pos, rules) = placed(placements);
            with_worker(rules, |w| {
                let depth = 7;
                w.root_depth = depth;
                w.negamax(&pos, depth, -INFINITY, INFINITY, 1, true);
                let hit = w.shared.tt.probe(pos.key()).expect("the node's entry");
                let m = hit.mv.expect("its best move");
                // The block, or a mill closed at one of the twins.
                let to = m.to().map(|p| p.to_string());
                if singular {
                    assert_eq!(to, Some("g7".into()));
                } else {
                    assert!(matches!(to.as_deref(), Some("g7" | "g1")), "{m}");
                }
                let pool = w.pool;
                let picker = MovePicker::new(pool, &pos, &rules, 1, Some(m));
                let found = w.is_singular(&pos, &picker, &hit, m, depth, 1);
                assert_eq!(found, singular, "after {placements:?}, {m}");
            });
        }
    }

    #[test]
    fn late_move_pruning_keeps_more_moves_deeper() {
        for d in 1..LMP_MAX_DEPTH {
            assert!(late_move_count(d) < late_move_count(d + 1));
        }
        assert!(late_move_count(1) >= 3);
    }

    #[test]
    fn log_approximation_is_close() {
        for x in 1..200u32 {
            let exact = (x as f64).ln() * 1000.0;
            let approx = ln_milli(x) as f64;
            assert!(
                (exact - approx).abs() <= 65.0,
                "ln({x}): {approx} vs {exact}"
            );
        }
    }

    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        for d in 1..63 {
            for m in 1..63 {
                assert!(LMR_TABLE[d][m] <= LMR_TABLE[d + 1][m]);
                assert!(LMR_TABLE[d][m] <= LMR_TABLE[d][m + 1]);
            }
        }
        assert_eq!(LMR_TABLE[1][1], 0);
        assert!(LMR_TABLE[20][40] >= 3);
    }
}
