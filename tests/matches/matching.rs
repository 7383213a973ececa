//! What the match-runner tests share: a scratch directory, the fake
//! engines' paths, command lines from templates, running `mulino match`,
//! reading its `--json` report and checking that its counts add up, and
//! replaying every record of its `--pgn` file through the rules core.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mulino::core::pgn::{self, PgnGame, PgnMove};
use mulino::core::{Game, Move, Position, Variant};
use mulino::matches::rules::{apply_rule, parse_rule};
use serde_json::Value;

pub const MULINO: &str = env!("CARGO_BIN_EXE_mulino");

/// A fresh directory for one test's files, removed afterwards.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mulino-match-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    pub fn path(&self, file: &str) -> String {
        self.0.join(file).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/engines")
        .join(name)
        .display()
        .to_string()
}

/// Command-line words from a template: split at spaces first, then each
/// `{name}` replaced, so values with spaces stay one word.
pub fn argv(template: &str, vars: &[(&str, &str)]) -> Vec<String> {
    template
        .split_whitespace()
        .map(|word| {
            vars.iter().fold(word.to_string(), |w, (name, value)| {
                w.replace(&format!("{{{name}}}"), value)
            })
        })
        .collect()
}

pub fn run_match(args: &[String]) -> Output {
    let output = Command::new(MULINO)
        .arg("match")
        .args(args)
        .output()
        .expect("run mulino match");
    assert!(
        output.status.success(),
        "mulino match {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    output
}

pub fn read_json(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn int(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

pub fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Checks that every count in the report agrees with every other.
pub fn check_totals(doc: &Value) {
    let games = doc["games"].as_array().expect("games");
    let played = int(&doc["games_played"]);
    assert_eq!(games.len() as u64, played);
    assert!(played <= int(&doc["games_planned"]));
    let wdl = |v: &Value| (int(&v["wins"]), int(&v["draws"]), int(&v["losses"]));
    let mut engine_games = 0;
    let (mut all_wins, mut all_losses) = (0, 0);
    for e in doc["engines"].as_array().expect("engines") {
        let (w, d, l) = wdl(e);
        assert_eq!(w + d + l, int(&e["games"]));
        let (ww, wd, wl) = wdl(&e["white"]);
        let (bw, bd, bl) = wdl(&e["black"]);
        assert_eq!((ww + bw, wd + bd, wl + bl), (w, d, l));
        assert_eq!(num(&e["points"]), w as f64 + d as f64 / 2.0);
        if int(&e["games"]) > 0 {
            let score = num(&e["points"]) / int(&e["games"]) as f64;
            assert!((num(&e["score"]) - score).abs() < 1e-12);
        }
        engine_games += w + d + l;
        all_wins += w;
        all_losses += l;
        // Counted again from the game list.
        let name = e["name"].as_str().expect("name");
        let mut recount = (0, 0, 0);
        for g in games {
            let side = if g["white"] == name {
                "1-0"
            } else if g["black"] == name {
                "0-1"
            } else {
                continue;
            };
            match g["result"].as_str().expect("result") {
                "1/2-1/2" => recount.1 += 1,
                r if r == side => recount.0 += 1,
                _ => recount.2 += 1,
            }
        }
        assert_eq!(recount, (w, d, l), "{name}");
    }
    // Every game has two engines; every win is somebody's loss.
    assert_eq!(engine_games, 2 * played);
    assert_eq!(all_wins, all_losses);
    let (white_wins, draws, black_wins) = wdl(&doc["by_colour"]);
    assert_eq!(white_wins + draws + black_wins, played);
    let terminations: u64 = doc["terminations"]
        .as_object()
        .expect("terminations")
        .values()
        .map(int)
        .sum();
    assert_eq!(terminations, played);
    for p in doc["pairings"].as_array().expect("pairings") {
        let penta: Vec<u64> = p["pentanomial"]
            .as_array()
            .expect("pentanomial")
            .iter()
            .map(int)
            .collect();
        assert_eq!(penta.iter().sum::<u64>(), int(&p["pairs"]));
        // The pairs the first engine lost: both games, or one and a draw.
        assert_eq!(int(&p["pairs_lost"]), penta[0] + penta[1], "{p}");
        assert!(2 * int(&p["pairs"]) <= int(&p["first_results"]["games"]));
        // Pair points agree with the first engine's points over the
        // complete pairs, which are all its games when none is open.
        let pair_points: f64 = penta
            .iter()
            .enumerate()
            .map(|(i, &c)| c as f64 * i as f64 / 2.0)
            .sum();
        if 2 * int(&p["pairs"]) == int(&p["first_results"]["games"]) {
            assert_eq!(pair_points, num(&p["first_results"]["points"]));
        }
        // Pairs whose two games the same colour won (a win each), counted
        // again from the game list.
        let (first, second) = (&p["first"], &p["second"]);
        let mut results: std::collections::BTreeMap<u64, Vec<&str>> = Default::default();
        for g in games {
            let players = [&g["white"], &g["black"]];
            if players == [first, second] || players == [second, first] {
                let result = g["result"].as_str().expect("result");
                results.entry(int(&g["pair"])).or_default().push(result);
            }
        }
        let both = |r: &str| results.values().filter(|v| v[..] == [r, r]).count() as u64;
        let decided = &p["colour_decided"];
        assert_eq!(int(&decided["white_won_both"]), both("1-0"), "{p}");
        assert_eq!(int(&decided["black_won_both"]), both("0-1"), "{p}");
        // With the two draws, they are the pentanomial's middle class.
        let middle = both("1-0") + both("0-1") + both("1/2-1/2");
        assert_eq!(middle, penta[2], "DD+WL: {p}");
        let (fw, fd, fl) = wdl(&p["first_results"]);
        let (aw, ad, al) = wdl(&p["first_as_white"]);
        let (bw, bd, bl) = wdl(&p["first_as_black"]);
        assert_eq!((aw + bw, ad + bd, al + bl), (fw, fd, fl));
    }
}

/// Whether a move comment is `{book}` or `{[score[/depth] ]time s}`.
pub fn comment_ok(comment: Option<&str>) -> bool {
    let Some(inner) = comment else {
        return false;
    };
    if inner == "book" {
        return true;
    }
    let words: Vec<&str> = inner.split(' ').collect();
    let time_ok = |w: &str| {
        w.strip_suffix('s').is_some_and(|t| {
            t.parse::<f64>().is_ok() && t.split('.').nth(1).map(str::len) == Some(3)
        })
    };
    match words.as_slice() {
        [time] => time_ok(time),
        [score, time] => {
            let value = score.split('/').next().unwrap_or("");
            let number = value.trim_start_matches(['+', '-']);
            (value.starts_with('+') || value.starts_with('-'))
                && (number.parse::<f64>().is_ok() || number.starts_with('M'))
                && time_ok(time)
        }
        _ => false,
    }
}

/// Replays every record through the rules core: every move is legal and
/// the game ends as its result and termination say. Returns the records.
pub fn replay_pgn(path: &str, expected: usize) -> Vec<PgnGame> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let records = pgn::read(&text);
    assert_eq!(records.len(), expected, "records in {path}");
    for (n, r) in records.iter().enumerate() {
        let variant: Variant = r.tag("Variant").expect("Variant").parse().expect("variant");
        let mut rules = variant.rules();
        for rule in r.tag("Rules").unwrap_or("").split_whitespace() {
            let (option, value) = parse_rule(rule).expect("NAME=VALUE");
            apply_rule(&mut rules, option, &value).expect("rule");
        }
        let start = match r.tag("FEN") {
            Some(fen) => Position::from_fen(fen, &rules).expect("FEN"),
            None => Position::startpos(&rules),
        };
        let mut game = Game::from_position(rules, start);
        for (i, PgnMove { text, comments }) in r.moves.iter().enumerate() {
            let m: Move = text
                .parse()
                .unwrap_or_else(|e| panic!("record {n} move {i} `{text}`: {e}"));
            game.play(m)
                .unwrap_or_else(|e| panic!("record {n} move {i} `{text}`: {e}"));
            let comment = comments.first().map(String::as_str);
            assert!(comment_ok(comment), "record {n} move {i}: `{comment:?}`");
        }
        let result = r.tag("Result").expect("Result");
        assert_eq!(Some(result), r.result.as_deref(), "record {n}");
        assert_eq!(
            r.tag("PlyCount").and_then(|c| c.parse().ok()),
            Some(r.moves.len())
        );
        for tag in ["Event", "Date", "White", "Black", "TimeControl"] {
            assert!(r.tag(tag).is_some(), "record {n} has no {tag}");
        }
        match r.tag("Termination").expect("Termination") {
            "normal" => {
                let outcome = game.outcome().expect("a finished game");
                assert_eq!(outcome.result_text(), result, "record {n}");
            }
            "max moves" => {
                assert_eq!(game.outcome(), None, "record {n}");
                assert_eq!(result, "1/2-1/2");
            }
            fault => {
                assert!(
                    [
                        "illegal move",
                        "malformed move",
                        "missing move",
                        "crash",
                        "hang",
                        "time forfeit"
                    ]
                    .contains(&fault),
                    "record {n}: {fault}"
                );
                assert_eq!(game.outcome(), None, "record {n}");
                assert!(result == "1-0" || result == "0-1", "record {n}");
            }
        }
    }
    records
}
