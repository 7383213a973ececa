//! A layer's walk over the next layer: each class of the side not to
//! move, every set of the side to move against it, whose placements all
//! read the same few blocks of the next layer (see `build/mod.rs`).

use std::sync::Mutex;
use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::Relaxed;

use super::super::{DRAW, LOSS, Layer, Sector, SectorIndex, WIN, get};
use crate::core::Bitboard;
use crate::core::geometry::Geometry;
use crate::largemem::prefetch;
use crate::tb::index::{PlusOne, Subspace};
use crate::tb::symmetry;
use crate::tb::work::Event;

pub(super) use super::super::walk_order;

/// Where the positions one placement later are: the next layer's packed
/// values (layer 17 reads the moving phase's tables, `moving_sector`).
pub(super) struct Next<'a> {
    sectors: Vec<Sector>,
    /// The sector of each (side to move, other) count, if any.
    lookup: SectorIndex,
    bytes: &'a [u8],
}

/// One block of the next positions: those with one side to move and its
/// set fixed, the other's set varying (see the module's comment).
struct Block<'a> {
    bytes: &'a [u8],
    first: u64,
    sub: &'a Subspace,
    class: usize,
    symmetry: usize,
    /// The placer's set before its placement, moved by the symmetry.
    placer: Bitboard,
    /// The slots of the placements, computed at once where the other
    /// side's set is canonical as it stands and has no symmetry of its own
    /// (the walk's order makes it so for the quiet placements).
    plus: Option<PlusOne>,
}

impl Block<'_> {
    /// The two-bit value, for the side then to move, after a placement on
    /// `p` that removes nothing.
    #[inline]
    fn code(&self, p: crate::core::Point) -> u8 {
        let idx = match &self.plus {
            Some(plus) => plus.index(p),
            None => {
                let img = self.placer ^ symmetry::point_bits(self.symmetry, p);
                self.sub.index_in_class(self.class, img)
            }
        };
        self.read(idx)
    }

    /// The two-bit value, for the side then to move, of the position with
    /// `placer` (as it stands after its placement, not yet moved by the
    /// symmetry) against the block's set.
    #[inline]
    fn code_of(&self, placer: Bitboard) -> u8 {
        let img = symmetry::apply(self.symmetry, placer);
        self.read(self.sub.index_in_class(self.class, img))
    }

    #[inline]
    fn read(&self, idx: u64) -> u8 {
        get(self.bytes, self.first + idx)
    }
}

/// Where the removals from one set of the side not to move lead: for each
/// piece a mill may remove, the block of the positions after it (`None`:
/// that removal wins at once). The walk keeps that set for a whole class
/// of it, so each thread works this out once a class.
struct Removals<'a> {
    /// The set and the placer's count it was worked out for.
    key: Option<(Bitboard, u32)>,
    after: Vec<Option<Block<'a>>>,
}

impl Removals<'_> {
    fn new() -> Self {
        Removals {
            key: None,
            after: Vec::with_capacity(12),
        }
    }
}

/// The quick slots of a block, where they apply (see `Block::plus`).
#[inline]
fn plus(sub: &Subspace, class: usize, symmetry: usize, placer: Bitboard) -> Option<PlusOne> {
    if symmetry == 0 {
        sub.plus_one(class, placer)
    } else {
        None
    }
}

impl<'a> Next<'a> {
    pub(super) fn layer(layer: Layer, bytes: &'a [u8]) -> Next<'a> {
        let sectors = layer.sectors();
        let lookup = SectorIndex::new(&sectors);
        Next {
            sectors,
            lookup,
            bytes,
        }
    }

    /// The block of the positions with `to_move` to move against `placer`
    /// plus one placed piece.
    #[inline]
    fn block(&self, to_move: Bitboard, placer: Bitboard) -> Block<'_> {
        let (o, p) = (to_move.count() as usize, placer.count() as usize + 1);
        let s = &self.sectors[self
            .lookup
            .find(o, p)
            .expect("the next layer has the sector")];
        // A sector is major by the side to move.
        let (class, symmetry) = s.sub.canonical_major(to_move);
        Block {
            bytes: self.bytes,
            first: s.first,
            sub: &s.sub,
            class,
            symmetry,
            placer: symmetry::apply(symmetry, placer),
            plus: plus(&s.sub, class, symmetry, placer),
        }
    }
}

/// One layer's walk: the rules and where the next positions are.
pub(super) struct Walker<'a> {
    pub(super) g: &'static Geometry,
    pub(super) remove_always: bool,
    /// The pieces the side not to move holds (for the three-piece rule).
    pub(super) opp_hand: u8,
    pub(super) next: &'a Next<'a>,
}

impl<'a> Walker<'a> {
    fn removable(&self, opp: Bitboard) -> Bitboard {
        if self.remove_always {
            return opp;
        }
        let free = opp & !self.g.pieces_in_mills(opp);
        if free.nonempty() { free } else { opp }
    }

    /// The value of `own` to move (placing) against `opp`; `removals`
    /// holds the blocks of `opp`'s removals (worked out again when `opp`
    /// is not the set they are for).
    #[inline]
    fn value(&self, own: Bitboard, opp: Bitboard, removals: &mut Removals<'a>) -> u8 {
        let empty = !(own | opp);
        let quiet = self.next.block(opp, own);
        // The replies' values for the side then to move, one bit each:
        // gathered without a branch on each (which would go either way
        // at random), then read once.
        let mut replies = 0u8;
        let mut draw = false;
        let closing = self.g.closing_points(own, empty);
        for p in empty & !closing {
            replies |= 1 << quiet.code(p);
        }
        for p in closing {
            match self.removal(opp, own, own.with(p), removals) {
                WIN => return WIN,
                code => draw |= code == DRAW,
            }
        }
        if replies & (1 << LOSS) != 0 {
            WIN
        } else if draw || replies & (1 << DRAW) != 0 {
            DRAW
        } else {
            LOSS
        }
    }

    /// The best removal after a placement that closed a mill (`own`
    /// before it, `placed` after), for the placer: `WIN`, `DRAW` or
    /// `LOSS`.
    #[inline]
    fn removal(
        &self,
        opp: Bitboard,
        own: Bitboard,
        placed: Bitboard,
        removals: &mut Removals<'a>,
    ) -> u8 {
        let key = (opp, own.count());
        if removals.key != Some(key) {
            removals.key = Some(key);
            removals.after.clear();
            for x in self.removable(opp) {
                let left = opp.without(x);
                let wins = left.count() + (self.opp_hand as u32) < 3;
                removals
                    .after
                    .push((!wins).then(|| self.next.block(left, own)));
            }
        }
        let mut best = LOSS;
        for after in &removals.after {
            let Some(block) = after else {
                return WIN;
            };
            match block.code_of(placed) {
                LOSS => return WIN,
                DRAW => best = DRAW,
                _ => {}
            }
        }
        best
    }
}

/// Every class of one sector, split over threads.
pub(super) fn value_sector(
    walker: &Walker,
    sector: &Sector,
    values: &[AtomicU8],
    threads: usize,
    counts: &Mutex<[u64; 3]>,
    progress: &(dyn Fn(Event) + Sync),
) {
    let sub = &sector.sub;
    let order = walk_order(sector);
    let states = order.par_classes(
        threads,
        || ([0u64; 3], Removals::new()),
        |(mine, removals), _, other, own| {
            // The slot is anywhere in the layer: its line is asked for
            // first and comes while the value is worked out. A store that
            // missed would hold up every store after it, the walk's own
            // included.
            let slot = (sector.first + sub.index(own, other)) as usize;
            prefetch(&values[slot]);
            let code = walker.value(own, other, removals);
            mine[code as usize] += 1;
            values[slot].store(code, Relaxed);
        },
        |_| progress(Event::Advance(order.per_class())),
    );
    let mut c = counts.lock().expect("no panics");
    for (mine, _) in states {
        for (total, n) in c.iter_mut().zip(mine) {
            *total += n;
        }
    }
}
