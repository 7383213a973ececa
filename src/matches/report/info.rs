//! What the reports say about a match: its engines (names, commands,
//! limits, protocols), rules, seed, SPRT, slice, and the settings every
//! slice of one match must share. A match just played and slices merged
//! (`mulino match merge`) describe themselves alike, so the one summary
//! and the one JSON writer serve both.

use std::fmt::Write as _;

use crate::matches::config::{Config, Shard};
use crate::matches::engine::limits::Limits;
use crate::matches::engine::spec::EngineSpec;
use crate::matches::stats::sprt::Sprt;

/// One engine, as the reports name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineInfo {
    pub name: String,
    pub cmd: String,
    /// [`Limits::describe`].
    pub limits: String,
    /// The `proto=` word.
    pub proto: String,
}

/// Which slices a merged report combines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// Slices in the split (the N of `--shard K/N`).
    pub count: u64,
    /// The slices merged, and those missing, by K.
    pub present: Vec<u64>,
    pub missing: Vec<u64>,
}

/// The match as its reports describe it.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchInfo {
    pub event: String,
    pub variant: String,
    /// The `--rule` overrides, canonical names, in order.
    pub rule_overrides: Vec<(String, String)>,
    /// `--tb`: the directory and the mode's name.
    pub tb: Option<(String, String)>,
    pub seed: u64,
    /// Games played at once; `None` for merged slices.
    pub concurrency: Option<usize>,
    pub sprt: Option<Sprt>,
    pub engines: Vec<EngineInfo>,
    /// `--shard`: the slice a run played.
    pub shard: Option<Shard>,
    /// The slices a merged report combines.
    pub merged: Option<Merged>,
    /// Everything that decides which games are played and how, as
    /// `(name, value)` text: the slices of one match have equal settings.
    pub settings: Vec<(String, String)>,
}

impl MatchInfo {
    /// The description of a match played with `config`; `names` are the
    /// engines' display names, `openings_digest` the openings' digest.
    pub fn from_config(config: &Config, names: &[String], openings_digest: u64) -> MatchInfo {
        MatchInfo {
            event: config.event.clone(),
            variant: config.rule_set.variant.name().to_string(),
            rule_overrides: config.rule_set.overrides.clone(),
            tb: config
                .tb
                .as_ref()
                .map(|t| (t.dir.display().to_string(), t.mode.name().to_string())),
            seed: config.seed,
            concurrency: Some(config.concurrency),
            sprt: config.sprt,
            engines: config
                .engines
                .iter()
                .zip(names)
                .map(|(spec, name)| EngineInfo {
                    name: name.clone(),
                    cmd: spec.cmd.display().to_string(),
                    limits: spec.limits.describe(),
                    proto: spec.dialect.name().to_string(),
                })
                .collect(),
            shard: config.shard,
            merged: None,
            settings: settings(config, names, openings_digest),
        }
    }
}

/// The settings the slices of one match share: every command-line
/// setting but `--shard`, `--concurrency`, `--pgn`, `--json`, `--quiet`
/// and the openings file's path (its openings are in the digest).
fn settings(config: &Config, names: &[String], openings_digest: u64) -> Vec<(String, String)> {
    let ms = |d: std::time::Duration| d.as_millis().to_string();
    let mut out: Vec<(String, String)> = vec![("event".into(), config.event.clone())];
    for (i, (spec, name)) in config.engines.iter().zip(names).enumerate() {
        out.push((format!("engine {}", i + 1), engine_words(spec, name)));
    }
    let rules: Vec<String> = config
        .rule_set
        .overrides
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    let sprt = config.sprt.map_or("none".to_string(), |s| {
        format!(
            "elo0={} elo1={} alpha={} beta={}",
            s.elo0, s.elo1, s.alpha, s.beta
        )
    });
    let tb = config.tb.as_ref().map_or("none".to_string(), |t| {
        format!("{} {}", t.dir.display(), t.mode.name())
    });
    out.extend([
        ("games".into(), config.games.to_string()),
        ("variant".into(), config.rule_set.variant.name().to_string()),
        ("rules".into(), rules.join(" ")),
        ("seed".into(), config.seed.to_string()),
        ("openings".into(), openings_words(config)),
        ("openings digest".into(), format!("{openings_digest:016x}")),
        ("max moves".into(), config.max_moves.to_string()),
        ("time margin ms".into(), ms(config.time_margin)),
        ("grace ms".into(), ms(config.grace)),
        ("init timeout ms".into(), ms(config.init_timeout)),
        ("sprt".into(), sprt),
        ("tb".into(), tb),
    ]);
    out
}

/// An engine as `--engine` words, its limits resolved.
fn engine_words(spec: &EngineSpec, name: &str) -> String {
    let mut s = format!("name={name} cmd={}", spec.cmd.display());
    for arg in &spec.args {
        let _ = write!(s, " arg={arg}");
    }
    if let Some(dir) = &spec.dir {
        let _ = write!(s, " dir={}", dir.display());
    }
    let _ = write!(s, " proto={}", spec.dialect.name());
    if let Some(margin) = spec.margin {
        let _ = write!(s, " margin={margin}");
    }
    for (option, value) in &spec.options {
        let _ = write!(s, " option.{option}={value}");
    }
    let _ = write!(s, " {}", limit_words(&spec.limits));
    s
}

/// `tc=10+0.1 movetime=100 depth=4 nodes=1000`, those that are set.
fn limit_words(limits: &Limits) -> String {
    let mut words = Vec::new();
    if let Some(tc) = limits.tc {
        words.push(format!("tc={}", tc.pgn()));
    }
    if let Some(ms) = limits.movetime {
        words.push(format!("movetime={ms}"));
    }
    if let Some(d) = limits.depth {
        words.push(format!("depth={d}"));
    }
    if let Some(n) = limits.nodes {
        words.push(format!("nodes={n}"));
    }
    words.join(" ")
}

/// Where the openings come from, without the file's path.
fn openings_words(config: &Config) -> String {
    let o = &config.openings;
    format!(
        "{} random-plies={}{}",
        if o.file.is_some() { "file" } else { "startpos" },
        o.random_plies,
        if o.shuffle { " shuffle" } else { "" }
    )
}
