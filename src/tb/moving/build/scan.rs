//! Step 1 of a build: every class's immediate value, and the count of
//! successors the retrograde step takes down. A side that cannot move has
//! lost (distance 0). The shortest removal win is stored as a tentative
//! win; a position all of whose moves remove, and lose, is lost at the
//! longest of them. (Whether each value fits its file is checked when
//! the file is written.) A `.dtz` build marks the draws of the pair's
//! `.tb` table as draws for good (`code::NEVER`) and searches only its
//! wins and losses; its wins are marked as never lost
//! (`code::NEVER_LOST`), so that the retrograde step counts no successors
//! for them.
//!
//! The scan walks each side by the classes of its major set, the side
//! not to move's (`index.rs`): that set, and the pieces of it a mill may
//! remove, stay the same for a whole block. Every position still open
//! gets its count here, where its removals are at hand (`code::count`):
//! its distinct successor classes that remove nothing, plus one if a
//! removal leads to a draw (which never falls), and whether a removal
//! loses (the loss found later must then be as long as that one).

use std::sync::Mutex;

use super::Side;
use super::code::{self, Code};
use super::moves::{Mover, Removals, Removing, distinct_quiet_moves};
use crate::tb::format::Kind;
use crate::tb::value::Value;
use crate::tb::work::Event;

/// Step 1 for one side, split over threads by class.
pub fn scan(
    kind: Kind,
    m: &Mover,
    side: &mut Side,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) {
    let per_class = side.sub.per_class() as usize;
    let classes = side.sub.major_classes();
    let chunk_classes = classes.div_ceil(threads * 8).max(1);
    let removing = Removing {
        table: side.removed.as_ref(),
        kind,
    };
    let sub = &side.sub;
    // A `.dtz` build leaves the draws of the pair's own `.tb` table
    // unsearched: no limit makes them decided.
    let pure = side.pure.as_ref().map(|t| t.slots());
    // Each chunk of classes owns a disjoint piece of `values` and `counts`.
    let span = chunk_classes * per_class;
    type Chunk<'a> = (usize, (&'a mut [Code], &'a mut [u8]));
    let chunks: Vec<Chunk> = side
        .values
        .chunks_mut(span)
        .zip(side.counts.chunks_mut(span))
        .enumerate()
        .collect();
    let chunks = Mutex::new(chunks);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let Some((chunk, (values, counts))) = chunks.lock().expect("no panics").pop()
                    else {
                        break;
                    };
                    let first_class = chunk * chunk_classes;
                    let base = (first_class * per_class) as u64;
                    let last_class = (first_class + chunk_classes).min(classes);
                    for class in first_class..last_class {
                        // The side not to move.
                        let opp = sub.major_set(class);
                        let blocks = removing.blocks(m, opp);
                        let symmetric = !sub.is_asymmetric(class);
                        sub.for_each_in_class(class, |idx, own| {
                            if symmetric && !sub.is_canonical(class, own) {
                                return;
                            }
                            let i = (idx - base) as usize;
                            let pure_value = pure.map(|tb| Value::decode(tb[idx as usize]));
                            if pure_value == Some(Value::Draw) {
                                values[i] = code::NEVER;
                                return;
                            }
                            let empty = !(own | opp);
                            let moves = if m.flies(own) {
                                own.count() * empty.count()
                            } else {
                                m.g.mobility(own, empty)
                            };
                            if moves == 0 {
                                values[i] = code::loss(0);
                                return;
                            }
                            let (r, closing) = removing.removals_of(m, own, opp, &blocks);
                            values[i] = match r {
                                Removals { win: Some(d), .. } => code::of_value(Value::Win(d)),
                                Removals {
                                    loss: Some(d),
                                    draw: false,
                                    ..
                                } if closing == moves => code::of_value(Value::Loss(d)),
                                _ if matches!(pure_value, Some(Value::Win(_))) => code::NEVER_LOST,
                                _ => {
                                    let quiet = if symmetric {
                                        distinct_quiet_moves(m, sub, class, own, opp)
                                    } else {
                                        moves - closing
                                    };
                                    counts[i] =
                                        code::count(quiet + r.draw as u32, r.loss.is_some());
                                    return;
                                }
                            };
                        });
                        progress(Event::Advance(per_class as u64));
                    }
                }
            });
        }
    });
}
