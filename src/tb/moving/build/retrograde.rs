//! Step 2 of a build: level by level, distance k = 0, 1, ..., from the
//! positions decided at k to their predecessors, until no level finds
//! more. Every position lost at k makes each predecessor (found by
//! un-moves) a win at k + 1, unless it has a value already (a tentative
//! removal win further away gives way). Every position won at k takes one
//! from each unknown predecessor's count; a count that reaches 0 makes a
//! loss at k + 1, or later if a removal loses later. A count is set the
//! first time a successor is won (all other successors are unknown then,
//! since every win is propagated at its own level): the number of distinct
//! successor classes that remove nothing, plus one if a removal leads to a
//! draw (which never falls).
//!
//! Each level is split over threads by slot; its outcome does not depend
//! on the order: a level only writes values at distance k + 1 (or a
//! removal's, decided at the scan), and reads those at k.
//!
//! A level finds its positions in two bitmaps (one bit a slot) instead
//! of reading every slot's value: the slots the level before decided (set
//! as they are decided), and the slots decided at some later distance
//! otherwise, by the scan or as a loss that a removal makes later (a bit
//! stays until its level comes, or a shorter win replaces its value).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU64, AtomicUsize};

use super::Side;
use super::code;
use super::moves::{Mover, Removing, predecessors, successor_count};
use crate::largemem::prefetch;
use crate::tb::error::TbError;
use crate::tb::format::Kind;
use crate::tb::index::Subspace;
use crate::tb::value::Value;
use crate::tb::work::{Event, atomic_u8};

/// One side's tables during the retrograde step, as atomics that the
/// threads update together.
struct AtomicSide<'a> {
    sub: &'a Subspace,
    values: &'a [AtomicU16],
    /// 0: not counted yet; otherwise 1 + the successors not yet known to
    /// win for the opponent (1: every one does; the position is lost).
    counts: &'a [AtomicU8],
    removing: Removing<'a>,
    /// One bit a slot: decided at the level in hand (`now`), and at the
    /// one after it (`next`, as they are decided).
    now: Vec<AtomicU64>,
    next: Vec<AtomicU64>,
    /// One bit a slot decided at a distance still to come, otherwise
    /// than by the level before it.
    later: Vec<AtomicU64>,
    /// In a `.dtz` build, one bit a slot that may still be lost: undecided
    /// when the scan ended, and neither a draw nor a win of the pair's
    /// `.tb` table. Only these can count down, so the won positions'
    /// predecessors are filtered by this small map before their values
    /// are read (most of them are wins or draws there). `None`: every
    /// slot may be lost.
    may_lose: Option<Vec<u64>>,
}

fn bitmap(slots: usize) -> Vec<AtomicU64> {
    (0..slots.div_ceil(64)).map(|_| AtomicU64::new(0)).collect()
}

#[inline]
fn set_bit(bits: &[AtomicU64], idx: usize) {
    bits[idx / 64].fetch_or(1 << (idx % 64), Relaxed);
}

/// The longest distance a file can hold.
const MAX_DISTANCE: u32 = 254;

/// Step 2 for the pair's sides.
/// With a `cap`, no distance past it is searched (what lies further is
/// a draw under the rule that set it).
pub fn retrograde(
    kind: Kind,
    m: &Mover,
    sides: &mut [Side],
    cap: Option<u32>,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<(), TbError> {
    let mut top = 0;
    let mut later = Vec::new();
    let mut may_lose = Vec::new();
    for side in sides.iter() {
        // The scan's values wait for their levels: one word at a time. The
        // scan of a `.dtz` build left undecided only the `.tb` table's
        // losses (its draws and wins are marked): those may still be lost.
        let dtz = side.pure.is_some();
        let mut lose = Vec::new();
        let bits: Vec<AtomicU64> = side
            .values
            .chunks(64)
            .map(|codes| {
                let (mut word, mut open) = (0u64, 0u64);
                for (i, &c) in codes.iter().enumerate() {
                    if code::is_decided(c) {
                        top = top.max(code::distance(c) as u32);
                        word |= 1 << i;
                    } else if c == 0 {
                        open |= 1 << i;
                    }
                }
                if dtz {
                    lose.push(open);
                }
                AtomicU64::new(word)
            })
            .collect();
        later.push(bits);
        may_lose.push(dtz.then_some(lose));
    }
    let first = sides
        .first()
        .map(|s| format!("{}-{}", s.sub.own, s.sub.opp));
    let mut shared: Vec<AtomicSide> = sides
        .iter_mut()
        .zip(later.into_iter().zip(may_lose))
        .map(|(side, (later, may_lose))| AtomicSide {
            later,
            may_lose,
            sub: &side.sub,
            now: bitmap(side.values.len()),
            next: bitmap(side.values.len()),
            values: code::atomic(&mut side.values),
            counts: atomic_u8(&mut side.counts),
            removing: Removing {
                table: side.removal.as_ref(),
                kind,
            },
        })
        .collect();
    let mut level: u32 = 0;
    loop {
        if cap.is_some_and(|c| level >= c) {
            return Ok(());
        }
        progress(Event::Level(level));
        let mut found = 0;
        for i in 0..shared.len() {
            let to = &shared[if shared.len() == 1 { 0 } else { 1 - i }];
            found += one_level(m, &shared[i], to, level, threads);
        }
        for side in &mut shared {
            std::mem::swap(&mut side.now, &mut side.next);
        }
        progress(Event::Advance(found));
        if found == 0 && level >= top {
            let above = shared.iter().any(|s| {
                s.values
                    .iter()
                    .any(|v| matches!(v.load(Relaxed), c if code::is_decided(c) && code::distance(c) as u32 > level + 1))
            });
            if !above {
                return Ok(());
            }
        }
        level += 1;
        if level >= MAX_DISTANCE {
            // Distances past 253 do not fit; these rules never reach them.
            return Err(TbError::Unrepresentable {
                subspace: first.unwrap_or_default(),
                fen: String::from("(distance 254 reached)"),
                value: Value::Win(254),
            });
        }
    }
}

/// The positions of `from` decided at `level`, propagated to their
/// predecessors in `to`; how many there were. They are found from the
/// bits of `from.now`, which are cleared, and of `from.later`, cleared
/// once their level has come.
fn one_level(m: &Mover, from: &AtomicSide, to: &AtomicSide, level: u32, threads: usize) -> u64 {
    const CHUNK: usize = 1 << 16;
    let (lost, won) = (code::loss(level as u16), code::win(level as u16));
    let next = level as u16 + 1;
    let found = AtomicU64::new(0);
    let next_chunk = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut preds: Vec<u64> = Vec::with_capacity(512);
                let mut mine = 0u64;
                loop {
                    let start = next_chunk.fetch_add(CHUNK, Relaxed);
                    if start >= from.values.len() {
                        break;
                    }
                    let end = (start + CHUNK).min(from.values.len());
                    let mut visit = |idx: usize| {
                        let c = from.values[idx].load(Relaxed);
                        if c != lost && c != won {
                            return;
                        }
                        mine += 1;
                        let (own_s, opp_s) = from.sub.position(idx as u64);
                        predecessors(m, to.sub, own_s, opp_s, &mut preds);
                        // (No let chain: they need Rust 1.88, and this
                        // crate builds with 1.85.)
                        if let Some(may_lose) = to.may_lose.as_ref().filter(|_| c == won) {
                            preds.retain(|&p| may_lose[p as usize / 64] >> (p % 64) & 1 != 0);
                        }
                        // Ask for every line the updates will touch at
                        // once, so that their misses overlap instead of
                        // coming one after the other.
                        for &p in &preds {
                            prefetch(&to.values[p as usize]);
                            if c == won {
                                prefetch(&to.counts[p as usize]);
                            }
                        }
                        if c == lost {
                            win_predecessors(to, &preds, next);
                        } else {
                            // Repeats need an own set with symmetries.
                            let class = idx as u64 / from.sub.per_class();
                            if !from.sub.is_asymmetric(class as usize) {
                                preds.sort_unstable();
                                preds.dedup();
                            }
                            count_down(m, to, from.sub, &preds, next);
                        }
                    };
                    // CHUNK is a whole number of words.
                    for word in start / 64..end.div_ceil(64) {
                        // Only this thread touches this word of `now` in
                        // this level: a plain load, and a store only where
                        // bits were set (most words are empty, and a locked
                        // swap of each cost a tenth of a build).
                        let mut bits = from.now[word].load(Relaxed);
                        if bits != 0 {
                            from.now[word].store(0, Relaxed);
                        }
                        let waiting = from.later[word].load(Relaxed);
                        if waiting != 0 {
                            // Those whose level has come (or gone: a
                            // shorter win replaced the value) leave.
                            let mut gone = 0u64;
                            let mut w = waiting;
                            while w != 0 {
                                let bit = w & w.wrapping_neg();
                                w &= w - 1;
                                let idx = word * 64 + bit.trailing_zeros() as usize;
                                let c = from.values[idx].load(Relaxed);
                                if !code::is_decided(c) || code::distance(c) as u32 <= level {
                                    gone |= bit;
                                    if c == lost || c == won {
                                        bits |= bit;
                                    }
                                }
                            }
                            if gone != 0 {
                                from.later[word].fetch_and(!gone, Relaxed);
                            }
                        }
                        while bits != 0 {
                            visit(word * 64 + bits.trailing_zeros() as usize);
                            bits &= bits - 1;
                        }
                    }
                }
                found.fetch_add(mine, Relaxed);
            });
        }
    });
    found.into_inner()
}

/// A loss for the opponent found: its predecessors win at distance `d`,
/// unless they already win sooner.
#[inline]
fn win_predecessors(to: &AtomicSide, preds: &[u64], d: u16) {
    let code = code::win(d);
    for &p in preds {
        // A win found by a removal at a longer distance is not yet
        // propagated and gives way to this one, as does a slot only known
        // never to be lost.
        let won = to.values[p as usize].fetch_update(Relaxed, Relaxed, |v| {
            (v == 0 || v == code::NEVER_LOST || (code::is_win(v) && v > code)).then_some(code)
        });
        if let Ok(before) = won {
            set_bit(&to.next, p as usize);
            if code::is_decided(before) {
                // A removal's win further away, waiting for its level.
                let p = p as usize;
                to.later[p / 64].fetch_and(!(1 << (p % 64)), Relaxed);
            }
        }
    }
}

/// A win for the opponent found: each undecided predecessor (distinct,
/// in `to`) has one successor fewer left; the one whose last successor
/// this is loses at distance `d`, or later if a removal loses later.
#[inline]
fn count_down(m: &Mover, to: &AtomicSide, next: &Subspace, preds: &[u64], d: u16) {
    for &p in preds {
        let p = p as usize;
        if to.values[p].load(Relaxed) != 0 {
            continue;
        }
        let counter = &to.counts[p];
        let mut c = counter.load(Relaxed);
        loop {
            match c {
                0 => {
                    let n = successor_count(m, to.sub, to.removing, next, p as u64);
                    // Another thread may have counted it first.
                    c = match counter.compare_exchange(0, n + 1, Relaxed, Relaxed) {
                        Ok(_) => n + 1,
                        Err(now) => now,
                    };
                }
                1 => break,
                _ => match counter.compare_exchange_weak(c, c - 1, Relaxed, Relaxed) {
                    Ok(_) => {
                        if c == 2 {
                            // Lost; a removal may lose later still.
                            let (own_p, opp_p) = to.sub.position(p as u64);
                            let by_removal = to.removing.removals(m, own_p, opp_p).loss;
                            let at = by_removal.map_or(d, |r| (r as u16).max(d));
                            to.values[p].store(code::loss(at), Relaxed);
                            if at == d {
                                set_bit(&to.next, p);
                            } else {
                                set_bit(&to.later, p);
                            }
                        }
                        break;
                    }
                    Err(now) => c = now,
                },
            }
        }
    }
}
