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

/// Whether `c` can close a mill with its next step from `pos`.
#[inline]
pub fn can_close_mill(pos: &Position, rules: &Rules, c: Color) -> bool {
    let g = rules.geometry();
    let own = pos.pieces(c);
    let empty = pos.empty();
    let closers = g.closing_points(own, empty);
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

fn side_terms(pos: &Position, rules: &Rules, c: Color, w: &EvalWeights) -> i32 {
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
            // A running mill: a piece of a closed mill that can step out to
            // a point where it completes another line.
            let mut running = 0;
            for p in f.in_mills {
                let rest = own.without(p);
                running += (g.adjacent[p.index()] & empty & f.closers)
                    .any(|q| g.mills_through(q, rest) > 0) as i32;
                if running >= 2 {
                    break;
                }
            }
            s += mobility * w.mobility - blocked * w.blocked + running * w.running_mill;
        } else {
            s += mobility * w.mobility / 2;
        }
    }
    s
}

/// The evaluation of `pos` for the side to move.
pub fn evaluate(pos: &Position, rules: &Rules) -> i32 {
    let us = pos.side_to_move();
    let them = us.opponent();
    let w = weights(pos, rules);
    let mut s = side_terms(pos, rules, us, w) - side_terms(pos, rules, them, w) + w.tempo;
    if can_close_mill(pos, rules, us) {
        s += w.closable_now;
    }
    // A side reduced to three pieces with flying off and no move is lost;
    // the search sees it, but shading the score helps it get there.
    if pos.in_hand(them) == 0 && pos.pieces(them).count() <= 3 && !pos.can_fly(rules, them) {
        s += PIECE / 4;
    }
    s
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
