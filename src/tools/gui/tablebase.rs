//! HOOK (endgame databases): where `mulino gui` will ask the endgame
//! tablebases about a position, once they exist.
//!
//! The databases live in `crate::tb` (`tb::probe::Tablebases::probe`
//! gives a position's value); the GUI does not probe them yet. Until it
//! does, [`probe`] knows nothing and the page shows no database line; the
//! API's state carries `"tablebase": null`. To connect them, open the
//! `Tablebases` once (a `--tb-path` for `mulino gui`, or the engine's
//! `TablebasePath` option), make [`probe`] answer from them and fill
//! [`TbAnswer`]; the page (app.js, `renderTablebase`) already shows any
//! non-null answer.

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
