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

#[derive(Subcommand)]
enum Sub {
    /// Any protocol command, run once (`mulino perft 7`, `mulino bench`).
    #[command(external_subcommand)]
    Protocol(Vec<String>),
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
    }
}
