//! Verification of built tables: every stored value is recomputed from
//! its successors, which the rules core's own move generator finds
//! (`Position::legal_moves`, `play_unchecked`), not the builder's
//! un-moves; every slot's index round trip and one symmetric image per
//! slot are checked, and the header's counts and checksum.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::build::{self, Event};
use super::format::{TbError, Value};
use super::probe::Tablebases;
use super::symmetry;
use crate::core::{Bitboard, MoveList, Outcome};

/// What went wrong in one table.
#[derive(Debug, Default)]
pub struct Findings {
    /// How many slots disagree.
    pub mismatches: u64,
    /// The first ones, as text (FEN, stored and recomputed value).
    pub first: Vec<String>,
}

impl Findings {
    fn add(&mut self, what: String) {
        self.mismatches += 1;
        if self.first.len() < 10 {
            self.first.push(what);
        }
    }
}

/// Verifies table `own-opp` (and that the tables it reads open).
pub fn verify_table(
    tbs: &Tablebases,
    own: u8,
    opp: u8,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Findings, TbError> {
    let tb_rules = tbs.tb_rules();
    let rules = tb_rules.game_rules();
    let loaded = tbs
        .table(own, opp)
        .map_err(|e| TbError::Unusable(e.to_string()))?;
    let sub = &loaded.sub;
    let slots = loaded.table.slots();
    let findings = Mutex::new(Findings::default());
    if loaded.table.verify_checksum().is_err() {
        findings.lock().expect("no panics").add(format!(
            "{}: checksum mismatch",
            loaded.table.path.display()
        ));
    }
    let summary = build::summarise(sub, slots, tb_rules);
    let h = &loaded.table.header;
    if (
        summary.wins,
        summary.losses,
        summary.draws,
        summary.max_win,
        summary.max_loss,
    ) != (h.wins, h.losses, h.draws, h.max_win, h.max_loss)
    {
        findings
            .lock()
            .expect("no panics")
            .add(format!("{own}-{opp}: header counts differ from the slots"));
    }
    progress(Event::Phase {
        label: "verify",
        total: sub.len(),
    });
    let next_class = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut moves = MoveList::new();
                loop {
                    let class = next_class.fetch_add(1, Ordering::Relaxed);
                    if class >= sub.own_classes() {
                        break;
                    }
                    let own_set = sub.own_set(class);
                    sub.for_each_in_class(class, |idx, opp_set| {
                        if !sub.is_canonical(class, opp_set) {
                            return;
                        }
                        let stored = Value::decode(slots[idx as usize]);
                        let problem =
                            check_slot(tbs, &rules, sub, idx, own_set, opp_set, stored, &mut moves);
                        if let Some(p) = problem {
                            findings
                                .lock()
                                .expect("no panics")
                                .add(format!("{}: {p}", build::fen(tb_rules, own_set, opp_set)));
                        }
                    });
                    progress(Event::Advance(sub.per_class()));
                }
            });
        }
    });
    Ok(findings.into_inner().expect("no panics"))
}

/// Checks one slot; the problem, if any.
#[allow(clippy::too_many_arguments)]
fn check_slot(
    tbs: &Tablebases,
    rules: &crate::core::Rules,
    sub: &super::index::Subspace,
    idx: u64,
    own: Bitboard,
    opp: Bitboard,
    stored: Value,
    moves: &mut MoveList,
) -> Option<String> {
    if sub.index(own, opp) != idx {
        return Some(format!("index round trip gives {}", sub.index(own, opp)));
    }
    let s = 1 + (idx % 15) as usize;
    let (o, p) = (symmetry::apply(s, own), symmetry::apply(s, opp));
    if sub.index(o, p) != idx {
        return Some(format!("symmetry {s} moves it to slot {}", sub.index(o, p)));
    }
    let Some(pos) = build::position(tbs.tb_rules(), own, opp) else {
        return Some("the rules core refuses the position".into());
    };
    pos.legal_moves(rules, moves);
    let mut best_win: Option<u8> = None;
    let mut draw = false;
    let mut worst_loss: Option<u8> = None;
    if moves.is_empty() {
        worst_loss = Some(0);
    }
    for &m in moves.iter() {
        let next = pos.play_unchecked(rules, m);
        let us = pos.side_to_move();
        let ends_the_game = m.has_removal()
            && matches!(next.outcome(rules), Some(Outcome::Win { winner, .. }) if winner == us);
        let mover_value = if ends_the_game {
            Value::Win(1)
        } else {
            match tbs.probe_sets(next.pieces(us.opponent()), next.pieces(us)) {
                Err(e) => return Some(format!("successor table: {e}")),
                Ok(v) => v.one_ply_back(),
            }
        };
        match mover_value {
            Value::Win(d) => best_win = Some(best_win.map_or(d, |b| b.min(d))),
            Value::Draw => draw = true,
            Value::Loss(d) => worst_loss = Some(worst_loss.map_or(d, |w| w.max(d))),
        }
    }
    let expected = match (best_win, draw, worst_loss) {
        (Some(d), _, _) => Value::Win(d),
        (None, true, _) => Value::Draw,
        (None, false, Some(d)) => Value::Loss(d),
        (None, false, None) => Value::Draw,
    };
    if expected != stored {
        return Some(format!("stored {stored:?}, successors give {expected:?}"));
    }
    None
}
