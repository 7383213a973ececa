//! The `mulino match` command line (clap), every value read into its
//! type by the parsers of `config` as clap takes it, and its conversion
//! into a validated [`Config`]: what needs more than one value (an
//! engine's words together, the SPRT's, the rules on the variant, a
//! shard's seed) is checked there.

use std::path::PathBuf;
use std::time::Duration;

use super::config::{
    Config, ConfigError, EngineWord, Shard, SprtWord, engine_spec, parse_depth, parse_engine_word,
    parse_movetime, parse_nodes, parse_shard, parse_sprt_word, parse_tc, sprt_from_words,
};
use super::engine::limits::{Limits, TimeControl};
use super::engine::spec::EngineSpec;
use super::openings::pairs::OpeningSource;
use super::rules::adjudicate::{TbAdjudication, TbMode};
use super::rules::{RuleSet, parse_rule};
use crate::core::Variant;
use crate::core::options::RuleOption;

/// The most games `--games` accepts.
pub const MAX_GAMES: u64 = 10_000_000;

/// Plays games between engines that speak mulino's protocol, referees
/// them with mulino's rules and reports Elo, LOS and the SPRT
/// (docs/matches.md).
#[derive(clap::Args, Clone, Debug)]
#[command(
    after_help = "Example:\n  mulino match --engine cmd=./new name=new --engine cmd=./old name=old \\\n    --tc 10+0.1 --games 1000 --random-plies 4 --sprt elo0=0 elo1=5 --pgn games.pgn",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct MatchArgs {
    #[command(subcommand)]
    pub command: Option<MatchCommand>,
    #[command(flatten)]
    pub engines: EngineArgs,
    /// Time control for both engines: seconds[+increment], like 10+0.1.
    #[arg(long, value_name = "SECONDS[+INC]", value_parser = |t: &str| parse_tc("--tc", t))]
    pub tc: Option<TimeControl>,
    /// Fixed time per move in milliseconds.
    #[arg(long, value_name = "MS", value_parser = |t: &str| parse_movetime("--movetime", t))]
    pub movetime: Option<u64>,
    /// Fixed search depth.
    #[arg(long, value_name = "N", value_parser = |t: &str| parse_depth("--depth", t))]
    pub depth: Option<u32>,
    /// Fixed node count per move.
    #[arg(long, value_name = "N", value_parser = |t: &str| parse_nodes("--nodes", t))]
    pub nodes: Option<u64>,
    /// Games per pairing, played in pairs with colours reversed.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub games: u64,
    /// Games played at once [default: the number of cores].
    #[arg(long, value_name = "K")]
    pub concurrency: Option<usize>,
    /// The rule preset: nine, twelve, morabaraba, russian, lasker,
    /// cheng-san-qi, dooz, da-san-qi, zhi-qi, el-filja, experimental.
    #[arg(long, default_value = "nine", value_name = "NAME")]
    pub variant: Variant,
    /// A rule option (NMoveRule=50, Flying=false, ...), sent to every
    /// engine with setoption and applied to the referee.
    #[arg(long = "rule", value_name = "NAME=VALUE", value_parser = parse_rule)]
    pub rules: Vec<(RuleOption, String)>,
    /// Seed for random openings and shuffling [default: from the clock].
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Openings, one a line: `startpos [moves ...]` or
    /// `fen <FEN> [moves ...]`, then `; fen ...; value ...; by ...` in a
    /// book (docs/books.md); `#` starts a comment.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Random legal plies played (seeded) from the start, or after each
    /// opening from the file.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub random_plies: u32,
    /// Use the openings file in a seeded random order.
    #[arg(long)]
    pub shuffle: bool,
    /// A game still going after this many full moves is drawn.
    #[arg(long, default_value_t = 500, value_name = "N")]
    pub max_moves: u32,
    /// Grace in ms past an empty clock before a time forfeit.
    #[arg(long, default_value_t = 50, value_name = "MS")]
    pub time_margin: u64,
    /// How long in ms past --movetime (or, for depth and node limits, in
    /// all) an engine may take before it is judged hung.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub grace: u64,
    /// How long in ms an engine may take to answer uci and isready.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub init_timeout: u64,
    /// Sequential test: elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05]; stops
    /// as soon as the log-likelihood ratio crosses a bound.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE", value_parser = parse_sprt_word)]
    pub sprt: Option<Vec<SprtWord>>,
    /// Endgame databases (`mulino tb build`) that end a game as soon as
    /// it reaches a position they hold, with its value under perfect
    /// play (a win or loss only if the N-move rules cannot intervene).
    #[arg(long, value_name = "DIR")]
    pub tb: Option<PathBuf>,
    /// Which database values end a game: both (wins, losses and draws),
    /// win-loss (drawn positions are played on) or draw.
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        default_value_t,
        value_name = "MODE",
        hide_possible_values = true
    )]
    pub tb_adjudicate: TbMode,
    /// Write every game to this PGN file.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// Write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Play only the K-th of N disjoint slices of the games (whole pairs;
    /// needs --seed and --json); `mulino match merge` combines the
    /// slices' JSON reports.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// The PGN `Event` tag.
    #[arg(long, default_value = "mulino match", value_name = "NAME")]
    pub event: String,
    /// No progress lines, only the summary.
    #[arg(long)]
    pub quiet: bool,
}

/// What `mulino match` does besides playing a match.
#[derive(clap::Subcommand, Clone, Debug)]
pub enum MatchCommand {
    /// Combine the JSON reports of `mulino match --shard K/N` runs into the
    /// result of the whole match, as if its games had been played in one
    /// run (docs/matches.md, "Matches across machines").
    Merge(MergeArgs),
}

/// `mulino match merge REPORT.json ...`.
#[derive(clap::Args, Clone, Debug)]
pub struct MergeArgs {
    /// The shards' `--json` reports, in any order.
    #[arg(required = true, value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
    /// Write the merged report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// The `--engine` groups. clap's derive cannot yet keep the words of
/// each occurrence together (`Vec<Vec<_>>` needs its unstable-v5
/// feature), so this one argument is declared by hand.
#[derive(Clone, Debug, Default)]
pub struct EngineArgs {
    pub groups: Vec<EngineGroup>,
}

/// One `--engine`: its words, each read by [`parse_engine_word`], and
/// their text, which names the group in messages.
#[derive(Clone, Debug)]
pub struct EngineGroup {
    pub words: Vec<EngineWord>,
    pub text: String,
}

impl clap::FromArgMatches for EngineArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let (Some(typed), Some(raw)) = (
            matches.get_occurrences::<EngineWord>("engine"),
            matches.get_raw_occurrences("engine"),
        ) else {
            return Ok(EngineArgs::default());
        };
        let groups = typed
            .zip(raw)
            .map(|(words, texts)| EngineGroup {
                words: words.cloned().collect(),
                text: texts
                    .map(|w| w.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" "),
            })
            .collect();
        Ok(EngineArgs { groups })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = EngineArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for EngineArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.arg(
            clap::Arg::new("engine")
                .long("engine")
                .num_args(1..)
                .action(clap::ArgAction::Append)
                .required(true)
                .value_name("KEY=VALUE")
                .value_parser(parse_engine_word)
                .help(
                    "An engine: cmd=PATH [name=NAME] [arg=ARG ...] [dir=DIR] \
                     [option.NAME=VALUE ...] [tc=|movetime=|depth=|nodes= to override the \
                     global limits]. Give it twice, or more for a gauntlet of the first \
                     engine against each other one",
                ),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        EngineArgs::augment_args(cmd)
    }
}

impl MatchArgs {
    /// Checks everything that can be checked without starting an engine.
    pub fn into_config(self) -> Result<Config, ConfigError> {
        let engines = self.engine_specs()?;
        self.check_games()?;
        let rule_set = RuleSet::new(self.variant, &self.rules)?;
        let tb = self
            .tb
            .as_deref()
            .map(|dir| TbAdjudication::open(dir, self.tb_adjudicate, &rule_set.rules))
            .transpose()?;
        let sprt = self.sprt.as_deref().map(sprt_from_words).transpose()?;
        if sprt.is_some() && engines.len() != 2 {
            return Err(ConfigError::SprtEngines);
        }
        let concurrency = self.worker_threads()?;
        let shard = self.shard_settings()?;
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        });
        check_dialects(&engines, &rule_set)?;
        Ok(Config {
            engines,
            games: self.games,
            concurrency,
            rule_set,
            seed,
            openings: OpeningSource {
                file: self.openings,
                random_plies: self.random_plies,
                shuffle: self.shuffle,
            },
            max_moves: self.max_moves,
            time_margin: Duration::from_millis(self.time_margin),
            grace: Duration::from_millis(self.grace),
            init_timeout: Duration::from_millis(self.init_timeout),
            sprt,
            shard,
            tb,
            pgn: self.pgn,
            json: self.json,
            event: self.event,
            quiet: self.quiet,
        })
    }

    /// The `--engine`s, each with a search limit (its own, else those of
    /// `--tc`, `--movetime`, `--depth` and `--nodes`), at least two of
    /// them.
    fn engine_specs(&self) -> Result<Vec<EngineSpec>, ConfigError> {
        let global = Limits {
            tc: self.tc,
            movetime: self.movetime,
            depth: self.depth,
            nodes: self.nodes,
        };
        let mut engines = Vec::new();
        for group in &self.engines.groups {
            let mut spec = engine_spec(&group.words, &group.text)?;
            if spec.limits.is_empty() {
                spec.limits = global;
            }
            if spec.limits.is_empty() {
                return Err(ConfigError::NoLimit(spec.label()));
            }
            engines.push(spec);
        }
        if engines.len() < 2 {
            return Err(ConfigError::TooFewEngines);
        }
        Ok(engines)
    }

    /// `--games`: at least 1, at most [`MAX_GAMES`].
    fn check_games(&self) -> Result<(), ConfigError> {
        if self.games == 0 {
            return Err(ConfigError::NoGames);
        }
        // The schedule is built up front; ten million games is past any
        // real match and keeps it to a few hundred megabytes.
        if self.games > MAX_GAMES {
            return Err(ConfigError::BadValue {
                key: "--games".into(),
                value: self.games.to_string(),
                expected: "at most 10,000,000",
            });
        }
        Ok(())
    }

    /// `--shard`, with the `--seed` that makes every slice draw the same
    /// openings and the `--json` report that `merge` reads.
    fn shard_settings(&self) -> Result<Option<Shard>, ConfigError> {
        let Some(shard) = self.shard else {
            return Ok(None);
        };
        if self.seed.is_none() {
            return Err(ConfigError::Shard(format!(
                "{shard} needs --seed S, the same for every slice, so that all of them draw the same openings"
            )));
        }
        if self.json.is_none() {
            return Err(ConfigError::Shard(format!(
                "{shard} needs --json FILE: `mulino match merge` combines the slices' JSON reports"
            )));
        }
        Ok(Some(shard))
    }

    /// `--concurrency`: at least 1, by default the number of cores.
    fn worker_threads(&self) -> Result<usize, ConfigError> {
        match self.concurrency {
            Some(0) => Err(ConfigError::BadValue {
                key: "--concurrency".into(),
                value: "0".into(),
                expected: "at least 1",
            }),
            Some(k) => Ok(k),
            None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        }
    }
}

/// Refuses what an engine's dialect cannot express, before any engine
/// starts, naming the engine.
fn check_dialects(engines: &[EngineSpec], rule_set: &RuleSet) -> Result<(), ConfigError> {
    for spec in engines {
        let dialect = spec.dialect;
        dialect
            .check(rule_set, &spec.limits, &spec.options)
            .map_err(|problem| ConfigError::Dialect {
                engine: spec.label(),
                proto: dialect.name(),
                problem,
            })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use clap::error::ErrorKind;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        args: MatchArgs,
    }

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("match").chain(line.split_whitespace()))
    }

    fn config(line: &str) -> Result<Config, ConfigError> {
        parse(line).expect("clap accepts it").args.into_config()
    }

    /// What clap says of a line it refuses.
    fn refused(line: &str) -> clap::Error {
        parse(line).expect_err("clap refuses it")
    }

    #[test]
    fn limits_global_and_per_engine() {
        let c = config("--engine cmd=a depth=2 --engine cmd=b --movetime 100 --games 4")
            .expect("valid");
        assert_eq!(c.engines[0].limits.depth, Some(2));
        assert_eq!(c.engines[0].limits.movetime, None);
        assert_eq!(c.engines[1].limits.movetime, Some(100));
        assert_eq!(c.games, 4);
        assert_eq!(
            config("--engine cmd=a --engine cmd=b").err(),
            Some(ConfigError::NoLimit("a".into()))
        );
    }

    #[test]
    fn dialects_refuse_what_they_cannot_say() {
        let c = config("--engine cmd=a --engine cmd=b proto=gbgp margin=500 --movetime 100")
            .expect("valid");
        assert_eq!(
            (c.engines[0].dialect.name(), c.engines[1].dialect.name()),
            ("mulino", "gbgp")
        );
        assert_eq!(c.engines[1].margin, Some(500));
        config("--engine cmd=a --engine cmd=b proto=gbgp --depth 1 --variant twelve")
            .expect("GBGP knows Twelve Men's Morris");
        config("--engine cmd=a --engine cmd=b proto=Sanmill --depth 1").expect("valid");
        for words in ["--variant el-filja", "--variant twelve --rule Flying=false"] {
            config(&format!(
                "--engine cmd=a --engine cmd=b proto=sanmill --depth 1 {words}"
            ))
            .expect("Sanmill knows every variant");
        }
        let refused = [
            "proto=gbgp --depth 1 --variant morabaraba",
            "proto=gbgp --depth 1 --rule NMoveRule=40",
            "proto=gbgp --tc 10+0.1",
            "proto=gbgp --nodes 1000",
            "proto=sanmill --depth 1 --rule NMoveRule=0",
            "proto=sanmill --depth 1 --rule EndgameNMoveRule=3",
            "proto=sanmill option.MayFly=false --depth 1",
        ];
        for words in refused {
            let e = config(&format!("--engine cmd=a --engine cmd=b {words}"));
            assert!(
                matches!(e, Err(ConfigError::Dialect { .. })),
                "{words}: {e:?}"
            );
        }
    }

    #[test]
    fn rules_and_sprt() {
        let c = config(
            "--engine cmd=a --engine cmd=b --depth 1 --variant twelve --rule nmoverule=40 \
             --sprt elo0=0 elo1=5",
        )
        .expect("valid");
        assert_eq!(c.rule_set.rules.pieces, 12);
        assert_eq!(c.rule_set.rules.n_move_rule, 40);
        assert_eq!(c.rule_set.overrides, [("NMoveRule".into(), "40".into())]);
        assert!(c.sprt.is_some());
        assert_eq!(
            config("--engine cmd=a --engine cmd=b --engine cmd=c --depth 1 --sprt elo0=0 elo1=5")
                .err(),
            Some(ConfigError::SprtEngines)
        );
        assert!(matches!(
            config("--engine cmd=a --engine cmd=b --depth 1 --rule Pieces=2").err(),
            Some(ConfigError::Rule(_))
        ));
        assert!(matches!(
            config("--engine cmd=a --engine cmd=b --depth 1 --sprt elo0=5 elo1=0").err(),
            Some(ConfigError::Sprt(_))
        ));
        assert_eq!(
            config("--engine cmd=a --depth 1").err(),
            Some(ConfigError::TooFewEngines)
        );
    }

    /// A value clap cannot read into its type is a usage error, with the
    /// message of the parser that read it.
    #[test]
    fn malformed_values_are_usage_errors() {
        let base = "--engine cmd=a --engine cmd=b";
        for (extra, says) in [
            ("--depth 1 --variant chess", "unknown variant `chess`"),
            ("proto=xboard --depth 1", "(mulino, gbgp or sanmill)"),
            ("depth=0", "(a depth of at least 1)"),
            ("--tc 10+x", "`--tc`: `10+x` is not valid"),
            ("--movetime 0", "`--movetime`: `0`"),
            ("--nodes many", "`--nodes`: `many`"),
            ("--depth 1 --rule Hash=16", "unknown rule `Hash`"),
            ("--depth 1 --sprt elo0=x", "--sprt: `x` is not a number"),
            ("--depth 1 --shard 3/2", "`--shard`: `3/2` is not valid"),
            ("--depth 1 --tb-adjudicate sometimes", "sometimes"),
        ] {
            let e = refused(&format!("{base} {extra}"));
            let kind = e.kind();
            assert!(
                matches!(kind, ErrorKind::ValueValidation | ErrorKind::InvalidValue),
                "{extra}: {e}"
            );
            assert!(e.to_string().contains(says), "{extra}: {e}");
            assert_eq!(e.exit_code(), 2, "{extra}");
        }
        let modes = parse(&format!("{base} --depth 1 --tb-adjudicate Win-Loss"));
        assert_eq!(modes.expect("any case").args.tb_adjudicate, TbMode::WinLoss);
    }
}
