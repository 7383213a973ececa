//! `mulino match` end to end: the built binary plays matches between
//! copies of itself, the misbehaving engines of `tests/engines/` and a
//! fake Sanmill, in one run or in shards, and the tests read its reports
//! and replay its PGN. One test binary: `cargo test --test matches`.

mod books;
mod end_to_end;
mod matching;
mod replies;
mod sanmill;
mod shards;
