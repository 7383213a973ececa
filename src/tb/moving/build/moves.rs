//! The moves the builder needs, from the rules core's geometry tables:
//! the rules in the form the inner loops want, what a position's removals
//! lead to, un-moves (predecessors) and successor counts. `verify.rs`
//! checks the results with the core's own move generator.

use crate::core::Bitboard;
use crate::core::geometry::Geometry;
use crate::tb::error::TbError;
use crate::tb::format::Kind;
use crate::tb::index::Subspace;
use crate::tb::mapped::MappedTable;
use crate::tb::nmove::NMoveLimits;
use crate::tb::rules::TbRules;
use crate::tb::symmetry;
use crate::tb::value::{self, Value};

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
    /// Every move removes.
    pub all_moves_remove: bool,
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

/// Where one side's removals lead (the table of `(opp - 1)-own`, if any:
/// none when `opp - 1` is below 3, where a removal wins), and what the
/// build counts.
#[derive(Clone, Copy)]
pub struct Removing<'a> {
    pub table: Option<&'a Child>,
    pub kind: Kind,
}

impl Removing<'_> {
    /// The value, for the opponent to move, of the position after `own`
    /// (moved) removed a piece of `opp`, leaving `opp_left` (under the
    /// child's limits from a counter of 0, where it has them).
    #[inline]
    pub fn after_removal(&self, opp_left: Bitboard, own: Bitboard) -> Value {
        match self.table {
            None => Value::Loss(0),
            Some(c) => c.value(c.sub.index(opp_left, own) as usize),
        }
    }

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

    pub fn removals(&self, m: &Mover, own: Bitboard, opp: Bitboard) -> Removals {
        let empty = !(own | opp);
        let closers = m.g.closing_points(own, empty);
        let mut r = Removals::default();
        if closers.is_empty() {
            return r;
        }
        let fly = m.flies(own);
        let removable = m.removable(opp);
        let mut closing_moves = 0;
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
                for x in removable {
                    match self.for_remover(self.after_removal(opp.without(x), moved)) {
                        Value::Win(d) => r.win = Some(r.win.map_or(d, |w| w.min(d))),
                        Value::Draw => r.draw = true,
                        Value::Loss(d) => r.loss = Some(r.loss.map_or(d, |l| l.max(d))),
                    }
                }
            }
        }
        let moves = if fly {
            own.count() * empty.count()
        } else {
            m.g.mobility(own, empty)
        };
        r.all_moves_remove = closing_moves == moves;
        r
    }
}

/// The slots of the predecessors (in `pred_sub`, the other side to move)
/// of the position `own` to move against `opp`, found by un-moves of
/// `opp`: the side that just moved slides (or flies) a piece back from
/// `to` to an empty `from`; a piece that stands in a mill cannot have just
/// arrived, since that move would have removed. With repeats.
pub fn predecessors(
    m: &Mover,
    pred_sub: &Subspace,
    own: Bitboard,
    opp: Bitboard,
    out: &mut Vec<u64>,
) {
    out.clear();
    let empty = !(own | opp);
    let fly = m.flies(opp);
    let arrived = opp & !m.g.pieces_in_mills(opp);
    for to in arrived {
        let rest = opp.without(to);
        for from in m.reach(fly, to.index(), empty) {
            out.push(pred_sub.index(rest.with(from), own));
        }
    }
}

/// The count of slot `idx` of `sub`, whose removals are `removing` and
/// whose successors lie in `next`: its distinct successor classes that
/// remove nothing, plus one if a removal leads to a draw.
pub fn successor_count(
    m: &Mover,
    sub: &Subspace,
    removing: Removing,
    next: &Subspace,
    idx: u64,
) -> u8 {
    let (own, opp) = sub.position(idx);
    let empty = !(own | opp);
    let fly = m.flies(own);
    // Every successor has `opp` to move: one canonicalising symmetry.
    let (class, s) = next.canonical_own(opp);
    // Where that set has no symmetry of its own, distinct moves give
    // distinct positions, and those distinct slots: counting the moves
    // is enough (most sets of more than a few pieces).
    let distinct_moves = next.is_asymmetric(class);
    let own_img = symmetry::apply(s, own);
    let mut succ = [0u64; 256];
    let mut n = 0;
    let mut escape = false;
    let removable = m.removable(opp);
    for from in own {
        for to in m.reach(fly, from.index(), empty) {
            let moved = own.without(from).with(to);
            if m.g.in_mill(to, moved) {
                if !escape {
                    escape = removable
                        .into_iter()
                        .any(|x| removing.after_removal(opp.without(x), moved) == Value::Draw);
                }
                continue;
            }
            if !distinct_moves {
                let img = own_img ^ symmetry::point_bits(s, from) ^ symmetry::point_bits(s, to);
                succ[n] = next.index_in_class(class, img);
            }
            n += 1;
        }
    }
    if distinct_moves {
        return (n + escape as usize) as u8;
    }
    let succ = &mut succ[..n];
    succ.sort_unstable();
    let mut distinct = 0;
    for i in 0..n {
        if i == 0 || succ[i] != succ[i - 1] {
            distinct += 1;
        }
    }
    (distinct + escape as usize) as u8
}
