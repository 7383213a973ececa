//! Step 2 of a build: level by level, distance k = 0, 1, ..., from the
//! positions decided at k to their predecessors, until no level finds
//! more. Every position lost at k makes each predecessor (found by
//! un-moves) a win at k + 1, unless it has a value already (a tentative
//! removal win further away gives way). Every position won at k takes one
//! from each unknown predecessor's count; a count that reaches 0 makes a
//! loss at k + 1, or later if a removal loses later. The scan set each
//! open position's count (`scan.rs`): the number of distinct successor
//! classes that remove nothing, plus one if a removal leads to a draw
//! (which never falls).
//!
//! A position's predecessors keep the set of the side not to move there
//! (the one that did not just un-move), which is the major set of the
//! other table (`index.rs`): they all lie in one block of it, a few
//! kilobytes, and one symmetry places all of them.
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
use super::code::{self, Code};
use super::moves::{Mover, Removing, predecessors};
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
    /// For each open position, 1 + the successors not yet known to win
    /// for the opponent (1: every one does; the position is lost), and
    /// whether a removal loses (`code::count`).
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

/// How many positions' updates wait for their lines (`one_level`).
const DEPTH: usize = 8;

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
                table: side.removed.as_ref(),
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
    let found = AtomicU64::new(0);
    let next_chunk = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut visitor = Visitor::new(m, from, to, level);
                loop {
                    let start = next_chunk.fetch_add(CHUNK, Relaxed);
                    if start >= from.values.len() {
                        break;
                    }
                    let end = (start + CHUNK).min(from.values.len());
                    // CHUNK is a whole number of words.
                    for word in start / 64..end.div_ceil(64) {
                        let mut bits = due_in_word(from, word, level);
                        while bits != 0 {
                            visitor.visit(word * 64 + bits.trailing_zeros() as usize);
                            bits &= bits - 1;
                        }
                    }
                }
                found.fetch_add(visitor.finish(), Relaxed);
            });
        }
    });
    found.into_inner()
}

/// The slots of word `word` of `from` whose level has come: those found
/// at the last level (`now`, cleared here), and those the scan decided
/// that wait for this level (`later`, cleared once their level has come
/// or gone: a shorter win replaced the value).
#[inline]
fn due_in_word(from: &AtomicSide, word: usize, level: u32) -> u64 {
    let (lost, won) = (code::loss(level as u16), code::win(level as u16));
    // Only this thread touches this word of `now` in this level: a plain
    // load, and a store only where bits were set (most words are empty,
    // and a locked swap of each cost a tenth of a build).
    let mut bits = from.now[word].load(Relaxed);
    if bits != 0 {
        from.now[word].store(0, Relaxed);
    }
    let waiting = from.later[word].load(Relaxed);
    if waiting != 0 {
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
    bits
}

/// One thread's share of a level: each position of `from` decided at the
/// level, with its predecessors in `to`, waits [`DEPTH`] positions after
/// their lines were asked for before they are updated, so that the misses
/// of several positions are under way together and have come by the time
/// they are needed.
struct Visitor<'a, 'b> {
    m: &'a Mover,
    from: &'a AtomicSide<'b>,
    to: &'a AtomicSide<'b>,
    lost: Code,
    won: Code,
    next: u16,
    ring: [(Code, Vec<u64>); DEPTH],
    pushed: usize,
    found: u64,
}

impl<'a, 'b> Visitor<'a, 'b> {
    fn new(m: &'a Mover, from: &'a AtomicSide<'b>, to: &'a AtomicSide<'b>, level: u32) -> Self {
        Visitor {
            m,
            from,
            to,
            lost: code::loss(level as u16),
            won: code::win(level as u16),
            next: level as u16 + 1,
            ring: std::array::from_fn(|_| (0, Vec::with_capacity(512))),
            pushed: 0,
            found: 0,
        }
    }

    /// Slot `idx` of `from`, if it is decided at this level: its
    /// predecessors are found and their lines asked for, and the position
    /// [`DEPTH`] before it is settled.
    #[inline]
    fn visit(&mut self, idx: usize) {
        let c = self.from.values[idx].load(Relaxed);
        if c != self.lost && c != self.won {
            return;
        }
        self.found += 1;
        let slot = self.pushed % DEPTH;
        if self.pushed >= DEPTH {
            self.settle(slot);
        }
        self.pushed += 1;
        let (to, won) = (self.to, self.won);
        let (slot_code, preds) = &mut self.ring[slot];
        *slot_code = c;
        let (own_s, opp_s) = self.from.sub.position(idx as u64);
        let repeats = predecessors(self.m, to.sub, own_s, opp_s, preds);
        if c == won {
            if let Some(may_lose) = &to.may_lose {
                preds.retain(|&p| may_lose[p as usize / 64] >> (p % 64) & 1 != 0);
            }
            if repeats {
                preds.sort_unstable();
                preds.dedup();
            }
        }
        for &p in preds.iter() {
            prefetch(&to.values[p as usize]);
            if c == won {
                prefetch(&to.counts[p as usize]);
            }
        }
    }

    /// Updates the predecessors of the position in ring slot `slot`.
    #[inline]
    fn settle(&self, slot: usize) {
        let (c, preds) = &self.ring[slot];
        if *c == self.lost {
            win_predecessors(self.to, preds, self.next);
        } else {
            count_down(self.m, self.to, preds, self.next);
        }
    }

    /// Settles the positions still waiting; how many were found.
    fn finish(self) -> u64 {
        for i in self.pushed.saturating_sub(DEPTH)..self.pushed {
            self.settle(i % DEPTH);
        }
        self.found
    }
}

/// A loss for the opponent found: its predecessors win at distance `d`,
/// unless they already win sooner.
#[inline]
fn win_predecessors(to: &AtomicSide, preds: &[u64], d: u16) {
    let code = code::win(d);
    // A win found by a removal at a longer distance is not yet propagated
    // and gives way to this one, as does a slot only known never to be
    // lost. (Nothing turns a value that does not give way into one that
    // does: a plain read tells most of them, without the locked update.)
    let gives_way = |v: Code| v == 0 || v == code::NEVER_LOST || (code::is_win(v) && v > code);
    for &p in preds {
        if !gives_way(to.values[p as usize].load(Relaxed)) {
            continue;
        }
        let won =
            to.values[p as usize].fetch_update(Relaxed, Relaxed, |v| gives_way(v).then_some(code));
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
fn count_down(m: &Mover, to: &AtomicSide, preds: &[u64], d: u16) {
    for &p in preds {
        let p = p as usize;
        if to.values[p].load(Relaxed) != 0 {
            continue;
        }
        // Each distinct successor takes one down once, and a removal that
        // draws is never taken down: an open position's count stays at 1
        // or more.
        let before = to.counts[p].fetch_sub(1, Relaxed);
        debug_assert!(code::left(before) >= 2, "a count below its successors");
        if code::left(before) != 2 {
            continue;
        }
        // Lost; a removal may lose later still.
        let by_removal = if before & code::REMOVAL_LOSES != 0 {
            let (own_p, opp_p) = to.sub.position(p as u64);
            to.removing.removals(m, own_p, opp_p).loss
        } else {
            None
        };
        let at = by_removal.map_or(d, |r| (r as u16).max(d));
        to.values[p].store(code::loss(at), Relaxed);
        if at == d {
            set_bit(&to.next, p);
        } else {
            set_bit(&to.later, p);
        }
    }
}
