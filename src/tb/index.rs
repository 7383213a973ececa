//! Dense indices of a subspace's positions, one slot per symmetry class
//! (and a few spare slots).
//!
//! A position of subspace `W-B` is the set `own` of the `W` pieces of the
//! side to move and the set `opp` of the opponent's `B` pieces. One of
//! the two is the *major* set, the other the *minor* one: in the moving
//! phase the major set is `opp`, the side not to move's (format version
//! 2; version 1 had `own`), in the placing phase's sectors `own`. The
//! slot is `class(major) * C(24 - M, m) + rank(minor among the free
//! points)` (`M` and `m` the sets' counts), where `class(major)` numbers
//! the sets of `M` points that are the least (as bitboard words) of their
//! orbit under the 16 symmetries. A position is first moved by a symmetry
//! that makes the major set canonical; when that set has symmetries of
//! its own (a stabiliser), the minor set is then replaced by its least
//! image under them. Slots whose minor set is not that least image hold
//! no class and stay unused (they read as draws and are never counted):
//! about 1% of the slots for 9 pieces, more for small counts.
//!
//! Ranks are combinatorial (colex): the rank of `{p0 < p1 < ...}` is
//! `C(p0, 1) + C(p1, 2) + ...`, so ranks follow the bitboard order.

use std::sync::{Arc, OnceLock};

use super::symmetry;
use crate::core::Bitboard;

/// The largest piece count per side the databases cover.
pub const MAX_PIECES: u8 = 9;
/// The smallest piece count of a side still in the game.
pub const MIN_PIECES: u8 = 3;

/// `BINOM[n][k]`: n choose k.
pub static BINOM: [[u64; 25]; 25] = {
    let mut t = [[0u64; 25]; 25];
    let mut n = 0;
    while n < 25 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// `RANK_BYTES[b][byte][j]`: the colex terms of the points of byte `b`
/// of a set (`byte` its bits there) when `j` points of the set lie below
/// that byte: the sum of `C(p, j + i)` over its points `p`, the `i`-th
/// (from 1) of them in the byte. Three lookups then rank any set.
static RANK_BYTES: [[[u32; 17]; 256]; 3] = {
    let mut t = [[[0u32; 17]; 256]; 3];
    let mut b = 0;
    while b < 3 {
        let mut byte = 0;
        while byte < 256 {
            let mut below = 0;
            while below < 17 {
                let (mut sum, mut j, mut i) = (0u64, below, 0);
                while i < 8 {
                    if byte & (1 << i) != 0 {
                        j += 1;
                        sum += BINOM[8 * b + i][j];
                    }
                    i += 1;
                }
                t[b][byte][below] = sum as u32;
                below += 1;
            }
            byte += 1;
        }
        b += 1;
    }
    t
};

/// `BYTE_MAP[0][mask][bits]`: the low bits of `bits` (as many as `mask`
/// has) placed on the points of `mask`, in order (a byte's deposit);
/// `BYTE_MAP[1][mask][bits]`: the bits of `bits` on the points of `mask`,
/// packed down to the low ones (a byte's compress).
static BYTE_MAP: [[[u8; 256]; 256]; 2] = {
    let mut t = [[[0u8; 256]; 256]; 2];
    let mut mask = 0;
    while mask < 256 {
        let mut bits = 0;
        while bits < 256 {
            let (mut deposit, mut pick, mut q, mut p) = (0u8, 0u8, 0, 0);
            while p < 8 {
                if mask & (1 << p) != 0 {
                    if bits & (1 << q) != 0 {
                        deposit |= 1 << p;
                    }
                    if bits & (1 << p) != 0 {
                        pick |= 1 << q;
                    }
                    q += 1;
                }
                p += 1;
            }
            t[0][mask][bits] = deposit;
            t[1][mask][bits] = pick;
            bits += 1;
        }
        mask += 1;
    }
    t
};

/// The colex rank of a set of points among the sets of its size.
#[inline]
pub fn colex_rank(set: u32) -> u64 {
    let (b0, b1, b2) = (set & 0xFF, (set >> 8) & 0xFF, (set >> 16) & 0xFF);
    let n0 = b0.count_ones() as usize;
    let n1 = n0 + b1.count_ones() as usize;
    (RANK_BYTES[0][b0 as usize][0] as u64)
        + RANK_BYTES[1][b1 as usize][n0] as u64
        + RANK_BYTES[2][b2 as usize][n1] as u64
}

/// The set of `k` points with colex rank `rank`.
pub fn colex_unrank(rank: u64, k: usize) -> u32 {
    // Colex ranks do not depend on how many points there are: the sets
    // on the 21 points that a moving-phase opponent can stand on (24 less
    // the 3 or more of the side to move) are one table per size.
    match UNRANK.get(k) {
        Some(table) if rank < BINOM[UNRANK_POINTS][k] => {
            table.get_or_init(|| unrank_table(k))[rank as usize]
        }
        _ => colex_unrank_slow(rank, k),
    }
}

/// The points (from 0) that the unranking tables cover.
const UNRANK_POINTS: usize = 21;

/// For each size up to 9, the sets of the first 21 points in rank order
/// (built when first asked for; 2.8 MB for all of them).
static UNRANK: [OnceLock<Box<[u32]>>; 10] = [const { OnceLock::new() }; 10];

fn unrank_table(k: usize) -> Box<[u32]> {
    (0..BINOM[UNRANK_POINTS][k])
        .map(|rank| colex_unrank_slow(rank, k))
        .collect()
}

/// [`colex_unrank`] by search: the largest point first.
fn colex_unrank_slow(mut rank: u64, k: usize) -> u32 {
    let mut set = 0;
    let mut p = 24;
    for j in (1..=k).rev() {
        // The largest p with C(p, j) <= rank.
        p -= 1;
        while BINOM[p][j] > rank {
            p -= 1;
        }
        rank -= BINOM[p][j];
        set |= 1 << p;
    }
    set
}

/// The symmetry reduction of the sets of one size.
#[derive(Debug)]
pub struct PieceSets {
    /// The canonical sets, in increasing order.
    canon: Vec<u32>,
    /// For each set by colex rank: `class << 4 | symmetry` taking it to
    /// its canonical set.
    lookup: Vec<u32>,
    /// For each class, the non-identity symmetries that fix its set (bit s).
    stabiliser: Vec<u16>,
}

impl PieceSets {
    fn new(k: usize) -> PieceSets {
        let total = BINOM[24][k] as usize;
        let mut canon = Vec::new();
        let mut lookup = vec![0u32; total];
        let mut stabiliser = Vec::new();
        for (rank, slot) in lookup.iter_mut().enumerate() {
            let set = Bitboard(colex_unrank(rank as u64, k));
            let (mut least, mut best) = (set.0, 0);
            for s in 1..symmetry::COUNT {
                let img = symmetry::apply(s, set).0;
                if img < least {
                    least = img;
                    best = s;
                }
            }
            if least == set.0 {
                let mut stab = 0u16;
                for s in 1..symmetry::COUNT {
                    if symmetry::apply(s, set) == set {
                        stab |= 1 << s;
                    }
                }
                *slot = (canon.len() as u32) << 4;
                canon.push(set.0);
                stabiliser.push(stab);
            } else {
                // The least image has a smaller rank: it is already known.
                // Canonicalising is the same lookup from there on.
                *slot = (canon.binary_search(&least).expect("least image seen") as u32) << 4
                    | best as u32;
            }
        }
        PieceSets {
            canon,
            lookup,
            stabiliser,
        }
    }

    /// The reduction for sets of `k` points (built once, shared).
    pub fn get(k: u8) -> Arc<PieceSets> {
        static CACHE: [OnceLock<Arc<PieceSets>>; 25] = [const { OnceLock::new() }; 25];
        CACHE[k as usize]
            .get_or_init(|| Arc::new(PieceSets::new(k as usize)))
            .clone()
    }

    /// The number of classes.
    pub fn classes(&self) -> usize {
        self.canon.len()
    }
}

/// One subspace: `own` pieces for the side to move, `opp` for the other.
///
/// Its slots are grouped in blocks, one per symmetry class of one side's
/// set, the *major* set; within a block, the other (*minor*) set by its
/// rank among the points the major set leaves free. A moving-phase
/// subspace ([`Subspace::new`]) is major by the set of the side *not* to
/// move: the positions a move leads to from one position, and those an
/// un-move leads back to, keep the set of the side that did not move, so
/// each lies in one block of the other table of the pair (the builder's
/// lever; `tb::moving::build`). A placing sector ([`Subspace::with_counts`])
/// is major by the side to move's set (`tb::placing::build` walks it by
/// the other's). [`Subspace::index`] and [`Subspace::position`] speak of
/// the side to move and the other either way; the class-level calls
/// (`canonical_major`, `index_in_class`, `for_each_in_class`, ...) of the
/// major and the minor set.
#[derive(Clone, Debug)]
pub struct Subspace {
    pub own: u8,
    pub opp: u8,
    /// Whether the side to move's set is the major one.
    mover_major: bool,
    /// The symmetry classes of the major set.
    sets: Arc<PieceSets>,
    /// The minor set's count.
    minor: u8,
    /// Slots per class of the major set: C(24 - major, minor).
    per_class: u64,
}

impl Subspace {
    /// The moving-phase subspace, if both counts are in `3..=9`: major by
    /// the set of the side not to move.
    pub fn new(own: u8, opp: u8) -> Option<Subspace> {
        let ok = |n| (MIN_PIECES..=MAX_PIECES).contains(&n);
        if !ok(own) || !ok(opp) {
            return None;
        }
        Some(Subspace::laid_out(own, opp, false))
    }

    /// A sector of the placing phase: `own` and `opp` pieces on the board,
    /// any counts from 0 to 12 (at most 24 together), major by the side
    /// to move's set.
    pub fn with_counts(own: u8, opp: u8) -> Option<Subspace> {
        if own > 12 || opp > 12 || own + opp > 24 {
            return None;
        }
        Some(Subspace::laid_out(own, opp, true))
    }

    fn laid_out(own: u8, opp: u8, mover_major: bool) -> Subspace {
        let (major, minor) = if mover_major { (own, opp) } else { (opp, own) };
        Subspace {
            own,
            opp,
            mover_major,
            sets: PieceSets::get(major),
            minor,
            per_class: BINOM[24 - major as usize][minor as usize],
        }
    }

    /// The number of slots.
    pub fn len(&self) -> u64 {
        self.sets.classes() as u64 * self.per_class
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the side to move's set is the major one (a placing
    /// sector), not the other's (a moving-phase subspace).
    #[inline]
    pub fn is_mover_major(&self) -> bool {
        self.mover_major
    }

    /// The major and the minor set of the position `own` to move against
    /// `opp`.
    #[inline]
    pub fn split(&self, own: Bitboard, opp: Bitboard) -> (Bitboard, Bitboard) {
        if self.mover_major {
            (own, opp)
        } else {
            (opp, own)
        }
    }

    /// The position (`own` to move, `opp`) of a major and a minor set.
    #[inline]
    pub fn join(&self, major: Bitboard, minor: Bitboard) -> (Bitboard, Bitboard) {
        // Its own inverse.
        self.split(major, minor)
    }

    /// The symmetry taking a major set to its canonical set, and that
    /// set's class.
    #[inline]
    pub fn canonical_major(&self, major: Bitboard) -> (usize, usize) {
        let packed = self.sets.lookup[colex_rank(major.0) as usize];
        ((packed >> 4) as usize, (packed & 15) as usize)
    }

    /// The slot of the position (`own` to move against `opp`), reduced by
    /// symmetry. The counts must be the subspace's.
    #[inline]
    pub fn index(&self, own: Bitboard, opp: Bitboard) -> u64 {
        debug_assert_eq!(own.count(), self.own as u32);
        debug_assert_eq!(opp.count(), self.opp as u32);
        let (major, minor) = self.split(own, opp);
        let (class, s) = self.canonical_major(major);
        self.index_in_class(class, symmetry::apply(s, minor))
    }

    /// The slot of the canonical major set of class `class` against the
    /// minor set `minor` (already moved by the symmetry that made the
    /// major set canonical).
    #[inline]
    pub fn index_in_class(&self, class: usize, minor: Bitboard) -> u64 {
        let major = self.sets.canon[class];
        let minor = self.least_minor(class, minor);
        class as u64 * self.per_class + rank_among_free(minor.0, major)
    }

    /// The least image of `minor` under the symmetries that fix the
    /// canonical major set of class `class` (`minor` itself where none
    /// but the identity does).
    #[inline]
    pub fn least_minor(&self, class: usize, minor: Bitboard) -> Bitboard {
        let mut stab = self.sets.stabiliser[class];
        let mut least = minor;
        while stab != 0 {
            let s = stab.trailing_zeros() as usize;
            stab &= stab - 1;
            let img = symmetry::apply(s, minor);
            if img.0 < least.0 {
                least = img;
            }
        }
        least
    }

    /// The slots of class `class` against `minor` with one point more, for
    /// the points free of both (see [`PlusOne`]); `None` where the class's
    /// set has symmetries of its own (then `index_in_class` must choose
    /// the least image).
    #[inline]
    pub fn plus_one(&self, class: usize, minor: Bitboard) -> Option<PlusOne> {
        if self.sets.stabiliser[class] != 0 {
            return None;
        }
        let major = self.sets.canon[class];
        let mut ranks = PlusOne {
            base: class as u64 * self.per_class,
            major,
            minor: minor.0,
            lo: [0; 13],
            hi: [0; 13],
        };
        // lo[i]: the first i points of `minor` at their own places in the
        // colex sum; hi[i]: the others, each one place up.
        let mut n = 0;
        let mut compact = [0usize; 12];
        for p in minor {
            compact[n] = free_below(p.index() as u32, major);
            ranks.lo[n + 1] = ranks.lo[n] + BINOM[compact[n]][n + 1];
            n += 1;
        }
        for t in (0..n).rev() {
            ranks.hi[t] = ranks.hi[t + 1] + BINOM[compact[t]][t + 2];
        }
        Some(ranks)
    }

    /// The canonical major set of class `class`.
    #[inline]
    pub fn major_set(&self, class: usize) -> Bitboard {
        Bitboard(self.sets.canon[class])
    }

    /// The number of classes of the major set.
    pub fn major_classes(&self) -> usize {
        self.sets.classes()
    }

    /// Slots per class of the major set.
    pub fn per_class(&self) -> u64 {
        self.per_class
    }

    /// The major and the minor set stored in a slot.
    #[inline]
    pub fn major_minor(&self, index: u64) -> (Bitboard, Bitboard) {
        let class = (index / self.per_class) as usize;
        let major = self.sets.canon[class];
        let compact = colex_unrank(index % self.per_class, self.minor as usize);
        (Bitboard(major), Bitboard(expand(compact, major)))
    }

    /// The position stored in a slot (`own`, `opp`).
    #[inline]
    pub fn position(&self, index: u64) -> (Bitboard, Bitboard) {
        let (major, minor) = self.major_minor(index);
        self.join(major, minor)
    }

    /// Whether class `class`'s major set has no symmetry of its own: then
    /// distinct minor sets against it have distinct slots.
    #[inline]
    pub fn is_asymmetric(&self, class: usize) -> bool {
        self.sets.stabiliser[class] == 0
    }

    /// Whether the slot of class `class` against `minor` holds a class
    /// (`minor` is the least under the stabiliser of the major set).
    #[inline]
    pub fn is_canonical(&self, class: usize, minor: Bitboard) -> bool {
        self.sets.stabiliser[class] == 0 || self.least_minor(class, minor) == minor
    }

    /// The number of slots that hold no class (their minor set is not the
    /// least under the symmetries of their major set).
    pub fn unused_slots(&self) -> u64 {
        let mut unused = 0;
        for class in (0..self.major_classes()).filter(|&c| !self.is_asymmetric(c)) {
            self.for_each_in_class(class, |_, minor| {
                unused += !self.is_canonical(class, minor) as u64;
            });
        }
        unused
    }

    /// Calls `f(index, minor)` for every slot of class `class`, in index
    /// order.
    pub fn for_each_in_class(&self, class: usize, f: impl FnMut(u64, Bitboard)) {
        self.for_each_in_class_between(class, 0..self.per_class, f);
    }

    /// [`Subspace::for_each_in_class`] for the slots of the class whose
    /// ranks (index within the class) lie in `ranks`.
    pub fn for_each_in_class_between(
        &self,
        class: usize,
        ranks: std::ops::Range<u64>,
        mut f: impl FnMut(u64, Bitboard),
    ) {
        if ranks.start >= ranks.end.min(self.per_class) {
            return;
        }
        let major = self.sets.canon[class];
        let mut free = [0u8; 24];
        let mut n = 0;
        for p in !Bitboard(major) {
            free[n] = p.index() as u8;
            n += 1;
        }
        let k = self.minor as u32;
        let base = class as u64 * self.per_class;
        if k == 0 {
            // One set, the empty one (placing sectors; Gosper's hack
            // needs a bit to start from).
            f(base, Bitboard::EMPTY);
            return;
        }
        // Gosper's hack walks the k-subsets of the n free points in colex
        // (= numeric) order, which is rank order.
        let mut compact: u32 = colex_unrank(ranks.start, k as usize);
        let mut rank = ranks.start;
        let end = ranks.end.min(self.per_class);
        while compact < 1 << n && rank < end {
            let mut minor = 0u32;
            let mut rest = compact;
            while rest != 0 {
                minor |= 1 << free[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
            f(base + rank, Bitboard(minor));
            rank += 1;
            let c = compact & compact.wrapping_neg();
            let r = compact + c;
            compact = (((r ^ compact) >> 2) / c) | r;
        }
    }
}

impl Subspace {
    /// Calls `each(state, slot, own, opp)` for every slot that holds a
    /// class (`own` to move against `opp`), the classes of the major set
    /// shared out to `threads` threads, each with a `state` of its own
    /// from `init` (a move list, counts); `class_done` after each class
    /// (progress). Returns the threads' states.
    pub fn par_classes<S: Send>(
        &self,
        threads: usize,
        init: impl Fn() -> S + Sync,
        each: impl Fn(&mut S, u64, Bitboard, Bitboard) + Sync,
        class_done: impl Fn(&mut S) + Sync,
    ) -> Vec<S> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let states = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    let mut state = init();
                    loop {
                        let class = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if class >= self.major_classes() {
                            break;
                        }
                        let major = self.major_set(class);
                        self.for_each_in_class(class, |idx, minor| {
                            if self.is_canonical(class, minor) {
                                let (own, opp) = self.join(major, minor);
                                each(&mut state, idx, own, opp);
                            }
                        });
                        class_done(&mut state);
                    }
                    states.lock().unwrap_or_else(|e| e.into_inner()).push(state);
                });
            }
        });
        states.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// The slots of one class against a minor set with one point added, each
/// in a few operations: the rank of the set plus a point is the rank of
/// the points below it, the new point's term, and the points above it
/// each one place up. For the placing builder, which looks up every
/// placement from one position.
#[derive(Clone, Copy, Debug)]
pub struct PlusOne {
    base: u64,
    major: u32,
    minor: u32,
    lo: [u64; 13],
    hi: [u64; 13],
}

impl PlusOne {
    /// The slot of the minor set plus `p` (a point free of both sets).
    #[inline]
    pub fn index(&self, p: crate::core::Point) -> u64 {
        let q = p.index() as u32;
        let i = (self.minor & ((1u32 << q) - 1)).count_ones() as usize;
        self.base + self.lo[i] + BINOM[free_below(q, self.major)][i + 1] + self.hi[i]
    }
}

/// The number of points below `p` not in `taken`.
#[inline]
fn free_below(p: u32, taken: u32) -> usize {
    (p - (taken & ((1u32 << p) - 1)).count_ones()) as usize
}

/// The colex rank of `set` among the sets of its size within the points
/// not in `taken`: the rank of `set` packed onto those points.
#[inline]
fn rank_among_free(set: u32, taken: u32) -> u64 {
    let free = !taken;
    let (m0, m1, m2) = (free & 0xFF, (free >> 8) & 0xFF, (free >> 16) & 0xFF);
    let n0 = m0.count_ones();
    let n1 = n0 + m1.count_ones();
    let pick = &BYTE_MAP[1];
    let packed = pick[m0 as usize][(set & 0xFF) as usize] as u32
        | (pick[m1 as usize][((set >> 8) & 0xFF) as usize] as u32) << n0
        | (pick[m2 as usize][((set >> 16) & 0xFF) as usize] as u32) << n1;
    colex_rank(packed)
}

/// Spreads the bits of `compact` over the points not in `taken`.
#[inline]
fn expand(compact: u32, taken: u32) -> u32 {
    let free = !taken;
    let (m0, m1, m2) = (free & 0xFF, (free >> 8) & 0xFF, (free >> 16) & 0xFF);
    let deposit = &BYTE_MAP[0];
    let rest = compact >> m0.count_ones();
    let top = rest >> m1.count_ones();
    deposit[m0 as usize][(compact & 0xFF) as usize] as u32
        | (deposit[m1 as usize][(rest & 0xFF) as usize] as u32) << 8
        | (deposit[m2 as usize][(top & 0xFF) as usize] as u32) << 16
}

/// The pairs to build, smallest first, for the subspaces asked for and
/// those their removals lead into. Each pair is `(a, b)` with `a >= b`.
pub fn plan(targets: &[(u8, u8)]) -> Vec<(u8, u8)> {
    let mut pairs: Vec<(u8, u8)> = Vec::new();
    let mut todo: Vec<(u8, u8)> = targets.to_vec();
    while let Some((a, b)) = todo.pop() {
        let key = (a.max(b), a.min(b));
        if pairs.contains(&key) {
            continue;
        }
        pairs.push(key);
        // A removal from a-b leads into (b-1)-a, from b-a into (a-1)-b.
        if b > MIN_PIECES {
            todo.push((b - 1, a));
        }
        if a > MIN_PIECES {
            todo.push((a - 1, b));
        }
    }
    pairs.sort_by_key(|&(a, b)| (a + b, a, b));
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colex_round_trip() {
        for (k, row) in BINOM[24].iter().enumerate().take(10) {
            for rank in (0..*row).step_by(997) {
                let set = colex_unrank(rank, k);
                assert_eq!(set.count_ones() as usize, k);
                assert_eq!(colex_rank(set), rank);
            }
        }
    }

    #[test]
    fn the_tables_agree_with_the_definitions() {
        // The colex sum, the rank among free points and the spread, bit
        // by bit as they are defined.
        let rank = |set: u32| -> u64 {
            (0..24)
                .filter(|p| set & (1 << p) != 0)
                .enumerate()
                .map(|(i, p)| BINOM[p][i + 1])
                .sum()
        };
        let free_points = |taken: u32| (0..24).filter(move |p| taken & (1 << p) == 0);
        let pack = |set: u32, taken: u32| -> u32 {
            free_points(taken)
                .enumerate()
                .filter(|&(_, p)| set & (1 << p) != 0)
                .map(|(q, _)| 1 << q)
                .sum()
        };
        let spread = |compact: u32, taken: u32| -> u32 {
            free_points(taken)
                .enumerate()
                .filter(|&(q, _)| compact & (1 << q) != 0)
                .map(|(_, p)| 1 << p)
                .sum()
        };
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32 & 0xFF_FFFF
        };
        for _ in 0..20_000 {
            let (set, taken) = (next(), next());
            assert_eq!(colex_rank(set), rank(set), "{set:#x}");
            let set = set & !taken;
            assert_eq!(rank_among_free(set, taken), rank(pack(set, taken)));
            let compact = pack(set, taken);
            assert_eq!(expand(compact, taken), set);
            assert_eq!(expand(compact, taken), spread(compact, taken));
        }
        for (k, &sets) in BINOM[24].iter().enumerate().take(13) {
            for r in (0..sets).step_by(101) {
                assert_eq!(colex_unrank(r, k), colex_unrank_slow(r, k), "{k} {r}");
            }
        }
    }

    #[test]
    fn plus_one_agrees_with_the_index() {
        for (w, b) in [(3, 2), (5, 4), (8, 8), (9, 0), (2, 11)] {
            let sub = Subspace::with_counts(w, b + 1).unwrap();
            for class in (0..sub.major_classes()).step_by(7) {
                let own = sub.major_set(class);
                if sub.plus_one(class, Bitboard::EMPTY).is_none() {
                    assert!(!sub.is_asymmetric(class));
                    continue;
                }
                let at = Subspace::with_counts(w, b).unwrap();
                at.for_each_in_class(at.canonical_major(own).0, |idx, opp| {
                    if idx % 5 != 0 {
                        return;
                    }
                    let plus = sub.plus_one(class, opp).unwrap();
                    for p in !(own | opp) {
                        assert_eq!(plus.index(p), sub.index_in_class(class, opp.with(p)));
                    }
                });
            }
        }
    }

    #[test]
    fn class_counts_follow_burnside() {
        // Burnside: the number of orbits is the mean, over the 16
        // symmetries, of the number of sets each one fixes.
        for k in 3..=6u8 {
            let mut fixed = 0;
            for rank in 0..BINOM[24][k as usize] {
                let set = Bitboard(colex_unrank(rank, k as usize));
                fixed += (0..symmetry::COUNT)
                    .filter(|&s| symmetry::apply(s, set) == set)
                    .count();
            }
            assert_eq!(PieceSets::get(k).classes() * 16, fixed, "{k}");
        }
    }

    #[test]
    fn index_round_trips_and_symmetric_images_share_a_slot() {
        let moving = [(3, 3), (4, 3), (3, 5), (5, 4)].map(|(w, b)| Subspace::new(w, b).unwrap());
        let placing = [(3, 3), (2, 5), (5, 4)].map(|(w, b)| Subspace::with_counts(w, b).unwrap());
        for sub in moving.iter().chain(&placing) {
            let (w, b) = (sub.own, sub.opp);
            let mut classes = 0u64;
            for class in 0..sub.major_classes() {
                let mut expected = class as u64 * sub.per_class();
                let major = sub.major_set(class);
                sub.for_each_in_class(class, |index, minor| {
                    assert_eq!(index, expected);
                    expected += 1;
                    assert_eq!(sub.major_minor(index), (major, minor));
                    let (own, opp) = sub.position(index);
                    assert_eq!((own.count(), opp.count()), (w as u32, b as u32));
                    if !sub.is_canonical(class, minor) {
                        return;
                    }
                    classes += 1;
                    assert_eq!(sub.index(own, opp), index);
                    if index % 7 == 0 {
                        for s in 0..symmetry::COUNT {
                            let (o, p) = (symmetry::apply(s, own), symmetry::apply(s, opp));
                            assert_eq!(sub.index(o, p), index, "{w}-{b} {s}");
                        }
                    }
                });
            }
            assert_eq!(expected_len(sub), sub.len());
            if (w, b) == (3, 3) {
                // The published class count of 3-3, either way.
                assert_eq!(classes, 140621 + 28736 + 269);
            }
        }
        // The moving phase: major by the side not to move.
        let sub = &moving[3];
        let (own, opp) = sub.position(sub.per_class() * 5 + 17);
        assert_eq!(sub.canonical_major(opp).0, 5);
        assert_eq!(sub.split(own, opp), (opp, own));
        assert_eq!(placing[2].split(own, opp), (own, opp));
    }

    fn expected_len(sub: &Subspace) -> u64 {
        let (major, minor) = match sub.is_mover_major() {
            true => (sub.own, sub.opp),
            false => (sub.opp, sub.own),
        };
        PieceSets::get(major).classes() as u64 * BINOM[24 - major as usize][minor as usize]
    }
}
