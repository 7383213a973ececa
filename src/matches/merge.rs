//! `mulino match merge`: reads the JSON reports of a match's slices
//! (`mulino match --shard K/N`), checks that they belong together (equal
//! settings, one split, no slice twice, every game inside its slice) and
//! counts all their games again, in game order, into one tally. The
//! summary and the JSON report are then those of the same games played
//! in one run: the same counts, pentanomial, Elo and LLR.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;

use super::args::MergeArgs;
use super::config::Shard;
use super::game::record::{Overruns, Termination, Thinking};
use super::report::info::{EngineInfo, MatchInfo, Merged};
use super::report::json::{self, GameDoc, Report};
use super::report::tally::{GameSummary, Tally, Uncounted};
use super::report::text;
use super::stats::sprt::Sprt;

/// Why reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a report of `mulino match --json`: {what}")]
    NotAReport { path: String, what: String },
    #[error(
        "{first} and {other} are not slices of the same match: `{key}` is `{a}` in {first} but `{b}` in {other}"
    )]
    Settings {
        first: String,
        other: String,
        key: String,
        a: String,
        b: String,
    },
    #[error(
        "{first} is shard {a} and {other} shard {b}: slices of different splits do not merge (give the same N to every --shard K/N)"
    )]
    Split {
        first: String,
        a: Shard,
        other: String,
        b: Shard,
    },
    #[error("shard {shard} is given twice: {first} and {other}")]
    Duplicate {
        shard: Shard,
        first: String,
        other: String,
    },
    #[error("{path}: game {round}: {what}")]
    Game {
        path: String,
        round: u64,
        what: String,
    },
}

/// One slice's report.
struct Slice {
    path: String,
    doc: Report,
    shard: Shard,
    /// `settings`, by name (sorted: slices may list them in any order).
    settings: Vec<(String, String)>,
}

/// Runs `mulino match merge`: prints the merged summary, writes the
/// merged JSON report; an error when slices are missing, after the
/// partial result is printed.
pub fn run(args: &MergeArgs) -> anyhow::Result<()> {
    let reports = args
        .reports
        .iter()
        .map(|p| read_report(p))
        .collect::<Result<Vec<_>, _>>()?;
    let (info, tally, planned, elapsed) = merge(&reports)?;
    print!("{}", text::summary(&info, &tally, planned, elapsed));
    if let Some(path) = &args.json {
        let doc = json::document(&info, &tally, planned, elapsed);
        std::fs::write(path, doc.pretty())
            .with_context(|| format!("cannot write JSON file {}", path.display()))?;
    }
    match info.merged {
        Some(m) if !m.missing.is_empty() => {
            let missing: Vec<String> = m
                .missing
                .iter()
                .map(|k| format!("{k}/{}", m.count))
                .collect();
            anyhow::bail!(
                "shards missing: {} (the result above is partial)",
                missing.join(", ")
            )
        }
        _ => Ok(()),
    }
}

/// Reads a report and its slice (`shard` null: the whole match, 1/1).
fn read_report(path: &Path) -> Result<Slice, MergeError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| MergeError::Read {
        path: name.clone(),
        source,
    })?;
    let not = |what: &str| MergeError::NotAReport {
        path: name.clone(),
        what: what.to_string(),
    };
    let doc: Report = serde_json::from_str(&text).map_err(|e| not(&e.to_string()))?;
    let mut settings = doc.settings.clone();
    settings.sort();
    let shard = match doc.shard {
        None => Shard { index: 1, count: 1 },
        Some(s) if (1..=s.count).contains(&s.index) => Shard {
            index: s.index,
            count: s.count,
        },
        Some(_) => {
            return Err(not(
                "its `shard` is not {index, count} with 1 <= index <= count",
            ));
        }
    };
    Ok(Slice {
        path: name,
        doc,
        shard,
        settings,
    })
}

/// The merged description, tally, games planned and time of `reports`.
fn merge(reports: &[Slice]) -> Result<(MatchInfo, Tally, usize, f64), MergeError> {
    let first = &reports[0];
    let merged = check_together(reports)?;
    let mut info = describe(first)?;
    info.merged = Some(merged);
    let sprt = info.sprt;
    let (mut games, mut uncounted) = (Vec::new(), Vec::new());
    for r in reports {
        for g in &r.doc.games {
            games.push(read_game(r, &info.engines, g)?);
        }
        for u in &r.doc.not_counted {
            let p = place(r, &info.engines, (u.round, u.pair), [&u.white, &u.black])?;
            uncounted.push(Uncounted {
                index: p.index,
                pair: p.pair,
                white: p.white,
                black: p.black,
                reason: u.reason.clone(),
            });
        }
    }
    games.sort_by_key(|g| g.index);
    let mut rounds: Vec<usize> = games.iter().map(|g| g.index).collect();
    rounds.extend(uncounted.iter().map(|u| u.index));
    rounds.sort_unstable();
    if let Some(w) = rounds.windows(2).find(|w| w[0] == w[1]) {
        return Err(MergeError::Game {
            path: first.path.clone(),
            round: w[0] as u64 + 1,
            what: "listed twice among the reports".into(),
        });
    }
    let mut tally = Tally::new(info.engines.len());
    for g in games {
        tally.add(g, sprt.as_ref());
    }
    tally.not_counted = uncounted;
    // The longest overrun of each engine is in its report, not per game.
    for r in reports {
        for (t, e) in tally.engines.iter_mut().zip(&r.doc.engines) {
            let longest = seconds(e.overruns.longest_seconds);
            t.overruns.longest = t.overruns.longest.max(longest);
        }
    }
    let per_pairing: usize =
        setting(first, "games")?
            .parse()
            .map_err(|_| MergeError::NotAReport {
                path: first.path.clone(),
                what: "its `games` setting is not a number".into(),
            })?;
    let planned = per_pairing * (info.engines.len() - 1);
    let elapsed = reports.iter().map(|r| r.doc.elapsed_seconds).sum();
    Ok((info, tally, planned, elapsed))
}

/// Checks that the reports are slices of one match, each once; which of
/// the split's slices they are and which are missing.
fn check_together(reports: &[Slice]) -> Result<Merged, MergeError> {
    let first = &reports[0];
    let mut present: Vec<(u64, &str)> = Vec::new();
    for r in reports {
        if r.shard.count != first.shard.count {
            return Err(MergeError::Split {
                first: first.path.clone(),
                a: first.shard,
                other: r.path.clone(),
                b: r.shard,
            });
        }
        if let Some((_, path)) = present.iter().find(|(k, _)| *k == r.shard.index) {
            return Err(MergeError::Duplicate {
                shard: r.shard,
                first: path.to_string(),
                other: r.path.clone(),
            });
        }
        present.push((r.shard.index, &r.path));
        let keys = first.settings.iter().chain(&r.settings).map(|(k, _)| k);
        for key in keys {
            let (a, b) = (find(&first.settings, key), find(&r.settings, key));
            if a != b {
                return Err(MergeError::Settings {
                    first: first.path.clone(),
                    other: r.path.clone(),
                    key: key.clone(),
                    a: a.unwrap_or("(none)").to_string(),
                    b: b.unwrap_or("(none)").to_string(),
                });
            }
        }
    }
    let mut present: Vec<u64> = present.into_iter().map(|(k, _)| k).collect();
    present.sort_unstable();
    let count = first.shard.count;
    let missing = (1..=count).filter(|k| !present.contains(k)).collect();
    Ok(Merged {
        count,
        present,
        missing,
    })
}

fn find<'a>(settings: &'a [(String, String)], key: &str) -> Option<&'a str> {
    settings
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn setting<'a>(r: &'a Slice, key: &str) -> Result<&'a str, MergeError> {
    find(&r.settings, key).ok_or_else(|| MergeError::NotAReport {
        path: r.path.clone(),
        what: format!("its settings have no `{key}`"),
    })
}

/// The match as `r` describes it (every slice describes it alike).
fn describe(r: &Slice) -> Result<MatchInfo, MergeError> {
    let doc = &r.doc;
    let engines = doc
        .engines
        .iter()
        .map(|e| EngineInfo {
            name: e.name.clone(),
            cmd: e.cmd.clone(),
            limits: e.limits.clone(),
            proto: e.proto.clone(),
        })
        .collect::<Vec<_>>();
    if engines.len() < 2 {
        return Err(MergeError::NotAReport {
            path: r.path.clone(),
            what: "it lists fewer than two engines".into(),
        });
    }
    // The overrides in the order they were applied.
    let rule_overrides = setting(r, "rules")?
        .split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    let sprt = doc
        .pairings
        .first()
        .and_then(|p| p.sprt.as_ref())
        .map(|s| Sprt {
            elo0: s.elo0,
            elo1: s.elo1,
            alpha: s.alpha,
            beta: s.beta,
        });
    Ok(MatchInfo {
        event: doc.event.clone(),
        variant: doc.variant.clone(),
        rule_overrides,
        tb: doc
            .tb
            .as_ref()
            .map(|t| (t.dir.clone(), t.adjudicate.clone())),
        seed: doc.seed,
        concurrency: None,
        sprt,
        engines,
        shard: None,
        merged: None,
        settings: r.settings.clone(),
    })
}

/// A game's place in the match (number, pair, engines, all from 0),
/// checked to be one of `r`'s slice, between engines the report lists.
struct Place {
    index: usize,
    pair: usize,
    white: usize,
    black: usize,
}

/// The place of the game numbered `round` in pair `pair` (both from 1)
/// between `sides` (White's and Black's names).
fn place(
    r: &Slice,
    engines: &[EngineInfo],
    (round, pair): (u64, u64),
    sides: [&str; 2],
) -> Result<Place, MergeError> {
    let bad = |what: String| MergeError::Game {
        path: r.path.clone(),
        round,
        what,
    };
    if pair < 1 || round < 1 {
        return Err(bad("no round or pair number".into()));
    }
    if !r.shard.holds(pair as usize - 1) {
        return Err(bad(format!(
            "pair {pair} is not one of shard {}'s",
            r.shard
        )));
    }
    let [white, black] = [("white", sides[0]), ("black", sides[1])].map(|(side, name)| {
        engines
            .iter()
            .position(|e| e.name == name)
            .ok_or_else(|| bad(format!("{side} `{name}` is none of the report's engines")))
    });
    let (white, black) = (white?, black?);
    if (white == 0) == (black == 0) {
        return Err(bad("the first engine does not play in it".into()));
    }
    Ok(Place {
        index: round as usize - 1,
        pair: pair as usize - 1,
        white,
        black,
    })
}

/// A duration from a report's seconds (0 where it is not one).
fn seconds(s: f64) -> Duration {
    Duration::try_from_secs_f64(s).unwrap_or_default()
}

/// A result as the tally keeps it, if `text` is one.
fn result_of(text: &str) -> Option<&'static str> {
    ["1-0", "0-1", "1/2-1/2"].into_iter().find(|r| *r == text)
}

/// One game of `r`'s list, checked to belong to `r`'s slice.
fn read_game(r: &Slice, engines: &[EngineInfo], g: &GameDoc) -> Result<GameSummary, MergeError> {
    let Place {
        index,
        pair,
        white,
        black,
    } = place(r, engines, (g.round, g.pair), [&g.white, &g.black])?;
    let bad = |what: String| MergeError::Game {
        path: r.path.clone(),
        round: g.round,
        what,
    };
    // The opponent of the first engine.
    let pairing = white.max(black) - 1;
    let result = result_of(&g.result)
        .ok_or_else(|| bad(format!("result `{}` is not 1-0, 0-1 or 1/2-1/2", g.result)))?;
    let termination = Termination::keyword_named(&g.termination)
        .ok_or_else(|| bad(format!("unknown termination `{}`", g.termination)))?;
    let overruns = [g.overruns.white, g.overruns.black].map(|moves| Overruns {
        moves: moves as u32,
        longest: Duration::ZERO,
    });
    let thinking = [&g.thinking.white, &g.thinking.black].map(|t| Thinking {
        turns: t.turns as u32,
        time: seconds(t.seconds),
    });
    Ok(GameSummary {
        index,
        pairing,
        pair,
        white,
        black,
        result,
        termination,
        detail: g.detail.clone(),
        complaints: g.engine_errors.clone(),
        overruns,
        thinking,
        plies: g.plies as usize,
        opening: g.opening.clone(),
        opening_value: g.opening_value.as_deref().and_then(result_of),
        duration: seconds(g.seconds),
    })
}
