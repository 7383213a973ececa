//! Static evaluation, from the side to move's point of view, in
//! centipieces (100 = one piece). Weights live in `params`.

use super::params::{self, EvalWeights, PIECE};
use crate::core::geometry::LineFeatures;
use crate::core::rules::PlacingMill;
use crate::core::{Bitboard, Color, Point, Position, Rules};

fn weights(pos: &Position, rules: &Rules) -> &'static EvalWeights {
    if pos.in_hand(Color::White) > 0 || pos.in_hand(Color::Black) > 0 {
        &params::PLACING
    } else if Color::ALL.iter().any(|&c| pos.can_fly(rules, c)) {
        &params::FLYING
    } else {
        &params::MOVING
    }
}

/// One side's terms, from its line features and mobility.
#[inline(always)]
fn side_terms(
    pos: &Position,
    rules: &Rules,
    c: Color,
    w: &EvalWeights,
    f: &LineFeatures,
    blocked: Bitboard,
    mobility: u32,
) -> i32 {
    let own = pos.pieces(c);
    let mut s = own.count() as i32 * PIECE + pos.in_hand(c) as i32 * w.in_hand;
    s += f.open as i32 * w.open_mill
        + f.closed as i32 * w.closed_mill
        + f.double_closers.count() as i32 * w.double_threat;
    if w.mobility != 0 || w.blocked != 0 || w.running_mill != 0 {
        let mobility = mobility as i32;
        if pos.in_hand(c) == 0 && !pos.can_fly(rules, c) {
            // Running mills: pieces of a closed mill that can step out to a
            // point where they complete another line (two count at most).
            let running = f.runners().count().min(2) as i32;
            let blocked = (own & blocked).count() as i32;
            s += mobility * w.mobility - blocked * w.blocked + running * w.running_mill;
        } else {
            s += mobility * w.mobility / 2;
        }
    }
    s
}

/// Whether `c`, whose line features are `f`, can close a mill with its
/// next step from `pos`. Every step that earns a removal passes; a few
/// that earn none (a one-time mill formed again) pass too.
#[inline]
pub fn can_close_mill(pos: &Position, rules: &Rules, c: Color, f: &LineFeatures) -> bool {
    if f.closers.is_empty() {
        false
    } else if pos.in_hand(c) > 0 {
        true
    } else if pos.can_fly(rules, c) {
        // A line with a hole holds two pieces; any third one flies in.
        pos.pieces(c).count() > 2
    } else {
        f.sliders.nonempty()
    }
}

/// Whether `c`, whose line features are `f`, can close a mill next turn
/// at two or more points: a single block does not stop that.
#[inline]
fn threatens_twice(pos: &Position, rules: &Rules, c: Color, f: &LineFeatures) -> bool {
    f.closers.count() >= 2 && can_close_mill(pos, rules, c, f)
}

/// A static evaluation, and what the quiescence search needs besides.
#[derive(Clone, Copy, Debug)]
pub struct Evaluation {
    /// For the side to move.
    pub score: i32,
    /// Whether the side to move may have a step that closes a mill (if
    /// false, it has none).
    pub can_close: bool,
}

/// The evaluation of `pos` for the side to move.
#[inline]
pub fn evaluate(pos: &Position, rules: &Rules) -> i32 {
    evaluate_full(pos, rules).score
}

/// The evaluation of `pos` for the side to move, with its by-products.
#[inline(always)]
pub fn evaluate_full(pos: &Position, rules: &Rules) -> Evaluation {
    evaluate_with(pos, rules, weights(pos, rules))
}

/// `evaluate_full` with the given weights.
#[inline(always)]
fn evaluate_with(pos: &Position, rules: &Rules, w: &EvalWeights) -> Evaluation {
    let us = pos.side_to_move();
    let them = us.opponent();
    let g = rules.geometry();
    let (ours, theirs, empty) = (pos.pieces(us), pos.pieces(them), pos.empty());
    let [fu, ft] = g.line_features_pair(ours, theirs, empty);
    let free = free_points(pos, rules);
    let [mu, mt] = g.mobility_pair(ours, theirs, free);
    // Pieces with no empty neighbour.
    let blocked = !g.neighbours(free);
    let mut s = side_terms(pos, rules, us, w, &fu, blocked, mu)
        - side_terms(pos, rules, them, w, &ft, blocked, mt)
        + w.tempo;
    if rules.placing_mill == PlacingMill::ByMillCounts {
        s += (fu.closed as i32 - ft.closed as i32).signum() * w.mill_majority;
    }
    let can_close = can_close_mill(pos, rules, us, &fu);
    if can_close {
        s += w.closable_now;
    } else if threatens_twice(pos, rules, them, &ft) {
        s -= w.unstoppable_threat;
    }
    // A side reduced to three pieces with flying off and no move is lost;
    // the search sees it, but shading the score helps it get there.
    if pos.in_hand(them) == 0 && theirs.count() <= 3 && !pos.can_fly(rules, them) {
        s += PIECE / 4;
    }
    Evaluation {
        score: s,
        can_close,
    }
}

/// The points the mobility terms count as free: the empty ones, and
/// the marked ones where marks empty when placing ends (Da San Qi), since
/// the pieces around them will be free to move there.
#[inline]
fn free_points(pos: &Position, rules: &Rules) -> Bitboard {
    if rules.placing_mill == PlacingMill::MarkAndDelay {
        pos.empty() | pos.marked()
    } else {
        pos.empty()
    }
}

/// Opponent lines through `p` that hold two of their pieces and an empty
/// point: removing `p` breaks that many threats.
#[inline]
pub fn threats_through(rules: &Rules, p: Point, theirs: Bitboard, empty: Bitboard) -> i32 {
    let g = rules.geometry();
    g.partners[p.index()][..g.line_count[p.index()] as usize]
        .iter()
        .filter(|part| (**part & theirs).count() == 1 && (**part & empty).count() == 1)
        .count() as i32
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::core::{Move, Variant};

    /// Nine men's morris after these placements (the search's tests use it
    /// too).
    pub(in crate::search) fn placed(points: &[&str]) -> (Position, Rules) {
        let rules = Variant::Nine.rules();
        let mut pos = Position::startpos(&rules);
        for p in points {
            let m = Move::place(p.parse().unwrap());
            pos = pos.play(&rules, m).unwrap();
        }
        (pos, rules)
    }

    /// What the double-threat term adds to the evaluation of `pos`.
    fn threat_term(pos: &Position, rules: &Rules) -> i32 {
        let w = weights(pos, rules);
        let without = EvalWeights {
            unstoppable_threat: 0,
            ..*w
        };
        evaluate_with(pos, rules, w).score - evaluate_with(pos, rules, &without).score
    }

    #[test]
    fn two_closing_points_against_a_side_that_cannot_close_cost_it() {
        // White: a7-d7 (g7 closes) and a7-a1 (a4 closes); black to move,
        // with no line of its own to close.
        let (pos, rules) = placed(&["d7", "d3", "a7", "f4", "a1"]);
        assert_eq!(
            threat_term(&pos, &rules),
            -params::PLACING.unstoppable_threat
        );
        // A zero weight would make the other cases pass vacuously.
        const { assert!(params::PLACING.unstoppable_threat > 0) };
    }

    #[test]
    fn a_mill_majority_counts_where_mills_remove_when_placing_ends() {
        // El Filja: white's a7-d7-g7 stands, black has no mill; black to
        // move. The same placements in nine men's morris owe a removal
        // instead, and the term is off there.
        let term = |pos: &Position, rules: &Rules| {
            let w = weights(pos, rules);
            let without = EvalWeights {
                mill_majority: 0,
                ..*w
            };
            evaluate_with(pos, rules, w).score - evaluate_with(pos, rules, &without).score
        };
        let rules = Variant::ElFilja.rules();
        let mut pos = Position::startpos(&rules);
        for p in ["a7", "a1", "d7", "d1", "g7"] {
            pos = pos.play(&rules, Move::place(p.parse().unwrap())).unwrap();
        }
        assert_eq!(pos.side_to_move(), Color::Black);
        assert_eq!(term(&pos, &rules), -params::PLACING.mill_majority);
        // Black closes a1-d1-g1: one mill each, no majority.
        let even = pos
            .play(&rules, Move::place("g1".parse().unwrap()))
            .unwrap();
        assert_eq!(term(&even, &rules), 0);
        let (nine, nine_rules) = placed(&["a7", "a1", "d7", "d1"]);
        let g7xa1 = Move::place("g7".parse().unwrap()).with_removal("a1".parse().unwrap());
        let nine = nine.play(&nine_rules, g7xa1).unwrap();
        assert_eq!(term(&nine, &nine_rules), 0);
        const { assert!(params::PLACING.mill_majority > 0) };
    }

    #[test]
    fn marks_that_empty_when_placing_ends_count_as_free() {
        let rules = Variant::DaSanQi.rules();
        let mut pos = Position::startpos(&rules);
        for m in ["d2", "a1", "f2", "g1"] {
            pos = pos.play(&rules, Move::place(m.parse().unwrap())).unwrap();
        }
        let b2xa1 = Move::place("b2".parse().unwrap()).with_removal("a1".parse().unwrap());
        let pos = pos.play(&rules, b2xa1).unwrap();
        let a1: Point = "a1".parse().unwrap();
        assert!(pos.marked().contains(a1) && !pos.empty().contains(a1));
        assert_eq!(free_points(&pos, &rules), pos.empty().with(a1));
        let (nine, nine_rules) = placed(&["d2", "a1"]);
        assert_eq!(free_points(&nine, &nine_rules), nine.empty());
    }

    #[test]
    fn one_closing_point_is_no_double_threat() {
        // White: a7-d7 only (c4 makes no pair).
        let (pos, rules) = placed(&["d7", "d3", "a7", "f4", "c4"]);
        assert_eq!(threat_term(&pos, &rules), 0);
    }

    #[test]
    fn a_side_that_can_close_first_pays_nothing() {
        // As the first case, but black's d3-e3 closes at c3.
        let (pos, rules) = placed(&["d7", "d3", "a7", "e3", "a1"]);
        assert_eq!(threat_term(&pos, &rules), 0);
    }

    #[test]
    fn a_moving_side_needs_a_piece_that_can_slide_in() {
        // Moving: white's open lines d7-g7 (a7 closes), d1-g1 (a1) and
        // g7-g1 (g4); black, to move, has no open line. Only a white piece
        // on a4 can slide into a hole (a7 or a1).
        let rules = Variant::Nine.rules();
        let fen = |outer: &str, white: u32| {
            format!("@*@*@*@*/@*******/{outer} b m s {white} 0 5 0 0 0 0 0 0 0 0 0 1")
        };
        let stuck = Position::from_fen(&fen("OO*OO***", 4), &rules).unwrap();
        assert_eq!(threat_term(&stuck, &rules), 0);
        let sliding = Position::from_fen(&fen("OO*OO*O*", 5), &rules).unwrap();
        assert_eq!(
            threat_term(&sliding, &rules),
            -params::MOVING.unstoppable_threat
        );
    }
}
