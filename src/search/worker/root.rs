//! The root of a worker's search: iterative deepening, aspiration
//! windows, MultiPV lines, the root's move loop and the progress it
//! reports.

use std::sync::atomic::Ordering::Relaxed;

use super::Worker;
use crate::core::{Move, Position};
use crate::search::params::{ASPIRATION_MIN_DEPTH, ASPIRATION_WINDOW};
use crate::search::tt::Bound;
use crate::search::{
    INFINITY, Info, MATE, MATE_BOUND, MAX_PLY, Reporter, Score, SearchResult, nodes_per_second,
};

impl Worker<'_> {
    /// Iterative deepening. Only the main worker (with a reporter) reports.
    #[allow(clippy::needless_range_loop)]
    pub(in crate::search) fn iterate(
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
            self.root_depth = depth;
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
            nps: nodes_per_second(nodes, self.started.elapsed()),
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
}
