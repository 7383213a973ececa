//! The `mulino` binary: the protocol on stdin/stdout, one protocol command
//! from the command line (`mulino perft 7`), or a tool subcommand.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "mulino",
    version,
    about = "A Mill (Nine Men's Morris) engine speaking a UCI-style protocol",
    long_about = "A Mill (Nine Men's Morris) engine speaking a UCI-style protocol.\n\n\
        Without a subcommand, mulino reads protocol commands on stdin and answers \
        on stdout (protocol.md; type `help` at the prompt). Any other protocol \
        command can be given as arguments too, as one line: `mulino go depth 8`, \
        `mulino d`. A refused command prints its error on stderr and exits with \
        status 1.",
    // `mulino help` is the protocol's `help` (its commands), which ends
    // by pointing here; `mulino --help` is this, and `mulino help TOOL`
    // the tool's (`help_of`).
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
}

// Built once per run, so the size of the `Match` variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Sub {
    /// Count the move tree from the start position to DEPTH whole turns,
    /// with the count below each first move (the protocol's `perft`).
    Perft {
        /// Depth in whole turns, 1 to 64.
        depth: String,
    },
    /// Search fixed positions to a fixed depth on one thread and print
    /// the node count (the search's signature) and the speed (the
    /// protocol's `bench`).
    Bench {
        /// Depth, 1 to 32 (default 9).
        depth: Option<String>,
    },
    /// Search each position of the endgame benchmark (won and drawn
    /// endgames sampled from the databases) for one move at a fixed node
    /// count, without databases, and count the moves that keep the value.
    Endgames {
        /// Nodes searched for each position.
        #[arg(long, default_value_t = mulino::bench::endgames::DEFAULT_NODES)]
        nodes: u64,
        /// A set of positions (`mulino tb endgames` writes one); default:
        /// Nine Men's Morris's, built in.
        #[arg(long)]
        file: Option<std::path::PathBuf>,
        /// The rules the set's positions are played under.
        #[arg(long, default_value = "nine")]
        variant: mulino::core::Variant,
        /// Also list the positions whose value was thrown away.
        #[arg(long)]
        verbose: bool,
    },
    /// Play a match between engines (see docs/matches.md).
    Match(mulino::matches::MatchArgs),
    /// Make an opening book that neither colour wins, for `mulino match
    /// --openings` (see docs/books.md).
    Book(mulino::book::BookArgs),
    /// Build, verify and count the databases of perfect play: the moving
    /// phase and the placing layers above it.
    Tb(mulino::tb_cli::TbArgs),
    /// Judge games by the databases: every move that threw a win or a
    /// draw away, summed up per player, phase and game.
    Judge(mulino::judge::JudgeArgs),
    /// Play and analyse in the browser: serve the page and print its URL.
    Gui(mulino::web::GuiArgs),
    /// Fit the evaluation's weights to the databases' values, or to the
    /// games' results, over the positions of games (Texel tuning; for the
    /// engine's developers).
    Tune(mulino::tune::TuneArgs),
    /// Print the games of PGN files as JSON, one game a line: its tags (as
    /// `[name, value]` pairs, in order), its moves (`text` and `comments`)
    /// and its result. For scripts (`scripts/millpgn.py` reads games so).
    Pgn {
        /// The PGN files, read in order.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Any other protocol command, run once (`mulino go depth 8`).
    #[command(external_subcommand)]
    Protocol(Vec<String>),
}

/// Runs one protocol line; a refused one is reported on stderr.
fn once(line: &str) -> ExitCode {
    match mulino::protocol::run_once(line, mulino::protocol::Out::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mulino: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `mulino help WORDS...`: the help of a tool subcommand (`mulino help tb
/// build` is `mulino tb build --help`), or `None` when the first word is
/// no tool (then it is the protocol's `help`).
fn help_of(words: &[String]) -> Option<ExitCode> {
    use clap::CommandFactory;
    let (first, rest) = words.split_first()?;
    let mut cli = Cli::command();
    cli.build();
    let mut command = cli.find_subcommand_mut(first)?;
    let mut path = first.clone();
    for word in rest {
        let Some(sub) = command.find_subcommand_mut(word) else {
            eprintln!(
                "mulino help: `{path}` has no subcommand `{word}` (`mulino help {path}` lists them)"
            );
            return Some(ExitCode::from(2));
        };
        command = sub;
        path = format!("{path} {word}");
    }
    print!("{}", command.render_long_help());
    Some(ExitCode::SUCCESS)
}

/// A tool subcommand's exit: its error, with its causes, on stderr.
fn tool(name: &str, result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mulino {name}: {e:#}");
            // A job whose input is missing exits 3, so that a scheduler
            // can tell it from a failure of its own (exit 1).
            match e.downcast_ref::<mulino::tb::plan::PlanError>() {
                Some(mulino::tb::plan::PlanError::MissingInput { .. }) => ExitCode::from(3),
                _ => ExitCode::FAILURE,
            }
        }
    }
}

/// `mulino pgn`: every game of `files` as a line of JSON on stdout.
fn pgn_as_json(files: &[std::path::PathBuf]) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for path in files {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        for game in mulino::core::pgn::read(&text) {
            serde_json::to_writer(&mut out, &game)?;
            writeln!(out)?;
        }
    }
    Ok(())
}

/// `mulino endgames`: the endgame benchmark's count.
fn endgames(
    nodes: u64,
    file: Option<std::path::PathBuf>,
    variant: mulino::core::Variant,
    verbose: bool,
) -> anyhow::Result<()> {
    use anyhow::Context;
    use mulino::bench::endgames;
    let text = match &file {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => endgames::NINE.to_string(),
    };
    let set = endgames::parse(&text)?;
    let report = endgames::run(&set, variant, nodes.max(1))?;
    if verbose {
        for (fen, best) in &report.lost {
            let best = best.map_or("(none)".to_string(), |m| m.to_string());
            println!("lost: {fen} played {best}");
        }
    }
    println!("{report}");
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            let stdin = std::io::stdin();
            // A person at a terminal gets one line of greeting; a program
            // driving the engine gets nothing it did not ask for.
            if stdin.is_terminal() {
                println!("{}", mulino::protocol::greeting());
            }
            mulino::protocol::run(
                Box::new(std::io::BufReader::new(stdin)),
                mulino::protocol::Out::stdout(),
            );
            ExitCode::SUCCESS
        }
        // The depths go to the protocol as typed, so its range checks and
        // messages apply (`mulino perft 7x` fails as `perft 7x` does).
        Some(Sub::Perft { depth }) => once(&format!("perft {depth}")),
        Some(Sub::Bench { depth }) => once(&format!("bench {}", depth.unwrap_or_default())),
        Some(Sub::Protocol(words)) => match words.split_first() {
            Some((help, topic)) if help == "help" => {
                help_of(topic).unwrap_or_else(|| once(&words.join(" ")))
            }
            _ => once(&words.join(" ")),
        },
        Some(Sub::Tb(args)) => tool("tb", mulino::tb_cli::run(args)),
        Some(Sub::Match(args)) => tool("match", mulino::matches::run(args)),
        Some(Sub::Book(args)) => tool("book", mulino::book::run(args)),
        Some(Sub::Tune(args)) => tool("tune", mulino::tune::run(args)),
        Some(Sub::Judge(args)) => tool("judge", mulino::judge::run(args)),
        Some(Sub::Pgn { files }) => tool("pgn", pgn_as_json(&files)),
        Some(Sub::Endgames {
            nodes,
            file,
            variant,
            verbose,
        }) => tool("endgames", endgames(nodes, file, variant, verbose)),
        Some(Sub::Gui(args)) => match mulino::web::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("mulino gui: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every option and argument of every subcommand says what it is for.
    #[test]
    fn every_option_has_a_help_text() {
        fn check(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id != "help" && id != "version" && arg.get_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                check(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        check(&Cli::command(), "mulino", &mut missing);
        assert!(missing.is_empty(), "options without help: {missing:?}");
    }

    /// protocol.md's list of command-line arguments (§1) has a line for
    /// every tool subcommand, and the protocol's `help` names each.
    #[test]
    fn every_subcommand_is_listed_in_protocol_md_and_help() {
        let protocol = include_str!("../protocol.md");
        let list = protocol
            .split("### Command-line arguments")
            .nth(1)
            .and_then(|rest| rest.split("```").nth(1))
            .expect("protocol.md's list of command-line arguments");
        let help = mulino::protocol::uci::help::overview();
        for sub in Cli::command().get_subcommands() {
            let name = sub.get_name();
            assert!(
                list.lines()
                    .any(|l| l.starts_with(&format!("mulino {name} "))),
                "protocol.md lists no `mulino {name}`"
            );
            if !["perft", "bench"].contains(&name) {
                assert!(help.contains(name), "`help` names no {name}");
            }
        }
    }
}
