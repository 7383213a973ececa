//! Board geometry: the lines of three and adjacency, built at compile time
//! for the plain board and for the board with the four diagonal lines.

use super::point::{Bitboard, Point};

/// Lines and adjacency of one board layout.
#[derive(Debug)]
pub struct Geometry {
    /// Every line of three points.
    pub lines: &'static [Bitboard],
    /// For each point, the points adjacent to it along a line.
    pub adjacent: [Bitboard; 24],
    /// For each point, the other two points of each line through it
    /// (at most three lines; unused entries are empty).
    pub partners: [[Bitboard; 3]; 24],
    /// How many entries of `partners[p]` are in use.
    pub line_count: [u8; 24],
    /// Spokes run through the midpoints (even slots); with diagonals the
    /// corners (odd slots) have them too. Bit `k` set: slot `k` has one.
    cross_slots: u32,
}

/// What the lines of one side look like.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineFeatures {
    /// Lines with two own pieces and the third point empty.
    pub open: u32,
    /// Lines full of own pieces.
    pub closed: u32,
    /// The empty points that complete an open line.
    pub closers: Bitboard,
    /// The empty points that complete two or more open lines.
    pub double_closers: Bitboard,
    /// The own pieces standing in a closed line.
    pub in_mills: Bitboard,
    /// Own pieces that can slide to an adjacent empty point and complete
    /// a line there without being one of its two pieces.
    pub sliders: Bitboard,
}

impl LineFeatures {
    /// The pieces of `sliders` that stand in a closed line (the "running
    /// mill").
    #[inline]
    pub fn runners(&self) -> Bitboard {
        self.sliders & self.in_mills
    }
}

// The bit tricks work on a word holding two boards, so that both sides'
// features cost one pass: lane 0 is bits 0..24, lane 1 bits 32..56, and
// each lane holds the three rings as bytes (slot k of ring r is bit
// 8r + k).

/// Bit 0 of each lane.
const LANE_ONES: u64 = 0x0000_0001_0000_0001;
/// Bit 0 of each ring of each lane.
const BYTES: u64 = 0x0001_0101 * LANE_ONES;
/// Every point of both lanes.
const LANES: u64 = 0x00ff_ffff * LANE_ONES;
/// Multiplying a slot byte by this copies it into the three rings.
const RINGS: u64 = 0x0001_0101;

/// Rotates each ring (byte) so that slot `k + n` lands on slot `k`.
#[inline]
const fn ring_rotr(x: u64, n: u32) -> u64 {
    ((x >> n) & ((0xff >> n) * BYTES)) | ((x << (8 - n)) & (((0xff << (8 - n)) & 0xff) * BYTES))
}

/// Rotates each ring (byte) so that slot `k` lands on slot `k + n`.
#[inline]
const fn ring_rotl(x: u64, n: u32) -> u64 {
    ring_rotr(x, 8 - n)
}

/// The features of both lanes, before they are split and counted.
struct LaneFeatures {
    /// Open lines: ring sides marked at their first corner (bytes 0..3),
    /// spokes and diagonals at their slot (byte 3).
    open: u64,
    /// Closed lines, marked the same way.
    closed: u64,
    closers: u64,
    doubles: u64,
    in_mills: u64,
    sliders: u64,
}

impl LaneFeatures {
    #[inline(always)]
    fn lane(&self, i: u32) -> LineFeatures {
        let take = |x: u64| (x >> (32 * i)) as u32;
        let board = |x: u64| Bitboard(take(x) & Bitboard::FULL.0);
        LineFeatures {
            open: take(self.open).count_ones(),
            closed: take(self.closed).count_ones(),
            closers: board(self.closers),
            double_closers: board(self.doubles),
            in_mills: board(self.in_mills),
            sliders: board(self.sliders),
        }
    }
}

const fn pt(ring: u8, slot: u8) -> u32 {
    1 << (ring * 8 + slot % 8)
}

const fn build_lines<const N: usize>(diagonals: bool) -> [Bitboard; N] {
    let mut lines = [Bitboard(0); N];
    let mut n = 0;
    // Sides of each ring: corner, midpoint, corner.
    let mut ring = 0;
    while ring < 3 {
        let mut corner = 1;
        while corner < 8 {
            lines[n] = Bitboard(pt(ring, corner) | pt(ring, corner + 1) | pt(ring, corner + 2));
            n += 1;
            corner += 2;
        }
        ring += 1;
    }
    // Spokes through the midpoints, and diagonals through the corners.
    let mut slot = 0;
    while slot < 8 {
        if slot % 2 == 0 || diagonals {
            lines[n] = Bitboard(pt(0, slot) | pt(1, slot) | pt(2, slot));
            n += 1;
        }
        slot += 1;
    }
    assert!(n == N);
    lines
}

const fn build(lines: &'static [Bitboard]) -> Geometry {
    let mut adjacent = [Bitboard(0); 24];
    let mut partners = [[Bitboard(0); 3]; 24];
    let mut line_count = [0u8; 24];
    let mut l = 0;
    while l < lines.len() {
        let line = lines[l].0;
        // Adjacency along a line of three: the middle point touches both
        // ends. Which point is the middle one depends on the line's shape.
        let mid = middle_of(line);
        let mut p = 0;
        while p < 24 {
            if line & (1 << p) != 0 {
                let c = line_count[p] as usize;
                partners[p][c] = Bitboard(line & !(1 << p));
                line_count[p] += 1;
                if p == mid {
                    adjacent[p].0 |= line & !(1 << p);
                } else {
                    adjacent[p].0 |= 1 << mid;
                }
            }
            p += 1;
        }
        l += 1;
    }
    let cross_slots = if lines.len() > 16 { 0xff } else { 0x55 };
    Geometry {
        lines,
        adjacent,
        partners,
        line_count,
        cross_slots,
    }
}

/// The middle point of a line: for a ring side it is the midpoint (even
/// slot), for a spoke or diagonal it is on the middle ring.
const fn middle_of(line: u32) -> usize {
    let mut p = 0;
    let mut rings = 0u32;
    while p < 24 {
        if line & (1 << p) != 0 {
            rings |= 1 << (p / 8);
        }
        p += 1;
    }
    let mut p = 0;
    while p < 24 {
        if line & (1 << p) != 0 {
            let same_ring = rings.count_ones() == 1;
            if (same_ring && p % 2 == 0) || (!same_ring && p / 8 == 1) {
                return p;
            }
        }
        p += 1;
    }
    panic!("a line has no middle point")
}

static PLAIN_LINES: [Bitboard; 16] = build_lines::<16>(false);
static DIAGONAL_LINES: [Bitboard; 20] = build_lines::<20>(true);

/// The standard board: 16 lines.
pub static PLAIN: Geometry = build(&PLAIN_LINES);
/// The board with the four diagonal lines a7-b6-c5, g7-f6-e5, a1-b2-c3, g1-f2-e3.
pub static DIAGONAL: Geometry = build(&DIAGONAL_LINES);

impl Geometry {
    /// The geometry for a rule set with or without diagonal lines.
    pub fn get(diagonals: bool) -> &'static Geometry {
        if diagonals { &DIAGONAL } else { &PLAIN }
    }

    /// Whether the piece at `p` stands in a mill of `own`'s pieces.
    #[inline]
    pub fn in_mill(&self, p: Point, own: Bitboard) -> bool {
        let parts = &self.partners[p.index()];
        (0..self.line_count[p.index()] as usize).any(|i| own.includes(parts[i]))
    }

    /// How many lines through `p` are completed by `own` (which need not
    /// contain `p` itself).
    #[inline]
    pub fn mills_through(&self, p: Point, own: Bitboard) -> u32 {
        self.unspent_mills_through(p, own, Bitboard::EMPTY)
    }

    /// `mills_through`, leaving out the lines inside `spent` (one-time
    /// mills already formed, which earn nothing when closed again).
    #[inline]
    pub fn unspent_mills_through(&self, p: Point, own: Bitboard, spent: Bitboard) -> u32 {
        let parts = &self.partners[p.index()];
        let mut n = 0;
        for part in parts.iter().take(self.line_count[p.index()] as usize) {
            n += (own.includes(*part) && !spent.includes(part.with(p))) as u32;
        }
        n
    }

    /// The points of `own` that stand in at least one mill of `own`.
    #[inline]
    pub fn pieces_in_mills(&self, own: Bitboard) -> Bitboard {
        // Inlined, only the closed lines are computed.
        self.line_features(own, Bitboard::EMPTY).in_mills
    }

    /// The points adjacent to at least one point of `b`: a step along the
    /// ring either way, and a step along a spoke (or diagonal) in or out.
    #[inline]
    pub fn neighbours(&self, b: Bitboard) -> Bitboard {
        let x = b.0 as u64;
        Bitboard((ring_rotl(x, 1) | ring_rotr(x, 1) | self.across(x)) as u32)
    }

    /// The number of (piece of `own`, adjacent empty point) pairs: the
    /// slides `own` would have if it could not fly. Each direction maps a
    /// point to at most one neighbour, so one count per direction adds up.
    #[inline]
    pub fn mobility(&self, own: Bitboard, empty: Bitboard) -> u32 {
        self.mobility_pair(own, Bitboard::EMPTY, empty)[0]
    }

    /// `mobility` of two sides at once.
    #[inline]
    pub fn mobility_pair(&self, a: Bitboard, b: Bitboard, empty: Bitboard) -> [u32; 2] {
        let x = a.0 as u64 | (b.0 as u64) << 32;
        let e = empty.0 as u64 * LANE_ONES;
        let spokes = x & (self.cross_slots as u64 * BYTES);
        // Four directions, one bit each per piece and free neighbour; the
        // lanes are apart, so two sums of the shifted sets count them.
        let dirs = [
            ring_rotl(x, 1) & e,
            ring_rotr(x, 1) & e,
            (spokes << 8) & e,
            (spokes >> 8) & e,
        ];
        let mut n = [0; 2];
        for d in dirs {
            n[0] += (d as u32).count_ones();
            n[1] += ((d >> 32) as u32).count_ones();
        }
        n
    }

    /// The spoke (and diagonal) neighbours of the points of `x`, in both
    /// lanes.
    #[inline(always)]
    fn across(&self, x: u64) -> u64 {
        let spokes = x & (self.cross_slots as u64 * BYTES);
        (spokes << 8 | spokes >> 8) & LANES
    }

    /// The empty points where a piece of `own` would complete a line with
    /// two pieces of `own`.
    #[inline]
    pub fn closing_points(&self, own: Bitboard, empty: Bitboard) -> Bitboard {
        // Inlined, the unused features are optimised away.
        self.line_features(own, empty).closers
    }

    /// Open and closed lines of `own`, all lines at once with bit tricks:
    /// a ring's four sides are found by rotating the ring's byte, the
    /// spokes and diagonals by aligning the three rings' bytes.
    #[inline(always)]
    pub fn line_features(&self, own: Bitboard, empty: Bitboard) -> LineFeatures {
        self.lanes(own.0 as u64, empty.0 as u64).lane(0)
    }

    /// `line_features` of two sides, `a` and `b`, at once.
    #[inline(always)]
    pub fn line_features_pair(
        &self,
        a: Bitboard,
        b: Bitboard,
        empty: Bitboard,
    ) -> [LineFeatures; 2] {
        let f = self.lanes(a.0 as u64 | (b.0 as u64) << 32, empty.0 as u64 * LANE_ONES);
        [f.lane(0), f.lane(1)]
    }

    /// `line_features` where the lines inside `spent` earn nothing when
    /// closed (one-time mills already formed): they are never open, give
    /// no closers and let no piece slide in to complete them, but a full
    /// one still counts as closed and holds its pieces in a mill (it still
    /// shields them from removal). A plain loop over the lines: only the
    /// rule sets with one-time mills pay for it.
    pub fn line_features_unspent(
        &self,
        own: Bitboard,
        empty: Bitboard,
        spent: Bitboard,
    ) -> LineFeatures {
        let mut f = LineFeatures::default();
        for &line in self.lines {
            if own.includes(line) {
                f.closed += 1;
                f.in_mills |= line;
            } else if !spent.includes(line) && (line & own).count() == 2 {
                let hole = line & empty;
                if hole.nonempty() {
                    f.open += 1;
                    f.double_closers |= f.closers & hole;
                    f.closers |= hole;
                }
            }
        }
        for p in own {
            let rest = own.without(p);
            let mut steps = self.adjacent[p.index()] & empty;
            if steps.any(|q| self.unspent_mills_through(q, rest, spent) > 0) {
                f.sliders = f.sliders.with(p);
            }
        }
        f
    }

    #[inline(always)]
    fn lanes(&self, a: u64, e: u64) -> LaneFeatures {
        let corners = 0xaa * BYTES;
        let (a1, a2) = (ring_rotr(a, 1), ring_rotr(a, 2));
        let (e1, e2) = (ring_rotr(e, 1), ring_rotr(e, 2));
        // Ring sides, indexed by their first corner; the hole is at offset
        // 0, 1 or 2 from it.
        let hole0 = e & a1 & a2 & corners;
        let hole1 = a & e1 & a2 & corners;
        let hole2 = a & a1 & e2 & corners;
        let sides_closed = a & a1 & a2 & corners;
        // Spokes and diagonals: ring bytes aligned at slot k.
        let slots = 0xff * LANE_ONES;
        let (r0, r1, r2) = (a & slots, (a >> 8) & slots, (a >> 16) & slots);
        let (f0, f1, f2) = (e & slots, (e >> 8) & slots, (e >> 16) & slots);
        let m = self.cross_slots as u64 * LANE_ONES;
        let cross_hole0 = f0 & r1 & r2 & m;
        let cross_hole1 = r0 & f1 & r2 & m;
        let cross_hole2 = r0 & r1 & f2 & m;
        let cross_closed = r0 & r1 & r2 & m;

        // The holes, each on its own point.
        let (side_start, side_mid, side_end) = (hole0, ring_rotl(hole1, 1), ring_rotl(hole2, 2));
        let cross = cross_hole0 | cross_hole1 << 8 | cross_hole2 << 16;
        let holes = [
            side_start,
            side_mid,
            side_end,
            cross_hole0,
            cross_hole1 << 8,
            cross_hole2 << 16,
        ];
        let (mut closers, mut doubles) = (0, 0);
        for h in holes {
            doubles |= closers & h;
            closers |= h;
        }
        let in_mills = sides_closed
            | ring_rotl(sides_closed, 1)
            | ring_rotl(sides_closed, 2)
            | (cross_closed * RINGS);
        // Sliders. A ring edge lies in exactly one ring side, a spoke edge
        // in one spoke or diagonal; a slide along an edge into a hole
        // completes the hole's line when the edge is not on that line.
        // Into a corner k from k - 1 the line is the side starting at k
        // (hole at offset 0); from k + 1 the side ending at k (offset 2);
        // midpoints are entered off their side only along the spoke; a
        // spoke hole only along the ring.
        let side = side_start | side_mid | side_end;
        let sources =
            ring_rotr(cross | side_start, 1) | ring_rotl(cross | side_end, 1) | self.across(side);
        let cross_lines = cross_hole0 | cross_hole1 | cross_hole2;
        LaneFeatures {
            open: hole0 | hole1 | hole2 | cross_lines << 24,
            closed: sides_closed | cross_closed << 24,
            closers,
            doubles,
            in_mills,
            sliders: sources & a,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> Point {
        name.parse().unwrap()
    }

    fn set(names: &[&str]) -> Bitboard {
        names.iter().fold(Bitboard::EMPTY, |b, n| b.with(p(n)))
    }

    #[test]
    fn shifted_adjacency_matches_the_tables() {
        for g in [&PLAIN, &DIAGONAL] {
            for p in Point::ALL {
                let one = Bitboard::EMPTY.with(p);
                assert_eq!(g.neighbours(one), g.adjacent[p.index()], "{p}");
            }
            // Random sets: neighbours is the union, mobility the sum.
            let mut x: u32 = 0x2545_f491;
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let own = Bitboard(x & 0x00ff_ffff);
                let empty = Bitboard((x >> 7 | x << 11) & 0x00ff_ffff) & !own;
                let union = own.fold(Bitboard::EMPTY, |u, p| u | g.adjacent[p.index()]);
                assert_eq!(g.neighbours(own), union);
                let sum: u32 = own.map(|p| (g.adjacent[p.index()] & empty).count()).sum();
                assert_eq!(g.mobility(own, empty), sum);
            }
        }
    }

    #[test]
    fn line_and_edge_counts() {
        assert_eq!(PLAIN.lines.len(), 16);
        assert_eq!(DIAGONAL.lines.len(), 20);
        let edges: u32 = PLAIN.adjacent.iter().map(|a| a.count()).sum();
        assert_eq!(edges, 2 * 32);
        let edges: u32 = DIAGONAL.adjacent.iter().map(|a| a.count()).sum();
        assert_eq!(edges, 2 * 40);
        for g in [&PLAIN, &DIAGONAL] {
            for l in g.lines {
                assert_eq!(l.count(), 3);
            }
            for a in Point::ALL {
                for b in g.adjacent[a.index()] {
                    assert!(g.adjacent[b.index()].contains(a), "adjacency is symmetric");
                }
            }
        }
    }

    #[test]
    fn known_adjacency() {
        assert_eq!(
            PLAIN.adjacent[p("d6").index()],
            set(&["d7", "d5", "b6", "f6"])
        );
        assert_eq!(PLAIN.adjacent[p("a1").index()], set(&["a4", "d1"]));
        assert_eq!(PLAIN.adjacent[p("e4").index()], set(&["e5", "e3", "f4"]));
        assert_eq!(
            DIAGONAL.adjacent[p("b6").index()],
            set(&["a7", "c5", "b4", "d6"])
        );
        assert_eq!(DIAGONAL.adjacent[p("a1").index()], set(&["a4", "d1", "b2"]));
    }

    #[test]
    fn known_lines() {
        let lines: Vec<Bitboard> = PLAIN.lines.to_vec();
        for l in [
            ["a7", "d7", "g7"],
            ["b4", "a4", "c4"],
            ["d5", "d6", "d7"],
            ["e3", "e4", "e5"],
            ["c3", "d3", "e3"],
            ["g1", "g4", "g7"],
        ] {
            assert!(lines.contains(&set(&l)), "{l:?}");
        }
        assert!(!lines.contains(&set(&["a7", "b6", "c5"])));
        assert!(DIAGONAL.lines.contains(&set(&["a7", "b6", "c5"])));
        assert!(DIAGONAL.lines.contains(&set(&["g1", "f2", "e3"])));
        assert_eq!(DIAGONAL.line_count[p("b6").index()], 3);
        assert_eq!(PLAIN.line_count[p("b6").index()], 2);
    }

    /// The bit-trick line features agree with a plain loop over the lines.
    #[test]
    fn line_features_agree_with_the_line_list() {
        let mut seed = 0x9e37_79b9_u64;
        let mut total_runners = 0;
        for _ in 0..20_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let own = Bitboard((seed >> 20) as u32) & Bitboard::FULL;
            let other = Bitboard((seed >> 40) as u32 | ((seed as u32) << 12)) & !own;
            let empty = !(own | other);
            for g in [&PLAIN, &DIAGONAL] {
                let mut want = LineFeatures::default();
                let mut seen = Bitboard::EMPTY;
                for &line in g.lines {
                    let hole = line & empty;
                    if own.includes(line) {
                        want.closed += 1;
                        want.in_mills |= line;
                    } else if (line & own).count() == 2 && hole.nonempty() {
                        want.open += 1;
                        want.double_closers |= seen & hole;
                        seen |= hole;
                    }
                }
                want.closers = seen;
                for p in own {
                    let mut steps = g.adjacent[p.index()] & empty;
                    if steps.any(|q| g.mills_through(q, own.without(p)) > 0) {
                        want.sliders = want.sliders.with(p);
                    }
                }
                let runners = want.runners().count();
                assert_eq!(g.line_features(own, empty), want, "{own:?} {empty:?}");
                assert_eq!(g.line_features_unspent(own, empty, Bitboard::EMPTY), want);
                let [ours, theirs] = g.line_features_pair(own, other, empty);
                assert_eq!(ours, want);
                assert_eq!(theirs, g.line_features(other, empty));
                let mobility = [g.mobility(own, empty), g.mobility(other, empty)];
                assert_eq!(g.mobility_pair(own, other, empty), mobility);
                total_runners += runners;
                assert_eq!(g.pieces_in_mills(own), want.in_mills);
                assert_eq!(g.closing_points(own, empty), want.closers);
            }
        }
        assert!(total_runners > 1000, "the sample has runners");
    }

    /// A spent line neither threatens nor draws a slider, yet stays a
    /// mill (with nothing spent, the features are the line list's: above).
    #[test]
    fn spent_lines_earn_nothing_but_stay_mills() {
        // a7-d7-g7 formed once and spent; a7 d7 g4 g1 on the board.
        let own = set(&["a7", "d7", "g4", "g1"]);
        let spent = set(&["a7", "d7", "g7"]);
        let fresh = PLAIN.line_features(own, !own);
        let f = PLAIN.line_features_unspent(own, !own, spent);
        // g7 would close both lines; only g7-g4-g1 counts.
        assert_eq!((fresh.open, fresh.double_closers), (2, set(&["g7"])));
        assert_eq!(
            (f.open, f.closers, f.double_closers),
            (1, set(&["g7"]), Bitboard::EMPTY)
        );
        // d7 to g7 closes g7-g4-g1; g4 to g7 only the spent line.
        assert_eq!(fresh.sliders, set(&["d7", "g4"]));
        assert_eq!(f.sliders, set(&["d7"]));
        // Closed again, the spent line is a mill all the same.
        let own = set(&["a7", "d7", "g7", "g4"]);
        let f = PLAIN.line_features_unspent(own, !own, spent);
        assert_eq!((f.closed, f.in_mills, f.closers), (1, spent, set(&["g1"])));
    }

    #[test]
    fn mills_and_closing_points() {
        let own = set(&["a7", "d7", "g7", "g4"]);
        assert!(PLAIN.in_mill(p("d7"), own));
        assert!(!PLAIN.in_mill(p("g4"), own));
        assert_eq!(PLAIN.pieces_in_mills(own), set(&["a7", "d7", "g7"]));
        assert_eq!(PLAIN.closing_points(own, !own), set(&["g1"]));
        assert_eq!(PLAIN.mills_through(p("g1"), own), 1);
    }
}
