//! Step 1 of a build: every class's immediate value. A side that cannot
//! move has lost (distance 0). The shortest removal win is stored as a
//! tentative win; a position all of whose moves remove, and lose, is lost
//! at the longest of them. (Whether each value fits its file is checked
//! when the file is written.) A `.dtz` build marks the draws of the
//! pair's `.tb` table as draws for good (`code::NEVER`) and searches only
//! its wins and losses; its wins are marked as never lost
//! (`code::NEVER_LOST`), so that the retrograde step counts no successors
//! for them.

use std::sync::Mutex;

use super::Side;
use super::code::{self, Code};
use super::moves::{Mover, Removals, Removing};
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
    let classes = side.sub.own_classes();
    let chunk_classes = classes.div_ceil(threads * 8).max(1);
    let removing = Removing {
        table: side.removal.as_ref(),
        kind,
    };
    let sub = &side.sub;
    // A `.dtz` build leaves the draws of the pair's own `.tb` table
    // unsearched: no limit makes them decided.
    let pure = side.pure.as_ref().map(|t| t.slots());
    // Each chunk of classes owns a disjoint piece of `values`.
    let chunks: Vec<(usize, &mut [Code])> = side
        .values
        .chunks_mut(chunk_classes * per_class)
        .enumerate()
        .collect();
    let chunks = Mutex::new(chunks);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let Some((chunk, slots)) = chunks.lock().expect("no panics").pop() else {
                        break;
                    };
                    let first_class = chunk * chunk_classes;
                    let base = (first_class * per_class) as u64;
                    let last_class = (first_class + chunk_classes).min(classes);
                    for class in first_class..last_class {
                        let own = sub.own_set(class);
                        sub.for_each_in_class(class, |idx, opp| {
                            if !sub.is_canonical(class, opp) {
                                return;
                            }
                            let slot = &mut slots[(idx - base) as usize];
                            let pure_value = pure.map(|tb| Value::decode(tb[idx as usize]));
                            if pure_value == Some(Value::Draw) {
                                *slot = code::NEVER;
                                return;
                            }
                            let empty = !(own | opp);
                            if !m.flies(own) && (own & m.g.neighbours(empty)).is_empty() {
                                *slot = code::loss(0);
                                return;
                            }
                            *slot = match removing.removals(m, own, opp) {
                                Removals { win: Some(d), .. } => code::of_value(Value::Win(d)),
                                Removals {
                                    loss: Some(d),
                                    all_moves_remove: true,
                                    draw: false,
                                    ..
                                } => code::of_value(Value::Loss(d)),
                                _ if matches!(pure_value, Some(Value::Win(_))) => code::NEVER_LOST,
                                _ => return,
                            };
                        });
                        progress(Event::Advance(per_class as u64));
                    }
                }
            });
        }
    });
}
