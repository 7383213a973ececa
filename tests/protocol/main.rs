//! The engine's text protocols through the built binary: a session's
//! commands (`session`), the refusal of bad input (`errors`), the search
//! commands (`go`), whole sessions piped in at once (`pipes`), the
//! reference perft numbers of every variant (`perft`), GBGP mode
//! (`gbgp`) and the README's example session (`readme`). One test
//! binary: `cargo test --test protocol`; with `MULINO_ENGINE` set, the
//! same against another build of the engine (tests/common/mod.rs):
//! `MULINO_ENGINE="node target/web/mulino.mjs" cargo test --test
//! protocol` checks the WebAssembly one.

#[path = "../common/mod.rs"]
mod common;

mod errors;
mod gbgp;
mod go;
mod perft;
mod pipes;
mod readme;
mod session;
