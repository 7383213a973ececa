//! Points of the Mill board, colours, and `Bitboard`, a set of points.
//!
//! The 24 points are numbered ring by ring, each ring from 12 o'clock
//! clockwise, the order Sanmill's FEN uses (point `i` is Sanmill's square
//! id `i + 8`):
//!
//! ```text
//!  a7(23)----------d7(16)----------g7(17)
//!  |               |               |
//!  |   b6(15)------d6(8)-------f6(9)
//!  |   |           |           |   |
//!  |   |   c5(7)---d5(0)---e5(1)   |
//!  |   |   |               |   |   |
//!  a4(22)-b4(14)-c4(6)   e4(2)-f4(10)-g4(18)
//!  |   |   |               |   |   |
//!  |   |   c3(5)---d3(4)---e3(3)   |
//!  |   |           |           |   |
//!  |   b2(13)------d2(12)------f2(11)
//!  |               |               |
//!  a1(21)----------d1(20)----------g1(19)
//! ```
//!
//! Within a ring, even positions (`k = i % 8`) are midpoints and odd ones
//! are corners.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};
use std::str::FromStr;

/// A side: White moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One of the 24 points, `0..24` in the order drawn in the module header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

/// Why a point name did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a point of the board (a1..g7)")]
pub struct PointParseError(pub String);

impl Point {
    pub const COUNT: usize = 24;
    pub const ALL: [Point; 24] = {
        let mut all = [Point(0); 24];
        let mut i = 0;
        while i < 24 {
            all[i] = Point(i as u8);
            i += 1;
        }
        all
    };

    /// The point with this index, if it is below 24.
    #[inline]
    pub const fn new(index: u8) -> Option<Point> {
        if index < 24 { Some(Point(index)) } else { None }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The ring: 0 inner, 1 middle, 2 outer.
    #[inline]
    pub const fn ring(self) -> u8 {
        self.0 / 8
    }

    /// Position within the ring, 0 at 12 o'clock, clockwise.
    #[inline]
    pub const fn slot(self) -> u8 {
        self.0 % 8
    }

    #[inline]
    pub const fn bb(self) -> Bitboard {
        Bitboard(1 << self.0)
    }

    /// File `a..g` (0..7) and rank `1..7` (0..7) of the point.
    pub const fn coords(self) -> (u8, u8) {
        const DX: [i8; 8] = [0, 1, 1, 1, 0, -1, -1, -1];
        const DY: [i8; 8] = [1, 1, 0, -1, -1, -1, 0, 1];
        let dist = self.ring() as i8 + 1;
        let k = self.slot() as usize;
        ((3 + DX[k] * dist) as u8, (3 + DY[k] * dist) as u8)
    }

    /// The point at file `0..7` and rank `0..7`, if there is one.
    pub const fn from_coords(file: u8, rank: u8) -> Option<Point> {
        let mut i = 0;
        while i < 24 {
            let (f, r) = Point(i).coords();
            if f == file && r == rank {
                return Some(Point(i));
            }
            i += 1;
        }
        None
    }

    /// Sanmill's square id (8..31).
    #[inline]
    pub const fn sanmill_id(self) -> u8 {
        self.0 + 8
    }

    /// The name, `a1`..`g7`.
    pub fn name(self) -> [u8; 2] {
        let (f, r) = self.coords();
        [b'a' + f, b'1' + r]
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.name();
        write!(f, "{}{}", n[0] as char, n[1] as char)
    }
}

impl FromStr for Point {
    type Err = PointParseError;

    fn from_str(s: &str) -> Result<Point, PointParseError> {
        let err = || PointParseError(s.to_string());
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(err());
        }
        let file = b[0].to_ascii_lowercase().wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'1');
        if file > 6 || rank > 6 {
            return Err(err());
        }
        Point::from_coords(file, rank).ok_or_else(err)
    }
}

/// A set of points, bit `i` for point `i`; only the low 24 bits are used.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u32);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard((1 << 24) - 1);

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn nonempty(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub const fn contains(self, p: Point) -> bool {
        self.0 & (1 << p.0) != 0
    }

    #[inline]
    pub const fn with(self, p: Point) -> Bitboard {
        Bitboard(self.0 | (1 << p.0))
    }

    #[inline]
    pub const fn without(self, p: Point) -> Bitboard {
        Bitboard(self.0 & !(1 << p.0))
    }

    /// Whether every point of `other` is in `self`.
    #[inline]
    pub const fn includes(self, other: Bitboard) -> bool {
        self.0 & other.0 == other.0
    }

    /// The lowest point of the set.
    #[inline]
    pub const fn first(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point(self.0.trailing_zeros() as u8))
        }
    }
}

impl Iterator for Bitboard {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            return None;
        }
        let p = Point(self.0.trailing_zeros() as u8);
        self.0 &= self.0 - 1;
        Some(p)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    /// The complement within the 24 points (never sets bits 24..32).
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::FULL.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complement_stays_on_the_board() {
        assert_eq!(!Bitboard::EMPTY, Bitboard::FULL);
        assert_eq!(!Bitboard::FULL, Bitboard::EMPTY);
        assert_eq!((!Point::ALL[3].bb()).count(), 23);
    }

    #[test]
    fn names_round_trip_and_match_sanmill_ring_order() {
        let inner = ["d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5"];
        let middle = ["d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6"];
        let outer = ["d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7"];
        let names: Vec<&str> = inner.iter().chain(&middle).chain(&outer).copied().collect();
        for (i, name) in names.iter().enumerate() {
            let p = Point::ALL[i];
            assert_eq!(p.to_string(), *name);
            assert_eq!(name.parse::<Point>(), Ok(p));
            assert_eq!(name.to_uppercase().parse::<Point>(), Ok(p));
            assert_eq!(p.sanmill_id() as usize, i + 8);
        }
    }

    #[test]
    fn bad_point_names_are_rejected() {
        for bad in ["", "a", "d4", "h1", "a8", "a0", "a11", "b1", "é1", "11"] {
            assert_eq!(
                bad.parse::<Point>(),
                Err(PointParseError(bad.to_string())),
                "{bad}"
            );
        }
    }

    #[test]
    fn iteration_yields_points_in_order() {
        let bb = Point::ALL[0].bb() | Point::ALL[7].bb() | Point::ALL[23].bb();
        let v: Vec<usize> = bb.map(|p| p.index()).collect();
        assert_eq!(v, vec![0, 7, 23]);
    }
}
