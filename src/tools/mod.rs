//! Command-line tools built on the engine API, each behind a clap
//! subcommand: the match runner, the database builder and the browser
//! GUI.

pub mod gui;
pub mod match_runner;
pub mod tb;
