//! mulino: a Mill (Nine Men's Morris) engine.
//!
//! Layers, from the bottom (every arrow points down):
//! - [`largemem`]: large zeroed tables on huge pages, for the search's
//!   transposition table and the databases' builders.
//! - [`core`]: the rules, no I/O: points, geometry, rule options, moves,
//!   positions, move generation, FEN, games and their draw rules, perft.
//! - [`tb`]: the endgame databases (index, builder, file format, verify,
//!   probe); it depends on `core` only.
//! - [`search`]: evaluation, move ordering, the transposition table, time
//!   management and the search threads; every tunable number in
//!   `search::params`.
//! - [`engine`]: the engine API, which knows nothing of text, with
//!   [`bench`] beside it.
//! - [`protocol`]: the text dialects over the engine API, side by side:
//!   ours ([`protocol::uci`]) and GBGP ([`protocol::gbgp`]).
//! - The products, each behind a subcommand in `main.rs`: [`matches`]
//!   (`mulino match`), [`book`] (`mulino book`, opening books for
//!   matches), [`web`] (`mulino gui`, the web board; its JSON API
//!   also in WebAssembly, for the board served as static files) and
//!   [`tb_cli`] (`mulino tb`, the database command line), [`judge`]
//!   (`mulino judge`, games judged move by move by the databases); and for the
//!   engine's developers [`tune`] (`mulino tune`, the evaluation's weights
//!   fitted to the databases' values).
//! - [`random`]: at the bottom, seeded draws that stay the same across
//!   machines and versions (openings, books, the skill levels).
//! - [`host`]: at the bottom, what a job on the only thread (WebAssembly)
//!   asks of its host: to hear the lines that came meanwhile.
//! - `wasm` (WebAssembly only): the module's entry points, the protocol
//!   over lines handed in by the JavaScript host, and the web board's
//!   JSON API likewise (protocol.md, §13).

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bench;
#[cfg(not(target_family = "wasm"))]
pub mod book;
pub mod core;
pub mod engine;
pub mod host;
#[cfg(not(target_family = "wasm"))]
pub mod judge;
pub mod largemem;
#[cfg(not(target_family = "wasm"))]
pub mod matches;
pub mod protocol;
pub mod random;
pub mod search;
pub mod tb;
#[cfg(not(target_family = "wasm"))]
pub mod tb_cli;
#[cfg(not(target_family = "wasm"))]
pub mod tune;
#[cfg(target_family = "wasm")]
mod wasm;
pub mod web;
