//! One search thread: the `Worker`, its state and the helpers its parts
//! share. The parts: `root` (iterative deepening, aspiration windows, the
//! root's moves), `node` (the principal variation search below the root)
//! and `quiescence`. The moves of a node come from a `MovePicker`; draws
//! by repetition from a `RepetitionTracker`.

mod node;
mod quiescence;
mod root;

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use super::ordering::OrderingTables;
use super::params::CHECK_EVERY;
use super::picker::BufferPool;
use super::repetition::RepetitionTracker;
use super::{Limits, MATE, MAX_PLY, SearchShared};
use crate::core::{Move, Outcome, Position, Rules};
use crate::tb::TbValue;

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
    /// The depth of the root's current iteration.
    root_depth: i32,
    /// The move each ply's node leaves out while the singular extension
    /// (`node`) tests whether its table move is the only good one.
    excluded: [Option<Move>; MAX_PLY + 1],
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
            root_depth: 0,
            excluded: [None; MAX_PLY + 1],
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
            // Where the search runs on the only thread (WebAssembly), the
            // lines that came meanwhile are handed over here: `stop` too.
            crate::host::poll(0);
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

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[ply][ply] = Some(m);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// The databases' value of `pos`, if they hold it (counted in
    /// `tbhits`).
    #[inline]
    fn probe(&self, pos: &Position) -> Option<TbValue> {
        // A weaker level searches the placing phase itself.
        if self.limits.skill < 20 && pos.is_placing() {
            return None;
        }
        let value = self.limits.tablebases.as_deref()?.value(pos)?;
        self.shared.tbhits.fetch_add(1, Relaxed);
        Some(value)
    }

    /// The score of a database value that is not a draw (see
    /// `search::tb_value_score`).
    #[inline]
    fn tb_value_score(&self, pos: &Position, value: TbValue, ply: usize) -> i32 {
        let limits = self
            .limits
            .tablebases
            .as_deref()
            .map_or(crate::tb::NMoveLimits::NONE, |tb| tb.limits());
        crate::search::tb_value_score(value, limits, pos.rule50(), ply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
