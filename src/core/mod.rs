//! The rules of Mill: points and bitboards, geometry, rule sets, moves and
//! notation, positions, move generation, FEN, zobrist keys, game status
//! with history, and perft. No I/O. Beyond std it uses `thiserror` for its
//! error enums and `serde`'s derive for PGN games (`mulino pgn` writes
//! them as JSON); nothing of the engine, the databases or the products.

pub mod fen;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod moves;
pub mod options;
pub mod perft;
pub mod pgn;
pub mod point;
pub mod position;
pub mod rules;
pub mod zobrist;

pub use fen::{FenAction, FenError, FenPhase, Setup};
pub use game::{Game, StartRepetition};
pub use moves::{Move, MoveList, MoveParseError};
pub use options::{OptionKind, OptionValue, RuleOption};
pub use point::{Bitboard, Color, Point};
pub use position::{DrawReason, Outcome, PlayError, Position, WinReason};
pub use rules::{FullBoardAction, PlacingMill, Rules, UnknownVariant, Variant};
