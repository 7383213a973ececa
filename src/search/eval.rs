//! Static evaluation, from the side to move's point of view, in
//! centipieces (100 = one piece). Weights live in `params`.

use super::params::{self, EvalWeights, PIECE};
use crate::core::{Bitboard, Color, Position, Rules};

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
    if pos.in_hand(c) > 0 || pos.can_fly(rules, c) {
        // Placing, or flying with a piece not on the line to close.
        return pos.in_hand(c) > 0
            || closers
                .clone()
                .any(|e| own.clone().any(|p| g.mills_through(e, own.without(p)) > 0));
    }
    closers
        .clone()
        .any(|e| (g.adjacent[e.index()] & own).any(|p| g.mills_through(e, own.without(p)) > 0))
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

    let closers = g.closing_points(own, empty);
    let mut open = 0;
    let mut closed = 0;
    for &line in g.lines {
        let mine = (line & own).count();
        if mine == 2 && (line & empty).nonempty() {
            open += 1;
        } else if mine == 3 {
            closed += 1;
        }
    }
    s += open * w.open_mill + closed * w.closed_mill;
    s += closers.filter(|&e| g.mills_through(e, own) >= 2).count() as i32 * w.double_threat;

    if w.mobility != 0 || w.blocked != 0 || w.running_mill != 0 {
        let flying = pos.can_fly(rules, c);
        let in_mill = g.pieces_in_mills(own);
        let mut mobility = 0;
        let mut blocked = 0;
        let mut running = 0;
        for p in own {
            let targets = g.adjacent[p.index()] & empty;
            mobility += targets.count() as i32;
            blocked += targets.is_empty() as i32;
            if in_mill.contains(p) {
                let rest = own.without(p);
                running += targets.clone().any(|q| g.mills_through(q, rest) > 0) as i32;
            }
        }
        if !flying && pos.in_hand(c) == 0 {
            s += mobility * w.mobility - blocked * w.blocked + running.min(2) * w.running_mill;
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
pub fn threats_through(
    rules: &Rules,
    p: crate::core::Point,
    theirs: Bitboard,
    empty: Bitboard,
) -> i32 {
    let g = rules.geometry();
    g.partners[p.index()][..g.line_count[p.index()] as usize]
        .iter()
        .filter(|part| (**part & theirs).count() == 1 && (**part & empty).count() == 1)
        .count() as i32
}
