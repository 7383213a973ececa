//! The 16 symmetries of the Mill board: the 8 of the square (rotations by
//! quarter turns, with and without a mirror) times the exchange of the
//! inner and outer rings. They act on points and, through per-ring byte
//! tables built at compile time, on whole bitboards.
//!
//! Symmetry `s` (0..16): bits 0-1 the number of quarter turns clockwise,
//! bit 2 a mirror about the vertical axis (applied first), bit 3 the ring
//! exchange. `0` is the identity.

use crate::core::{Bitboard, Point};

/// The number of symmetries.
pub const COUNT: usize = 16;

/// Where symmetry `s` sends slot `k` of a ring (the ring exchange leaves
/// slots alone).
const fn map_slot(s: usize, k: usize) -> usize {
    let k = if s & 4 != 0 { (8 - k) % 8 } else { k };
    (k + 2 * (s & 3)) % 8
}

/// Where symmetry `s` sends ring `r`.
const fn map_ring(s: usize, r: usize) -> usize {
    if s & 8 != 0 { 2 - r } else { r }
}

/// Where symmetry `s` sends point index `p`.
pub const fn map_point(s: usize, p: usize) -> usize {
    map_ring(s, p / 8) * 8 + map_slot(s, p % 8)
}

/// `RING_BYTES[s & 7][byte]`: a ring's 8 slots, as a byte, after the square
/// part of symmetry `s`.
static RING_BYTES: [[u8; 256]; 8] = {
    let mut t = [[0u8; 256]; 8];
    let mut s = 0;
    while s < 8 {
        let mut byte = 0;
        while byte < 256 {
            let mut out = 0u8;
            let mut k = 0;
            while k < 8 {
                if byte & (1 << k) != 0 {
                    out |= 1 << map_slot(s, k);
                }
                k += 1;
            }
            t[s][byte] = out;
            byte += 1;
        }
        s += 1;
    }
    t
};

/// `POINT_BITS[s][p]`: the image of point `p` under `s`, as a bitboard word.
static POINT_BITS: [[u32; 24]; COUNT] = {
    let mut t = [[0u32; 24]; COUNT];
    let mut s = 0;
    while s < COUNT {
        let mut p = 0;
        while p < 24 {
            t[s][p] = 1 << map_point(s, p);
            p += 1;
        }
        s += 1;
    }
    t
};

/// `INVERSE[s]`: the symmetry that undoes `s`.
pub static INVERSE: [u8; COUNT] = {
    let mut inv = [0u8; COUNT];
    let mut s = 0;
    while s < COUNT {
        let mut t = 0;
        while t < COUNT {
            let mut identity = true;
            let mut p = 0;
            while p < 24 {
                if map_point(t, map_point(s, p)) != p {
                    identity = false;
                }
                p += 1;
            }
            if identity {
                inv[s] = t as u8;
            }
            t += 1;
        }
        s += 1;
    }
    inv
};

/// The image of the set `b` under symmetry `s`.
#[inline]
pub fn apply(s: usize, b: Bitboard) -> Bitboard {
    let t = &RING_BYTES[s & 7];
    let x = b.0;
    let r0 = t[(x & 0xff) as usize] as u32;
    let r1 = t[((x >> 8) & 0xff) as usize] as u32;
    let r2 = t[((x >> 16) & 0xff) as usize] as u32;
    Bitboard(if s & 8 != 0 {
        r2 | r1 << 8 | r0 << 16
    } else {
        r0 | r1 << 8 | r2 << 16
    })
}

/// The image of point `p` under `s`, as a one-point set.
#[inline]
pub fn point_bits(s: usize, p: Point) -> Bitboard {
    Bitboard(POINT_BITS[s][p.index()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::geometry::PLAIN;

    #[test]
    fn symmetries_preserve_lines_and_adjacency() {
        for s in 0..COUNT {
            for &line in PLAIN.lines {
                assert!(PLAIN.lines.contains(&apply(s, line)), "{s} {line:?}");
            }
            for p in Point::ALL {
                let img = apply(s, PLAIN.adjacent[p.index()]);
                let q = apply(s, p.bb()).first().unwrap();
                assert_eq!(img, PLAIN.adjacent[q.index()]);
                assert_eq!(point_bits(s, p), q.bb());
            }
        }
    }

    #[test]
    fn the_sixteen_are_distinct_and_invertible() {
        let mut images = Vec::new();
        let probe = Bitboard((1 << 0) | (1 << 3) | (1 << 9) | (1 << 18));
        for (s, &inv) in INVERSE.iter().enumerate() {
            images.push(apply(s, probe).0);
            let inv = inv as usize;
            for p in Point::ALL {
                assert_eq!(apply(inv, apply(s, p.bb())), p.bb());
            }
        }
        images.sort_unstable();
        images.dedup();
        assert_eq!(images.len(), COUNT);
        assert_eq!(apply(0, probe), probe);
    }
}
