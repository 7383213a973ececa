//! Endgame databases of the moving phase (both hands empty): perfect
//! values and distances for every position with 3 to 9 pieces a side.
//!
//! - `symmetry`: the 16 board symmetries.
//! - `index`: dense slots per symmetry class.
//! - `format`: the file format and the values.
//! - `build`: retrograde analysis, pair by pair.
//! - `verify`: every value recomputed from the rules core's moves.
//! - `placing`: the placing phase's layers, built backward from the
//!   moving phase.
//! - `nmove_check`: the values under the N-move rules against a minimax
//!   of its own.
//! - `probe`: the value of a position, from memory-mapped files that
//!   pass their checksum first.
//! - `table`: the builders' working tables, on huge pages.
//! - `rule`: values under the N-move rules (`.tb` and `.dtz` together).
//! - `root`: one probe of a root and its moves for every caller.
//!
//! Depends on `core` only.

pub mod build;
pub mod format;
pub mod index;
pub mod nmove_check;
pub mod placing;
pub mod probe;
pub mod root;
pub mod rule;
pub mod symmetry;
pub mod table;
pub mod verify;

pub use format::{TbError, TbRules, Value};
pub use rule::{NMoveLimits, TbValue, Wdl};
