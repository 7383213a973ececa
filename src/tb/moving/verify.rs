//! Verification of built tables: every stored value is recomputed from
//! its successors, which the rules core's own move generator finds
//! (`Position::legal_moves`, `play_unchecked`), not the builder's
//! un-moves; every slot's index round trip and one symmetric image per
//! slot are checked, and the header's counts and checksum. A `.dtz`
//! table is checked the same way against its `.tb` table and its twin's
//! `.dtz` table: a win's distance to the next removal is the least over
//! the winning moves (a removal counts 1, any other move 1 more than the
//! position it leads to), a loss's the most over all moves.

use std::sync::Mutex;

use super::{summarise, summarise_dtz, summarise_wdz};
use crate::core::{Bitboard, MoveList, Outcome, Position, Rules};
use crate::largemem::prefetch;
use crate::tb::error::TbError;
use crate::tb::format::Kind;
use crate::tb::index::Subspace;
use crate::tb::mapped::MappedTable;
use crate::tb::nmove::NMoveLimits;
use crate::tb::probe::{Loaded, Tablebases};
use crate::tb::symmetry;
use crate::tb::value::{self, Value, Wdl};
use crate::tb::work::{Event, Findings};

/// Verifies the `.tb` table `own-opp` (and that the tables it reads open).
pub fn verify_table(
    tbs: &Tablebases,
    own: u8,
    opp: u8,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Findings, TbError> {
    verify_kind(tbs, Kind::ToEnd, own, opp, threads, progress)
}

/// Verifies table `own-opp` of kind `kind`.
pub fn verify_kind(
    tbs: &Tablebases,
    kind: Kind,
    own: u8,
    opp: u8,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Findings, TbError> {
    let unusable = |e: &TbError| TbError::Unusable(e.to_string());
    if kind == Kind::UnderRule {
        let wdz = tbs.wdz_table(own, opp).map_err(unusable)?;
        return verify_wdz(tbs, wdz, threads, progress);
    }
    let tb = tbs.table(own, opp).map_err(unusable)?;
    let dtz = match kind {
        Kind::ToEnd | Kind::Placing | Kind::UnderRule => None,
        Kind::ToRemoval => Some(tbs.dtz_table(own, opp).map_err(unusable)?),
    };
    let checked = dtz.unwrap_or(tb);
    let findings = Mutex::new(Findings::default());
    check_header(tbs, tb, dtz, &mut findings.lock().expect("no panics"));
    let sub = &checked.sub;
    let rules = tbs.tb_rules().game_rules();
    every_slot(
        tbs,
        (sub, checked.table.slots()),
        &findings,
        threads,
        progress,
        |moves, idx, own, opp| {
            let slot = Slot { idx, own, opp };
            check_slot(tbs, &rules, sub, &slot, tb, dtz, moves)
        },
    );
    Ok(findings.into_inner().expect("no panics"))
}

/// Runs `check` on every slot of `sub` that holds a class, over
/// `threads`, and adds each problem it finds to `findings` with the
/// position's FEN.
///
/// The walk goes by the mover's set (a placing sector's layout of the
/// same counts), not in the file's own order (by the other side's set):
/// every move of one position keeps the other side's set, so a
/// position's successors lie in the blocks of the mover's new sets, and
/// those of one mover's set are the same few blocks, in the cache while
/// its positions are checked; the position's own slot in `slots` is then
/// one read elsewhere, asked for (prefetched) first. The walk meets
/// every class once; the position stored in the slot it finds for a
/// class must be of that class (the index's round trip), so no two
/// classes share a slot.
fn every_slot(
    tbs: &Tablebases,
    (sub, slots): (&Subspace, &[u8]),
    findings: &Mutex<Findings>,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
    check: impl Fn(&mut MoveList, u64, Bitboard, Bitboard) -> Option<String> + Sync,
) {
    let walk =
        Subspace::with_counts(sub.own, sub.opp).expect("a moving pair's counts fit a sector");
    progress(Event::Phase {
        label: "verify",
        total: walk.len(),
    });
    walk.par_classes(
        threads,
        MoveList::new,
        |moves, at, own, opp| {
            let idx = sub.index(own, opp);
            if let Some(b) = slots.get(idx as usize) {
                prefetch(b);
            }
            let (o, p) = sub.position(idx);
            let problem = if walk.index(o, p) != at {
                Some(format!("slot {idx} holds another class"))
            } else {
                check(moves, idx, own, opp)
            };
            if let Some(p) = problem {
                let fen = tbs.tb_rules().fen(own, opp);
                findings
                    .lock()
                    .expect("no panics")
                    .add(format!("{fen}: {p}"));
            }
        },
        |_| progress(Event::Advance(walk.per_class())),
    );
}

/// The checksum and the header's counts of the table checked.
fn check_header(tbs: &Tablebases, tb: &Loaded, dtz: Option<&Loaded>, findings: &mut Findings) {
    let checked = dtz.unwrap_or(tb);
    let rules = tbs.tb_rules();
    let summary = match dtz {
        None => summarise(&tb.sub, tb.table.slots(), rules),
        Some(z) => summarise_dtz(&tb.sub, tb.table.slots(), z.table.slots(), rules),
    };
    let (w, l) = match dtz {
        // A `.dtz` header counts its decided classes as wins and its
        // longest distance as both.
        None => (summary.wins, summary.losses),
        Some(_) => (summary.wins + summary.losses, 0),
    };
    let longest = summary.max_win.max(summary.max_loss);
    let (max_w, max_l) = match dtz {
        None => (summary.max_win, summary.max_loss),
        Some(_) => (longest, 0),
    };
    let counted = (w, l, summary.draws, max_w, max_l);
    check_checksum_and_counts(&checked.table, counted, findings);
}

/// A table's checksum, and its header's counts against `counted` (wins,
/// losses, draws, longest win and loss) from its slots.
fn check_checksum_and_counts(
    table: &MappedTable,
    counted: (u64, u64, u64, u8, u8),
    findings: &mut Findings,
) {
    if table.verify_checksum().is_err() {
        findings.add(format!("{}: checksum mismatch", table.path.display()));
    }
    let h = &table.header;
    if counted != (h.wins, h.losses, h.draws, h.max_win, h.max_loss) {
        findings.add(format!(
            "{}: header counts differ from the slots",
            table.path.display()
        ));
    }
}

/// One slot of the table checked, with the position it holds.
struct Slot {
    idx: u64,
    own: Bitboard,
    opp: Bitboard,
}

/// Checks one slot; the problem, if any.
fn check_slot(
    tbs: &Tablebases,
    rules: &Rules,
    sub: &Subspace,
    slot: &Slot,
    tb: &Loaded,
    dtz: Option<&Loaded>,
    moves: &mut MoveList,
) -> Option<String> {
    let (own, opp, idx) = (slot.own, slot.opp, slot.idx);
    let s = 1 + (idx % 15) as usize;
    let (o, p) = (symmetry::apply(s, own), symmetry::apply(s, opp));
    if sub.index(o, p) != idx {
        return Some(format!("symmetry {s} moves it to slot {}", sub.index(o, p)));
    }
    let Some(pos) = tbs.tb_rules().position(own, opp) else {
        return Some("the rules core refuses the position".into());
    };
    pos.legal_moves(rules, moves);
    let pure = tb.value(own, opp);
    let pure_probe =
        |_: &Position, own, opp, _| tbs.probe_sets(own, opp).map_err(|e| e.to_string());
    match dtz {
        None => {
            let expected = match recompute(rules, &pos, moves, pure_probe, |s, _| {
                s.value.one_ply_back()
            }) {
                Ok(v) => v,
                Err(e) => return Some(e),
            };
            (expected != pure).then(|| format!("stored {pure:?}, successors give {expected:?}"))
        }
        Some(z) => {
            let stored = value::dtz_decode(z.byte(own, opp));
            let expected = match recompute(rules, &pos, moves, pure_probe, |v, removed| {
                to_removal(tbs, v, removed)
            }) {
                Ok(v) => v,
                Err(e) => return Some(e),
            };
            // Under N-move limits a win or loss may be drawn at every
            // counter: no distance.
            let limited = tbs.limits() != NMoveLimits::NONE;
            let agrees = match (pure, expected) {
                (Value::Draw, _) => stored.is_none(),
                (Value::Win(_), Value::Win(d)) | (Value::Loss(_), Value::Loss(d)) => {
                    stored == Some(d)
                }
                (_, Value::Draw) => limited && stored.is_none(),
                _ => false,
            };
            (!agrees).then(|| {
                format!("stored {pure:?} with {stored:?} to the next removal, successors give {expected:?}")
            })
        }
    }
}

/// A move's distance to the next removal for the side that made it, from
/// the value after it (`Value` as the `.tb` file has it, with the
/// distance replaced by the `.dtz` one where the move removed nothing).
fn to_removal(tbs: &Tablebases, after: Successor, removed: bool) -> Value {
    let child = match after.value {
        Value::Draw => return Value::Draw,
        v => v,
    };
    let z = tbs
        .dtz_table(after.own.count() as u8, after.opp.count() as u8)
        .ok()
        .and_then(|t| value::dtz_decode(t.byte(after.own, after.opp)));
    if removed {
        // The smaller subspace's value from a counter of 0, under the
        // limits the table was built for.
        let limit = tbs.limits().limit(after.own.count(), after.opp.count());
        let stands = limit.is_none_or(|n| z.is_some_and(|z| z as u16 <= n));
        return match child {
            _ if !stands => Value::Draw,
            Value::Loss(_) => Value::Win(1),
            _ => Value::Loss(1),
        };
    }
    let Some(z) = z else {
        // Decided without a distance: drawn at every counter (under
        // limits), or a mismatch the caller shows.
        return Value::Draw;
    };
    match child {
        Value::Loss(_) => Value::Win(z.saturating_add(1)),
        _ => Value::Loss(z.saturating_add(1)),
    }
}

/// Verifies a `.wdz` table: each value from its successors' under the
/// same limits (the smaller subspaces' at a counter of 0, as the engine
/// gives them).
fn verify_wdz(
    tbs: &Tablebases,
    wdz: &Loaded,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Findings, TbError> {
    let findings = Mutex::new(Findings::default());
    let h = summarise_wdz(&wdz.sub, wdz.table.slots(), tbs.tb_rules());
    let counted = (h.wins, h.losses, h.draws, h.max_win, h.max_loss);
    check_checksum_and_counts(
        &wdz.table,
        counted,
        &mut findings.lock().expect("no panics"),
    );
    let sub = &wdz.sub;
    // Every quiet move leads into the twin (the other side to move, the
    // same counts): opened once, not looked up for each successor.
    let twin = tbs
        .wdz_table(sub.opp, sub.own)
        .map_err(|e| TbError::Unusable(e.to_string()))?;
    let limit = tbs.limits().limit(sub.own as u32, sub.opp as u32);
    let rules = tbs.tb_rules().game_rules();
    every_slot(
        tbs,
        (sub, wdz.table.slots()),
        &findings,
        threads,
        progress,
        |moves, _, own, opp| {
            let Some(pos) = tbs.tb_rules().position(own, opp) else {
                return Some("the rules core refuses the position".into());
            };
            pos.legal_moves(&rules, moves);
            let stored = value::wdz_decode(wdz.byte(own, opp));
            // A successor's value for its side to move: the same
            // table's after a quiet move, the smaller subspace's under
            // the rule from a counter of 0 after a removal.
            let probe = |next: &Position, o: Bitboard, p: Bitboard, removed: bool| {
                if !removed {
                    return Ok(value::wdz_decode(twin.byte(o, p)));
                }
                let v = tbs.value(next).ok_or("no database value after a removal")?;
                Ok(match v.rule {
                    Some(Wdl::Win) => Value::Win(0),
                    Some(Wdl::Loss) => Value::Loss(0),
                    Some(Wdl::Draw) => Value::Draw,
                    None => return Err("a removal's value is not exact under the rule".into()),
                })
            };
            let mover = |s: Successor, removed: bool| match (s.value, removed) {
                (Value::Draw, _) => Value::Draw,
                (Value::Loss(_), true) => Value::Win(1),
                (Value::Win(_), true) => Value::Loss(1),
                (Value::Loss(z), false) => Value::Win(z.saturating_add(1)),
                (Value::Win(z), false) => Value::Loss(z.saturating_add(1)),
            };
            let expected = match recompute(&rules, &pos, moves, probe, mover) {
                Ok(v) => v,
                Err(e) => return Some(e),
            };
            let expected = match expected {
                Value::Win(d) | Value::Loss(d) if limit.is_some_and(|n| d as u16 > n) => {
                    Value::Draw
                }
                v => v,
            };
            (expected != stored).then(|| format!("stored {stored:?}, successors give {expected:?}"))
        },
    );
    Ok(findings.into_inner().expect("no panics"))
}

/// A successor position: the sets of the side then to move and of the
/// other, and its `.tb` value.
#[derive(Clone, Copy)]
struct Successor {
    own: Bitboard,
    opp: Bitboard,
    value: Value,
}

/// The value of `pos` from its successors: the shortest win, else a draw,
/// else the longest loss, each move's value for the mover given by
/// `mover(successor, removed)` (a move that leaves two pieces wins at 1).
fn recompute(
    rules: &Rules,
    pos: &Position,
    moves: &MoveList,
    probe: impl Fn(&Position, Bitboard, Bitboard, bool) -> Result<Value, String>,
    mover: impl Fn(Successor, bool) -> Value,
) -> Result<Value, String> {
    let mut best_win: Option<u8> = None;
    let mut draw = false;
    let mut worst_loss: Option<u8> = if moves.is_empty() { Some(0) } else { None };
    for &m in moves.iter() {
        let next = pos.play_unchecked(rules, m);
        let us = pos.side_to_move();
        let ends_the_game = m.has_removal()
            && matches!(next.outcome(rules), Some(Outcome::Win { winner, .. }) if winner == us);
        let value = if ends_the_game {
            Value::Win(1)
        } else {
            let (own, opp) = (next.pieces(us.opponent()), next.pieces(us));
            let after = match probe(&next, own, opp, m.has_removal()) {
                Err(e) => return Err(format!("successor table: {e}")),
                Ok(v) => v,
            };
            let successor = Successor {
                own,
                opp,
                value: after,
            };
            mover(successor, m.has_removal())
        };
        match value {
            Value::Win(d) => best_win = Some(best_win.map_or(d, |b| b.min(d))),
            Value::Draw => draw = true,
            Value::Loss(d) => worst_loss = Some(worst_loss.map_or(d, |w| w.max(d))),
        }
    }
    Ok(match (best_win, draw, worst_loss) {
        (Some(d), _, _) => Value::Win(d),
        (None, true, _) => Value::Draw,
        (None, false, Some(d)) => Value::Loss(d),
        (None, false, None) => Value::Draw,
    })
}
