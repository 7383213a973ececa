//! The engine's text protocols through the built binary: a session's
//! commands (`session`), the refusal of bad input (`errors`), the search
//! commands (`go`), whole sessions piped in at once (`pipes`), GBGP mode
//! (`gbgp`) and the README's example session (`readme`). One test binary: `cargo test --test protocol`.

#[path = "../common/mod.rs"]
mod common;

mod errors;
mod gbgp;
mod go;
mod pipes;
mod readme;
mod session;
