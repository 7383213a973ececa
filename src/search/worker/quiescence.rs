//! Quiescence, where a node's depth runs out: the static evaluation, or
//! better by following mill closures for a few plies.

use super::{Worker, no_move_score};
use crate::core::{Position, Rules};
use crate::search::eval::{evaluate, evaluate_full};
use crate::search::params::QS_MAX_PLY;
use crate::search::tablebase::is_draw;
use crate::search::{MATE, MAX_PLY, draw_scaled};

impl Worker<'_> {
    /// Quiescence: the static evaluation, or better by following mill
    /// closures for a few plies.
    pub(super) fn quiesce(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qply: i32,
    ) -> i32 {
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
                return match is_draw(&value) {
                    true if self.under_draw => evaluate(pos, &self.rules),
                    true => draw_scaled(evaluate(pos, &self.rules)),
                    false => self.tb_value_score(pos, value, ply),
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
