//! One probe of a root for every caller (the search's root filter,
//! `tbprobe` and `d`, the web board, the match referee): the root's value
//! and every legal move's, under the N-move limits the tables were opened
//! with, best first, and the moves that keep the value, as Syzygy's root
//! probe serves Stockfish.

use std::cmp::Reverse;

use super::nmove::TbValue;
use super::probe::Tablebases;
use super::value::Wdl;
use crate::core::{Move, MoveList, Position, Rules};

/// A root and its moves, as the databases see them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootProbe {
    /// The root's value for the side to move (`None` where the databases
    /// do not hold it: its moves may still lead into positions they hold,
    /// as the last placement does).
    pub value: Option<TbValue>,
    /// Every legal move with its value for the side that plays it (`None`:
    /// the databases do not hold the position it leads to, or their file
    /// is missing or damaged), best first.
    pub moves: Vec<(Move, Option<TbValue>)>,
    /// Whether the root's win or loss, played as the `.tb` file plays it,
    /// ends before the N-move rules can strike from its counter.
    pub in_time: bool,
}

impl RootProbe {
    /// Whether every move has a value.
    pub fn complete(&self) -> bool {
        self.moves.iter().all(|(_, v)| v.is_some())
    }

    /// The moves that keep the root's value, to be searched instead of all
    /// of them; `None` when the root's value under the N-move rules is not
    /// known, or no move is known to keep it (then the search chooses
    /// among all; a move without a value may be the one that keeps it).
    ///
    /// - A win: the moves that win. Where the `.tb` win ends before the
    ///   N-move rules can strike, the fastest ones; otherwise those that
    ///   reach the next removal soonest, which a defender cannot delay
    ///   past the counter's limit.
    /// - A loss: the moves that lose latest (the next removal, then the
    ///   end of the game).
    /// - A draw: every move that keeps the draw (the search chooses among
    ///   them, for the chances each leaves).
    pub fn keeping_moves(&self) -> Option<Vec<Move>> {
        let root = self.value?.rule?;
        let keeps = |v: &TbValue| v.rule == Some(root);
        let candidates: Vec<(Move, TbValue)> = self
            .moves
            .iter()
            .filter_map(|&(m, v)| v.filter(keeps).map(|v| (m, v)))
            .collect();
        let rank = |v: &TbValue| keep_rank(v, self.in_time);
        let best = candidates.iter().map(|(_, v)| rank(v)).min()?;
        Some(
            candidates
                .iter()
                .filter(|(_, v)| root == Wdl::Draw || rank(v) == best)
                .map(|&(m, _)| m)
                .collect(),
        )
    }
}

/// How a move that keeps the root's value ranks among those that do (the
/// least first). When the root's `.tb` line ends in time, by the distance
/// to the end (the pure line is then the game's); otherwise by the
/// distance to the next removal first, which keeps the win however the
/// defender plays, since it shrinks by a ply at each move and the
/// defender cannot lengthen it.
fn keep_rank(v: &TbValue, in_time: bool) -> (u32, u32) {
    let z = v.to_removal.map_or(255, u32::from);
    let d = v.to_end.map_or(255, u32::from);
    match (v.rule, in_time) {
        (Some(Wdl::Win), true) => (d, 0),
        (Some(Wdl::Win), false) => (z, d),
        (Some(Wdl::Loss), true) => (255 - d, 0),
        (Some(Wdl::Loss), false) => (255 - z, 255 - d),
        _ => (0, 0),
    }
}

/// How a move ranks in the list shown (the least first): wins (the
/// fastest first), values the rules may yet draw, draws, losses (the
/// slowest first), then moves without a value.
fn show_rank(v: &Option<TbValue>) -> (u8, Reverse<i32>) {
    let Some(v) = v else {
        return (5, Reverse(0));
    };
    let d = v.to_end.map_or(255, i32::from);
    match (v.rule, v.pure) {
        (Some(Wdl::Win), _) => (0, Reverse(-d)),
        (None, Some(Wdl::Win)) => (1, Reverse(-d)),
        (Some(Wdl::Draw), _) => (2, Reverse(-d)),
        (None, _) => (3, Reverse(d)),
        (Some(Wdl::Loss), _) => (4, Reverse(d)),
    }
}

/// The probe of `pos` and its legal moves under `rules` (which must be the
/// tables').
pub fn probe_root(tables: &Tablebases, rules: &Rules, pos: &Position) -> RootProbe {
    let value = tables.value(pos);
    let mut list = MoveList::new();
    pos.legal_moves(rules, &mut list);
    let mut moves: Vec<(Move, Option<TbValue>)> = list
        .iter()
        .map(|&m| (m, move_value(tables, rules, pos, m)))
        .collect();
    moves.sort_by_key(|(_, v)| show_rank(v));
    let in_time = match value.and_then(|v| v.to_end) {
        Some(d) => tables.limits().ends_in_time(pos.rule50(), d),
        None => false,
    };
    RootProbe {
        value,
        moves,
        in_time,
    }
}

/// The value of move `m` from `pos` for the side that plays it.
pub fn move_value(tables: &Tablebases, rules: &Rules, pos: &Position, m: Move) -> Option<TbValue> {
    let child = pos.play_unchecked(rules, m);
    let them = child.side_to_move();
    if child.material(them) < Rules::MIN_PIECES as u32 {
        return Some(TbValue::WINS_AT_ONCE);
    }
    let removed = child.material(them) < pos.material(them);
    tables.value(&child).map(|v| v.for_mover(removed))
}
