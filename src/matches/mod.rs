//! `mulino match`: engine-against-engine matches between programs that
//! speak mulino's protocol, refereed by the rules core, with Elo, LOS and
//! an SPRT; PGN and JSON output (described in docs/matches.md).
//!
//! The modules form layers, bottom to top; each uses only modules of the
//! layers below it (`use super::...`), never one beside or above it:
//!
//! 1. [`stats`] (Elo, LOS, SPRT), [`rules`] (`--rule` options),
//!    [`sanmill`] (the rules as Sanmill's options, and the check of its
//!    state) and [`adjudicate`] (games ended by the endgame databases);
//! 2. [`config`]: the validated settings;
//! 3. [`openings`], [`process`] (engine processes and the registry
//!    that kills them) and [`info`] (the match as its reports describe
//!    it);
//! 4. [`record`]: what a finished game leaves behind;
//! 5. [`dialect`] (the protocols engines speak), [`recorder`] (a game's
//!    record while it is played), [`tally`] (results) and [`pgn`];
//! 6. [`args`] (the command line into a config), [`slot`] (one set of
//!    engines per worker thread), and the outputs [`report`] and
//!    [`json`];
//! 7. [`referee`]: one game; [`merge`]: the reports of a match's
//!    slices (`--shard`) read back and combined;
//! 8. [`runner`]: threads and scheduling; [`run`] here on top.

pub mod adjudicate;
pub mod args;
pub mod config;
pub mod dialect;
pub mod info;
pub mod json;
pub mod merge;
pub mod openings;
pub mod pgn;
pub mod process;
pub mod record;
pub mod recorder;
pub mod referee;
pub mod report;
pub mod rules;
pub mod runner;
pub mod sanmill;
pub mod slot;
pub mod stats;
pub mod tally;

use anyhow::Context;

pub use args::MatchArgs;
pub use runner::{MatchSummary, run_match};

/// Runs `mulino match`: the match, the summary on stdout, the JSON file;
/// or, for `mulino match merge`, the merged slices' summary and JSON.
pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    if let Some(args::MatchCommand::Merge(merge_args)) = args.command {
        return merge::run(&merge_args);
    }
    let config = args.into_config()?;
    let summary = run_match(&config)?;
    let info = info::MatchInfo::from_config(&config, &summary.names, summary.openings_digest);
    print!(
        "{}",
        report::summary(&info, &summary.tally, summary.planned, summary.elapsed_s)
    );
    if let Some(path) = &config.json {
        let doc = json::document(&info, &summary.tally, summary.planned, summary.elapsed_s);
        std::fs::write(path, doc.pretty())
            .with_context(|| format!("cannot write JSON file {}", path.display()))?;
    }
    Ok(())
}
