//! The rules core against outside data: perft counts, Sanmill's test
//! vectors, the later variants' end of placing, and self-play in those
//! variants. One test binary (`cargo test --test rules`); CI runs it in a
//! release build too, where perft checks every count.

mod conformance;
mod perft;
mod variant_rules;
mod variant_selfplay;
