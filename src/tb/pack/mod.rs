//! Packed databases: the whole game in small blocks, compressed one by
//! one, that a reader fetches one at a time and checks against its
//! SHA-256 before it uses a byte of it, from a folder on disk or, by
//! range requests, from any static web host (docs/databases.md, "Packed
//! folders").
//!
//! - `coder`: the binary range coder; `model`: what it is told about each
//!   slot, and the walk over a block (coding, reading and counting it);
//! - `layout`: where a table keeps its slots (the side to move's set
//!   major, so that a position's moves lead into few blocks);
//! - `format`: the manifest, the index and the data files;
//! - `write`: the packer; `read`: the reader, with the storage seam
//!   ([`read::PackSource`]) under it; `compare`: a pack against its
//!   source, position by position.
//!
//! Depends on the rest of `tb` (the index, the files it packs) and on
//! `core`.

pub mod coder;
#[cfg(not(target_family = "wasm"))]
pub mod compare;
pub mod format;
pub mod layout;
pub mod model;
pub mod read;
#[cfg(not(target_family = "wasm"))]
pub mod write;

pub use layout::TableId;
pub use read::{PackSource, Packed};
