//! The moves the builder needs, from the rules core's geometry tables:
//! the rules in the form the inner loops want, what a position's removals
//! lead to, un-moves (predecessors) and successor counts. `verify.rs`
//! checks the results with the core's own move generator.

use std::sync::atomic::Ordering::Relaxed;

use crate::core::Bitboard;
use crate::core::geometry::Geometry;
use crate::largemem::{HugeTable, prefetch};
use crate::tb::error::TbError;
use crate::tb::format::Kind;
use crate::tb::index::Subspace;
use crate::tb::mapped::MappedTable;
use crate::tb::nmove::NMoveLimits;
use crate::tb::rules::TbRules;
use crate::tb::symmetry;
use crate::tb::value::{self, Value};
use crate::tb::work::{atomic_u8, working_table};

/// The moving-phase rules in the form the inner loops want.
#[derive(Clone, Copy)]
pub struct Mover {
    pub g: &'static Geometry,
    flying: bool,
    fly_at: u32,
    remove_always: bool,
}

impl Mover {
    pub fn new(rules: TbRules) -> Mover {
        Mover {
            g: Geometry::get(rules.diagonals),
            flying: rules.flying,
            fly_at: rules.fly_at as u32,
            remove_always: rules.remove_from_mills_always,
        }
    }

    #[inline]
    pub fn flies(&self, pieces: Bitboard) -> bool {
        self.flying && pieces.count() <= self.fly_at
    }

    /// The opponent's pieces a mill may remove.
    #[inline]
    pub fn removable(&self, opp: Bitboard) -> Bitboard {
        if self.remove_always {
            return opp;
        }
        let free = opp & !self.g.pieces_in_mills(opp);
        if free.nonempty() { free } else { opp }
    }

    /// The points a piece at `from` may step to.
    #[inline]
    pub fn reach(&self, fly: bool, from: usize, empty: Bitboard) -> Bitboard {
        if fly {
            empty
        } else {
            self.g.adjacent[from] & empty
        }
    }
}

/// What the removals of a position lead to, as distances for the mover.
#[derive(Default)]
pub struct Removals {
    /// The shortest win by a removal.
    pub win: Option<u8>,
    /// A removal leads to a draw.
    pub draw: bool,
    /// The longest loss by a removal.
    pub loss: Option<u8>,
}

/// The smaller subspace a side's removals lead into, and where its
/// values come from: its `.tb` table and, where the removals are valued
/// under N-move limits, its `.dtz` table (exact under them) and its
/// limit, so that a win or loss counts only if its next removal is within
/// the limit from a counter of 0; or its `.wdz` table for those limits,
/// which says so itself.
pub struct Child {
    pub sub: Subspace,
    source: ChildSource,
    pub limit: Option<u16>,
}

enum ChildSource {
    Tables {
        tb: MappedTable,
        dtz: Option<MappedTable>,
    },
    UnderRule(MappedTable),
}

impl Child {
    /// Opens subspace `own-opp` as a child under `limits`, checked: with
    /// N-move limits its `.wdz` table for them if there is one, else its
    /// `.tb` table and its `.dtz` table exact under them; without, its
    /// `.tb` table.
    pub fn open(
        dir: &std::path::Path,
        own: u8,
        opp: u8,
        rules: TbRules,
        limits: NMoveLimits,
    ) -> Result<Child, TbError> {
        let sub = Subspace::new(own, opp).ok_or(TbError::BadSubspace(format!("{own}-{opp}")))?;
        let limit = limits.limit(own as u32, opp as u32);
        if limits != NMoveLimits::NONE {
            match MappedTable::open_wdz(dir, own, opp, rules, limits) {
                Ok(t) => {
                    t.verify_checksum()?;
                    return Ok(Child {
                        sub,
                        source: ChildSource::UnderRule(t),
                        limit,
                    });
                }
                Err(TbError::Missing(_)) => {}
                Err(e) => return Err(e),
            }
        }
        let tb = MappedTable::open(dir, own, opp, rules)?;
        tb.verify_checksum()?;
        let dtz = match limits == NMoveLimits::NONE {
            true => None,
            false => Some(super::open_exact_dtz(dir, own, opp, rules, limits)?),
        };
        Ok(Child {
            sub,
            source: ChildSource::Tables { tb, dtz },
            limit,
        })
    }

    /// Whether the values come from a `.wdz` table: their distances count
    /// to the next removal, not to the end (a `.tb` build cannot use them).
    pub fn under_rule(&self) -> bool {
        matches!(self.source, ChildSource::UnderRule(_))
    }

    /// The bytes of the table read first for a value (`.wdz` or `.tb`):
    /// what to prefetch.
    #[inline]
    pub fn slots(&self) -> &[u8] {
        match &self.source {
            ChildSource::UnderRule(t) | ChildSource::Tables { tb: t, .. } => t.slots(),
        }
    }

    /// The value of slot `idx` for its side to move from a counter of 0:
    /// the `.wdz` value, or the `.tb` value, or a draw where the `.dtz`
    /// table (if any) says the next removal is not within the limit, or
    /// that the rule draws it at every counter.
    #[inline]
    pub fn value(&self, idx: usize) -> Value {
        match &self.source {
            ChildSource::UnderRule(t) => value::wdz_decode(t.slots()[idx]),
            ChildSource::Tables { tb, dtz } => {
                let v = Value::decode(tb.slots()[idx]);
                match (dtz, v) {
                    (Some(dtz), Value::Win(_) | Value::Loss(_)) => {
                        let z = value::dtz_decode(dtz.slots()[idx]);
                        let stands = z.is_some_and(|z| self.limit.is_none_or(|n| z as u16 <= n));
                        if stands { v } else { Value::Draw }
                    }
                    _ => v,
                }
            }
        }
    }
}

/// A smaller table a side's removals lead into, copied into memory in
/// the order the scan reads it: major by the side to move there (the
/// opponent, its set less the piece removed), not by the side not to
/// move as its file is (`index.rs`). The scan walks one set of the
/// opponent at a time, so all its removals from that set land in one
/// block per piece removed, a few kilobytes that stay in the cache,
/// where in the file's order each closing move's removals would land in
/// a block of their own anywhere in the table. Copying costs one slot
/// written out of order per slot of the smaller table; reading it in the
/// file's order cost a miss per removal of the larger one.
pub struct Removed {
    /// The smaller subspace, major by the side to move.
    pub sub: Subspace,
    /// Each slot's value for its side to move, from a counter of 0: a
    /// `.tb` byte (`Value::encode`) in a build of distances to the end,
    /// else its sign alone ([`sign_byte`]), all the other kinds use.
    bytes: HugeTable<u8>,
    to_end: bool,
}

/// A value's sign as a byte of [`Removed`]: 0 draw, 1 win, 2 loss.
#[inline]
fn sign_byte(v: Value) -> u8 {
    match v {
        Value::Draw => 0,
        Value::Win(_) => 1,
        Value::Loss(_) => 2,
    }
}

impl Removed {
    /// `child`'s values copied in the scan's order, over `threads`, for a
    /// build of kind `kind` (into `dir`, named if the memory cannot be
    /// had).
    pub fn of(
        child: &Child,
        kind: Kind,
        threads: usize,
        dir: &std::path::Path,
    ) -> Result<Removed, TbError> {
        let (own, opp) = (child.sub.own, child.sub.opp);
        let sub = Subspace::with_counts(own, opp).expect("a moving-phase subspace's counts");
        let to_end = matches!(kind, Kind::ToEnd | Kind::Placing);
        let mut bytes: HugeTable<u8> = working_table(sub.len() as usize, dir)?;
        let out = atomic_u8(&mut bytes);
        // Each thread reads whole blocks of the file in order and writes
        // each slot where it goes, a few slots behind asking for its line.
        const AHEAD: usize = 32;
        type Ring = ([(u64, u8); AHEAD], usize);
        child.sub.par_classes(
            threads,
            || ([(0u64, 0u8); AHEAD], 0usize),
            |(slots, n): &mut Ring, idx, own, opp| {
                let v = child.value(idx as usize);
                let b = if to_end { v.encode() } else { sign_byte(v) };
                let t = sub.index(own, opp);
                prefetch(&out[t as usize]);
                let at = *n % AHEAD;
                if *n >= AHEAD {
                    let (t0, b0) = slots[at];
                    out[t0 as usize].store(b0, Relaxed);
                }
                slots[at] = (t, b);
                *n += 1;
            },
            |(slots, n): &mut Ring| {
                // The last ones, in any order.
                for &(t, b) in &slots[..(*n).min(AHEAD)] {
                    out[t as usize].store(b, Relaxed);
                }
                *n = 0;
            },
        );
        Ok(Removed { sub, bytes, to_end })
    }

    /// The value of slot `idx` for its side to move (for a build of
    /// another kind than distances to the end, its sign alone, at 0).
    #[inline]
    pub fn value(&self, idx: u64) -> Value {
        let b = self.bytes[idx as usize];
        if self.to_end {
            return Value::decode(b);
        }
        match b {
            0 => Value::Draw,
            1 => Value::Win(0),
            _ => Value::Loss(0),
        }
    }
}

/// The pieces of one opponent set that a mill may remove, each with the
/// class and symmetry of the set it leaves (to move in the smaller
/// table, [`Removed`]): worked out once a set.
pub struct RemovalBlocks {
    n: usize,
    at: [(u8, u8, u32); 12],
}

/// Where one side's removals lead (the table of `(opp - 1)-own`, if any:
/// none when `opp - 1` is below 3, where a removal wins), and what the
/// build counts.
#[derive(Clone, Copy)]
pub struct Removing<'a> {
    pub table: Option<&'a Removed>,
    pub kind: Kind,
}

impl Removing<'_> {
    /// A removal's value for the side that removed, given the value after
    /// it: one ply more to the end, or, counting to the next removal,
    /// this one (one ply).
    #[inline]
    fn for_remover(&self, after: Value) -> Value {
        match self.kind {
            Kind::ToEnd | Kind::Placing => after.one_ply_back(),
            Kind::ToRemoval | Kind::UnderRule => match after {
                Value::Loss(_) => Value::Win(1),
                Value::Win(_) => Value::Loss(1),
                Value::Draw => Value::Draw,
            },
        }
    }

    /// The pieces of `opp` a mill may remove, with their blocks.
    #[inline]
    pub fn blocks(&self, m: &Mover, opp: Bitboard) -> RemovalBlocks {
        let mut b = RemovalBlocks {
            n: 0,
            at: [(0, 0, 0); 12],
        };
        let Some(t) = self.table else {
            return b;
        };
        for x in m.removable(opp) {
            let (class, s) = t.sub.canonical_major(opp.without(x));
            b.at[b.n] = (x.index() as u8, s as u8, class as u32);
            b.n += 1;
        }
        b
    }

    /// What the removals of `own` to move against `opp` lead to (`own`
    /// closes a mill, then takes one of the pieces of `blocks`, those of
    /// `opp` a mill may take), and how many of its moves close a mill. A
    /// removal that wins at once (at 1, the shortest) ends the search: the
    /// other fields are then incomplete, and only the win counts.
    #[inline]
    pub fn removals_of(
        &self,
        m: &Mover,
        own: Bitboard,
        opp: Bitboard,
        blocks: &RemovalBlocks,
    ) -> (Removals, u32) {
        let empty = !(own | opp);
        let closers = m.g.closing_points(own, empty);
        let mut r = Removals::default();
        let mut closing_moves = 0;
        if closers.is_empty() {
            return (r, 0);
        }
        let fly = m.flies(own);
        for to in closers {
            let sources = if fly {
                own
            } else {
                m.g.adjacent[to.index()] & own
            };
            for from in sources {
                let moved = own.without(from).with(to);
                if !m.g.in_mill(to, moved) {
                    continue;
                }
                closing_moves += 1;
                let Some(t) = self.table else {
                    // Every removal leaves two pieces: a win at once, at 1
                    // whatever the distance counts.
                    r.win = Some(1);
                    return (r, closing_moves);
                };
                for &(_, s, class) in &blocks.at[..blocks.n] {
                    let img = symmetry::apply(s as usize, moved);
                    let after = t.value(t.sub.index_in_class(class as usize, img));
                    match self.for_remover(after) {
                        Value::Win(1) => {
                            r.win = Some(1);
                            return (r, closing_moves);
                        }
                        Value::Win(d) => r.win = Some(r.win.map_or(d, |w| w.min(d))),
                        Value::Draw => r.draw = true,
                        Value::Loss(d) => r.loss = Some(r.loss.map_or(d, |l| l.max(d))),
                    }
                }
            }
        }
        (r, closing_moves)
    }

    /// [`Removing::removals_of`] without the count of closing moves.
    pub fn removals(&self, m: &Mover, own: Bitboard, opp: Bitboard) -> Removals {
        self.removals_of(m, own, opp, &self.blocks(m, opp)).0
    }
}

/// The slots of the predecessors (in `pred_sub`, the other side to move)
/// of the position `own` to move against `opp`, found by un-moves of
/// `opp`: the side that just moved slides (or flies) a piece back from
/// `to` to an empty `from`; a piece that stands in a mill cannot have just
/// arrived, since that move would have removed. With repeats, which only
/// a set `own` with symmetries of its own can give: returns whether it
/// has them.
///
/// Every predecessor keeps `own`, the side not to move there, so all of
/// them lie in `own`'s block of `pred_sub`: one symmetry for all of them.
#[inline]
pub fn predecessors(
    m: &Mover,
    pred_sub: &Subspace,
    own: Bitboard,
    opp: Bitboard,
    out: &mut Vec<u64>,
) -> bool {
    out.clear();
    let empty = !(own | opp);
    let fly = m.flies(opp);
    let arrived = opp & !m.g.pieces_in_mills(opp);
    let (class, s) = pred_sub.canonical_major(own);
    for to in arrived {
        let rest = symmetry::apply(s, opp.without(to));
        for from in m.reach(fly, to.index(), empty) {
            let mover = rest | symmetry::point_bits(s, from);
            out.push(pred_sub.index_in_class(class, mover));
        }
    }
    !pred_sub.is_asymmetric(class)
}

/// The number of distinct successor classes of `own` to move against
/// `opp` reached by moves that remove nothing, where `opp` is the
/// canonical major set of class `class` of `sub` (the subspace of the
/// position, major by the side not to move) and that set has symmetries
/// of its own: two moves reach one class where one of them maps one
/// moved set onto the other. (Where `opp` has none, every move reaches a
/// class of its own.)
pub fn distinct_quiet_moves(
    m: &Mover,
    sub: &Subspace,
    class: usize,
    own: Bitboard,
    opp: Bitboard,
) -> u32 {
    let empty = !(own | opp);
    let fly = m.flies(own);
    let mut succ = [0u32; 256];
    let mut n = 0;
    for from in own {
        for to in m.reach(fly, from.index(), empty) {
            let moved = own.without(from).with(to);
            if m.g.in_mill(to, moved) {
                continue;
            }
            succ[n] = sub.least_minor(class, moved).0;
            n += 1;
        }
    }
    let succ = &mut succ[..n];
    succ.sort_unstable();
    let mut distinct = 0;
    for i in 0..n {
        if i == 0 || succ[i] != succ[i - 1] {
            distinct += 1;
        }
    }
    distinct
}
