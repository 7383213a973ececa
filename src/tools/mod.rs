//! Command-line tools built on the engine API, each behind a clap
//! subcommand: the match runner.

pub mod match_runner;
pub mod tb;
