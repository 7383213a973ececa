//! The databases: the moving phase's `.tb` and `.dtz` files built and
//! checked (`moving`), `.wdz` files (`wdz`), the placing phase's layers
//! (`placing`: the placing databases, not the placing rules, which are the
//! rules core's), the engine playing from them (`play`) and `mulino
//! judge` valuing the moves of games (`judge`), `mulino tb wdl` fitting
//! the score's win, draw and loss shares (`score_wdl`), over small
//! sets of files built once per run (`fixture`); `layout` compares files
//! of this format with those of the one before. One test binary:
//! `cargo test --test tb`.

#[path = "../common/mod.rs"]
mod common;

mod books;
mod fixture;
mod judge;
mod layout;
mod moving;
mod pack;
mod placing;
mod plan;
mod play;
mod score_wdl;
mod wdz;
