//! The `--json` report: its schema as serde structures, the document built
//! from the match's tally, and the same structures read back by `mulino
//! match merge` (the fields are described in docs/matches.md). A report
//! written by an older mulino that lacks a field reads it as empty or 0.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::info::{EngineInfo, MatchInfo};
use super::tally::{EngineTally, GameSummary, PairingTally, Tally};
use crate::matches::stats::elo::{Wdl, elo_estimate};

/// The whole report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Report {
    pub event: String,
    pub variant: String,
    /// The `--rule` overrides, in the order they were applied.
    #[serde(with = "pairs")]
    pub rules: Vec<(String, String)>,
    /// The databases that adjudicate, if any.
    pub tb: Option<TbDoc>,
    pub seed: u64,
    /// Games played at once; none for merged slices.
    pub concurrency: Option<usize>,
    /// The slice this run played, if one.
    pub shard: Option<ShardDoc>,
    /// The slices a merged report combines, if it is one.
    pub merged: Option<MergedDoc>,
    /// Everything that decides which games are played and how.
    #[serde(with = "pairs")]
    pub settings: Vec<(String, String)>,
    pub games_planned: usize,
    pub games_played: usize,
    pub elapsed_seconds: f64,
    pub engines: Vec<EngineDoc>,
    pub pairings: Vec<PairingDoc>,
    pub by_colour: WdlDoc,
    pub terminations: BTreeMap<String, u64>,
    pub games: Vec<GameDoc>,
    pub not_counted: Vec<UncountedDoc>,
}

/// `tb`: the databases' directory and the adjudication mode.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TbDoc {
    pub dir: String,
    pub adjudicate: String,
}

/// `shard`: slice `index` of `count`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardDoc {
    pub index: u64,
    pub count: u64,
}

/// `merged`: the split's size, the slices merged and those missing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MergedDoc {
    pub count: u64,
    pub shards: Vec<u64>,
    pub missing: Vec<u64>,
}

/// Results: games, wins, draws, losses, points and the score (none
/// without games).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WdlDoc {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub points: f64,
    pub score: Option<f64>,
}

/// One of `engines`: its name, command and limits, its results in all
/// and by colour, its protocol, overruns, time forfeits and thinking time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EngineDoc {
    pub name: String,
    pub cmd: String,
    pub limits: String,
    #[serde(flatten)]
    pub results: WdlDoc,
    pub white: WdlDoc,
    pub black: WdlDoc,
    pub proto: String,
    pub overruns: EngineOverruns,
    pub time_forfeits: u64,
    pub thinking: EngineThinking,
}

/// An engine's moves over its time, the games they were in, the longest.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EngineOverruns {
    pub moves: u64,
    pub games: u64,
    pub longest_seconds: f64,
}

/// An engine's turns, its thinking time over them and its mean a turn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EngineThinking {
    pub turns: u64,
    pub seconds: f64,
    pub mean_seconds: Option<f64>,
}

/// One of `pairings`: the first engine's results against the second, the
/// pentanomial counts, Elo, LOS and the SPRT.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PairingDoc {
    pub first: String,
    pub second: String,
    pub first_results: WdlDoc,
    pub first_as_white: WdlDoc,
    pub first_as_black: WdlDoc,
    pub first_on_time: WdlDoc,
    pub first_on_board: WdlDoc,
    pub pairs: u64,
    /// Pairs the first engine lost: LL and LD, the first two classes.
    pub pairs_lost: u64,
    pub pentanomial: [u64; 5],
    pub colour_decided: ColourDecided,
    pub elo: Option<f64>,
    pub elo_error: Option<f64>,
    pub los: Option<f64>,
    pub sprt: Option<SprtDoc>,
}

/// Pairs of games that one colour won both of.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ColourDecided {
    pub white_won_both: u64,
    pub black_won_both: u64,
}

/// The SPRT's hypotheses and error rates, its bounds, the log-likelihood
/// ratio and the decision (none yet: `null`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SprtDoc {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub lower: f64,
    pub upper: f64,
    pub llr: f64,
    pub decision: Option<String>,
}

/// A value for each colour.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sides<T> {
    pub white: T,
    pub black: T,
}

/// One side's turns in a game and its thinking time over them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnsDoc {
    pub turns: u64,
    pub seconds: f64,
}

/// One of `games`, in schedule order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameDoc {
    /// The game's number and its pair's, from 1.
    pub round: u64,
    pub pair: u64,
    pub white: String,
    pub black: String,
    pub result: String,
    pub termination: String,
    pub detail: String,
    pub engine_errors: Vec<String>,
    /// Each side's moves over its time.
    pub overruns: Sides<u64>,
    pub thinking: Sides<TurnsDoc>,
    pub plies: u64,
    pub opening: String,
    /// What perfect play gives the opening, where the databases hold it.
    pub opening_value: Option<String>,
    pub seconds: f64,
}

/// One of `not_counted`: a game not played because an engine did not play
/// the referee's rules.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UncountedDoc {
    pub round: u64,
    pub pair: u64,
    pub white: String,
    pub black: String,
    pub reason: String,
}

impl Report {
    /// Pretty-printed with two-space indents, and a final newline.
    pub fn pretty(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a report is always JSON");
        text.push('\n');
        text
    }
}

/// `(name, value)` pairs as a JSON object, in their order; read back in
/// the document's order.
mod pairs {
    use serde::de::{MapAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(pairs: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(pairs.iter().map(|(k, v)| (k, v)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
        struct Pairs;
        impl<'de> Visitor<'de> for Pairs {
            type Value = Vec<(String, String)>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry()? {
                    pairs.push(pair);
                }
                Ok(pairs)
            }
        }
        d.deserialize_map(Pairs)
    }
}

/// A finite number, or none (JSON has no NaN).
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn wdl(w: &Wdl) -> WdlDoc {
    WdlDoc {
        games: w.games(),
        wins: w.wins,
        draws: w.draws,
        losses: w.losses,
        points: w.points(),
        score: w.score().and_then(finite),
    }
}

/// The whole report of the games of `tally`.
pub fn document(info: &MatchInfo, tally: &Tally, planned: usize, elapsed_s: f64) -> Report {
    let names: Vec<String> = info.engines.iter().map(|e| e.name.clone()).collect();
    Report {
        event: info.event.clone(),
        variant: info.variant.clone(),
        rules: info.rule_overrides.clone(),
        tb: info.tb.as_ref().map(|(dir, mode)| TbDoc {
            dir: dir.clone(),
            adjudicate: mode.clone(),
        }),
        seed: info.seed,
        concurrency: info.concurrency,
        shard: info.shard.map(|s| ShardDoc {
            index: s.index,
            count: s.count,
        }),
        merged: info.merged.as_ref().map(|m| MergedDoc {
            count: m.count,
            shards: m.present.clone(),
            missing: m.missing.clone(),
        }),
        settings: info.settings.clone(),
        games_planned: planned,
        games_played: tally.played(),
        elapsed_seconds: elapsed_s,
        engines: info
            .engines
            .iter()
            .zip(&tally.engines)
            .map(|(e, t)| engine(e, t))
            .collect(),
        pairings: tally
            .pairings
            .iter()
            .map(|p| pairing(info, &names, p))
            .collect(),
        by_colour: wdl(&tally.white),
        terminations: tally
            .terminations
            .iter()
            .map(|(k, &v)| (k.to_string(), v))
            .collect(),
        games: games(&names, tally),
        not_counted: not_counted(&names, tally),
    }
}

/// `not_counted`, in game order.
fn not_counted(names: &[String], tally: &Tally) -> Vec<UncountedDoc> {
    let mut games: Vec<_> = tally.not_counted.iter().collect();
    games.sort_by_key(|u| u.index);
    games
        .into_iter()
        .map(|u| UncountedDoc {
            round: u.index as u64 + 1,
            pair: u.pair as u64 + 1,
            white: names[u.white].clone(),
            black: names[u.black].clone(),
            reason: u.reason.clone(),
        })
        .collect()
}

fn engine(e: &EngineInfo, t: &EngineTally) -> EngineDoc {
    EngineDoc {
        name: e.name.clone(),
        cmd: e.cmd.clone(),
        limits: e.limits.clone(),
        results: wdl(&t.total()),
        white: wdl(&t.as_white),
        black: wdl(&t.as_black),
        proto: e.proto.clone(),
        overruns: EngineOverruns {
            moves: u64::from(t.overruns.moves),
            games: t.overrun_games,
            longest_seconds: t.overruns.longest.as_secs_f64(),
        },
        time_forfeits: t.time_forfeits,
        thinking: EngineThinking {
            turns: u64::from(t.thinking.turns),
            seconds: t.thinking.time.as_secs_f64(),
            mean_seconds: t.thinking.mean().map(|m| m.as_secs_f64()),
        },
    }
}

fn pairing(info: &MatchInfo, names: &[String], p: &PairingTally) -> PairingDoc {
    let estimate = elo_estimate(&p.penta);
    PairingDoc {
        first: names[p.first].clone(),
        second: names[p.second].clone(),
        first_results: wdl(&p.first()),
        first_as_white: wdl(&p.first_white),
        first_as_black: wdl(&p.first_black),
        first_on_time: wdl(&p.on_time),
        first_on_board: wdl(&p.on_board),
        pairs: p.penta.pairs(),
        pairs_lost: p.penta.0[0] + p.penta.0[1],
        pentanomial: p.penta.0,
        colour_decided: ColourDecided {
            white_won_both: p.colour_decided[0],
            black_won_both: p.colour_decided[1],
        },
        elo: estimate.map(|e| e.elo).and_then(finite),
        elo_error: estimate.and_then(|e| e.error).and_then(finite),
        los: estimate.map(|e| e.los).and_then(finite),
        sprt: info.sprt.map(|s| SprtDoc {
            elo0: s.elo0,
            elo1: s.elo1,
            alpha: s.alpha,
            beta: s.beta,
            lower: s.lower(),
            upper: s.upper(),
            llr: p.llr.unwrap_or(0.0),
            decision: p.decision.map(|d| d.name().to_string()),
        }),
    }
}

/// `games`: every game played, in schedule order.
fn games(names: &[String], tally: &Tally) -> Vec<GameDoc> {
    let mut games: Vec<&GameSummary> = tally.games.iter().collect();
    games.sort_by_key(|g| g.index);
    games.into_iter().map(|g| game(names, g)).collect()
}

fn game(names: &[String], g: &GameSummary) -> GameDoc {
    let [white, black] = g.thinking.map(|t| TurnsDoc {
        turns: u64::from(t.turns),
        seconds: t.time.as_secs_f64(),
    });
    GameDoc {
        round: g.index as u64 + 1,
        pair: g.pair as u64 + 1,
        white: names[g.white].clone(),
        black: names[g.black].clone(),
        result: g.result.to_string(),
        termination: g.termination.to_string(),
        detail: g.detail.clone(),
        engine_errors: g.complaints.clone(),
        overruns: Sides {
            white: u64::from(g.overruns[0].moves),
            black: u64::from(g.overruns[1].moves),
        },
        thinking: Sides { white, black },
        plies: g.plies as u64,
        opening: g.opening.clone(),
        opening_value: g.opening_value.map(str::to_string),
        seconds: g.duration.as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_prints_in_order_and_reads_back_equal() {
        let report = Report {
            rules: vec![
                ("NMoveRule".into(), "30".into()),
                ("MayFly".into(), "false".into()),
            ],
            settings: vec![("seed".into(), "7".into())],
            by_colour: WdlDoc {
                games: 2,
                wins: 1,
                draws: 1,
                points: 1.5,
                score: Some(0.75),
                ..WdlDoc::default()
            },
            games: vec![GameDoc {
                detail: "x\"y\\\n\u{1}".into(),
                opening_value: None,
                ..GameDoc::default()
            }],
            ..Report::default()
        };
        let text = report.pretty();
        assert!(text.ends_with("}\n"));
        // The overrides keep their order, as a JSON object.
        let rules = text.find("\"NMoveRule\": \"30\"").expect("NMoveRule");
        assert!(rules < text.find("\"MayFly\": \"false\"").expect("MayFly"));
        assert!(
            text.contains("\"detail\": \"x\\\"y\\\\\\n\\u0001\""),
            "{text}"
        );
        assert!(text.contains("\"opening_value\": null"));
        let back: Report = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, report);
        // An older report without a field reads it as empty.
        let old: Report = serde_json::from_str("{\"event\": \"e\"}").expect("a partial report");
        assert_eq!((old.event.as_str(), old.games.len()), ("e", 0));
    }
}
