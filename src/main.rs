//! The `mulino` binary: the protocol on stdin/stdout, one protocol command
//! from the command line (`mulino perft 7`), or a tool subcommand.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "mulino",
    version,
    about = "A Mill (Nine Men's Morris) engine speaking a UCI-style protocol"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
}

// Built once per run, so the size of the `Match` variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Sub {
    /// Any protocol command, run once (`mulino perft 7`, `mulino bench`).
    #[command(external_subcommand)]
    Protocol(Vec<String>),
    /// Play a match between engines (see match.md).
    Match(mulino::tools::match_runner::MatchArgs),
}

fn main() {
    let cli = Cli::parse();
    let out = mulino::protocol::Out::stdout();
    match cli.command {
        None => {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            mulino::protocol::run(&mut input, out);
        }
        Some(Sub::Protocol(words)) => mulino::protocol::run_once(&words.join(" "), out),
        Some(Sub::Match(args)) => {
            if let Err(e) = mulino::tools::match_runner::run(args) {
                eprintln!("mulino match: {e:#}");
                std::process::exit(1);
            }
        }
    }
}
