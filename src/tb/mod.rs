//! Endgame databases: perfect values and distances for the moving phase
//! (both hands empty, 3 to 9 pieces a side) and for the placing phase
//! above it, so that the whole game of Nine Men's Morris is played
//! perfectly from the first move.
//!
//! From the bottom (each module uses only those above it in this list):
//! - `value`: the values and their byte codes; `error`: what can go wrong;
//!   `trust`: the files already checked.
//! - `nmove`: values under the N-move rules; `rules`: the rules a file is
//!   built for.
//! - `symmetry`: the 16 board symmetries; `index`: dense slots per
//!   symmetry class, and which subspaces a build needs.
//! - `format`: the file format (header, names, checksum);
//!   `mapped`: a finished file, memory-mapped and checked.
//! - `work`: what the builders and checkers share (progress, memory).
//! - `placing` (its layers' index and reader) and `probe`: the value of
//!   a position from files that pass their checksum first; `root`: one
//!   probe of a root and its moves for every caller. The reader needs
//!   nothing of the builders.
//! - `pack`: the packed folders (compressed blocks, read by range
//!   requests too), under `probe` as the mapped files are.
//! - The two phases, shaped alike, each with its `build` and `verify`:
//!   `moving` (and its `nmove_check`) and `placing`, built backward from
//!   the moving phase.
//!
//! Depends on `core` and `largemem` only.

pub mod error;
pub mod format;
pub mod index;
pub mod mapped;
pub mod moving;
pub mod nmove;
pub mod pack;
pub mod placing;
pub mod plan;
pub mod probe;
pub mod root;
pub mod rules;
pub mod symmetry;
pub mod trust;
pub mod value;
pub mod work;

pub use error::TbError;
pub use nmove::{NMoveLimits, TbValue};
pub use rules::TbRules;
pub use value::{Value, Wdl};
