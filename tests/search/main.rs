//! The search through the built binary: forced wins found and proved,
//! positions scored as the rules judge them, and the bench signature. One
//! test binary (`cargo test --test search`); CI runs it in a release build
//! too, so both builds are checked to search the same tree.

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod positions;
