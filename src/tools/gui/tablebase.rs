//! HOOK (endgame databases): where `mulino gui` will ask the endgame
//! tablebases about a position, once they exist.
//!
//! Another engineer is building the tablebases now. Until they land,
//! [`probe`] knows nothing and the page shows no database line; the API's
//! state carries `"tablebase": null`. To connect them, make [`probe`]
//! answer from the tablebase module and fill [`TbAnswer`]; the page
//! (app.js, `renderTablebase`) already shows any non-null answer.

use crate::core::{Position, Rules};

/// What a tablebase knows about a position, side to move's view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbAnswer {
    /// `"win"`, `"draw"` or `"loss"`.
    pub result: &'static str,
    /// Plies to the end with best play, when the base stores it.
    pub plies: Option<u32>,
}

/// The tablebase's verdict on `pos`: always `None` for now (no probing is
/// implemented; see the module header).
pub fn probe(_pos: &Position, _rules: &Rules) -> Option<TbAnswer> {
    None
}
