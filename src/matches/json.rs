//! The `--json` report, written by hand: a small JSON value type with a
//! pretty printer, and the document built from the match's tally (the
//! fields are described in docs/matches.md).

use std::fmt::Write as _;

use super::info::{EngineInfo, MatchInfo};
use super::stats::{Wdl, elo_estimate};
use super::tally::{EngineTally, GameSummary, PairingTally, Tally};

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i128),
    /// Non-finite numbers are written as `null`.
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::Str(s.to_string())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::Str(s)
    }
}

impl From<u64> for Json {
    fn from(n: u64) -> Json {
        Json::Int(n as i128)
    }
}

impl From<usize> for Json {
    fn from(n: usize) -> Json {
        Json::Int(n as i128)
    }
}

impl From<f64> for Json {
    fn from(x: f64) -> Json {
        Json::Num(x)
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(o: Option<T>) -> Json {
        o.map_or(Json::Null, Into::into)
    }
}

/// An object from `(key, value)` pairs.
fn obj<const N: usize>(fields: [(&str, Json); N]) -> Json {
    Json::Obj(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Json {
    /// Pretty-printed with two-space indents.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, indent: usize) {
        let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Json::Num(x) if x.is_finite() => {
                let _ = write!(out, "{x}");
            }
            Json::Num(_) => out.push_str("null"),
            Json::Str(s) => quote(s, out),
            Json::Arr(items) if items.is_empty() => out.push_str("[]"),
            Json::Arr(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    pad(out, indent + 2);
                    item.write(out, indent + 2);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push(']');
            }
            Json::Obj(fields) if fields.is_empty() => out.push_str("{}"),
            Json::Obj(fields) => {
                out.push_str("{\n");
                for (i, (key, value)) in fields.iter().enumerate() {
                    pad(out, indent + 2);
                    quote(key, out);
                    out.push_str(": ");
                    value.write(out, indent + 2);
                    out.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push('}');
            }
        }
    }
}

fn wdl(w: &Wdl) -> Json {
    obj([
        ("games", w.games().into()),
        ("wins", w.wins.into()),
        ("draws", w.draws.into()),
        ("losses", w.losses.into()),
        ("points", w.points().into()),
        ("score", w.score().into()),
    ])
}

/// The whole report.
pub fn document(info: &MatchInfo, tally: &Tally, planned: usize, elapsed_s: f64) -> Json {
    let names: Vec<String> = info.engines.iter().map(|e| e.name.clone()).collect();
    let engines = info
        .engines
        .iter()
        .zip(&tally.engines)
        .map(|(e, t)| engine(e, t))
        .collect();
    let pairings = tally
        .pairings
        .iter()
        .map(|p| pairing(info, &names, p))
        .collect();
    let terminations = Json::Obj(
        tally
            .terminations
            .iter()
            .map(|(k, &v)| (k.to_string(), v.into()))
            .collect(),
    );
    obj([
        ("event", info.event.as_str().into()),
        ("variant", info.variant.as_str().into()),
        ("rules", pairs_object(&info.rule_overrides)),
        ("tb", tb(info)),
        ("seed", info.seed.into()),
        ("concurrency", info.concurrency.into()),
        ("shard", shard(info)),
        ("merged", merged(info)),
        ("settings", pairs_object(&info.settings)),
        ("games_planned", planned.into()),
        ("games_played", tally.played().into()),
        ("elapsed_seconds", elapsed_s.into()),
        ("engines", Json::Arr(engines)),
        ("pairings", Json::Arr(pairings)),
        ("by_colour", wdl(&tally.white)),
        ("terminations", terminations),
        ("games", games(&names, tally)),
        ("not_counted", not_counted(&names, tally)),
    ])
}

/// `not_counted`: the games not played because an engine did not play
/// the referee's rules, in game order.
fn not_counted(names: &[String], tally: &Tally) -> Json {
    let mut games: Vec<_> = tally.not_counted.iter().collect();
    games.sort_by_key(|u| u.index);
    Json::Arr(
        games
            .into_iter()
            .map(|u| {
                obj([
                    ("round", (u.index + 1).into()),
                    ("pair", (u.pair + 1).into()),
                    ("white", names[u.white].as_str().into()),
                    ("black", names[u.black].as_str().into()),
                    ("reason", u.reason.as_str().into()),
                ])
            })
            .collect(),
    )
}

/// An object of strings: the `--rule` overrides, the settings.
fn pairs_object(pairs: &[(String, String)]) -> Json {
    Json::Obj(
        pairs
            .iter()
            .map(|(n, v)| (n.clone(), v.as_str().into()))
            .collect(),
    )
}

/// `tb`: the databases that adjudicate, or `null`.
fn tb(info: &MatchInfo) -> Json {
    match &info.tb {
        None => Json::Null,
        Some((dir, mode)) => obj([
            ("dir", dir.as_str().into()),
            ("adjudicate", mode.as_str().into()),
        ]),
    }
}

/// `shard`: the slice this run played, or `null`.
fn shard(info: &MatchInfo) -> Json {
    match info.shard {
        None => Json::Null,
        Some(s) => obj([("index", s.index.into()), ("count", s.count.into())]),
    }
}

/// `merged`: the slices a merged report combines, or `null`.
fn merged(info: &MatchInfo) -> Json {
    let list = |ks: &[u64]| Json::Arr(ks.iter().map(|&k| k.into()).collect());
    match &info.merged {
        None => Json::Null,
        Some(m) => obj([
            ("count", m.count.into()),
            ("shards", list(&m.present)),
            ("missing", list(&m.missing)),
        ]),
    }
}

/// One of `engines`: its name, command and limits, its results in all
/// and by colour, its protocol, overruns and time forfeits.
fn engine(e: &EngineInfo, t: &EngineTally) -> Json {
    let mut fields = match wdl(&t.total()) {
        Json::Obj(f) => f,
        _ => Vec::new(),
    };
    let head = [
        ("name".to_string(), Json::from(e.name.as_str())),
        ("cmd".to_string(), e.cmd.as_str().into()),
        ("limits".to_string(), e.limits.as_str().into()),
    ];
    fields.splice(0..0, head);
    fields.push(("white".into(), wdl(&t.as_white)));
    fields.push(("black".into(), wdl(&t.as_black)));
    fields.push(("proto".into(), e.proto.as_str().into()));
    fields.push((
        "overruns".into(),
        obj([
            ("moves", u64::from(t.overruns.moves).into()),
            ("games", t.overrun_games.into()),
            ("longest_seconds", t.overruns.longest.as_secs_f64().into()),
        ]),
    ));
    fields.push(("time_forfeits".into(), t.time_forfeits.into()));
    fields.push((
        "thinking".into(),
        obj([
            ("turns", u64::from(t.thinking.turns).into()),
            ("seconds", t.thinking.time.as_secs_f64().into()),
            (
                "mean_seconds",
                t.thinking
                    .mean()
                    .map_or(Json::Null, |m| m.as_secs_f64().into()),
            ),
        ]),
    ));
    Json::Obj(fields)
}

/// One of `pairings`: the first engine's results against the second,
/// the pentanomial counts, Elo, LOS and the SPRT.
fn pairing(info: &MatchInfo, names: &[String], p: &PairingTally) -> Json {
    let estimate = elo_estimate(&p.penta);
    let sprt = match info.sprt {
        None => Json::Null,
        Some(s) => obj([
            ("elo0", s.elo0.into()),
            ("elo1", s.elo1.into()),
            ("alpha", s.alpha.into()),
            ("beta", s.beta.into()),
            ("lower", s.lower().into()),
            ("upper", s.upper().into()),
            ("llr", p.llr.unwrap_or(0.0).into()),
            ("decision", p.decision.map(|d| d.name()).into()),
        ]),
    };
    obj([
        ("first", names[p.first].as_str().into()),
        ("second", names[p.second].as_str().into()),
        ("first_results", wdl(&p.first())),
        ("first_as_white", wdl(&p.first_white)),
        ("first_as_black", wdl(&p.first_black)),
        ("first_on_time", wdl(&p.on_time)),
        ("first_on_board", wdl(&p.on_board)),
        ("pairs", p.penta.pairs().into()),
        (
            "pentanomial",
            Json::Arr(p.penta.0.iter().map(|&c| c.into()).collect()),
        ),
        (
            "colour_decided",
            obj([
                ("white_won_both", p.colour_decided[0].into()),
                ("black_won_both", p.colour_decided[1].into()),
            ]),
        ),
        ("elo", estimate.map(|e| e.elo).into()),
        ("elo_error", estimate.and_then(|e| e.error).into()),
        ("los", estimate.map(|e| e.los).into()),
        ("sprt", sprt),
    ])
}

/// `games`: every game played, in schedule order.
fn games(names: &[String], tally: &Tally) -> Json {
    let mut games: Vec<&GameSummary> = tally.games.iter().collect();
    games.sort_by_key(|g| g.index);
    Json::Arr(games.into_iter().map(|g| game(names, g)).collect())
}

/// One of `games`.
fn game(names: &[String], g: &GameSummary) -> Json {
    obj([
        ("round", (g.index + 1).into()),
        ("pair", (g.pair + 1).into()),
        ("white", names[g.white].as_str().into()),
        ("black", names[g.black].as_str().into()),
        ("result", g.result.into()),
        ("termination", g.termination.into()),
        ("detail", g.detail.as_str().into()),
        (
            "engine_errors",
            Json::Arr(g.complaints.iter().map(|c| c.as_str().into()).collect()),
        ),
        (
            "overruns",
            obj([
                ("white", u64::from(g.overruns[0].moves).into()),
                ("black", u64::from(g.overruns[1].moves).into()),
            ]),
        ),
        ("thinking", {
            let [white, black] = g.thinking.map(|t| {
                obj([
                    ("turns", u64::from(t.turns).into()),
                    ("seconds", t.time.as_secs_f64().into()),
                ])
            });
            obj([("white", white), ("black", black)])
        }),
        ("plies", g.plies.into()),
        ("opening", g.opening.as_str().into()),
        (
            "opening_value",
            g.opening_value.map_or(Json::Null, Json::from),
        ),
        ("seconds", g.duration.as_secs_f64().into()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printing() {
        let j = obj([
            (
                "a",
                Json::Arr(vec![1u64.into(), Json::Num(0.5), Json::Num(f64::NAN)]),
            ),
            ("b", "x\"y\\\n\u{1}".into()),
            ("c", Json::Obj(Vec::new())),
            ("d", Option::<u64>::None.into()),
        ]);
        let expected = "{\n  \"a\": [\n    1,\n    0.5,\n    null\n  ],\n  \
                        \"b\": \"x\\\"y\\\\\\n\\u0001\",\n  \"c\": {},\n  \"d\": null\n}\n";
        assert_eq!(j.pretty(), expected);
    }
}
