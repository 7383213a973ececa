//! The search through the built binary: forced wins found and proved,
//! positions scored as the rules judge them, the bench signature, and the
//! endgames whose value it keeps (the endgame benchmark). One
//! test binary (`cargo test --test search`); CI runs it in a release build
//! too, so both builds are checked to search the same tree.

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod endgames;
mod positions;
