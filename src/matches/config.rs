//! The match's validated settings, everything that can be wrong with
//! them, and the parsers that read the command line's values into their
//! types: time controls and the other search limits, the words of
//! `--engine` and `--sprt`, and `--shard`. clap calls the parsers (see
//! `args`), so each value is read once, into its type.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::engine::dialect::Dialect;
use super::engine::dialect::gbgp::Gbgp;
use super::engine::dialect::mulino::Mulino;
use super::engine::dialect::sanmill::Sanmill;
use super::engine::limits::TimeControl;
use super::engine::process::Registry;
use super::engine::slot::Slot;
use super::engine::spec::EngineSpec;
use super::openings::pairs::OpeningSource;
use super::rules::adjudicate::{TbAdjudication, TbOpenError};
use super::rules::{RuleError, RuleSet};
use super::stats::sprt::Sprt;

/// Everything that can be wrong with the command line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("at least two engines are needed (give `--engine cmd=PATH ...` twice)")]
    TooFewEngines,
    #[error("--engine: `{0}` is not KEY=VALUE")]
    EngineWord(String),
    #[error(
        "--engine: unknown key `{0}` (keys: cmd, name, arg, dir, proto, margin, option.NAME, tc, movetime, depth, nodes)"
    )]
    EngineKey(String),
    #[error("--engine: `cmd=PATH` is missing in `{0}`")]
    NoCommand(String),
    #[error("--engine: `{0}` given twice")]
    Repeated(String),
    #[error(
        "engine `{0}` has no search limit: give --tc, --movetime, --depth or --nodes, or tc=/movetime=/depth=/nodes= in its --engine"
    )]
    NoLimit(String),
    #[error("`{key}`: `{value}` is not valid ({expected})")]
    BadValue {
        key: String,
        value: String,
        expected: &'static str,
    },
    #[error("--rule: {0}")]
    Rule(#[from] RuleError),
    #[error("--sprt needs exactly two engines")]
    SprtEngines,
    #[error("--sprt: {0}")]
    Sprt(String),
    #[error("--games must be at least 1")]
    NoGames,
    #[error("--tb: {0}")]
    Tablebase(TbOpenError),
    #[error("--shard {0}")]
    Shard(String),
    #[error("engine `{engine}` speaks {proto}, which {problem}")]
    Dialect {
        engine: String,
        proto: &'static str,
        problem: String,
    },
}

// By hand, not `#[from]`: that would make the `TbOpenError` the source
// too, and the error chain would print its message twice.
impl From<TbOpenError> for ConfigError {
    fn from(e: TbOpenError) -> ConfigError {
        ConfigError::Tablebase(e)
    }
}

/// Parses `10+0.1` or `10` (seconds, fractions allowed).
pub fn parse_tc(key: &str, text: &str) -> Result<TimeControl, ConfigError> {
    let bad = || ConfigError::BadValue {
        key: key.to_string(),
        value: text.to_string(),
        expected: "seconds[+increment], like 10+0.1",
    };
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let ms = |s: &str| -> Result<u64, ConfigError> {
        let secs: f64 = s.trim().parse().map_err(|_| bad())?;
        if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
            return Err(bad());
        }
        Ok((secs * 1000.0).round() as u64)
    };
    let tc = TimeControl {
        base_ms: ms(base)?,
        inc_ms: ms(inc)?,
    };
    if tc.base_ms == 0 && tc.inc_ms == 0 {
        return Err(bad());
    }
    Ok(tc)
}

fn number<T: std::str::FromStr + PartialOrd>(
    key: &str,
    value: &str,
    min: T,
    expected: &'static str,
) -> Result<T, ConfigError> {
    value
        .trim()
        .parse::<T>()
        .ok()
        .filter(|v| *v >= min)
        .ok_or_else(|| ConfigError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            expected,
        })
}

pub fn parse_movetime(key: &str, v: &str) -> Result<u64, ConfigError> {
    number(key, v, 1, "milliseconds, at least 1")
}

pub fn parse_depth(key: &str, v: &str) -> Result<u32, ConfigError> {
    number(key, v, 1, "a depth of at least 1")
}

pub fn parse_nodes(key: &str, v: &str) -> Result<u64, ConfigError> {
    number(key, v, 1, "a node count of at least 1")
}

/// The dialects by their `proto=` words.
const DIALECTS: [(&str, &dyn Dialect); 4] = [
    ("mulino", &Mulino),
    ("uci", &Mulino),
    ("gbgp", &Gbgp),
    ("sanmill", &Sanmill),
];

/// The dialect a `proto=` word names, in any case.
fn parse_proto(key: &str, value: &str) -> Result<&'static dyn Dialect, ConfigError> {
    let word = value.to_ascii_lowercase();
    DIALECTS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|&(_, dialect)| dialect)
        .ok_or_else(|| ConfigError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            expected: "mulino, gbgp or sanmill",
        })
}

/// One `KEY=VALUE` word of `--engine`, its value read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineWord {
    Cmd(PathBuf),
    Name(String),
    Arg(String),
    Dir(PathBuf),
    Proto(&'static dyn Dialect),
    Margin(u64),
    /// `option.NAME=VALUE`.
    Option(String, String),
    Tc(TimeControl),
    Movetime(u64),
    Depth(u32),
    Nodes(u64),
}

impl EngineWord {
    /// The key, for the keys an engine may give once; `None` for `arg`
    /// and `option.`, which may repeat.
    fn once_key(&self) -> Option<&'static str> {
        Some(match self {
            EngineWord::Arg(_) | EngineWord::Option(..) => return None,
            EngineWord::Cmd(_) => "cmd",
            EngineWord::Name(_) => "name",
            EngineWord::Dir(_) => "dir",
            EngineWord::Proto(_) => "proto",
            EngineWord::Margin(_) => "margin",
            EngineWord::Tc(_) => "tc",
            EngineWord::Movetime(_) => "movetime",
            EngineWord::Depth(_) => "depth",
            EngineWord::Nodes(_) => "nodes",
        })
    }
}

/// Parses one word of `--engine`.
pub fn parse_engine_word(word: &str) -> Result<EngineWord, ConfigError> {
    let (key, value) = word
        .split_once('=')
        .ok_or_else(|| ConfigError::EngineWord(word.to_string()))?;
    Ok(match key {
        "cmd" => EngineWord::Cmd(PathBuf::from(value)),
        "name" => EngineWord::Name(value.to_string()),
        "arg" => EngineWord::Arg(value.to_string()),
        "dir" => EngineWord::Dir(PathBuf::from(value)),
        "proto" => EngineWord::Proto(parse_proto(key, value)?),
        "margin" => EngineWord::Margin(number(key, value, 0, "milliseconds")?),
        "tc" => EngineWord::Tc(parse_tc(key, value)?),
        "movetime" => EngineWord::Movetime(parse_movetime(key, value)?),
        "depth" => EngineWord::Depth(parse_depth(key, value)?),
        "nodes" => EngineWord::Nodes(parse_nodes(key, value)?),
        _ => match key.strip_prefix("option.") {
            Some(name) if !name.is_empty() => {
                EngineWord::Option(name.to_string(), value.to_string())
            }
            _ => return Err(ConfigError::EngineKey(key.to_string())),
        },
    })
}

/// The engine one `--engine`'s words describe (`text`: the words as
/// given); `limits` stays empty unless the words set some (the global
/// limits then apply).
pub fn engine_spec(words: &[EngineWord], text: &str) -> Result<EngineSpec, ConfigError> {
    let mut seen: Vec<&str> = Vec::new();
    for key in words.iter().filter_map(EngineWord::once_key) {
        if seen.contains(&key) {
            return Err(ConfigError::Repeated(key.to_string()));
        }
        seen.push(key);
    }
    let cmd = words.iter().find_map(|w| match w {
        EngineWord::Cmd(cmd) => Some(cmd.clone()),
        _ => None,
    });
    let mut spec = EngineSpec::new(cmd.ok_or_else(|| ConfigError::NoCommand(text.to_string()))?);
    for word in words {
        match word.clone() {
            EngineWord::Cmd(_) => {}
            EngineWord::Name(name) => spec.name = Some(name),
            EngineWord::Arg(arg) => spec.args.push(arg),
            EngineWord::Dir(dir) => spec.dir = Some(dir),
            EngineWord::Proto(dialect) => spec.dialect = dialect,
            EngineWord::Margin(ms) => spec.margin = Some(ms),
            EngineWord::Option(name, value) => spec.options.push((name, value)),
            EngineWord::Tc(tc) => spec.limits.tc = Some(tc),
            EngineWord::Movetime(ms) => spec.limits.movetime = Some(ms),
            EngineWord::Depth(d) => spec.limits.depth = Some(d),
            EngineWord::Nodes(n) => spec.limits.nodes = Some(n),
        }
    }
    Ok(spec)
}

/// One `KEY=VALUE` word of `--sprt`, its number read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SprtWord {
    Elo0(f64),
    Elo1(f64),
    Alpha(f64),
    Beta(f64),
}

/// Parses one word of `--sprt`: `elo0=`, `elo1=`, `alpha=` or `beta=`
/// and a finite number.
pub fn parse_sprt_word(word: &str) -> Result<SprtWord, ConfigError> {
    let err = |s: String| ConfigError::Sprt(s);
    let (key, value) = word
        .split_once('=')
        .ok_or_else(|| err(format!("`{word}` is not KEY=VALUE")))?;
    let v: f64 = value
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| err(format!("`{value}` is not a number")))?;
    match key {
        "elo0" => Ok(SprtWord::Elo0(v)),
        "elo1" => Ok(SprtWord::Elo1(v)),
        "alpha" => Ok(SprtWord::Alpha(v)),
        "beta" => Ok(SprtWord::Beta(v)),
        _ => Err(err(format!(
            "unknown key `{key}` (elo0, elo1, alpha, beta)"
        ))),
    }
}

/// The test `elo0=0 elo1=5 alpha=0.05 beta=0.05` gives (alpha and beta
/// default to 0.05; elo0 and elo1 are required; a key given twice takes
/// its last value).
pub fn sprt_from_words(words: &[SprtWord]) -> Result<Sprt, ConfigError> {
    let err = |s: &str| ConfigError::Sprt(s.to_string());
    let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
    for &word in words {
        match word {
            SprtWord::Elo0(v) => elo0 = Some(v),
            SprtWord::Elo1(v) => elo1 = Some(v),
            SprtWord::Alpha(v) => alpha = v,
            SprtWord::Beta(v) => beta = v,
        }
    }
    let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
        return Err(err("elo0= and elo1= are required"));
    };
    if elo0 >= elo1 {
        return Err(err("elo0 must be below elo1"));
    }
    if !(alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0) {
        return Err(err("alpha and beta must be above 0 with a sum below 1"));
    }
    Ok(Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

/// `--shard K/N`: the K-th of N disjoint slices of a match's games.
///
/// Pair `p` (from 0) of the whole match, every game of it in every
/// pairing, belongs to slice `p mod N + 1`: pairs stay whole (the
/// pentanomial needs both games), the slices are disjoint, together they
/// are the whole schedule, and each holds about as many early and late
/// pairs as any other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// From 1 to `count`.
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// Whether pair `pair` (from 0) is one of this slice's.
    pub fn holds(&self, pair: usize) -> bool {
        pair as u64 % self.count + 1 == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Parses `K/N` (1 <= K <= N).
pub fn parse_shard(text: &str) -> Result<Shard, ConfigError> {
    let bad = || ConfigError::BadValue {
        key: "--shard".into(),
        value: text.to_string(),
        expected: "K/N with 1 <= K <= N, like 2/4",
    };
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (index, count) = match (k.trim().parse::<u64>(), n.trim().parse::<u64>()) {
        (Ok(k), Ok(n)) if k >= 1 && k <= n => (k, n),
        _ => return Err(bad()),
    };
    Ok(Shard { index, count })
}

/// The whole match, validated.
#[derive(Clone, Debug)]
pub struct Config {
    pub engines: Vec<EngineSpec>,
    /// Games per pairing (the first engine against each other one).
    pub games: u64,
    pub concurrency: usize,
    /// `--variant` and the `--rule`s.
    pub rule_set: RuleSet,
    pub seed: u64,
    pub openings: OpeningSource,
    /// Full moves after which a game is drawn.
    pub max_moves: u32,
    pub time_margin: Duration,
    pub grace: Duration,
    pub init_timeout: Duration,
    pub sprt: Option<Sprt>,
    /// `--shard`: the slice of the games this run plays.
    pub shard: Option<Shard>,
    /// `--tb`: the databases that adjudicate games.
    pub tb: Option<TbAdjudication>,
    pub pgn: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub event: String,
    /// Print only the summary, no progress.
    pub quiet: bool,
}

impl Config {
    /// A slot for one worker thread's engine processes.
    pub fn slot<'a>(&'a self, registry: &'a Arc<Registry>) -> Slot<'a> {
        Slot::new(&self.engines, &self.rule_set, self.init_timeout, registry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec of one `--engine`, its words split at spaces.
    fn engine(text: &str) -> Result<EngineSpec, ConfigError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        engine_of(&words)
    }

    fn engine_of(words: &[&str]) -> Result<EngineSpec, ConfigError> {
        let parsed = words
            .iter()
            .map(|w| parse_engine_word(w))
            .collect::<Result<Vec<_>, _>>()?;
        engine_spec(&parsed, &words.join(" "))
    }

    #[test]
    fn engine_words() {
        // Unquoted, a name with a space is two words, the first no
        // KEY=VALUE; quoted, it is one word and the name keeps its space.
        let e = engine("cmd=./mulino option.Skill Level=3");
        assert_eq!(e, Err(ConfigError::EngineWord("option.Skill".into())));
        let e = engine_of(&["cmd=./mulino", "option.Skill Level=3"]).expect("valid");
        assert_eq!(e.options, [("Skill Level".to_string(), "3".to_string())]);
        let e = engine("cmd=./mulino name=new arg=-x arg=y option.Hash=16 depth=4 tc=1+0.01")
            .expect("valid");
        assert_eq!(e.cmd, PathBuf::from("./mulino"));
        assert_eq!(e.args, ["-x", "y"]);
        assert_eq!(e.options, [("Hash".to_string(), "16".to_string())]);
        assert_eq!(e.limits.depth, Some(4));
        assert_eq!(
            e.limits.tc,
            Some(TimeControl {
                base_ms: 1000,
                inc_ms: 10
            })
        );
        assert_eq!(
            engine("name=x"),
            Err(ConfigError::NoCommand("name=x".into()))
        );
        assert_eq!(
            engine("cmd=a cmd=b"),
            Err(ConfigError::Repeated("cmd".into()))
        );
        assert!(matches!(
            engine("cmd=a depth=0"),
            Err(ConfigError::BadValue { .. })
        ));
        assert_eq!(
            engine("cmd=a proto=UCI").map(|e| e.dialect.name()),
            Ok("mulino")
        );
        assert!(matches!(
            engine("cmd=a proto=xboard"),
            Err(ConfigError::BadValue { .. })
        ));
    }

    #[test]
    fn time_controls() {
        let tc = parse_tc("tc", "10+0.1").expect("valid");
        assert_eq!((tc.base_ms, tc.inc_ms), (10_000, 100));
        assert_eq!(tc.pgn(), "10+0.1");
        assert_eq!(parse_tc("tc", "0.5").expect("valid").pgn(), "0.5");
        for bad in ["", "x", "-1", "1+", "0", "nan", "1+2+3"] {
            assert!(
                matches!(parse_tc("tc", bad), Err(ConfigError::BadValue { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn shards() {
        let s = parse_shard("2/3").expect("valid");
        assert_eq!((s.index, s.count, s.to_string()), (2, 3, "2/3".to_string()));
        assert_eq!((0..7).filter(|&p| s.holds(p)).collect::<Vec<_>>(), [1, 4]);
        for bad in ["0/3", "4/3", "1", "1/0", "a/b", "-1/2", "1/2/3"] {
            assert!(
                matches!(parse_shard(bad), Err(ConfigError::BadValue { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn sprt_words() {
        let sprt = |text: &str| {
            let words = text
                .split_whitespace()
                .map(parse_sprt_word)
                .collect::<Result<Vec<_>, _>>()?;
            sprt_from_words(&words)
        };
        let s = sprt("elo0=0 elo1=5").expect("valid");
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 5.0, 0.05, 0.05));
        for bad in [
            "elo0=5 elo1=0",
            "elo0=0 elo1=5 alpha=0.6 beta=0.5",
            "elo1=5",
            "elo0=0 elo1=5 gamma=1",
            "elo0=0 elo1=inf",
            "elo0",
        ] {
            assert!(matches!(sprt(bad), Err(ConfigError::Sprt(_))), "{bad}");
        }
    }
}
