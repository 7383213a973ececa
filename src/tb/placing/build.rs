//! The placing builder: one backward pass, layer 17 down to layer 0.
//! Every position of layer `k` takes the best of its moves: each empty
//! point, and where the placement closes a mill each removable piece,
//! leads to a position of layer `k + 1` (of the moving phase, for layer
//! 17) with the other side to move: a win if one of them is lost for it,
//! a draw if none is lost and one is drawn, else a loss; a removal that
//! leaves the other side fewer than three pieces, on board and in hand,
//! wins at once.
//!
//! The index puts the side to move's set first (its symmetry class),
//! then the other's: the positions a quiet placement leads to, which all
//! have the same side to move with the same set, lie in one block of the
//! next layer, a few kilobytes long, and those after a removal in one
//! block for each piece removed. So the walk goes by the other side's set
//! (`walk_order`): for one class of it, every set of the side to move,
//! whose moves all read the same few blocks, which stay in the cache.
//! Only the one write per position lands anywhere in the layer, a byte a
//! slot until the layer is packed.
//!
//! Layer 17 reads the moving phase instead (the sign of each value, from
//! a counter of 0, see `placing/mod.rs`), whose files are major by the
//! side not to move (`index.rs`): after Black's last placement on `p`,
//! White moves against Black's set plus `p`, so the positions one
//! Black set leads to lie in one block of the moving file per point `p`
//! (and one more per `p` after a removal). That layer is walked by the
//! side to move's class instead, its own layout (`moving_sector`): for
//! one Black class, one point `p` at a time over every White set against
//! it, each point's block in the cache while it is read; the values are
//! written in order.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use super::{
    COUNTS, DRAW, LOSS, Layer, Sector, SectorIndex, WIN, file_name, get, open_layer, walk_order,
};
use crate::core::Bitboard;
use crate::core::geometry::Geometry;
use crate::largemem::{HugeTable, prefetch};
use crate::tb::error::TbError;
use crate::tb::format::{self, Header, Kind};
use crate::tb::index::{PlusOne, Subspace};
use crate::tb::moving::build::Child;
use crate::tb::nmove::NMoveLimits;
use crate::tb::rules::TbRules;
use crate::tb::symmetry;
use crate::tb::value::Value;
use crate::tb::work::{Event, atomic_u8, check_memory, peak_memory, working_table};

/// The summary of one layer built.
#[derive(Clone, Debug)]
pub struct LayerReport {
    pub layer: u8,
    pub slots: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub seconds: f64,
    pub peak_bytes: u64,
    pub file_bytes: u64,
}

/// Where the positions one placement later are: the next layer's packed
/// values (layer 17 reads the moving phase's tables, `moving_sector`).
struct Next<'a> {
    sectors: Vec<Sector>,
    /// The sector of each (side to move, other) count, if any.
    lookup: SectorIndex,
    bytes: &'a [u8],
}

/// The moving phase's tables that the last placement leads into, with
/// their values at a counter of 0 under the limits the layers are built
/// for: a `.tb` win or loss counts only if its `.dtz` distance to the
/// next removal is within the limit.
struct MovingTables {
    /// By (side to move, other) count.
    subspaces: Vec<Option<Child>>,
}

/// The two-bit value of a moving-phase slot at a counter of 0.
#[inline]
fn moving_code(t: &Child, idx: u64) -> u8 {
    sign(t.value(idx as usize))
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

/// The two-bit code of a moving-phase value's sign.
#[inline]
fn sign(v: Value) -> u8 {
    match v {
        Value::Win(_) => WIN,
        Value::Loss(_) => LOSS,
        Value::Draw => DRAW,
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
    fn layer(layer: Layer, bytes: &'a [u8]) -> Next<'a> {
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
struct Walker<'a> {
    g: &'static Geometry,
    remove_always: bool,
    /// The pieces the side not to move holds (for the three-piece rule).
    opp_hand: u8,
    next: &'a Next<'a>,
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

/// How to build.
#[derive(Clone, Debug)]
pub struct PlacingOptions {
    pub dir: PathBuf,
    pub threads: usize,
    /// The most pieces a side may have in the sectors built (9: all).
    pub max: u8,
    /// The most memory (bytes) a layer may take while it is built: a
    /// byte a slot, and the next layer's two bits a slot.
    pub memory: u64,
    /// The N-move limits the values are exact under (the moving phase's
    /// values from a counter of 0 under them); `NMoveLimits::NONE`: the
    /// game without N-move rules.
    pub limits: NMoveLimits,
}

/// Builds layer `k` into `opts.dir`, over layer `k + 1` there (or the
/// moving phase's `.tb` files, for layer 17).
pub fn build_layer(
    rules: TbRules,
    k: u8,
    opts: &PlacingOptions,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<LayerReport, TbError> {
    let started = Instant::now();
    let layer = Layer { k, max: opts.max };
    let sectors = layer.sectors();
    let slots: u64 = sectors.iter().map(|s| s.sub.len()).sum();
    let next_bytes = if k + 1 < super::LAYERS {
        next_layer_bytes(k, opts.max)
    } else {
        0
    };
    check_memory(
        || format!("placing layer {k}"),
        slots + next_bytes,
        opts.memory,
    )?;
    let next_table;
    let mut moving = None;
    let next = if k + 1 == super::LAYERS {
        moving = Some(open_moving(&opts.dir, rules, opts.limits, layer)?);
        None
    } else {
        next_table = open_layer(&opts.dir, rules, k + 1, opts.max)?;
        next_table.verify_checksum()?;
        if next_table.header.limits != opts.limits {
            return Err(TbError::Unusable(format!(
                "{} was built for {:?}, not {:?}: move it away to build for these limits",
                next_table.path.display(),
                next_table.header.limits,
                opts.limits
            )));
        }
        let next_layer = Layer {
            k: k + 1,
            max: opts.max,
        };
        Some(Next::layer(next_layer, next_table.slots()))
    };
    // A byte a slot while building: the walk writes its slots in no
    // order, and a plain store to a byte of its own lets the processor
    // go on while the line comes, where a shared byte would need a
    // locked read-modify-write that waits for it.
    let mut values: HugeTable<u8> = working_table(slots as usize, &opts.dir)?;
    progress(Event::Phase {
        label: "placing",
        total: match next {
            Some(_) => sectors.iter().map(|s| walk_order(s).len()).sum(),
            None => sectors.iter().map(|s| s.sub.len()).sum(),
        },
    });
    let (_, opp_hand) = layer.hands();
    let g = Geometry::get(rules.diagonals);
    let counts = Mutex::new([0u64; 3]);
    let threads = opts.threads.max(1);
    match &next {
        Some(next) => {
            let walker = Walker {
                g,
                remove_always: rules.remove_from_mills_always,
                opp_hand,
                next,
            };
            for sector in &sectors {
                let values = atomic_u8(&mut values);
                value_sector(&walker, sector, values, threads, &counts, progress);
            }
        }
        None => {
            let moving = moving.as_ref().expect("layer 17 opened the moving tables");
            let rules = LastRules {
                g,
                remove_always: rules.remove_from_mills_always,
                opp_hand,
            };
            for sector in &sectors {
                let values = &mut values[sector.first as usize..][..sector.sub.len() as usize];
                moving_sector(&rules, moving, sector, values, threads, &counts, progress);
            }
        }
    }
    let bytes = pack(&mut values);
    let [draws, wins, losses] = counts.into_inner().expect("no panics");
    let header = Header {
        kind: Kind::Placing,
        layer: k,
        pieces: super::PIECES,
        max: opts.max,
        own: 0,
        opp: 0,
        rules,
        slots,
        wins,
        losses,
        draws,
        max_win: 0,
        max_loss: 0,
        checksum: format::checksum(bytes),
        limits: opts.limits,
        cursed: 0,
    };
    std::fs::create_dir_all(&opts.dir).map_err(|source| TbError::Io {
        path: opts.dir.clone(),
        source,
    })?;
    format::write_table(&opts.dir.join(file_name(k)), &header, bytes)?;
    Ok(LayerReport {
        layer: k,
        slots,
        wins,
        draws,
        losses,
        seconds: started.elapsed().as_secs_f64(),
        peak_bytes: peak_memory(),
        file_bytes: (format::HEADER_LEN + bytes.len()) as u64,
    })
}

/// Every class of one sector, split over threads.
fn value_sector(
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

/// The placing rules layer 17's walk needs.
struct LastRules {
    g: &'static Geometry,
    remove_always: bool,
    /// The pieces the side not to move holds (none, in the full layer).
    opp_hand: u8,
}

/// Every class of one sector of layer 17 (Black to place its last
/// piece), over the moving phase's tables, split over threads by class of
/// the side to move (the sector's layout: `values` are the sector's
/// slots, each class's written in order).
///
/// After a placement on `p`, White moves against Black's set plus `p`:
/// the moving phase's file has that set major, so for one Black class
/// every White set's reply through `p` (after a quiet placement, and after
/// each removal when `p` closes a mill) lies in one block per table,
/// placed by one symmetry. The walk takes one point at a time over all of
/// the class's White sets, gathering the replies' values a bit each, and
/// decides every position once all points are done.
fn moving_sector(
    rules: &LastRules,
    moving: &MovingTables,
    sector: &Sector,
    values: &mut [u8],
    threads: usize,
    counts: &Mutex<[u64; 3]>,
    progress: &(dyn Fn(Event) + Sync),
) {
    let sub = &sector.sub;
    let per_class = sub.per_class() as usize;
    // White (the side not to move) against Black's set plus one point:
    // quiet, and after a removal (none: a removal leaves White too few
    // pieces, and wins).
    let table = |white: u8| {
        let slot = white as usize * COUNTS + sector.own as usize + 1;
        moving.subspaces.get(slot).and_then(|t| t.as_ref())
    };
    let quiet = table(sector.opp).expect("the moving tables were checked");
    let removal = (sector.opp as u32 - 1 + rules.opp_hand as u32 >= 3)
        .then(|| table(sector.opp - 1).expect("the moving tables were checked"));
    let classes = sub.major_classes();
    let chunks: Vec<(usize, &mut [u8])> = values.chunks_mut(per_class).enumerate().collect();
    let chunks = Mutex::new(chunks);
    let totals: Vec<[u64; 3]> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = [0u64; 3];
                    // The class's White sets (0: a slot that holds no
                    // class) and their replies, a bit a value.
                    let mut white = vec![0u32; per_class];
                    let mut replies = vec![0u8; per_class];
                    loop {
                        let Some((class, out)) = chunks.lock().expect("no panics").pop() else {
                            break;
                        };
                        debug_assert!(class < classes);
                        let black = sub.major_set(class);
                        sub.for_each_in_class(class, |idx, w| {
                            let e = idx as usize - class * per_class;
                            white[e] = if sub.is_canonical(class, w) { w.0 } else { 0 };
                        });
                        replies.fill(0);
                        let closers = rules.g.closing_points(black, !black);
                        for p in !black {
                            let placed = black.with(p);
                            // Both tables are major by Black's set: one
                            // symmetry and class for both.
                            let (c, s) = quiet.sub.canonical_major(placed);
                            let closes = closers.contains(p);
                            for (e, &w) in white.iter().enumerate() {
                                if w == 0 || w & (1 << p.index()) != 0 {
                                    continue;
                                }
                                let img = symmetry::apply(s, Bitboard(w));
                                if !closes {
                                    let code = moving_code(quiet, quiet.sub.index_in_class(c, img));
                                    replies[e] |= 1 << code;
                                    continue;
                                }
                                let w = Bitboard(w);
                                let removable = if rules.remove_always {
                                    w
                                } else {
                                    let free = w & !rules.g.pieces_in_mills(w);
                                    if free.nonempty() { free } else { w }
                                };
                                let Some(after) = removal else {
                                    // White is left too few pieces.
                                    replies[e] |= 1 << LOSS;
                                    continue;
                                };
                                for x in removable {
                                    let minor = img ^ symmetry::point_bits(s, x);
                                    let code =
                                        moving_code(after, after.sub.index_in_class(c, minor));
                                    replies[e] |= 1 << code;
                                }
                            }
                        }
                        for ((&w, &r), v) in white.iter().zip(&replies).zip(out.iter_mut()) {
                            if w == 0 {
                                continue;
                            }
                            let code = decide(r);
                            *v = code;
                            mine[code as usize] += 1;
                        }
                        progress(Event::Advance(per_class as u64));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panics"))
            .collect()
    });
    let mut c = counts.lock().expect("no panics");
    for mine in totals {
        for (total, n) in c.iter_mut().zip(mine) {
            *total += n;
        }
    }
}

/// The placer's value from its replies' values for the side then to
/// move (bit `1 << code` for each value some reply has): a win if one is
/// lost, else a draw if one is drawn, else a loss.
#[inline]
fn decide(replies: u8) -> u8 {
    if replies & (1 << LOSS) != 0 {
        WIN
    } else if replies & (1 << DRAW) != 0 {
        DRAW
    } else {
        LOSS
    }
}

/// The bytes of layer `k + 1`'s file (two bits a slot).
fn next_layer_bytes(k: u8, max: u8) -> u64 {
    Layer { k: k + 1, max }.slots().div_ceil(4)
}

/// Packs a code a byte into two bits a slot (the file's layout), in
/// place; the packed bytes.
fn pack(bytes: &mut [u8]) -> &[u8] {
    let n = bytes.len().div_ceil(4);
    for i in 0..n {
        let mut b = 0;
        for j in 0..4 {
            b |= bytes.get(4 * i + j).copied().unwrap_or(0) << (2 * j);
        }
        // Byte i is read before it is written (i <= 4 i).
        bytes[i] = b;
    }
    &bytes[..n]
}

/// The moving-phase tables that layer 17 leads into, opened and checked
/// (their checksums; the `.dtz` ones exact under `limits`).
fn open_moving(
    dir: &Path,
    rules: TbRules,
    limits: NMoveLimits,
    layer: Layer,
) -> Result<MovingTables, TbError> {
    let mut subspaces: Vec<Option<Child>> = (0..COUNTS * COUNTS).map(|_| None).collect();
    let needed = |why: String| {
        let (files, how) = if limits == NMoveLimits::NONE {
            (".tb files", "")
        } else {
            (
                ".wdz files for these limits (or its .tb and .dtz files)",
                " --files wdz",
            )
        };
        TbError::Unusable(format!(
            "the placing phase needs the moving phase's {files} up to {m}-{m} \
             (`mulino tb build --pieces {m}{how}` builds them): {why}",
            m = layer.max
        ))
    };
    for s in layer.sectors() {
        // Black places its last piece: White then moves with its pieces
        // (one fewer after a removal) against Black's, one more.
        for white in s.opp.saturating_sub(1).max(3)..=s.opp {
            let black = s.own + 1;
            let slot = white as usize * COUNTS + black as usize;
            if black < 3 || subspaces[slot].is_some() {
                continue;
            }
            let child =
                Child::open(dir, white, black, rules, limits).map_err(|e| needed(e.to_string()))?;
            subspaces[slot] = Some(child);
        }
    }
    Ok(MovingTables { subspaces })
}
