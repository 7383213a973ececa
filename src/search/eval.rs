//! Static evaluation, from the side to move's point of view, in
//! centipieces (100 = one piece). Weights live in `params`.

use super::params::{self, EvalWeights, PIECE};
use crate::core::geometry::Geometry;
use crate::core::{Bitboard, Color, Point, Position, Rules};

/// Whether a piece of `own` can slide (or fly, or be placed) onto the empty
/// point `e` and complete a line there.
#[inline]
fn can_complete_at(g: &Geometry, own: Bitboard, e: Point, movers: Bitboard) -> bool {
    let parts = &g.partners[e.index()][..g.line_count[e.index()] as usize];
    // A mover completes a line through `e` unless it is one of that line's
    // two pieces.
    parts
        .iter()
        .any(|&part| own.includes(part) && (movers & !part).nonempty())
}

/// Whether `c` can close a mill with its next step from `pos`, given the
/// empty points that complete a line of `c` (`closers`). Every step that
/// earns a removal passes; a few that earn none (a one-time mill formed
/// again) pass too.
#[inline]
pub fn can_close_mill(pos: &Position, rules: &Rules, c: Color, closers: Bitboard) -> bool {
    let g = rules.geometry();
    let own = pos.pieces(c);
    if closers.is_empty() {
        return false;
    }
    if pos.in_hand(c) > 0 {
        return true;
    }
    let flying = pos.can_fly(rules, c);
    closers.clone().any(|e| {
        let movers = if flying {
            own
        } else {
            g.adjacent[e.index()] & own
        };
        can_complete_at(g, own, e, movers)
    })
}

fn weights(pos: &Position, rules: &Rules) -> &'static EvalWeights {
    if pos.in_hand(Color::White) > 0 || pos.in_hand(Color::Black) > 0 {
        &params::PLACING
    } else if Color::ALL.iter().any(|&c| pos.can_fly(rules, c)) {
        &params::FLYING
    } else {
        &params::MOVING
    }
}

/// One side's terms, and the empty points that complete its lines.
fn side_terms(pos: &Position, rules: &Rules, c: Color, w: &EvalWeights) -> (i32, Bitboard) {
    let g = rules.geometry();
    let own = pos.pieces(c);
    let empty = pos.empty();
    let mut s = own.count() as i32 * PIECE + pos.in_hand(c) as i32 * w.in_hand;
    let f = g.line_features(own, empty);
    s += f.open as i32 * w.open_mill
        + f.closed as i32 * w.closed_mill
        + f.double_closers.count() as i32 * w.double_threat;

    if w.mobility != 0 || w.blocked != 0 || w.running_mill != 0 {
        let mobility = g.mobility(own, empty) as i32;
        let blocked = (own & !g.neighbours(empty)).count() as i32;
        if pos.in_hand(c) == 0 && !pos.can_fly(rules, c) {
            // Running mills: pieces of a closed mill that can step out to a
            // point where they complete another line (two count at most).
            let running = f.runners.count().min(2) as i32;
            s += mobility * w.mobility - blocked * w.blocked + running * w.running_mill;
        } else {
            s += mobility * w.mobility / 2;
        }
    }
    (s, f.closers)
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
pub fn evaluate_full(pos: &Position, rules: &Rules) -> Evaluation {
    let us = pos.side_to_move();
    let them = us.opponent();
    let w = weights(pos, rules);
    let (ours, our_closers) = side_terms(pos, rules, us, w);
    let (theirs, _) = side_terms(pos, rules, them, w);
    let mut s = ours - theirs + w.tempo;
    let can_close = can_close_mill(pos, rules, us, our_closers);
    if can_close {
        s += w.closable_now;
    }
    // A side reduced to three pieces with flying off and no move is lost;
    // the search sees it, but shading the score helps it get there.
    if pos.in_hand(them) == 0 && pos.pieces(them).count() <= 3 && !pos.can_fly(rules, them) {
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
