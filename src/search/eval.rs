//! Static evaluation, from the side to move's point of view, in
//! centipieces (100 = one piece). Weights live in `params`.

use super::params::{self, EvalWeights, PIECE};
use crate::core::geometry::LineFeatures;
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
    let us = pos.side_to_move();
    let them = us.opponent();
    let w = weights(pos, rules);
    let g = rules.geometry();
    let (ours, theirs, empty) = (pos.pieces(us), pos.pieces(them), pos.empty());
    let [fu, ft] = g.line_features_pair(ours, theirs, empty);
    let [mu, mt] = g.mobility_pair(ours, theirs, empty);
    // Pieces with no empty neighbour.
    let blocked = !g.neighbours(empty);
    let mut s = side_terms(pos, rules, us, w, &fu, blocked, mu)
        - side_terms(pos, rules, them, w, &ft, blocked, mt)
        + w.tempo;
    let can_close = can_close_mill(pos, rules, us, &fu);
    if can_close {
        s += w.closable_now;
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
