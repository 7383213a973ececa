//! Seeded randomness whose draws stay the same across machines and
//! versions: a match's openings and their shuffle, `mulino book`'s lines
//! and the skill levels' choice all draw from a [`SeededRng`].
//!
//! The generator is ChaCha with 12 rounds (`rand_chacha`, whose stream is
//! fixed by its algorithm, not by a version of `rand`), seeded from a
//! `u64` by PCG32 as `rand_core` 0.6 does it, and the sampling (a number
//! below a bound, a shuffle) is ours, written to draw exactly what `rand`
//! 0.8's `StdRng` with `gen_range` and `shuffle` drew on a 64-bit
//! machine. So the seeds recorded with earlier matches and books keep
//! their openings, a new `rand` cannot change them, and WebAssembly (whose
//! `usize` has 32 bits, which changed `rand`'s draws) draws what a native
//! build does.

use rand_chacha::ChaCha12Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// A generator seeded from one number, with its own sampling.
#[derive(Clone, Debug)]
pub struct SeededRng(ChaCha12Rng);

impl SeededRng {
    /// The generator of `seed`: ChaCha12 keyed by 32 bytes that PCG32
    /// draws from the seed.
    pub fn new(seed: u64) -> SeededRng {
        const MUL: u64 = 6_364_136_223_846_793_005;
        const INC: u64 = 11_634_580_027_462_260_723;
        let mut state = seed;
        let mut key = [0u8; 32];
        for chunk in key.chunks_exact_mut(4) {
            // Advance first, to get away from a seed with few bits set.
            state = state.wrapping_mul(MUL).wrapping_add(INC);
            let xorshifted = (((state >> 18) ^ state) >> 27) as u32;
            let word = xorshifted.rotate_right((state >> 59) as u32);
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        SeededRng(ChaCha12Rng::from_seed(key))
    }

    /// A generator from a seed nobody chose (the operating system's
    /// randomness), for draws that need not be repeated.
    pub fn unseeded() -> SeededRng {
        SeededRng::new(rand::random())
    }

    pub fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..bound`, each equally likely (`bound` > 0): 64-bit
    /// draws, multiplied by the bound, with those that fall in the biased
    /// zone drawn again.
    pub fn below(&mut self, bound: usize) -> usize {
        assert!(bound > 0, "SeededRng::below(0)");
        let range = bound as u64;
        // Conservative but exact: the largest multiple of `range` shifted
        // to the top bits, less one.
        let zone = (range << range.leading_zeros()).wrapping_sub(1);
        loop {
            let wide = u128::from(self.next_u64()) * u128::from(range);
            if wide as u64 <= zone {
                return (wide >> 64) as usize;
            }
        }
    }

    /// A number in `0..bound` from 32-bit draws (`bound` > 0), as the
    /// shuffle draws its indices.
    fn below_u32(&mut self, bound: u32) -> u32 {
        let zone = (bound << bound.leading_zeros()).wrapping_sub(1);
        loop {
            let wide = u64::from(self.next_u32()) * u64::from(bound);
            if wide as u32 <= zone {
                return (wide >> 32) as u32;
            }
        }
    }

    /// Puts `items` in a random order (Fisher-Yates, from the back).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let bound = i + 1;
            let j = match u32::try_from(bound) {
                Ok(b) => self.below_u32(b) as usize,
                Err(_) => self.below(bound),
            };
            items.swap(i, j);
        }
    }

    /// One of `items`, each equally likely (`None` when empty).
    pub fn choose<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len())])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The draws are pinned: a change here changes every recorded seed's
    /// openings and books.
    #[test]
    fn the_draws_of_a_seed_are_fixed() {
        let mut rng = SeededRng::new(1);
        let draws: Vec<usize> = (0..8).map(|_| rng.below(20)).collect();
        assert_eq!(draws, [19, 8, 3, 5, 19, 14, 10, 4]);
        let mut items: Vec<u32> = (0..10).collect();
        SeededRng::new(7).shuffle(&mut items);
        assert_eq!(items, [5, 7, 9, 6, 3, 8, 2, 1, 0, 4]);
        assert_eq!(SeededRng::new(0).next_u64(), 0xbb2a_3fb2_cd2c_6f7f);
    }

    /// Today's `rand` (0.8, `StdRng`) draws the same: the sampling here
    /// replaces it without changing a recorded seed's draws.
    #[test]
    fn the_draws_equal_rand_0_8s() {
        use rand::seq::SliceRandom;
        use rand::{Rng, SeedableRng as _};
        for seed in [0u64, 1, 3, 42, 0x9E37_79B9_7F4A_7C15, u64::MAX] {
            let mut ours = SeededRng::new(seed);
            let mut theirs = rand::rngs::StdRng::seed_from_u64(seed);
            for bound in [1usize, 2, 3, 7, 20, 24, 100, 1000, 123_456_789] {
                assert_eq!(ours.below(bound), theirs.gen_range(0..bound));
            }
            let mut a: Vec<u16> = (0..300).collect();
            let mut b = a.clone();
            ours.shuffle(&mut a);
            b.shuffle(&mut theirs);
            assert_eq!(a, b, "seed {seed}");
            assert_eq!(ours.next_u64(), theirs.next_u64());
        }
    }

    #[test]
    fn choose_takes_each_item() {
        let mut rng = SeededRng::new(5);
        let items = [1, 2, 3];
        let mut seen = [false; 3];
        for _ in 0..100 {
            let &x = rng.choose(&items).expect("items");
            seen[x - 1] = true;
        }
        assert_eq!(seen, [true; 3]);
        assert_eq!(rng.choose::<u8>(&[]), None);
    }
}
