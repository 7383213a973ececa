//! Verification of a placing layer: every value recomputed from its
//! successors, which the rules core's own move generation finds
//! (`Position::legal_moves`, `play_unchecked`: placements with their
//! removals, and the game's end), not the builder's walk; one symmetric
//! image per slot and the header's counts and checksum are checked too.

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use super::{LAYERS, Layer, Sector, SectorIndex, get, open_layer, walk_order, wdl};
use crate::core::{MoveList, Outcome, Position, Rules};
use crate::largemem::prefetch;
use crate::tb::error::TbError;
use crate::tb::mapped::MappedTable;
use crate::tb::probe::Tablebases;
use crate::tb::rules::TbRules;
use crate::tb::symmetry;
use crate::tb::value::Wdl;
use crate::tb::work::{Event, Findings};

/// Verifies layer `k` in `dir` against layer `k + 1` there (or the moving
/// phase's `.tb` files).
pub fn verify_layer(
    dir: &std::path::Path,
    rules: TbRules,
    k: u8,
    max: u8,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Findings, TbError> {
    let layer = Layer { k, max };
    let table = open_layer(dir, rules, k, max)?;
    let next = if k + 1 < LAYERS {
        Some(open_layer(dir, rules, k + 1, max)?)
    } else {
        None
    };
    let moving = Tablebases::under(dir, rules, table.header.limits);
    let game = rules.game_rules();
    let findings = Mutex::new(Findings::default());
    let sectors = layer.sectors();
    let bytes = table.slots();
    let (counts, classes) = stored_counts(&sectors, bytes);
    check_header(&table, counts, &mut findings.lock().expect("no panics"));
    progress(Event::Phase {
        label: "verify",
        total: layer.slots(),
    });
    let next_sectors = Layer { k: k + 1, max }.sectors();
    let ctx = Context {
        game: &game,
        next_layer: Layer { k: k + 1, max },
        next_sectors: &next_sectors,
        next_index: SectorIndex::new(&next_sectors),
        next: next.as_ref(),
        moving: &moving,
    };
    // The walk goes by the other side's set, as the builder's does: the
    // successors of one class of it lie in a few blocks of the next
    // layer. It must meet every slot that holds a class once.
    let visited = AtomicU64::new(0);
    for s in &sectors {
        let order = walk_order(s);
        order.par_classes(
            threads,
            || (MoveList::new(), Vec::new(), 0u64),
            |(moves, pending, seen), _, other, own| {
                *seen += 1;
                if let Some(p) = ctx.check_slot(layer, s, bytes, (own, other), moves, pending) {
                    let fen = layer
                        .position(&game, own, other)
                        .map_or_else(|| format!("{own:?} {other:?}"), |pos| pos.fen(&game));
                    findings
                        .lock()
                        .expect("no panics")
                        .add(format!("{fen}: {p}"));
                }
            },
            |(_, _, seen)| {
                visited.fetch_add(std::mem::take(seen), Relaxed);
                progress(Event::Advance(order.per_class()));
            },
        );
    }
    let visited = visited.into_inner();
    if visited != classes {
        findings.lock().expect("no panics").add(format!(
            "{}: the walk met {visited} positions, the layer holds {classes}",
            table.path.display(),
        ));
    }
    Ok(findings.into_inner().expect("no panics"))
}

/// The layer's stored draws, wins and losses (by their two-bit codes),
/// counted over the slots that hold a class, and how many those are.
fn stored_counts(sectors: &[Sector], bytes: &[u8]) -> ([u64; 3], u64) {
    let mut counts = [0u64; 3];
    let mut classes = 0u64;
    for s in sectors {
        for class in 0..s.sub.major_classes() {
            s.sub.for_each_in_class(class, |idx, opp| {
                if s.sub.is_canonical(class, opp) {
                    counts[get(bytes, s.first + idx) as usize] += 1;
                    classes += 1;
                }
            });
        }
    }
    (counts, classes)
}

fn check_header(table: &MappedTable, counts: [u64; 3], findings: &mut Findings) {
    if table.verify_checksum().is_err() {
        findings.add(format!("{}: checksum mismatch", table.path.display()));
    }
    let h = &table.header;
    let [draws, wins, losses] = counts;
    if (h.wins, h.draws, h.losses) != (wins, draws, losses) {
        findings.add(format!(
            "{}: header counts differ from the slots",
            table.path.display()
        ));
    }
}

/// Where the successors' values come from.
struct Context<'a> {
    game: &'a Rules,
    next_layer: Layer,
    /// The next layer's sectors and which has given counts, worked out
    /// once (each lookup built them anew before).
    next_sectors: &'a [Sector],
    next_index: SectorIndex,
    next: Option<&'a MappedTable>,
    moving: &'a Tablebases,
}

impl<'a> Context<'a> {
    /// Where a successor's value is: the next layer's bytes and its slot
    /// there, or (`None`) the moving phase.
    fn slot(&self, child: &Position) -> Result<Option<(&'a [u8], u64)>, String> {
        let Some(next) = self.next else {
            return Ok(None);
        };
        let us = child.side_to_move();
        let (own, opp) = (child.pieces(us), child.pieces(us.opponent()));
        let layer = Layer::of(child).ok_or("a successor outside the placing phase")?;
        if layer.k != self.next_layer.k {
            return Err(format!("a successor in layer {}", layer.k));
        }
        let at = self
            .next_index
            .find(own.count() as usize, opp.count() as usize)
            .ok_or("a successor in a sector not built")?;
        let sector = &self.next_sectors[at];
        Ok(Some((
            next.slots(),
            sector.first + sector.sub.index(own, opp),
        )))
    }

    /// The value of a successor in the moving phase for its side to move.
    fn moving_value(&self, child: &Position) -> Result<Wdl, String> {
        match self.moving.value(&child.with_rule50(0)) {
            Some(v) => v
                .rule
                .ok_or_else(|| "a successor whose value under the limits is not known".to_string()),
            None => Err("a successor the moving tables do not hold".to_string()),
        }
    }

    /// Checks the slot of `own` to move against `other` in sector `s` of
    /// `layer` (whose bytes are `bytes`): one symmetric image finds the
    /// same slot, the rules core takes the position, and its stored value
    /// is its successors'; the problem, if any.
    #[inline]
    fn check_slot(
        &self,
        layer: Layer,
        s: &Sector,
        bytes: &[u8],
        (own, other): (crate::core::Bitboard, crate::core::Bitboard),
        moves: &mut MoveList,
        pending: &mut Vec<(&'a [u8], u64)>,
    ) -> Option<String> {
        let idx = s.sub.index(own, other);
        // Read once the successors are found (a slot of this layer
        // somewhere else each time: the walk goes by the other side's
        // set).
        let slot = s.first + idx;
        prefetch(&bytes[(slot / 4) as usize]);
        let sym = 1 + (idx % 15) as usize;
        let (o, p) = (symmetry::apply(sym, own), symmetry::apply(sym, other));
        if s.sub.index(o, p) != idx {
            return Some(format!(
                "symmetry {sym} moves it to slot {}",
                s.sub.index(o, p)
            ));
        }
        match layer.position(self.game, own, other) {
            None => Some("the rules core refuses the position".into()),
            Some(pos) => self.check(&pos, (bytes, slot), moves, pending),
        }
    }

    /// Checks one position's value, stored at `slot` of `bytes`; the
    /// problem, if any. Each successor's slot is asked for (prefetched)
    /// as it is found and read a few successors later, so that the reads
    /// overlap; the first successor that gives a win decides (nothing can
    /// give more), and the rest are not made.
    fn check(
        &self,
        pos: &Position,
        (bytes, slot): (&[u8], u64),
        moves: &mut MoveList,
        pending: &mut Vec<(&'a [u8], u64)>,
    ) -> Option<String> {
        /// How many successors' reads are in flight.
        const LAG: usize = 4;
        pos.legal_moves(self.game, moves);
        let us = pos.side_to_move();
        pending.clear();
        let mut read = 0;
        let mut best = Wdl::Loss;
        for &m in moves.iter() {
            let child = pos.play_unchecked(self.game, m);
            let v = match child.outcome(self.game) {
                Some(Outcome::Win { winner, .. }) if winner == us => Wdl::Win,
                Some(Outcome::Win { .. }) => Wdl::Loss,
                Some(_) => Wdl::Draw,
                None => match self.slot(&child) {
                    Ok(Some((next, at))) => {
                        prefetch(&next[(at / 4) as usize]);
                        pending.push((next, at));
                        if pending.len() - read <= LAG {
                            continue;
                        }
                        let (next, at) = pending[read];
                        read += 1;
                        wdl(get(next, at)).flip()
                    }
                    Ok(None) => match self.moving_value(&child) {
                        Ok(v) => v.flip(),
                        Err(e) => return Some(e),
                    },
                    Err(e) => return Some(e),
                },
            };
            best = best.max(v);
            if best == Wdl::Win {
                break;
            }
        }
        if best != Wdl::Win {
            for &(next, at) in &pending[read..] {
                best = best.max(wdl(get(next, at)).flip());
            }
        }
        let stored = wdl(get(bytes, slot));
        (best != stored).then(|| format!("stored {stored:?}, successors give {best:?}"))
    }
}
