//! What the coder is told about each slot: the context of its value,
//! from the position itself (the side to move's moves and mill-closing
//! moves, the other side's threats and moves, the material), and the
//! values just before it; and the walk over a block of slots that codes,
//! reads or counts them, written once for all three.
//!
//! A slot's value is coded as two decisions (decisive? then lost?) under
//! its context; a moving-phase win or loss then has its distance to the
//! next removal, coded as a bucket (unary, the bits of `log2(z + 1)`) and
//! the bits below it, under a context of its own. Each table carries
//! priors for every decision (learned over a sample of its blocks), and
//! every block starts from them and adapts as it goes. Slots that hold
//! no class (`index.rs`) take no bits.

use std::ops::Range;

use super::coder::{BitCoder, Prob};
use super::layout::{Layout, TableId};
use crate::core::Bitboard;
use crate::core::geometry::Geometry;
use crate::tb::rules::TbRules;

/// Contexts of a slot's value (14 bits).
pub const WDL_CONTEXTS: usize = 1 << 14;
/// Decisions per value context: decisive, then lost.
const WDL_NODES: usize = 2;
/// Contexts of a distance.
pub const Z_CONTEXTS: usize = 1 << 8;
/// Decisions per distance context: seven of the bucket, then the bits
/// below each bucket (bucket `k` has `k`; eight a bucket, laid out flat).
const Z_NODES: usize = 8 + 8 * 8;
/// The number of probabilities of each kind.
pub const WDL_PROBS: usize = WDL_CONTEXTS * WDL_NODES;
pub const Z_PROBS: usize = Z_CONTEXTS * Z_NODES;

/// The two kinds of decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Wdl,
    Distance,
}

/// Where a walk's decisions go: a coder with its probabilities, or a
/// counter for the priors.
pub trait Sink {
    /// Codes (or reads, or counts) decision `node` of `stream`; the bit.
    fn bit(&mut self, stream: Stream, node: usize, bit: bool) -> bool;
}

/// A table's priors: a probability byte for every decision (0: none
/// learned, an even start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Priors {
    pub wdl: Vec<u8>,
    pub z: Vec<u8>,
}

impl Priors {
    pub fn even() -> Priors {
        Priors {
            wdl: vec![0; WDL_PROBS],
            z: vec![0; Z_PROBS],
        }
    }

    fn probs(bytes: &[u8]) -> Vec<Prob> {
        bytes
            .iter()
            .map(|&q| {
                if q == 0 {
                    Prob::EVEN
                } else {
                    Prob::from_byte(q)
                }
            })
            .collect()
    }
}

/// A coder (encoder or decoder) with a block's adapting probabilities.
pub struct Coding<C> {
    pub coder: C,
    wdl: Vec<Prob>,
    z: Vec<Prob>,
}

impl<C: BitCoder> Coding<C> {
    pub fn new(coder: C, priors: &Priors) -> Coding<C> {
        Coding {
            coder,
            wdl: Priors::probs(&priors.wdl),
            z: Priors::probs(&priors.z),
        }
    }
}

impl<C: BitCoder> Sink for Coding<C> {
    #[inline]
    fn bit(&mut self, stream: Stream, node: usize, bit: bool) -> bool {
        let prob = match stream {
            Stream::Wdl => &mut self.wdl[node],
            Stream::Distance => &mut self.z[node],
        };
        self.coder.code(prob, bit)
    }
}

/// Counts of ones and of all decisions, for the priors.
pub struct Counts {
    wdl: Vec<[u64; 2]>,
    z: Vec<[u64; 2]>,
}

impl Default for Counts {
    fn default() -> Self {
        Counts::new()
    }
}

impl Counts {
    pub fn new() -> Counts {
        Counts {
            wdl: vec![[0; 2]; WDL_PROBS],
            z: vec![[0; 2]; Z_PROBS],
        }
    }

    /// Adds another count in.
    pub fn add(&mut self, other: &Counts) {
        for (a, b) in self.wdl.iter_mut().zip(&other.wdl) {
            a[0] += b[0];
            a[1] += b[1];
        }
        for (a, b) in self.z.iter_mut().zip(&other.z) {
            a[0] += b[0];
            a[1] += b[1];
        }
    }

    /// The priors: a probability where a decision was seen at least a
    /// few times, none elsewhere.
    pub fn priors(&self) -> Priors {
        let bytes = |counts: &[[u64; 2]]| {
            counts
                .iter()
                .map(|&[ones, total]| {
                    if total < 4 {
                        0
                    } else {
                        Prob::byte_of(ones, total)
                    }
                })
                .collect()
        };
        Priors {
            wdl: bytes(&self.wdl),
            z: bytes(&self.z),
        }
    }
}

impl Sink for Counts {
    #[inline]
    fn bit(&mut self, stream: Stream, node: usize, bit: bool) -> bool {
        let c = match stream {
            Stream::Wdl => &mut self.wdl[node],
            Stream::Distance => &mut self.z[node],
        };
        c[0] += bit as u64;
        c[1] += 1;
        bit
    }
}

/// The rules the contexts read: the board and who flies.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    g: &'static Geometry,
    /// The count at which a side flies (0: never).
    fly_at: u8,
}

impl Board {
    pub fn of(rules: TbRules) -> Board {
        Board {
            g: Geometry::get(rules.diagonals),
            fly_at: if rules.flying { rules.fly_at } else { 0 },
        }
    }

    fn flies(self, pieces: Bitboard) -> bool {
        self.fly_at > 0 && pieces.count() == self.fly_at as u32
    }

    /// A moving-phase position's context, without the values before it:
    /// the empty points where the side to move would close a mill and
    /// one of its pieces stands next to (up to 3; any, where it flies),
    /// its slides (up to 7), the same closing points of the other side
    /// (up to 3) and its slides (up to 7). Counted cheaply, not exactly
    /// (a piece of the line itself next to its empty point counts): the
    /// coder needs a hint, the same for packing and reading.
    #[inline]
    fn moving_context(self, own: Bitboard, opp: Bitboard) -> (usize, u32) {
        let g = self.g;
        let empty = !(own | opp);
        let side = |pieces: Bitboard| {
            let flies = self.flies(pieces);
            let reach = if flies {
                empty
            } else {
                g.neighbours(pieces) & empty
            };
            let closing = (g.closing_points(pieces, empty) & reach).count().min(3);
            let moves = if flies {
                7
            } else {
                g.mobility(pieces, empty).min(7)
            };
            (closing, moves)
        };
        let (closing, moves) = side(own);
        let (threats, their_moves) = side(opp);
        let ctx = closing as usize
            | (threats as usize) << 2
            | (moves as usize) << 4
            | (their_moves as usize) << 7;
        (ctx, closing)
    }

    /// A placing position's context, without the values before it: the
    /// empty points where each side would close a mill (up to 3 each),
    /// the points where the side to move would close two (up to 3), and
    /// the material, on the board and in hand (from -3 to 3).
    #[inline]
    fn placing_context(self, own: Bitboard, opp: Bitboard, hands: (u8, u8)) -> (usize, u32) {
        let g = self.g;
        let empty = !(own | opp);
        let mine = g.line_features(own, empty);
        let theirs = g.closing_points(opp, empty);
        let material =
            (own.count() as i32 + i32::from(hands.0)) - (opp.count() as i32 + i32::from(hands.1));
        let closing = mine.closers.count().min(3);
        let ctx = closing as usize
            | (theirs.count().min(3) as usize) << 2
            | (mine.double_closers.count().min(3) as usize) << 4
            | ((material.clamp(-3, 3) + 3) as usize) << 6;
        (ctx, closing)
    }
}

/// The three values of a slot (as the coder sees them).
const DRAW: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;

/// The value and distance of a slot byte: a moving table's `.wdz` byte,
/// or a placing layer's two-bit code (no distance).
#[inline]
fn split(id: TableId, byte: u8) -> (u8, u8) {
    match id {
        TableId::Placing { .. } => (byte.min(LOSS), 0),
        TableId::Moving { .. } => match byte {
            0 => (DRAW, 0),
            1..=128 => (WIN, byte - 1),
            _ => (LOSS, byte - 129),
        },
    }
}

/// The slot byte of a value and distance ([`split`]'s inverse).
#[inline]
fn join(id: TableId, value: u8, z: u8) -> u8 {
    match (id, value) {
        (_, DRAW) => 0,
        (TableId::Placing { .. }, v) => v,
        (TableId::Moving { .. }, WIN) => 1 + z,
        (TableId::Moving { .. }, _) => 129 + z.min(126),
    }
}

/// Codes, reads or counts (as `sink` does) the slots `range` of a table,
/// whose bytes are `slots` (`slots[0]` is slot `range.start`): read from
/// them when coding or counting, written to them when reading. Slots that
/// hold no class read as 0.
pub fn walk<S: Sink>(
    sink: &mut S,
    layout: &Layout,
    board: Board,
    range: Range<u64>,
    slots: &mut [u8],
) {
    let id = layout.id;
    let moving = matches!(id, TableId::Moving { .. });
    let start = range.start;
    let (mut before, mut before2) = (3usize, 3usize);
    let mut last_z = [0u8; 2];
    layout.for_each(range, |slot, own, opp, holds_class| {
        let k = (slot - start) as usize;
        if !holds_class {
            slots[k] = 0;
            return;
        }
        let (value, z) = split(id, slots[k]);
        let (features, closing) = if moving {
            board.moving_context(own, opp)
        } else {
            board.placing_context(own, opp, layout.hands)
        };
        let ctx = features | before << 10 | before2 << 12;
        let node = ctx * WDL_NODES;
        let decoded = if !sink.bit(Stream::Wdl, node, value != DRAW) {
            DRAW
        } else if sink.bit(Stream::Wdl, node + 1, value == LOSS) {
            LOSS
        } else {
            WIN
        };
        let mut decoded_z = 0;
        if moving && decoded != DRAW {
            let lost = (decoded == LOSS) as usize;
            let bucket = |z: u8| 8 - z.leading_zeros() as usize;
            let zctx = lost | (closing as usize) << 1 | bucket(last_z[lost]).min(7) << 3;
            decoded_z = distance(sink, zctx * Z_NODES, z);
            last_z[lost] = decoded_z;
        }
        slots[k] = join(id, decoded, decoded_z);
        before2 = before;
        before = decoded as usize;
    });
}

/// Codes (or reads) a distance from 0 to 127 under the decisions from
/// `node`: its bucket `k = log2(z + 1)` in unary (seven at most), then the
/// `k` bits of `z + 1` below the top one.
#[inline]
fn distance<S: Sink>(sink: &mut S, node: usize, z: u8) -> u8 {
    let v = u32::from(z) + 1;
    let top = 31 - v.leading_zeros() as usize;
    let mut k = 0;
    while k < 7 && sink.bit(Stream::Distance, node + k, k < top) {
        k += 1;
    }
    let mut rest = 0u32;
    for b in (0..k).rev() {
        let bit = sink.bit(Stream::Distance, node + 8 + k * 8 + b, v >> b & 1 == 1);
        rest = rest << 1 | bit as u32;
    }
    ((1u32 << k) + rest - 1) as u8
}

#[cfg(test)]
mod tests {
    use super::super::coder::{Decoder, Encoder};
    use super::*;
    use crate::tb::TbRules;

    /// A table's worth of made-up values with some structure, coded and
    /// read back block by block, with priors counted from it.
    #[test]
    fn blocks_read_back_what_was_coded() {
        let rules = TbRules::from_rules(&crate::core::Rules::default()).expect("nine");
        let board = Board::of(rules);
        for id in [
            TableId::Moving { own: 4, opp: 3 },
            TableId::Placing { k: 4, max: 9 },
        ] {
            let layout = Layout::of(id);
            let n = layout.slots.min(200_000);
            let mut state = 12345u64;
            let mut slots: Vec<u8> = (0..n)
                .map(|i| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let r = (state >> 33) as u8;
                    match (id, r % 5) {
                        (TableId::Placing { .. }, v) => (v % 3).min(2),
                        (_, 0) => 0,
                        (_, 1 | 2) => 1 + (r % 40) + (i % 7) as u8,
                        _ => 129 + (r % 90),
                    }
                })
                .collect();
            // Slots that hold no class read as 0.
            let mut counts = Counts::new();
            walk(&mut counts, &layout, board, 0..n, &mut slots);
            let priors = counts.priors();
            for range in [0..n / 3, n / 3..n] {
                let mut input = slots[range.start as usize..range.end as usize].to_vec();
                let mut enc = Coding::new(Encoder::new(), &priors);
                walk(&mut enc, &layout, board, range.clone(), &mut input);
                let bytes = enc.coder.finish();
                let mut output = vec![0xAA; input.len()];
                let mut dec = Coding::new(Decoder::new(&bytes), &priors);
                walk(&mut dec, &layout, board, range.clone(), &mut output);
                assert_eq!(output, input, "{id:?} {range:?}");
            }
        }
    }

    #[test]
    fn distances_round_trip() {
        for z in 0..=127u8 {
            let mut counts = Counts::new();
            assert_eq!(distance(&mut counts, 0, z), z);
        }
    }
}
