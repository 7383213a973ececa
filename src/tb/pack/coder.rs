//! The entropy coder of the packed databases: a binary range coder with
//! adaptive probabilities, in pure Rust so that the same reader runs in
//! WebAssembly.
//!
//! Each binary decision is coded with a probability `p` (of a one, in
//! 1/4096ths) that moves toward what was coded by 1/32 of the distance
//! each time. The encoder keeps the low end of the interval in 64 bits
//! and a byte that may still take a carry (with the run of 0xFF bytes
//! behind it), so the output is a plain byte string; the decoder reads it
//! back with a 32-bit window. Both sides share [`BitCoder`], so that the
//! code that walks a block is written once for packing and reading.

/// Probabilities are in 1/`ONE`ths.
const PROB_BITS: u32 = 12;
const ONE: u32 = 1 << PROB_BITS;
/// How fast a probability follows what is coded: 1/2^`RATE` of the way.
const RATE: u32 = 5;
/// Below this the range is renormalised by a byte.
const TOP: u32 = 1 << 24;

/// The probability of a one, in 1/4096ths (from 1 to 4095).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prob(u16);

impl Prob {
    pub const EVEN: Prob = Prob(ONE as u16 / 2);

    /// The probability `q`/256 (a prior's byte), kept inside the range.
    pub fn from_byte(q: u8) -> Prob {
        Prob((u32::from(q.max(1)) << (PROB_BITS - 8)).min(ONE - 1) as u16)
    }

    /// The prior's byte of `ones` ones in `total` decisions (half-counts
    /// added, so that no probability is 0 or 1).
    pub fn byte_of(ones: u64, total: u64) -> u8 {
        let p = (2 * ones + 1) as f64 / (2 * total + 2) as f64;
        (p * 256.0).round().clamp(1.0, 255.0) as u8
    }

    #[inline]
    fn bound(self, range: u32) -> u32 {
        (range >> PROB_BITS) * u32::from(self.0)
    }

    #[inline]
    fn update(&mut self, bit: bool) {
        if bit {
            self.0 += ((ONE - u32::from(self.0)) >> RATE) as u16;
        } else {
            self.0 -= self.0 >> RATE;
        }
    }
}

/// One side of the coder: codes `bit` (encoder) or reads the next bit
/// (decoder, which ignores `bit`), under `prob`, which then adapts.
pub trait BitCoder {
    fn code(&mut self, prob: &mut Prob, bit: bool) -> bool;
}

/// The encoder.
#[derive(Debug)]
pub struct Encoder {
    low: u64,
    range: u32,
    /// The byte that may still take a carry, and the 0xFF bytes after it.
    cache: u8,
    pending: u64,
    out: Vec<u8>,
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder::new()
    }
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder {
            low: 0,
            range: u32::MAX,
            cache: 0,
            pending: 1,
            out: Vec::new(),
        }
    }

    #[inline]
    fn shift_low(&mut self) {
        if self.low < 0xFF00_0000 || self.low > 0xFFFF_FFFF {
            let carry = (self.low >> 32) as u8;
            let mut byte = self.cache;
            for _ in 0..self.pending {
                self.out.push(byte.wrapping_add(carry));
                byte = 0xFF;
            }
            self.pending = 0;
            self.cache = (self.low >> 24) as u8;
        }
        self.pending += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    /// The coded bytes (the first is always 0, as the decoder expects).
    pub fn finish(mut self) -> Vec<u8> {
        for _ in 0..5 {
            self.shift_low();
        }
        self.out
    }
}

impl BitCoder for Encoder {
    #[inline]
    fn code(&mut self, prob: &mut Prob, bit: bool) -> bool {
        let bound = prob.bound(self.range);
        if bit {
            self.range = bound;
        } else {
            self.low += u64::from(bound);
            self.range -= bound;
        }
        prob.update(bit);
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
        bit
    }
}

/// The decoder over a block's bytes. Reading past the end reads zeros: a
/// damaged block decodes to nonsense, which its checksum has kept from
/// being read in the first place.
#[derive(Debug)]
pub struct Decoder<'a> {
    code: u32,
    range: u32,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Decoder<'a> {
        let mut d = Decoder {
            code: 0,
            range: u32::MAX,
            bytes,
            at: 0,
        };
        for _ in 0..5 {
            d.code = (d.code << 8) | u32::from(d.next_byte());
        }
        d
    }

    #[inline]
    fn next_byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
}

impl BitCoder for Decoder<'_> {
    #[inline]
    fn code(&mut self, prob: &mut Prob, _bit: bool) -> bool {
        let bound = prob.bound(self.range);
        let bit = self.code < bound;
        if bit {
            self.range = bound;
        } else {
            self.code -= bound;
            self.range -= bound;
        }
        prob.update(bit);
        while self.range < TOP {
            self.range <<= 8;
            self.code = (self.code << 8) | u32::from(self.next_byte());
        }
        bit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream of bits with skewed, changing odds, and a few contexts.
    fn bits(n: usize) -> Vec<(usize, bool)> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        (0..n)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let ctx = i % 3;
                let odds = [3u64, 50, 97][ctx];
                (ctx, state % 100 < odds)
            })
            .collect()
    }

    #[test]
    fn what_is_encoded_decodes_and_compresses() {
        for n in [0, 1, 2, 7, 1000, 100_000] {
            let input = bits(n);
            let mut enc = Encoder::new();
            let mut probs = [Prob::EVEN; 3];
            for &(ctx, bit) in &input {
                enc.code(&mut probs[ctx], bit);
            }
            let bytes = enc.finish();
            let mut dec = Decoder::new(&bytes);
            let mut probs = [Prob::EVEN; 3];
            for &(ctx, bit) in &input {
                assert_eq!(dec.code(&mut probs[ctx], false), bit, "n {n}");
            }
            if n == 100_000 {
                // Two contexts of 3% and 97% and one of 50%: about 0.46
                // bits a decision at best.
                let bits_each = bytes.len() as f64 * 8.0 / n as f64;
                assert!(bits_each < 0.5, "{bits_each}");
            }
        }
    }

    #[test]
    fn long_runs_of_one_value_carry_through() {
        // Bits that are nearly certain drive the low end into long runs
        // of 0xFF, where carries must propagate.
        let mut enc = Encoder::new();
        let mut p = Prob::from_byte(255);
        let input: Vec<bool> = (0..50_000).map(|i| i % 997 != 0).collect();
        for &b in &input {
            enc.code(&mut p, b);
        }
        let bytes = enc.finish();
        let mut dec = Decoder::new(&bytes);
        let mut p = Prob::from_byte(255);
        for &b in &input {
            assert_eq!(dec.code(&mut p, false), b);
        }
    }

    #[test]
    fn prior_bytes_round_trip_into_the_range() {
        assert_eq!(Prob::from_byte(0), Prob(16));
        assert_eq!(Prob::from_byte(255), Prob(4080));
        assert_eq!(Prob::byte_of(0, 1_000_000), 1);
        assert_eq!(Prob::byte_of(1_000_000, 1_000_000), 255);
        assert_eq!(Prob::byte_of(50, 100), 128);
    }
}
