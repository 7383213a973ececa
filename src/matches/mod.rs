//! `mulino match`: engine-against-engine matches between programs that
//! speak mulino's protocol, refereed by the rules core, with Elo, LOS and
//! an SPRT; PGN and JSON output (described in match.md).
//!
//! The layers: [`args`] and [`config`] (the command line), [`openings`],
//! [`process`] (engine processes and the registry that kills them),
//! [`slot`] (one set of engines per worker thread), [`referee`] (one
//! game), [`record`] and [`tally`] (results), [`stats`] (Elo and SPRT),
//! [`adjudicate`] (games ended by the endgame databases), [`runner`]
//! (threads and scheduling), and the outputs [`report`],
//! [`pgn`] and [`json`].

pub mod adjudicate;
pub mod args;
pub mod config;
pub mod dialect;
pub mod json;
pub mod openings;
pub mod pgn;
pub mod process;
pub mod record;
pub mod recorder;
pub mod referee;
pub mod report;
pub mod rules;
pub mod runner;
pub mod slot;
pub mod stats;
pub mod tally;

use anyhow::Context;

pub use args::MatchArgs;
pub use runner::{MatchSummary, run_match};

/// Runs `mulino match`: the match, the summary on stdout, the JSON file.
pub fn run(args: MatchArgs) -> anyhow::Result<MatchSummary> {
    let config = args.into_config()?;
    let summary = run_match(&config)?;
    print!(
        "{}",
        report::summary(
            &config,
            &summary.names,
            &summary.tally,
            summary.planned,
            summary.elapsed_s
        )
    );
    if let Some(path) = &config.json {
        let doc = json::document(
            &config,
            &summary.names,
            &summary.tally,
            summary.planned,
            summary.elapsed_s,
        );
        std::fs::write(path, doc.pretty())
            .with_context(|| format!("cannot write JSON file {}", path.display()))?;
    }
    Ok(summary)
}
