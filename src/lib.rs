//! mulino: a Mill (Nine Men's Morris) engine.
//!
//! Layers, from the bottom: [`core`] (the rules, no I/O), [`search`],
//! [`engine`] (an API that knows nothing of text), [`protocol`] (the
//! UCI-style text protocol) and [`tools`] (command-line tools).

pub mod core;
pub mod engine;
pub mod protocol;
pub mod search;
pub mod tools;
