//! `mulino tb pack --compare`: every position of every table of a source
//! folder, its value there against the packed folder's (stored or
//! derived), so that a pack is known to answer as its source does.

use std::sync::Mutex;

use super::layout::TableId;
use super::read::Packed;
use crate::core::Bitboard;
use crate::tb::error::TbError;
use crate::tb::index::Subspace;
use crate::tb::mapped::MappedTable;
use crate::tb::placing::{self, Layer};
use crate::tb::value;
use crate::tb::work::{Event, Findings};

/// What the comparison of one table found.
#[derive(Debug, Default)]
pub struct Compared {
    pub positions: u64,
    /// Positions the pack could not value (a block missing or damaged).
    pub unknown: u64,
    pub findings: Findings,
}

/// Compares every position of a source table with the pack.
pub fn compare_table(
    pack: &Packed,
    id: TableId,
    src: &MappedTable,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Compared, TbError> {
    let rules = pack.tb_rules();
    let found = Mutex::new(Compared::default());
    let bytes = src.slots();
    let check = |state: &mut Compared, slot: u64, own: Bitboard, opp: Bitboard| {
        state.positions += 1;
        let mismatch = match id {
            TableId::Moving { .. } => {
                let want = value::wdz_decode(bytes[slot as usize]);
                pack.moving(own, opp)
                    .map(|got| (got != want).then(|| format!("source {want:?}, pack {got:?}")))
            }
            TableId::Placing { k, .. } => {
                let want = placing::wdl(placing::get(bytes, slot));
                pack.placing(k, own, opp)
                    .map(placing::wdl)
                    .map(|got| (got != want).then(|| format!("source {want:?}, pack {got:?}")))
            }
        };
        match mismatch {
            None => state.unknown += 1,
            Some(Some(what)) => state
                .findings
                .add(format!("{}: {what}", rules.fen(own, opp))),
            Some(None) => {}
        }
    };
    let gather = |states: Vec<Compared>| {
        let mut all = found.lock().unwrap_or_else(|e| e.into_inner());
        for s in states {
            all.positions += s.positions;
            all.unknown += s.unknown;
            all.findings.mismatches += s.findings.mismatches;
            for f in s.findings.first {
                if all.findings.first.len() < 10 {
                    all.findings.first.push(f);
                }
            }
        }
    };
    match id {
        TableId::Moving { own, opp } => {
            // The source's order: one class of the side not to move at a
            // time, whose quiet moves all lead into one class of the twin.
            let sub = Subspace::new(own, opp).expect("a moving subspace");
            progress(Event::Phase {
                label: "compare",
                total: sub.major_classes() as u64,
            });
            let states = sub.par_classes(
                threads,
                Compared::default,
                |st, slot, o, p| check(st, slot, o, p),
                |_| progress(Event::Advance(1)),
            );
            gather(states);
        }
        TableId::Placing { k, max } => {
            let layer = Layer { k, max };
            let sectors = layer.sectors();
            progress(Event::Phase {
                label: "compare",
                total: sectors.iter().map(|s| s.sub.major_classes() as u64).sum(),
            });
            for s in &sectors {
                let first = s.first;
                let states = s.sub.par_classes(
                    threads,
                    Compared::default,
                    |st, slot, o, p| check(st, first + slot, o, p),
                    |_| progress(Event::Advance(1)),
                );
                gather(states);
            }
        }
    }
    Ok(found.into_inner().unwrap_or_else(|e| e.into_inner()))
}
