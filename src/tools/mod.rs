//! Command-line tools built on the engine API: the benchmark (and, behind
//! clap subcommands, the match runner).

pub mod bench;
pub mod match_runner;
