//! mulino: a Mill (Nine Men's Morris) engine.
//!
//! Layers, from the bottom: [`core`] (the rules, no I/O), [`search`],
//! [`engine`] (an API that knows nothing of text) with [`bench`] beside
//! it, [`protocol`] (the UCI-style text protocol) and [`gbgp`] (the
//! dialect of the Nine Morris 3D GUI) over that API, and [`tools`]
//! (command-line tools).

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bench;
pub mod core;
pub mod engine;
pub mod gbgp;
pub mod protocol;
pub mod search;
pub mod tb;
pub mod tools;
