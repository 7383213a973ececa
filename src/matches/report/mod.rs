//! What a match reports: its results counted as games finish
//! ([`tally`]), the match as the reports describe it ([`info`]), and the
//! three forms they take: the progress lines and summary table printed
//! ([`text`]), the games as PGN ([`pgn`]) and the report as JSON, which
//! `mulino match merge` reads back ([`json`]).

pub mod info;
pub mod json;
pub mod pgn;
pub mod tally;
pub mod text;
