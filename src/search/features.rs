//! What the evaluations read off a position besides their weights, shared
//! by the weighted terms (`eval`) and the fitted patterns (`patterns`):
//! whether a side can close a mill with its next step, and the result an
//! evaluation hands the search.

use crate::core::geometry::LineFeatures;
use crate::core::{Color, Position, Rules};

/// A static evaluation, and what the quiescence search needs besides.
#[derive(Clone, Copy, Debug)]
pub struct Evaluation {
    /// For the side to move.
    pub score: i32,
    /// Whether the side to move may have a step that closes a mill (if
    /// false, it has none).
    pub can_close: bool,
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
