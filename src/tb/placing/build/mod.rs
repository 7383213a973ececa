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
//!
//! `next.rs` walks a layer over the next one, `last.rs` layer 17 over the
//! moving phase.

mod last;
mod next;

use std::sync::Mutex;
use std::time::Instant;

use super::{DRAW, LOSS, Layer, WIN, file_name, open_layer};
use crate::core::geometry::Geometry;
use crate::largemem::HugeTable;
use crate::tb::error::TbError;
use crate::tb::format::{self, Header, Kind};
use crate::tb::mapped::MappedTable;
use crate::tb::nmove::NMoveLimits;
use crate::tb::rules::TbRules;
use crate::tb::value::Value;
use crate::tb::work::{Event, atomic_u8, check_memory, peak_memory, working_table};
use last::{LastRules, MovingTables, moving_sector, open_moving};
use next::{Next, Walker, value_sector};

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

/// How to build.
#[derive(Clone, Debug)]
pub struct PlacingOptions {
    pub dir: std::path::PathBuf,
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
    let slots = layer.slots();
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
    let next = NextTables::open(rules, layer, opts)?;
    // A byte a slot while building: the walk writes its slots in no
    // order, and a plain store to a byte of its own lets the processor
    // go on while the line comes, where a shared byte would need a
    // locked read-modify-write that waits for it.
    let mut values: HugeTable<u8> = working_table(slots as usize, &opts.dir)?;
    let counts = walk_layer(
        rules,
        layer,
        &next,
        &mut values,
        opts.threads.max(1),
        progress,
    );
    let bytes = pack(&mut values);
    let file_bytes = write_layer(rules, layer, opts, counts, bytes)?;
    let [draws, wins, losses] = counts;
    Ok(LayerReport {
        layer: k,
        slots,
        wins,
        draws,
        losses,
        seconds: started.elapsed().as_secs_f64(),
        peak_bytes: peak_memory(),
        file_bytes,
    })
}

/// What a layer's placements lead into: the next layer's file, or for
/// layer 17 the moving phase's tables; opened and checked.
enum NextTables {
    Layer(MappedTable),
    Moving(MovingTables),
}

impl NextTables {
    fn open(rules: TbRules, layer: Layer, opts: &PlacingOptions) -> Result<NextTables, TbError> {
        let k = layer.k;
        if k + 1 == super::LAYERS {
            return Ok(NextTables::Moving(open_moving(
                &opts.dir,
                rules,
                opts.limits,
                layer,
            )?));
        }
        let next = open_layer(&opts.dir, rules, k + 1, opts.max)?;
        next.verify_checksum()?;
        if next.header.limits != opts.limits {
            return Err(TbError::Unusable(format!(
                "{} was built for {:?}, not {:?}: move it away to build for these limits",
                next.path.display(),
                next.header.limits,
                opts.limits
            )));
        }
        Ok(NextTables::Layer(next))
    }
}

/// Values every position of `layer` into `values` (a byte a slot), from
/// what its placements lead into: the counts of draws, wins and losses.
fn walk_layer(
    rules: TbRules,
    layer: Layer,
    next: &NextTables,
    values: &mut [u8],
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> [u64; 3] {
    let sectors = layer.sectors();
    let (_, opp_hand) = layer.hands();
    let g = Geometry::get(rules.diagonals);
    let counts = Mutex::new([0u64; 3]);
    match next {
        NextTables::Layer(table) => {
            let next_layer = Layer {
                k: layer.k + 1,
                max: layer.max,
            };
            let next = Next::layer(next_layer, table.slots());
            progress(Event::Phase {
                label: "placing",
                total: sectors.iter().map(|s| next::walk_order(s).len()).sum(),
            });
            let walker = Walker {
                g,
                remove_always: rules.remove_from_mills_always,
                opp_hand,
                next: &next,
            };
            for sector in &sectors {
                let values = atomic_u8(values);
                value_sector(&walker, sector, values, threads, &counts, progress);
            }
        }
        NextTables::Moving(moving) => {
            progress(Event::Phase {
                label: "placing",
                total: sectors.iter().map(|s| s.sub.len()).sum(),
            });
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
    counts.into_inner().expect("no panics")
}

/// Writes the layer's file (`bytes` packed two bits a slot, the counts
/// of draws, wins and losses in its header); its size in bytes.
fn write_layer(
    rules: TbRules,
    layer: Layer,
    opts: &PlacingOptions,
    [draws, wins, losses]: [u64; 3],
    bytes: &[u8],
) -> Result<u64, TbError> {
    let header = Header {
        kind: Kind::Placing,
        layer: layer.k,
        pieces: super::PIECES,
        max: opts.max,
        own: 0,
        opp: 0,
        rules,
        slots: layer.slots(),
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
    format::write_table(&opts.dir.join(file_name(layer.k)), &header, bytes)?;
    Ok((format::HEADER_LEN + bytes.len()) as u64)
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
