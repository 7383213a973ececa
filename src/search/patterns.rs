//! Evaluations fitted to the databases' values in Nine Men's Morris: for
//! the placing phase, a weight for what stands on each of the 16 lines and
//! on each point's cross (the point and the two lines through it), for
//! the pieces in both hands and for material (`placing.rs`, written by
//! `scripts/placing_patterns.py`); for the moving phase, the same kind of
//! line weights, one per pair of piece counts, per number of steps of each
//! side and for each side's mill to close (`moving.rs`, written by
//! `scripts/moving_patterns.py`). Other rule sets have placing patterns of
//! their own (over the board's 20 lines where it has diagonals), fitted to
//! self-play games' results, as there are no databases for them: one table
//! for those that Twelve's weights score (Twelve Men's Morris, Morabaraba,
//! Zhi Qi; `twelve.rs`), one each for Dooz (`dooz.rs`), Lasker
//! (`lasker.rs`) and El Filja (`el_filja.rs`), all written by
//! `scripts/selfplay_patterns.py`.
//!
//! Against the linear terms of `eval` (still used where a side flies and
//! in the other rule sets), they predict the databases' values of held-out
//! games' positions better (squared error, placing: 0.0505 against 0.0815
//! with the lines alone, 0.0440 against 0.0478 with the crosses added;
//! moving: 0.0326 against 0.0438) and throw away fewer critical values in
//! play; the self-play patterns predict held-out games' results better
//! than the weights (Twelve Men's Morris 0.0639 against 0.0840,
//! Morabaraba 0.0698 against 0.0962, Zhi Qi 0.0670 against 0.0887, Dooz
//! 0.1173 against 0.1533, Lasker 0.0820 against 0.0956, El Filja 0.1199
//! against 0.1513). docs/evaluation.md gives the figures.

mod dooz;
mod el_filja;
mod lasker;
mod moving;
mod placing;
mod russian;
mod twelve;

use super::features::{Evaluation, can_close_mill};
use super::params::{Phase, WeightSet};
use crate::core::rules::PlacingMill;
use crate::core::{Bitboard, Position, Rules};

/// Whether the placing patterns apply: the rules they were fitted under (nine
/// pieces, no diagonals, no moving while placing, mills remove at once and
/// every time they close).
#[inline]
pub fn apply(rules: &Rules) -> bool {
    rules.pieces == 9
        && !rules.diagonals
        && !rules.one_time_mills
        && !rules.move_in_placing
        && rules.placing_mill == PlacingMill::RemoveFromBoard
}

/// The 16 lines by point index (ring by ring, eight points a ring, the
/// midpoints at even slots: `core::point`), each with its middle point in
/// the middle, in the order of `scripts/patterns_fit.py`.
const LINES: [[usize; 3]; 16] = {
    let mut l = [[0; 3]; 16];
    let mut ring = 0;
    while ring < 3 {
        let mut k = 0;
        while k < 4 {
            let mid = ring * 8 + 2 * k;
            l[ring * 4 + k] = [ring * 8 + (2 * k + 7) % 8, mid, ring * 8 + 2 * k + 1];
            k += 1;
        }
        ring += 1;
    }
    let mut m = 0;
    while m < 4 {
        l[12 + m] = [2 * m, 2 * m + 8, 2 * m + 16];
        m += 1;
    }
    l
};

/// Each line's class under the board's symmetries: the outer and inner
/// rings' sides 0, the middle ring's sides 1, the cross lines 2.
const CLASS: [usize; 16] = [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2];

/// The 20 lines of the board with diagonals: `LINES`, then the diagonals
/// from the outer ring's corners a1, a7, g7 and g1 inwards (corner slots 5,
/// 7, 1 and 3 of each ring), in the order of `scripts/selfplay_patterns.py`.
#[cfg(test)]
const LINES_DIAGONAL: [[usize; 3]; 20] = {
    let mut l = [[0; 3]; 20];
    let mut i = 0;
    while i < 16 {
        l[i] = LINES[i];
        i += 1;
    }
    let corners = [5, 7, 1, 3];
    let mut k = 0;
    while k < 4 {
        let c = corners[k];
        l[16 + k] = [16 + c, 8 + c, c];
        k += 1;
    }
    l
};

/// The four other points of each point's cross, the two lines through it
/// (`scripts/patterns_fit.py`'s `CROSS_POINTS`): each line in `LINES`'
/// order, its two ends where the point is its middle, else its middle and
/// then its far end.
const CROSS_POINTS: [[usize; 4]; 24] = {
    let mut c = [[0; 4]; 24];
    let mut p = 0;
    while p < 24 {
        let mut n = 0;
        let mut i = 0;
        while i < 16 {
            let [a, b, e] = LINES[i];
            if p == b {
                c[p][n] = a;
                c[p][n + 1] = e;
                n += 2;
            } else if p == a || p == e {
                c[p][n] = b;
                c[p][n + 1] = if p == a { e } else { a };
                n += 2;
            }
            i += 1;
        }
        p += 1;
    }
    c
};

/// Each point's class under the board's symmetries, for its cross: 0 a
/// corner of the outer or inner ring, 1 a corner of the middle ring, 2 a
/// midpoint of the outer or inner ring, 3 a midpoint of the middle ring.
const CROSS_CLASS: [usize; 24] = {
    let mut c = [0; 24];
    let mut p = 0;
    while p < 24 {
        c[p] = (p / 8 == 1) as usize + 2 * (p % 2 == 0) as usize;
        p += 1;
    }
    c
};

/// For each point, the crosses a piece on it counts in, with the weight
/// of its digit in their index (`placing::CROSS`): its own cross (81) and
/// the crosses of the four points it shares a line with (27, 9, 3 or 1 by
/// its place among their `CROSS_POINTS`).
const CROSS_SPOTS: [[(u8, u8); 5]; 24] = {
    let mut spots = [[(0, 0); 5]; 24];
    let mut filled = [1; 24];
    let mut p = 0;
    while p < 24 {
        spots[p][0] = (p as u8, 81);
        p += 1;
    }
    let weights = [27, 9, 3, 1];
    p = 0;
    while p < 24 {
        let mut k = 0;
        while k < 4 {
            let q = CROSS_POINTS[p][k];
            spots[q][filled[q]] = (p as u8, weights[k]);
            filled[q] += 1;
            k += 1;
        }
        p += 1;
    }
    spots
};

/// The sum of Nine's cross weights (`placing::CROSS`) over the 24 points,
/// for what `ours` and `theirs` hold on each point and the lines through
/// it: each piece adds its digit (1 ours, 2 theirs) at its weight to the
/// index of the five crosses it stands in.
#[inline(always)]
fn crosses(ours: Bitboard, theirs: Bitboard) -> i32 {
    let mut index = [0u8; 24];
    for (bits, digit) in [(ours.0, 1), (theirs.0, 2)] {
        let mut b = bits;
        while b != 0 {
            let q = b.trailing_zeros() as usize;
            b &= b - 1;
            for &(p, weight) in &CROSS_SPOTS[q] {
                index[usize::from(p)] += digit * weight;
            }
        }
    }
    let mut score = 0;
    for (p, &i) in index.iter().enumerate() {
        score += i32::from(placing::CROSS[CROSS_CLASS[p]][usize::from(i)]);
    }
    score
}

/// `CLASS`, and the diagonals' class 3.
#[cfg(test)]
const CLASS_DIAGONAL: [usize; 20] = [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2, 3, 3, 3, 3];

/// Nine Men's Morris's placing patterns (`placing.rs`) in the shape of the
/// others: the diagonals' class and the hands above nine stay 0, and
/// neither occurs where `apply` holds.
const NINE_PLACING: PlacingPatterns = {
    let mut line = [[0; 27]; 4];
    let mut c = 0;
    while c < 3 {
        line[c] = placing::LINE[c];
        c += 1;
    }
    let mut hand = [[0; 13]; 13];
    let mut o = 0;
    while o < 10 {
        let mut t = 0;
        while t < 10 {
            hand[o][t] = placing::HAND[o][t];
            t += 1;
        }
        o += 1;
    }
    PlacingPatterns {
        diagonals: false,
        line,
        hand,
        material: placing::MATERIAL,
        bias: placing::BIAS,
    }
};

/// The evaluation of the placing position `pos` (rules for which `apply`
/// holds), for the side to move, in centipieces.
#[inline]
pub fn evaluate(pos: &Position, rules: &Rules) -> Evaluation {
    let mut e = evaluate_placing(pos, rules, &NINE_PLACING);
    let us = pos.side_to_move();
    e.score += crosses(pos.pieces(us), pos.pieces(us.opponent()));
    e
}

/// A placing evaluation of line patterns (Nine Men's Morris's fitted to its
/// databases, the others to self-play games' results), over the 16 lines
/// of the board (`LINES`) or the 20 of the board with diagonals
/// (`LINES_DIAGONAL`), for at most twelve pieces a side.
pub struct PlacingPatterns {
    /// Whether the board has diagonals: the table is used only on its
    /// board.
    pub diagonals: bool,
    /// By class of line (outer and inner sides, middle sides, cross lines,
    /// diagonals) and configuration `a * 9 + b * 3 + c` of its points in
    /// order (0 empty, 1 the side to move's, 2 the other's).
    pub line: [[i16; 27]; 4],
    /// By the side to move's pieces in hand and the other's.
    pub hand: [[i16; 13]; 13],
    /// A piece more, on the board or in hand.
    pub material: i32,
    pub bias: i32,
}

/// The self-play placing patterns that score `rules`, if any: the rule
/// sets that Twelve's weights score (twelve pieces, diagonals, placing
/// mills that remove from the board, White first when placing ends) share
/// one table; Dooz, Lasker and El Filja have their own, each on the board
/// it was fitted on. (Experimental's and Da San Qi's, fitted the same
/// way, predicted their games far better but gained nothing in self-play:
/// docs/experiments.md.)
#[inline]
pub fn placing_patterns(rules: &Rules) -> Option<&'static PlacingPatterns> {
    let table = match WeightSet::of(rules) {
        WeightSet::Twelve => &twelve::PATTERNS,
        WeightSet::Dooz => &dooz::PATTERNS,
        WeightSet::Lasker => &lasker::PATTERNS,
        WeightSet::ElFilja => &el_filja::PATTERNS,
        WeightSet::Russian => &russian::PATTERNS,
        _ => return None,
    };
    (table.diagonals == rules.diagonals).then_some(table)
}

/// The evaluation of the placing position `pos` by the patterns `p` (of
/// `rules`' board), for the side to move, in centipieces.
#[inline]
pub fn evaluate_placing(pos: &Position, rules: &Rules, p: &PlacingPatterns) -> Evaluation {
    let us = pos.side_to_move();
    let them = us.opponent();
    let (ours, theirs) = (pos.pieces(us), pos.pieces(them));
    let lines = lines(&p.line, p.diagonals, ours, theirs);
    let (our_hand, their_hand) = (pos.in_hand(us), pos.in_hand(them));
    let hand = p.hand[usize::from(our_hand.min(12))][usize::from(their_hand.min(12))];
    let material = (ours.count() as i32 + i32::from(our_hand))
        - (theirs.count() as i32 + i32::from(their_hand));
    let features = rules.geometry().line_features(ours, pos.empty());
    Evaluation {
        score: p.bias + lines + i32::from(hand) + p.material * material,
        can_close: can_close_mill(pos, rules, us, &features),
    }
}

/// What Nine Men's Morris's moving patterns (fitted to its databases) add
/// for a stepping side with fewer than five moves, against five, by
/// `min(moves, 5)`: `[0]` for the side to move, `[1]` for the other
/// (none counts as one: the side to move with none has lost before it is
/// scored). The weighted terms of a stepping side under one-time mills
/// (Russian mill) add them (`eval`): its linear mobility weight values
/// each move alike.
pub const CRAMP: [[i32; 6]; 2] = {
    let mut c = [[0; 6]; 2];
    let mut k = 0;
    while k < 5 {
        let m = if k == 0 { 1 } else { k };
        c[0][k] = (moving::OUR_MOBILITY[m] - moving::OUR_MOBILITY[5]) as i32;
        c[1][k] = (moving::THEIR_MOBILITY[m] - moving::THEIR_MOBILITY[5]) as i32;
        k += 1;
    }
    c
};

/// Whether the moving patterns apply: Nine's rules, flying at three.
#[inline]
pub fn apply_moving(rules: &Rules) -> bool {
    apply(rules) && rules.flying && rules.fly_at == 3
}

/// Whether the patterns, not the weighted terms, score `phase` under
/// `rules`.
#[inline]
pub fn score_phase(phase: Phase, rules: &Rules) -> bool {
    match phase {
        Phase::Placing => apply(rules) || placing_patterns(rules).is_some(),
        Phase::Moving => apply_moving(rules),
        Phase::Flying => false,
    }
}

/// The patterns' evaluation of `pos`, whose phase is `phase`, for which
/// `score_phase` holds.
#[inline]
pub fn evaluate_phase(pos: &Position, rules: &Rules, phase: Phase) -> Evaluation {
    match (phase, placing_patterns(rules)) {
        (Phase::Placing, Some(p)) => evaluate_placing(pos, rules, p),
        (Phase::Placing, None) => evaluate(pos, rules),
        _ => evaluate_moving(pos, rules),
    }
}

/// A line's configuration (`config = 9 d0 + 3 d1 + d2`, each point's
/// digit 0 empty, 1 ours, 2 theirs) from the three bits of one side on
/// it, bit `k` for the line's point `k`: the `ours` part; twice it is the
/// `theirs` part.
const TERNARY: [usize; 8] = {
    let mut t = [0; 8];
    let mut b = 0;
    while b < 8 {
        t[b] = 9 * (b & 1) + 3 * ((b >> 1) & 1) + ((b >> 2) & 1);
        b += 1;
    }
    t
};

/// `TERNARY` for the three bits in the reverse order (bit 2 for the
/// line's point 0): the diagonals run from the outer ring inwards.
const TERNARY_REVERSED: [usize; 8] = {
    let mut t = [0; 8];
    let mut b = 0;
    while b < 8 {
        t[b] = TERNARY[((b & 1) << 2) | (b & 2) | ((b >> 2) & 1)];
        b += 1;
    }
    t
};

/// The sum of the weights of `table` by line class for what `ours` and
/// `theirs` hold on each of the board's lines: `LINES` (classes `CLASS`),
/// and with `diagonals` the four of `LINES_DIAGONAL` after them (class
/// 3). A ring's side is three consecutive bits of the ring's byte (with
/// its wrap), a cross line or a diagonal one bit of each ring at the
/// same slot, so each line's bits come out with a shift and a mask
/// (`tests::lines_agree_with_the_point_by_point_sum`).
#[inline(always)]
fn lines(table: &[[i16; 27]], diagonals: bool, ours: Bitboard, theirs: Bitboard) -> i32 {
    let (ours, theirs) = (ours.0, theirs.0);
    let config =
        |digits: &[usize; 8], o: u32, t: u32| digits[o as usize & 7] + 2 * digits[t as usize & 7];
    let mut score = 0;
    for ring in 0..3 {
        // The ring's byte twice over: side k is bits 2k + 7 to 2k + 9.
        let twice = |b: u32| {
            let r = (b >> (8 * ring)) & 0xff;
            r | (r << 8)
        };
        let (o, t) = (twice(ours), twice(theirs));
        for k in 0..4 {
            let shift = 2 * k + 7;
            let c = config(&TERNARY, o >> shift, t >> shift);
            score += i32::from(table[CLASS[ring * 4 + k]][c]);
        }
    }
    // One bit of each ring at `slot`: bit k ring k's.
    let across = |b: u32, slot: usize| {
        let c = (b >> slot) & 0x01_01_01;
        c | (c >> 7) | (c >> 14)
    };
    for m in 0..4 {
        let c = config(&TERNARY, across(ours, 2 * m), across(theirs, 2 * m));
        score += i32::from(table[2][c]);
    }
    if diagonals {
        for slot in [5, 7, 1, 3] {
            let c = config(&TERNARY_REVERSED, across(ours, slot), across(theirs, slot));
            score += i32::from(table[3][c]);
        }
    }
    score
}

/// The evaluation of the moving position `pos` (rules for which
/// `apply_moving` holds, no side flying), for the side to move.
#[inline]
pub fn evaluate_moving(pos: &Position, rules: &Rules) -> Evaluation {
    let us = pos.side_to_move();
    let them = us.opponent();
    let (ours, theirs, empty) = (pos.pieces(us), pos.pieces(them), pos.empty());
    let g = rules.geometry();
    let [fu, ft] = g.line_features_pair(ours, theirs, empty);
    let [mu, mt] = g.mobility_pair(ours, theirs, empty);
    let can_close = can_close_mill(pos, rules, us, &fu);
    let mut score = moving::BIAS + lines(&moving::LINE, false, ours, theirs);
    score +=
        i32::from(moving::MATERIAL[ours.count().min(9) as usize][theirs.count().min(9) as usize]);
    score += i32::from(moving::OUR_MOBILITY[mu.min(14) as usize]);
    score += i32::from(moving::THEIR_MOBILITY[mt.min(14) as usize]);
    if can_close {
        score += moving::WE_CLOSE;
    }
    if can_close_mill(pos, rules, them, &ft) {
        score += moving::THEY_CLOSE;
    }
    Evaluation { score, can_close }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Move, MoveList, Point, Variant};
    use crate::tb::symmetry;

    #[test]
    fn the_cramp_grows_as_a_side_runs_out_of_moves() {
        for k in 1..5 {
            assert!(CRAMP[0][k] < CRAMP[0][k + 1], "{:?}", CRAMP[0]);
            assert!(CRAMP[1][k] > CRAMP[1][k + 1], "{:?}", CRAMP[1]);
        }
        assert_eq!((CRAMP[0][0], CRAMP[1][0]), (CRAMP[0][1], CRAMP[1][1]));
        assert_eq!((CRAMP[0][5], CRAMP[1][5]), (0, 0));
    }

    #[test]
    fn the_lines_are_the_boards_with_the_middle_in_the_middle() {
        for (variant, lines) in [
            (Variant::Nine, &LINES[..]),
            (Variant::Twelve, &LINES_DIAGONAL[..]),
        ] {
            lines_are_the_boards(variant, lines);
        }
    }

    #[test]
    fn crosses_are_the_fits_and_agree_with_the_point_by_point_sum() {
        assert_eq!(CROSS_POINTS, placing::CROSS_POINTS);
        for (p, others) in CROSS_POINTS.iter().enumerate() {
            // Two lines through each point, each once.
            let through: Vec<_> = LINES.iter().filter(|l| l.contains(&p)).collect();
            assert_eq!(through.len(), 2);
            for (k, line) in through.iter().enumerate() {
                assert!(line.contains(&others[2 * k]) && line.contains(&others[2 * k + 1]));
            }
        }
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(28);
        for _ in 0..2_000 {
            let (ours, theirs) = random_board(&mut rng);
            let digit = |p: usize| ((ours >> p) & 1) as usize + 2 * ((theirs >> p) & 1) as usize;
            let mut want = 0;
            for (p, others) in CROSS_POINTS.iter().enumerate() {
                let index = others.iter().fold(digit(p), |i, &q| i * 3 + digit(q));
                want += i32::from(placing::CROSS[CROSS_CLASS[p]][index]);
            }
            assert_eq!(
                crosses(Bitboard(ours), Bitboard(theirs)),
                want,
                "{ours:#x} {theirs:#x}"
            );
        }
    }

    /// A board of each point empty, ours or theirs at random: (ours, theirs).
    fn random_board(rng: &mut impl rand::Rng) -> (u32, u32) {
        let (mut ours, mut theirs) = (0u32, 0u32);
        for p in 0..24 {
            match rng.gen_range(0..3) {
                1 => ours |= 1 << p,
                2 => theirs |= 1 << p,
                _ => {}
            }
        }
        (ours, theirs)
    }

    #[test]
    fn lines_agree_with_the_point_by_point_sum() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(27);
        for _ in 0..2_000 {
            let mut table = [[0i16; 27]; 4];
            for w in table.iter_mut().flatten() {
                *w = rng.gen_range(-500..500);
            }
            let (ours, theirs) = random_board(&mut rng);
            for (diagonals, points) in [(false, &LINES[..]), (true, &LINES_DIAGONAL[..])] {
                let mut want = 0;
                for (line, &class) in points.iter().zip(&CLASS_DIAGONAL) {
                    let config = line.iter().fold(0, |c, &p| {
                        c * 3 + ((ours >> p) & 1) as usize + 2 * ((theirs >> p) & 1) as usize
                    });
                    want += i32::from(table[class][config]);
                }
                let got = lines(&table, diagonals, Bitboard(ours), Bitboard(theirs));
                assert_eq!(got, want, "{ours:#x} {theirs:#x} diagonals {diagonals}");
            }
        }
    }

    fn lines_are_the_boards(variant: Variant, lines: &[[usize; 3]]) {
        let rules = variant.rules();
        let g = rules.geometry();
        let bits = |l: &[usize; 3]| Bitboard(l.iter().map(|&p| 1 << p).sum());
        let mut ours: Vec<u32> = lines.iter().map(|l| bits(l).0).collect();
        let mut board: Vec<u32> = g.lines.iter().map(|b| b.0).collect();
        ours.sort_unstable();
        board.sort_unstable();
        assert_eq!(ours, board, "{variant:?}");
        for l in lines {
            // The middle point is adjacent to both ends; the ends are not
            // adjacent to each other.
            assert!(g.adjacent[l[1]].0 & (1 << l[0]) != 0);
            assert!(g.adjacent[l[1]].0 & (1 << l[2]) != 0);
            assert!(g.adjacent[l[0]].0 & (1 << l[2]) == 0);
        }
    }

    #[test]
    fn they_apply_where_the_placing_phase_is_nines() {
        for v in [Variant::Nine, Variant::ChengSanQi] {
            assert!(apply(&v.rules()), "{v:?}");
        }
        // Russian Mill's one-time mills change what a closed line is worth.
        for v in [
            Variant::Russian,
            Variant::Twelve,
            Variant::Lasker,
            Variant::Dooz,
            Variant::ElFilja,
        ] {
            assert!(!apply(&v.rules()), "{v:?}");
        }
    }

    #[test]
    fn the_self_play_patterns_apply_where_they_were_fitted() {
        let table = |r: &Rules| placing_patterns(r).map(|p| p as *const _);
        for (v, fitted) in [
            (Variant::Twelve, &twelve::PATTERNS),
            (Variant::Morabaraba, &twelve::PATTERNS),
            (Variant::ZhiQi, &twelve::PATTERNS),
            (Variant::Dooz, &dooz::PATTERNS),
            (Variant::Lasker, &lasker::PATTERNS),
            (Variant::ElFilja, &el_filja::PATTERNS),
            (Variant::Russian, &russian::PATTERNS),
        ] {
            let rules = v.rules();
            assert_eq!(table(&rules), Some(fitted as *const _), "{v:?}");
            assert!(!apply(&rules), "{v:?}");
            assert!(score_phase(Phase::Placing, &rules), "{v:?}");
            assert!(!score_phase(Phase::Moving, &rules), "{v:?}");
        }
        for v in [
            Variant::Nine,
            Variant::ChengSanQi,
            Variant::DaSanQi,
            Variant::Experimental,
        ] {
            assert_eq!(table(&v.rules()), None, "{v:?}");
        }
        // A table is used only on the board it was fitted on.
        let el_filja_diagonals = Rules {
            diagonals: true,
            ..Variant::ElFilja.rules()
        };
        assert_eq!(table(&el_filja_diagonals), None);
    }

    /// The positions of random games of `variant`, with the moves that led
    /// to each.
    fn random_positions(variant: Variant) -> Vec<(Position, Vec<Move>)> {
        let rules = variant.rules();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut out = Vec::new();
        let mut list = MoveList::new();
        for _ in 0..60 {
            let mut pos = Position::startpos(&rules);
            let mut moves = Vec::new();
            for _ in 0..150 {
                pos.legal_moves(&rules, &mut list);
                if list.is_empty() {
                    break;
                }
                out.push((pos, moves.clone()));
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let m = list.as_slice()[seed as usize % list.len()];
                pos = pos.play(&rules, m).unwrap();
                moves.push(m);
            }
        }
        out
    }

    /// The patterns' evaluation of `pos`: in Nine Men's Morris every phase
    /// but flying, in the rule sets with self-play patterns placing
    /// (written out, not `score_phase`, so that the tests check the
    /// engine's choice).
    fn patterns_of(pos: &Position, rules: &Rules) -> Option<Evaluation> {
        let fitted = match (rules.placing_mill, rules.move_in_placing) {
            (PlacingMill::RemoveFromHand, _) => &dooz::PATTERNS,
            (PlacingMill::ByMillCounts, _) => &el_filja::PATTERNS,
            (_, true) => &lasker::PATTERNS,
            _ => &twelve::PATTERNS,
        };
        match (Phase::of(pos, rules), rules.pieces) {
            (Phase::Placing, 9) => Some(evaluate(pos, rules)),
            (Phase::Moving, 9) => Some(evaluate_moving(pos, rules)),
            (Phase::Placing, _) => Some(evaluate_placing(pos, rules, fitted)),
            _ => None,
        }
    }

    /// A rule set of each of the patterns' tables (Nine's, and each
    /// self-play table).
    const SCORED: [Variant; 5] = [
        Variant::Nine,
        Variant::Twelve,
        Variant::Dooz,
        Variant::Lasker,
        Variant::ElFilja,
    ];

    #[test]
    fn a_mill_to_close_is_seen_as_the_terms_see_it() {
        // The quiescence search relies on `can_close`; flying positions
        // keep the terms.
        for variant in SCORED {
            let rules = variant.rules();
            let mut seen = [[0; 2]; 3];
            for (pos, _) in random_positions(variant) {
                let terms = crate::search::eval::evaluate_by_terms(&pos, &rules);
                let e = patterns_of(&pos, &rules).unwrap_or(terms);
                assert_eq!(e.can_close, terms.can_close, "{}", pos.fen(&rules));
                assert_eq!(crate::search::eval::evaluate(&pos, &rules), e.score);
                seen[Phase::of(&pos, &rules) as usize][usize::from(e.can_close)] += 1;
            }
            // Random twelve-piece games fill the board before anyone flies.
            let phases = if variant == Variant::Nine { 3 } else { 2 };
            for (phase, n) in seen.iter().enumerate().take(phases) {
                assert!(n[0] > 20 && n[1] > 20, "{variant:?} {phase}: {n:?}");
            }
        }
    }

    #[test]
    fn the_boards_symmetries_keep_the_evaluation() {
        // Random games are replayed under each of the 16 symmetries (the
        // diagonals' board has them all).
        for variant in SCORED {
            let checked = symmetric_scores(variant);
            let moving = if variant == Variant::Nine { 100 } else { 0 };
            assert!(
                checked[0] > 1000 && checked[1] >= moving,
                "{variant:?}: {checked:?}"
            );
        }
    }

    /// Checks that the patterns score each random position of `variant` as
    /// its image under each symmetry; how many placing and moving
    /// positions were compared.
    fn symmetric_scores(variant: Variant) -> [usize; 2] {
        let rules = variant.rules();
        let image =
            |s: usize, p: Point| Point::new(symmetry::map_point(s, p.index()) as u8).unwrap();
        let mut checked = [0; 2];
        for (pos, moves) in random_positions(variant).into_iter().step_by(7) {
            let Some(e) = patterns_of(&pos, &rules) else {
                continue;
            };
            for s in 1..symmetry::COUNT {
                let mut q = Position::startpos(&rules);
                for m in &moves {
                    let to = image(s, m.to().unwrap());
                    let mut n = match m.from() {
                        Some(from) => Move::slide(image(s, from), to),
                        None => Move::place(to),
                    };
                    for r in m.removals() {
                        n = n.with_removal(image(s, r));
                    }
                    q = q.play(&rules, n).unwrap();
                }
                let f = patterns_of(&q, &rules).unwrap();
                assert_eq!(f.score, e.score, "{} under {s}", pos.fen(&rules));
                checked[usize::from(Phase::of(&q, &rules) == Phase::Moving)] += 1;
            }
        }
        checked
    }
}
