//! One search thread: iterative deepening, aspiration windows, PVS,
//! quiescence. The moves of a node come from a `MovePicker`; draws by
//! repetition from a `RepetitionTracker`.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use super::eval::{evaluate, evaluate_full};
use super::ordering::{OrderingTables, QuietsTried};
use super::params::{
    ASPIRATION_MIN_DEPTH, ASPIRATION_WINDOW, BLOCK_EXTENSION, CHECK_EVERY, LMR_MIN_DEPTH,
    LMR_MIN_MOVES, QS_MAX_PLY, RFP_MARGIN, RFP_MAX_DEPTH, TB_PLACING_HORIZON,
};
use super::picker::{BufferPool, MovePicker, Picked};
use super::repetition::RepetitionTracker;
use super::tt::{Bound, TtHit};
use super::{
    INFINITY, Info, Limits, MATE, MATE_BOUND, MAX_PLY, Reporter, Score, SearchResult, SearchShared,
    draw_scaled, draw_window,
};
use crate::core::{Bitboard, Move, Outcome, Position, Rules};
use crate::tb::Value;

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

/// The score of a node whose side to move has no legal move, `ply` plies
/// from the root, as the rules judge it (`Position::outcome`): a blocked
/// side loses; a full board is a draw or a win for black, whoever is to
/// move.
fn no_move_score(rules: &Rules, pos: &Position, ply: usize) -> i32 {
    match pos.outcome(rules) {
        Some(Outcome::Draw(_)) => 0,
        Some(Outcome::Win { winner, .. }) if winner == pos.side_to_move() => MATE - ply as i32,
        // A loss; `None` (a removal owed that cannot be made, which the
        // search never meets) counts as blocked.
        Some(Outcome::Win { .. }) | None => -MATE + ply as i32,
    }
}

/// While both sides place: the opponent's one point that closes a mill,
/// if the side to move cannot close one itself; empty if not (or off).
/// Placing anywhere else loses a piece, so the block is the node's one
/// real move, and `search_node` searches it a ply deeper.
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

pub(super) struct Worker<'a> {
    id: usize,
    rules: Rules,
    shared: &'a SearchShared,
    limits: &'a Limits,
    started: Instant,
    nodes: u64,
    unflushed: u64,
    seldepth: usize,
    /// The game's and the line's positions, for draws by repetition.
    repetitions: RepetitionTracker,
    ordering: OrderingTables,
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    stopped: bool,
    /// Whether the node being searched lies below a database draw whose
    /// score is scaled (`negamax`).
    under_draw: bool,
    /// Move lists and their scores, one pair per live node.
    pool: &'a BufferPool,
}

impl<'a> Worker<'a> {
    pub(super) fn new(
        id: usize,
        rules: Rules,
        shared: &'a SearchShared,
        limits: &'a Limits,
        history: &[u64],
        started: Instant,
        pool: &'a BufferPool,
    ) -> Worker<'a> {
        Worker {
            id,
            rules,
            shared,
            limits,
            started,
            nodes: 0,
            unflushed: 0,
            seldepth: 0,
            repetitions: RepetitionTracker::new(history, MAX_PLY),
            ordering: OrderingTables::new(MAX_PLY),
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            stopped: false,
            under_draw: false,
            pool,
        }
    }

    fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Time on the clock for this move (started by `ponderhit` when
    /// pondering); `None` while pondering.
    fn clock_elapsed(&self) -> Option<std::time::Duration> {
        let start = self.shared.clock_start()?;
        Some(self.started.elapsed().saturating_sub(start))
    }

    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Relaxed) + self.unflushed
    }

    /// Looks at the stop flag, and (main thread) the clock and node limit.
    #[inline]
    fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.unflushed >= CHECK_EVERY {
            self.shared.nodes.fetch_add(self.unflushed, Relaxed);
            self.unflushed = 0;
            if self.shared.stop.load(Relaxed) {
                self.stopped = true;
                return true;
            }
            // The limits count only once the clock runs (not while pondering).
            if let Some(elapsed) = self.clock_elapsed().filter(|_| self.id == 0) {
                let out_of_time = self.limits.budget.is_some_and(|b| elapsed >= b.hard);
                let out_of_nodes = self.limits.nodes.is_some_and(|n| self.total_nodes() >= n);
                if out_of_time || out_of_nodes {
                    self.shared.stop.store(true, Relaxed);
                    self.stopped = true;
                }
            }
        }
        self.stopped
    }

    /// Iterative deepening. Only the main worker (with a reporter) reports.
    #[allow(clippy::needless_range_loop)]
    pub(super) fn iterate(
        &mut self,
        root: &Position,
        root_moves: &[Move],
        reporter: Option<&dyn Reporter>,
    ) -> SearchResult {
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .min(MAX_PLY as u32 - 1) as i32;
        let multipv = self.limits.multipv.clamp(1, root_moves.len());
        let mut moves: Vec<(Move, i32)> = root_moves.iter().map(|&m| (m, -INFINITY)).collect();
        let mut result = SearchResult {
            best: Some(root_moves[0]),
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            lines: Vec::new(),
        };
        let mut scores = vec![0i32; multipv];
        // Helpers start at staggered depths so the threads spread out.
        let first_depth = 1 + (self.id % 2) as i32;
        for depth in first_depth..=max_depth {
            let mut lines: Vec<(Move, i32, Vec<Move>)> = Vec::with_capacity(multipv);
            for pv_index in 0..multipv {
                let excluded: Vec<Move> = lines.iter().map(|l| l.0).collect();
                let score = self.aspiration(
                    root,
                    &mut moves,
                    &excluded,
                    depth,
                    pv_index,
                    scores[pv_index],
                    reporter,
                );
                if self.stopped && (pv_index > 0 || self.pv_len[0] == 0) {
                    break;
                }
                let pv: Vec<Move> = self.pv[0][..self.pv_len[0]]
                    .iter()
                    .flatten()
                    .copied()
                    .collect();
                if pv.is_empty() {
                    break;
                }
                scores[pv_index] = score;
                lines.push((pv[0], score, pv.clone()));
                if self.stopped {
                    break;
                }
                if let Some(r) = reporter {
                    r.info(&self.info(depth, pv_index, score, None));
                }
            }
            if !lines.is_empty()
                && (!self.stopped
                    || lines[0].2.first() != result.best.as_ref()
                    || result.depth == 0)
            {
                // A partial iteration counts only for its first line, which
                // is at least as good as the last full iteration's move.
                let pv = &lines[0].2;
                result.best = pv.first().copied();
                result.ponder = pv.get(1).copied();
                result.score = lines[0].1;
                if !self.stopped {
                    result.depth = depth as u32;
                    result.lines = lines.iter().map(|l| (l.0, l.1)).collect();
                }
            }
            if self.stopped {
                break;
            }
            if self.id == 0 && self.should_finish(result.score, depth) {
                break;
            }
        }
        self.shared.nodes.fetch_add(self.unflushed, Relaxed);
        self.unflushed = 0;
        if self.id == 0 && !self.limits.infinite && !self.shared.is_pondering() {
            self.shared.stop.store(true, Relaxed);
        }
        result.nodes = self.shared.nodes.load(Relaxed);
        result
    }

    /// One root search at `depth` for MultiPV line `pv_index`: a window
    /// around the previous iteration's score `prev`, widened on each fail
    /// until the score falls inside (or the search is stopped).
    #[allow(clippy::too_many_arguments)]
    fn aspiration(
        &mut self,
        root: &Position,
        moves: &mut [(Move, i32)],
        excluded: &[Move],
        depth: i32,
        pv_index: usize,
        prev: i32,
        reporter: Option<&dyn Reporter>,
    ) -> i32 {
        let (mut alpha, mut beta) = (-INFINITY, INFINITY);
        let mut window = ASPIRATION_WINDOW;
        if depth >= ASPIRATION_MIN_DEPTH && prev.abs() < MATE_BOUND {
            alpha = (prev - window).max(-INFINITY);
            beta = (prev + window).min(INFINITY);
        }
        loop {
            let s = self.root_search(root, moves, excluded, depth, alpha, beta, reporter);
            if self.stopped {
                return s;
            }
            let bound = if s <= alpha {
                Bound::Upper
            } else if s >= beta {
                Bound::Lower
            } else {
                return s;
            };
            if let Some(r) = reporter {
                if self.elapsed_ms() > 1000 {
                    r.info(&self.info(depth, pv_index, s, Some(bound)));
                }
            }
            window *= 3;
            if bound == Bound::Upper {
                alpha = (s - window).max(-INFINITY);
                beta = (alpha + beta) / 2 + window / 2;
                beta = beta.max(s + 1).min(INFINITY);
            } else {
                beta = (s + window).min(INFINITY);
            }
            if window > 400 {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// After an iteration: whether the main thread should stop deepening.
    fn should_finish(&self, score: i32, depth: i32) -> bool {
        if let Some(n) = self.limits.mate {
            if score >= MATE - 2 * n as i32 {
                return true;
            }
        }
        if self.limits.nodes.is_some_and(|n| self.total_nodes() >= n) {
            return true;
        }
        if self.limits.infinite {
            return false;
        }
        let Some(elapsed) = self.clock_elapsed() else {
            return false; // pondering
        };
        // A proven result does not change with depth.
        if score.abs() >= MATE_BOUND && depth > MATE - score.abs() + 2 {
            return true;
        }
        self.limits.budget.is_some_and(|b| elapsed * 2 >= b.soft)
    }

    fn info(&self, depth: i32, pv_index: usize, score: i32, bound: Option<Bound>) -> Info {
        let ms = self.elapsed_ms();
        let nodes = self.total_nodes();
        Info {
            depth: depth as u32,
            seldepth: self.seldepth.max(depth as usize) as u32,
            multipv: pv_index + 1,
            score: Score::from_internal(score),
            bound,
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull: self.shared.tt.hashfull(),
            tbhits: self
                .limits
                .tablebases
                .as_ref()
                .map(|_| self.shared.tbhits.load(Relaxed)),
            time_ms: ms,
            pv: self.pv[0][..self.pv_len[0]]
                .iter()
                .flatten()
                .copied()
                .collect(),
        }
    }

    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    fn root_search(
        &mut self,
        root: &Position,
        moves: &mut [(Move, i32)],
        excluded: &[Move],
        depth: i32,
        mut alpha: i32,
        beta: i32,
        reporter: Option<&dyn Reporter>,
    ) -> i32 {
        self.pv_len[0] = 0;
        self.seldepth = 0;
        // Best first: the previous iteration's scores order the root.
        moves.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        let mut best = -INFINITY;
        let mut searched = 0;
        for i in 0..moves.len() {
            let m = moves[i].0;
            if excluded.contains(&m) {
                continue;
            }
            if let Some(r) = reporter {
                if self.limits.currmove && self.elapsed_ms() > 1000 {
                    r.currmove(depth as u32, m, searched + 1);
                }
            }
            let child = root.play_unchecked(&self.rules, m);
            self.repetitions.push(child.key());
            let mut score;
            if searched == 0 {
                score = self.child_score(root, &child, depth - 1, alpha, beta, 1, true);
            } else {
                score = self.child_score(root, &child, depth - 1, alpha, alpha + 1, 1, false);
                if score > alpha && score < beta && !self.stopped {
                    score = self.child_score(root, &child, depth - 1, alpha, beta, 1, true);
                }
            }
            self.repetitions.pop();
            searched += 1;
            if self.stopped {
                // Keep the best move found so far in this iteration.
                return best;
            }
            moves[i].1 = if score > alpha || searched == 1 {
                score
            } else {
                -INFINITY + searched as i32
            };
            if score > best {
                best = score;
                if score > alpha || searched == 1 {
                    self.update_pv(0, m);
                }
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[ply][ply] = Some(m);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

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
            if value != Value::Draw {
                return super::tb_value_score(&self.rules, pos, value, ply);
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
        let us = pos.side_to_move();
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
        // A stored move is only a hint (another thread or another position
        // may have written it): it is checked before it is played.
        let tt_move = hit
            .and_then(|h| h.mv)
            .filter(|&m| pos.is_legal(&self.rules, m));
        if !pv_node {
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
        // A single legal move is searched at full depth (it is forced).
        let new_depth = if picker.is_forced(&self.rules) {
            depth
        } else {
            depth - 1
        };
        // A block of the opponent's one threat while placing is the
        // node's forced move: searched a ply deeper.
        let forced_block = forced_block(&self.rules, pos);
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut quiets_tried = QuietsTried::default();
        // The next move's child, made early so that its table bucket is
        // on its way while the current move is searched.
        let mut ahead: Option<Position> = None;
        let mut i = 0;
        while let Some(Picked { mv: m, quiet }) = picker.next(&self.rules, &self.ordering) {
            let child = ahead.take().unwrap_or_else(|| self.play_prefetched(pos, m));
            // Children that probe the table are worth making one move
            // ahead (picking is deterministic, so the next pick is known).
            if depth >= 2 {
                ahead = picker.peek().map(|next| self.play_prefetched(pos, next));
            }
            self.repetitions.push(child.key());
            let new_depth = match m.to() {
                Some(p) if forced_block.contains(p) && new_depth < depth => depth,
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
                return 0;
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
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared
            .tt
            .store(key, best_move, score_to_tt(best, ply), depth, bound);
        best
    }

    /// The databases' value of `pos`, if they hold it (counted in
    /// `tbhits`).
    #[inline]
    fn probe(&self, pos: &Position) -> Option<Value> {
        let value = self.limits.tablebases.as_deref()?.probe(pos)?;
        self.shared.tbhits.fetch_add(1, Relaxed);
        Some(value)
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
    fn child_score(
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

    /// Quiescence: the static evaluation, or better by following mill
    /// closures for a few plies.
    fn quiesce(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize, qply: i32) -> i32 {
        self.pv_len[ply] = ply;
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        if !pos.has_legal_move(&self.rules) {
            return no_move_score(&self.rules, pos, ply);
        }
        // After a removal here the databases may know the value (the
        // node quiescence started from was probed by `negamax`).
        if qply > 0 {
            if let Some(value) = self.probe(pos) {
                return match value {
                    Value::Draw if self.under_draw => evaluate(pos, &self.rules),
                    Value::Draw => draw_scaled(evaluate(pos, &self.rules)),
                    _ => super::tb_value_score(&self.rules, pos, value, ply),
                };
            }
        }
        let eval = evaluate_full(pos, &self.rules);
        let stand = eval.score;
        // Without a mill to close (and no removal owed) there is nothing
        // to follow.
        let quiet = !eval.can_close && pos.pending_removals() == 0;
        if stand >= beta || quiet || qply >= QS_MAX_PLY || ply >= MAX_PLY - 1 {
            return stand;
        }
        let mut buffers = self.pool.take();
        pos.mill_moves(&self.rules, &mut buffers.moves);
        alpha = alpha.max(stand);
        let mut best = stand;
        // Every move here removes (`mill_moves` lists no other).
        for &m in buffers.moves.iter() {
            self.nodes += 1;
            self.unflushed += 1;
            if self.check_stop() {
                return 0;
            }
            let child = pos.play_unchecked(&self.rules, m);
            let us = pos.side_to_move();
            let score = if child.material(us.opponent()) < Rules::MIN_PIECES as u32 {
                MATE - ply as i32 - 1
            } else if child.material(us) < Rules::MIN_PIECES as u32 {
                -MATE + ply as i32 + 1
            } else if child.side_to_move() == us {
                // Some rules give a side two turns in a row.
                self.quiesce(&child, alpha, beta, ply + 1, qply + 1)
            } else {
                -self.quiesce(&child, -beta, -alpha, ply + 1, qply + 1)
            };
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::super::eval::tests::placed;
    use super::*;

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

    /// Lasker rules with 12 pieces: white's one legal move, a placement on
    /// d7 (all of whose neighbours are black's), fills the board without a
    /// mill and leaves black to move.
    const FILLS_THE_BOARD: &str = "OOOOOOOO/@OOO@@@@/*@@@@@@@ w p p 11 1 12 0 0 0 0 0 0 0 0 0 12";

    fn lasker_twelve() -> Rules {
        Rules {
            pieces: 12,
            ..crate::core::Variant::Lasker.rules()
        }
    }

    /// The full board after white's placement, black to move.
    fn full_board(rules: &Rules) -> Position {
        let pos = Position::from_fen(FILLS_THE_BOARD, rules).expect("test FEN");
        let mut list = crate::core::MoveList::new();
        pos.legal_moves(rules, &mut list);
        assert_eq!(list.len(), 1, "white's only move is the placement");
        let full = pos.play_unchecked(rules, list[0]);
        assert!(full.empty().is_empty());
        assert!(!full.has_legal_move(rules));
        full
    }

    #[test]
    fn a_full_board_scores_as_the_rules_judge_it() {
        use crate::core::{Color, FullBoardAction};
        let mut rules = lasker_twelve();
        let full = full_board(&rules);
        assert_eq!(full.side_to_move(), Color::Black);
        // The first player loses, so black, to move and stuck, wins.
        assert!(matches!(
            full.outcome(&rules),
            Some(Outcome::Win {
                winner: Color::Black,
                ..
            })
        ));
        assert_eq!(no_move_score(&rules, &full, 5), MATE - 5);
        // With white to move, white loses.
        let white_to_move = Position::from_fen(
            "OOOOOOOO/@OOO@@@@/O@@@@@@@ w m s 12 0 12 0 0 0 0 0 0 0 0 0 13",
            &rules,
        )
        .expect("test FEN");
        assert_eq!(no_move_score(&rules, &white_to_move, 5), -MATE + 5);
        rules.full_board = FullBoardAction::Draw;
        assert_eq!(no_move_score(&rules, &full, 5), 0);
        assert_eq!(no_move_score(&rules, &white_to_move, 5), 0);
    }

    #[test]
    fn a_blocked_side_loses() {
        // Cheng San Qi (no flying): black a7 a4 a1 has no free neighbour.
        let rules = crate::core::Variant::ChengSanQi.rules();
        let pos = Position::from_fen(
            "********/**O***O*/O***O@@@ b m s 4 0 3 0 0 0 0 0 0 0 0 0 1",
            &rules,
        )
        .expect("test FEN");
        assert!(!pos.has_legal_move(&rules));
        assert_eq!(no_move_score(&rules, &pos, 3), -MATE + 3);
    }
}
