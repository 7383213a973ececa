//! Layer 17's walk over the moving phase: Black places its last piece,
//! then White moves (see `build/mod.rs`).

use std::path::Path;
use std::sync::Mutex;

use super::super::{COUNTS, LOSS, Layer, Sector};
use super::{decide, sign};
use crate::core::Bitboard;
use crate::core::geometry::Geometry;
use crate::tb::error::TbError;
use crate::tb::index::Subspace;
use crate::tb::moving::build::Child;
use crate::tb::nmove::NMoveLimits;
use crate::tb::rules::TbRules;
use crate::tb::symmetry;
use crate::tb::work::Event;

/// The moving phase's tables that the last placement leads into, with
/// their values at a counter of 0 under the limits the layers are built
/// for: a `.tb` win or loss counts only if its `.dtz` distance to the
/// next removal is within the limit.
pub(super) struct MovingTables {
    /// By (side to move, other) count.
    subspaces: Vec<Option<Child>>,
}

/// The two-bit value of a moving-phase slot at a counter of 0.
#[inline]
fn moving_code(t: &Child, idx: u64) -> u8 {
    sign(t.value(idx as usize))
}

/// The placing rules layer 17's walk needs.
pub(super) struct LastRules {
    pub(super) g: &'static Geometry,
    pub(super) remove_always: bool,
    /// The pieces the side not to move holds (none, in the full layer).
    pub(super) opp_hand: u8,
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
pub(super) fn moving_sector(
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
    let walk = ClassWalk {
        rules,
        sub,
        quiet: table(sector.opp).expect("the moving tables were checked"),
        removal: (sector.opp as u32 - 1 + rules.opp_hand as u32 >= 3)
            .then(|| table(sector.opp - 1).expect("the moving tables were checked")),
    };
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
                        // The lock is let go before the class is walked.
                        let Some((class, out)) = chunks.lock().expect("no panics").pop() else {
                            break;
                        };
                        debug_assert!(class < classes);
                        walk.value_class(class, &mut white, &mut replies, out, &mut mine);
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

/// The walk of one sector's Black classes: the rules, the sector, and the
/// moving tables after a quiet placement and after a removal (`None`: a
/// removal leaves White too few pieces).
struct ClassWalk<'a> {
    rules: &'a LastRules,
    sub: &'a Subspace,
    quiet: &'a Child,
    removal: Option<&'a Child>,
}

impl ClassWalk<'_> {
    /// Values every White set against Black's class `class` into `out`
    /// (the class's slots, in order), counting them in `mine`; `white` and
    /// `replies` are the thread's room for the class's sets and their
    /// replies.
    fn value_class(
        &self,
        class: usize,
        white: &mut [u32],
        replies: &mut [u8],
        out: &mut [u8],
        mine: &mut [u64; 3],
    ) {
        let sub = self.sub;
        let per_class = white.len();
        let black = sub.major_set(class);
        sub.for_each_in_class(class, |idx, w| {
            let e = idx as usize - class * per_class;
            white[e] = if sub.is_canonical(class, w) { w.0 } else { 0 };
        });
        replies.fill(0);
        let closers = self.rules.g.closing_points(black, !black);
        for p in !black {
            self.replies_through(black, p, closers.contains(p), white, replies);
        }
        for ((&w, &r), v) in white.iter().zip(replies.iter()).zip(out.iter_mut()) {
            if w == 0 {
                continue;
            }
            let code = decide(r);
            *v = code;
            mine[code as usize] += 1;
        }
    }

    /// Adds to each White set's replies (a bit a value, for White) those
    /// after Black's placement on `p`: the quiet reply, or where `p`
    /// closes a mill (`closes`) the reply after each removal.
    #[inline]
    fn replies_through(
        &self,
        black: Bitboard,
        p: crate::core::Point,
        closes: bool,
        white: &[u32],
        replies: &mut [u8],
    ) {
        let rules = self.rules;
        let placed = black.with(p);
        // Both tables are major by Black's set: one symmetry and class
        // for both.
        let (c, s) = self.quiet.sub.canonical_major(placed);
        for (e, &w) in white.iter().enumerate() {
            if w == 0 || w & (1 << p.index()) != 0 {
                continue;
            }
            let img = symmetry::apply(s, Bitboard(w));
            if !closes {
                let code = moving_code(self.quiet, self.quiet.sub.index_in_class(c, img));
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
            let Some(after) = self.removal else {
                // White is left too few pieces.
                replies[e] |= 1 << LOSS;
                continue;
            };
            for x in removable {
                let minor = img ^ symmetry::point_bits(s, x);
                let code = moving_code(after, after.sub.index_in_class(c, minor));
                replies[e] |= 1 << code;
            }
        }
    }
}

/// The moving-phase tables that layer 17 leads into, opened and checked
/// (their checksums; the `.dtz` ones exact under `limits`).
pub(super) fn open_moving(
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
