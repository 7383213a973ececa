//! `mulino match`: engine-against-engine matches between programs that
//! speak mulino's protocol, GBGP or Sanmill's, refereed by the rules core,
//! with Elo, LOS and an SPRT; PGN and JSON output (described in
//! docs/matches.md).
//!
//! Its rooms form layers, bottom to top; each uses only rooms of the
//! layers below it, never one beside or above it:
//!
//! 1. [`rules`] (the variant and `--rule`s, and [`rules::adjudicate`],
//!    games ended by the endgame databases), [`stats`] (Elo, LOS, SPRT)
//!    and [`openings`] (where games start: openings files and books,
//!    random plies, one opening per pair);
//! 2. [`engine`]: what `--engine` says of an engine, its search limits,
//!    the protocols behind one [`engine::dialect::Dialect`] trait, the
//!    processes and the slot of them each worker plays with;
//! 3. [`config`]: the validated settings, and the parsers of the
//!    command line's values;
//! 4. [`game`]: one game, refereed, recorded, and what it leaves behind;
//! 5. [`report`]: the results counted, and told as text, PGN and JSON;
//! 6. [`args`] (the command line, typed by clap, into a config);
//! 7. [`runner`] (threads and scheduling) and [`merge`] (the reports of a
//!    match's slices, `--shard`, read back and combined); [`run`] here on
//!    top.

pub mod args;
pub mod config;
pub mod engine;
pub mod game;
pub mod merge;
pub mod openings;
pub mod report;
pub mod rules;
pub mod runner;
pub mod stats;

use anyhow::Context;

pub use args::MatchArgs;
pub use runner::{MatchSummary, run_match};

use report::info::MatchInfo;
use report::{json, text};

/// Runs `mulino match`: the match, the summary on stdout, the JSON file;
/// or, for `mulino match merge`, the merged slices' summary and JSON.
pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    if let Some(args::MatchCommand::Merge(merge_args)) = args.command {
        return merge::run(&merge_args);
    }
    let config = args.into_config()?;
    let summary = run_match(&config)?;
    let info = MatchInfo::from_config(&config, &summary.names, summary.openings_digest);
    print!(
        "{}",
        text::summary(&info, &summary.tally, summary.planned, summary.elapsed_s)
    );
    if let Some(path) = &config.json {
        let doc = json::document(&info, &summary.tally, summary.planned, summary.elapsed_s);
        std::fs::write(path, doc.pretty())
            .with_context(|| format!("cannot write JSON file {}", path.display()))?;
    }
    Ok(())
}
