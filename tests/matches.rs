//! End-to-end tests of `mulino match`: the built binary runs matches
//! between copies of itself and against the misbehaving engines in
//! `tests/engines/`, and the tests read its `--json` report and replay
//! every record of its `--pgn` file through the rules core.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mulino::core::{Game, Move, Position, Variant};
use mulino::matches::rules::{apply_rule, parse_rule};
use mulino::matches::stats::{Pentanomial, Sprt};
use serde_json::Value;

const MULINO: &str = env!("CARGO_BIN_EXE_mulino");

/// A fresh directory for one test's files, removed afterwards.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mulino-match-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    fn path(&self, file: &str) -> String {
        self.0.join(file).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/engines")
        .join(name)
        .display()
        .to_string()
}

/// Command-line words from a template: split at spaces first, then each
/// `{name}` replaced, so values with spaces stay one word.
fn argv(template: &str, vars: &[(&str, &str)]) -> Vec<String> {
    template
        .split_whitespace()
        .map(|word| {
            vars.iter().fold(word.to_string(), |w, (name, value)| {
                w.replace(&format!("{{{name}}}"), value)
            })
        })
        .collect()
}

fn run_match(args: &[String]) -> Output {
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

fn read_json(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn int(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Checks that every count in the report agrees with every other.
fn check_totals(doc: &Value) {
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
        let (fw, fd, fl) = wdl(&p["first_results"]);
        let (aw, ad, al) = wdl(&p["first_as_white"]);
        let (bw, bd, bl) = wdl(&p["first_as_black"]);
        assert_eq!((aw + bw, ad + bd, al + bl), (fw, fd, fl));
    }
}

/// One PGN record: its tags, its moves and the comment after each, and
/// the result token.
struct Record {
    tags: Vec<(String, String)>,
    moves: Vec<(String, String)>,
    result: String,
}

impl Record {
    fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn parse_pgn(text: &str) -> Vec<Record> {
    let mut records = Vec::new();
    let mut tags = Vec::new();
    let mut movetext = String::new();
    let mut flush = |tags: &mut Vec<(String, String)>, movetext: &mut String| {
        if tags.is_empty() {
            return;
        }
        let mut tokens = Vec::new();
        let mut rest = movetext.as_str();
        while let Some(open) = rest.find('{') {
            tokens.extend(rest[..open].split_whitespace().map(String::from));
            let close = rest[open..].find('}').expect("closed comment") + open;
            tokens.push(rest[open..=close].to_string());
            rest = &rest[close + 1..];
        }
        tokens.extend(rest.split_whitespace().map(String::from));
        let result = tokens.pop().expect("result token");
        let mut moves: Vec<(String, String)> = Vec::new();
        for t in tokens {
            if t.starts_with('{') {
                if let Some(last) = moves.last_mut().filter(|m| m.1.is_empty()) {
                    last.1 = t;
                }
            } else if !t.ends_with('.') {
                moves.push((t, String::new()));
            }
        }
        records.push(Record {
            tags: std::mem::take(tags),
            moves,
            result,
        });
        movetext.clear();
    };
    for line in text.lines() {
        if let Some(tag) = line.strip_prefix('[') {
            if !movetext.trim().is_empty() {
                flush(&mut tags, &mut movetext);
            }
            let (name, value) = tag.split_once(' ').expect("tag name and value");
            let value = value.trim_end_matches(']').trim_matches('"');
            tags.push((name.to_string(), value.replace("\\\"", "\"")));
        } else {
            movetext.push_str(line);
            movetext.push('\n');
        }
    }
    flush(&mut tags, &mut movetext);
    records
}

/// Whether a move comment is `{book}` or `{[score[/depth] ]time s}`.
fn comment_ok(comment: &str) -> bool {
    let inner = comment.trim_start_matches('{').trim_end_matches('}');
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
fn replay_pgn(path: &str, expected: usize) -> Vec<Record> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let records = parse_pgn(&text);
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
        for (i, (text, comment)) in r.moves.iter().enumerate() {
            let m: Move = text
                .parse()
                .unwrap_or_else(|e| panic!("record {n} move {i} `{text}`: {e}"));
            game.play(m)
                .unwrap_or_else(|e| panic!("record {n} move {i} `{text}`: {e}"));
            assert!(comment_ok(comment), "record {n} move {i}: `{comment}`");
        }
        let result = r.tag("Result").expect("Result");
        assert_eq!(result, r.result, "record {n}");
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

#[test]
fn deeper_search_scores_clearly_more_and_the_numbers_add_up() {
    let dir = Scratch::new("depth");
    let (json, pgn) = (dir.path("match.json"), dir.path("match.pgn"));
    let out = run_match(&argv(
        "--engine cmd={mulino} name=shallow depth=1 --engine cmd={mulino} name=deep depth=4 \
         --games 20 --random-plies 4 --seed 11 --concurrency 2 --grace 5000 \
         --json {json} --pgn {pgn}",
        &[("mulino", MULINO), ("json", &json), ("pgn", &pgn)],
    ));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("shallow vs deep"), "{stdout}");
    let doc = read_json(&json);
    check_totals(&doc);
    assert_eq!(int(&doc["games_played"]), 20);
    assert_eq!(int(&doc["games_planned"]), 20);
    assert_eq!(int(&doc["pairings"][0]["pairs"]), 10);
    // Two sound engines: every game ends by the rules, without complaints.
    assert_eq!(
        int(&doc["terminations"]["normal"]),
        20,
        "{}",
        doc["terminations"]
    );
    for g in doc["games"].as_array().expect("games") {
        assert_eq!(g["engine_errors"], Value::Array(Vec::new()), "{g}");
    }
    // Over random four-ply openings depth 4 scores about 0.75-0.85.
    let deep = &doc["engines"][1];
    assert_eq!(deep["name"], "deep");
    let score = num(&deep["score"]);
    assert!(score >= 0.65, "depth 4 scored only {score} against depth 1");
    let elo = num(&doc["pairings"][0]["elo"]);
    assert!(elo < -50.0, "shallow's Elo against deep is {elo}");
    replay_pgn(&pgn, 20);
}

#[test]
fn misbehaving_engines_lose_with_the_right_reason() {
    let dir = Scratch::new("misbehaving");
    let cases = [
        ("illegal.sh", "depth=1", "illegal move"),
        ("hang.sh", "depth=1", "hang"),
        ("hang.sh", "tc=0.3", "time forfeit"),
        ("crash.sh", "depth=1", "crash"),
        ("garbage.sh", "depth=1", "malformed move"),
        ("missing.sh", "depth=1", "missing move"),
    ];
    for (n, (file, limit, reason)) in cases.into_iter().enumerate() {
        let (json, pgn) = (
            dir.path(&format!("{n}.json")),
            dir.path(&format!("{n}.pgn")),
        );
        run_match(&argv(
            "--engine cmd=bash arg={script} name=bad {limit} \
             --engine cmd={mulino} name=mulino depth=1 --games 4 --concurrency 2 \
             --grace 300 --init-timeout 5000 --json {json} --pgn {pgn}",
            &[
                ("script", &script(file)),
                ("limit", limit),
                ("mulino", MULINO),
                ("json", &json),
                ("pgn", &pgn),
            ],
        ));
        let doc = read_json(&json);
        check_totals(&doc);
        assert_eq!(int(&doc["games_played"]), 4, "{file}");
        for g in doc["games"].as_array().expect("games") {
            let bad_won = match g["result"].as_str() {
                Some("1-0") => g["white"] == "bad",
                Some("0-1") => g["black"] == "bad",
                _ => true,
            };
            assert!(!bad_won, "{file}: {g}");
            assert_eq!(g["termination"], reason, "{file}: {g}");
            let detail = g["detail"].as_str().expect("detail");
            assert!(detail.starts_with("bad ("), "{file}: {detail}");
        }
        replay_pgn(&pgn, 4);
    }
}

/// Mulino against the fake GBGP and Sanmill engines of `tests/engines/`
/// (mulino underneath, each dialect on the outside): whole games, every
/// record replays, and Sanmill's atomic steps come back as whole turns.
#[test]
fn other_dialects_play_whole_games() {
    let dir = Scratch::new("dialects");
    for (file, proto, limit) in [
        ("sanmill.sh", "sanmill", "depth=2"),
        ("gbgp.sh", "gbgp", "tc=20"),
    ] {
        let (json, pgn) = (
            dir.path(&format!("{proto}.json")),
            dir.path(&format!("{proto}.pgn")),
        );
        run_match(&argv(
            "--engine cmd={mulino} name=mulino depth=2 \
             --engine cmd=bash arg={script} arg={mulino} proto={proto} name=other {limit} \
             --games 4 --concurrency 2 --random-plies 4 --seed 7 --json {json} --pgn {pgn}",
            &[
                ("script", &script(file)),
                ("proto", proto),
                ("limit", limit),
                ("mulino", MULINO),
                ("json", &json),
                ("pgn", &pgn),
            ],
        ));
        let doc = read_json(&json);
        check_totals(&doc);
        assert_eq!(doc["engines"][1]["proto"], proto);
        for g in doc["games"].as_array().expect("games") {
            let t = g["termination"].as_str().expect("termination");
            assert!(t == "normal" || t == "max moves", "{proto}: {g}");
            assert_eq!(g["engine_errors"].as_array().map(Vec::len), Some(0), "{g}");
        }
        let records = replay_pgn(&pgn, 4);
        let removals = records
            .iter()
            .flat_map(|r| &r.moves)
            .filter(|(m, _)| m.contains('x'))
            .inspect(|(m, _)| assert!(!m.starts_with('x'), "{proto}: `{m}` is not a whole turn"))
            .count();
        assert!(removals > 0, "{proto}: no mill in four games");
    }
}

/// A Sanmill-style engine that takes 300 ms longer than its movetime:
/// its overruns are counted, and only a `margin=` makes them forfeits,
/// which the report keeps apart from games won on the board.
#[test]
fn overruns_are_counted_and_forfeit_only_past_the_margin() {
    let dir = Scratch::new("overrun");
    for (margin, forfeits) in [("", false), ("margin=200", true)] {
        let json = dir.path("match.json");
        let words: Vec<String> = argv(
            "--engine cmd={mulino} name=mulino depth=1 \
             --engine cmd=bash arg={script} arg={mulino} arg=slow proto=sanmill name=slow \
             movetime=50 {margin} --games 2 --max-moves 6 --random-plies 2 --seed 1 --json {json}",
            &[
                ("script", &script("sanmill.sh")),
                ("margin", margin),
                ("mulino", MULINO),
                ("json", &json),
            ],
        )
        .into_iter()
        .filter(|w| !w.is_empty())
        .collect();
        let out = run_match(&words);
        let text = String::from_utf8_lossy(&out.stdout);
        let doc = read_json(&json);
        check_totals(&doc);
        let slow = &doc["engines"][1];
        let pairing = &doc["pairings"][0];
        if forfeits {
            assert_eq!(int(&slow["time_forfeits"]), 2, "{text}");
            assert_eq!(int(&slow["overruns"]["moves"]), 0);
            assert_eq!(int(&pairing["first_on_time"]["wins"]), 2);
            assert_eq!(int(&pairing["first_on_board"]["wins"]), 0);
            assert!(
                text.contains("won on time, not on the board: 2 games"),
                "{text}"
            );
            for g in doc["games"].as_array().expect("games") {
                assert_eq!(g["termination"], "time forfeit", "{g}");
            }
        } else {
            assert_eq!(int(&slow["time_forfeits"]), 0, "{text}");
            assert!(int(&slow["overruns"]["moves"]) >= 6, "{text}");
            assert_eq!(int(&slow["overruns"]["games"]), 2);
            assert!(num(&slow["overruns"]["longest_seconds"]) >= 0.3);
            assert_eq!(int(&pairing["first_on_time"]["wins"]), 0);
            assert!(text.contains("Overruns past movetime: slow "), "{text}");
        }
    }
}

#[test]
fn openings_fen_rules_and_move_limit_replay() {
    let dir = Scratch::new("openings");
    let (json, pgn, book) = (dir.path("m.json"), dir.path("m.pgn"), dir.path("book.txt"));
    std::fs::write(
        &book,
        "# two openings\n\
         startpos moves d6 a1 d5 a4 d7 xa4\n\
         fen **O@O*@*/**@*O@@O/****@O@O w p p 6 2 7 2 0 0 0 0 0 0 0 0 1 moves d5\n",
    )
    .expect("openings file");
    run_match(&argv(
        "--engine cmd={mulino} name=one --engine cmd={mulino} name=two --depth 1 --games 8 \
         --openings {book} --shuffle --seed 3 --random-plies 2 --rule NMoveRule=30 \
         --max-moves 12 --grace 1000 --concurrency 2 --json {json} --pgn {pgn}",
        &[
            ("mulino", MULINO),
            ("book", &book),
            ("json", &json),
            ("pgn", &pgn),
        ],
    ));
    let doc = read_json(&json);
    check_totals(&doc);
    assert_eq!(doc["rules"]["NMoveRule"], "30");
    let records = replay_pgn(&pgn, 8);
    let from_fen = records.iter().filter(|r| r.tag("FEN").is_some()).count();
    assert_eq!(from_fen, 4, "one opening of two starts from a FEN");
    for r in &records {
        assert_eq!(r.tag("Rules"), Some("NMoveRule=30"));
        assert!(r.moves.len() <= 24, "--max-moves 12 is 24 turns");
        // Book moves come first: the opening's and the random plies.
        let book_moves = r.moves.iter().take_while(|m| m.1 == "{book}").count();
        let expected = if r.tag("FEN").is_some() { 3 } else { 7 };
        assert_eq!(book_moves, expected);
    }
}

#[test]
fn sprt_stops_when_a_bound_is_crossed() {
    let dir = Scratch::new("sprt");
    let json = dir.path("s.json");
    run_match(&argv(
        "--engine cmd={mulino} name=deep depth=4 --engine cmd={mulino} name=shallow depth=1 \
         --games 200 --random-plies 4 --seed 5 --sprt elo0=0 elo1=100 --concurrency 2 \
         --grace 500 --json {json}",
        &[("mulino", MULINO), ("json", &json)],
    ));
    let doc = read_json(&json);
    check_totals(&doc);
    let p = &doc["pairings"][0];
    let sprt = &p["sprt"];
    assert_eq!(sprt["decision"], "H1", "{p}");
    let llr = num(&sprt["llr"]);
    assert!(llr >= num(&sprt["upper"]), "{llr}");
    assert!(int(&doc["games_played"]) < 200, "the test stopped early");
    // The reported LLR is the one the statistics give for the counts.
    let counts: Vec<u64> = p["pentanomial"]
        .as_array()
        .expect("pentanomial")
        .iter()
        .map(int)
        .collect();
    let penta = Pentanomial(counts.try_into().expect("five counts"));
    let test = Sprt {
        elo0: 0.0,
        elo1: 100.0,
        alpha: 0.05,
        beta: 0.05,
    };
    assert!((test.llr(&penta) - llr).abs() < 1e-9);
}

#[test]
fn an_engine_that_cannot_start_is_a_fatal_error() {
    let mulino = format!("cmd={MULINO}");
    let output = Command::new(MULINO)
        .arg("match")
        .args(argv(
            "--engine cmd=/nonexistent/engine --engine {mulino} --depth 1",
            &[("mulino", &mulino)],
        ))
        .output()
        .expect("run mulino match");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/nonexistent/engine"), "{stderr}");
    let output = Command::new(MULINO)
        .args(["match", "--engine", &mulino, "--engine", &mulino])
        .output()
        .expect("run mulino match");
    assert_eq!(output.status.code(), Some(1), "no search limit");
}

/// What a dialect cannot express stops the match before any game, with
/// the engine named: a variant GBGP lacks, a FEN opening (GBGP's FEN has
/// no hands).
#[test]
fn dialect_limits_are_setup_errors() {
    let dir = Scratch::new("dialect-errors");
    let openings = dir.path("openings.txt");
    std::fs::write(
        &openings,
        "fen **O@O*@*/**@*O@@O/****@O@O w p p 6 2 7 2 0 0 0 0 0 0 0 0 1 moves d5\n",
    )
    .expect("openings file");
    for extra in ["--variant morabaraba", "--openings {openings}"] {
        let output = Command::new(MULINO)
            .arg("match")
            .args(argv(
                &format!(
                    "--engine cmd={{mulino}} --engine cmd=bash arg={{script}} arg={{mulino}} \
                     proto=gbgp name=other --depth 1 {extra}"
                ),
                &[
                    ("mulino", MULINO),
                    ("script", &script("gbgp.sh")),
                    ("openings", &openings),
                ],
            ))
            .output()
            .expect("run mulino match");
        assert_eq!(output.status.code(), Some(1), "{extra}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("`other` speaks gbgp"), "{extra}: {stderr}");
    }
}

/// The 3-3 database in `dir`, and two of its positions as FEN: its
/// longest win for the side to move (25 plies) and a draw.
fn three_three_database(dir: &Path) -> (String, String) {
    use mulino::core::Rules;
    use mulino::tb::build::{self, Options};
    use mulino::tb::probe::Tablebases;
    use mulino::tb::{TbRules, Value as TbValue};
    let rules = Rules::default();
    let tb_rules = TbRules::from_rules(&rules).expect("nine men's morris has databases");
    let opts = Options {
        dir: dir.to_path_buf(),
        threads: 1,
        memory: 1 << 30,
    };
    build::build_pair(tb_rules, 3, 3, &opts, &|_| {}).expect("build 3-3");
    let tb = Tablebases::new(dir, tb_rules);
    let table = tb.table(3, 3).expect("3-3 opens");
    let find = |wanted: TbValue| {
        (0..table.table.slots().len() as u64)
            .filter_map(|slot| {
                let (own, opp) = table.sub.position(slot);
                build::position(tb_rules, own, opp)
            })
            .find(|pos| tb.probe(pos) == Some(wanted))
            .map(|pos| pos.fen(&rules))
            .expect("the table has such a position")
    };
    (find(TbValue::Win(25)), find(TbValue::Draw))
}

/// `--tb`: a game that reaches a position the databases hold ends there
/// with its value; a win only when the N-move rule cannot intervene, a
/// draw only in the modes that adjudicate draws.
#[test]
fn the_databases_adjudicate_games() {
    let dir = Scratch::new("tb");
    let tb = dir.path("tb");
    let (win, draw) = three_three_database(Path::new(&tb));
    assert!(win.contains(" w m "), "White to move: {win}");
    // The same win with 80 plies on the counter: 80 + 25 reaches the
    // 100-ply limit, so the rule could still make it a draw.
    let mut fields: Vec<&str> = win.split_whitespace().collect();
    fields[15] = "80";
    let late_win = fields.join(" ");
    let (book, json) = (dir.path("book.txt"), dir.path("m.json"));
    let run = |openings: &str, mode: &str| {
        std::fs::write(&book, openings).expect("openings file");
        run_match(&argv(
            "--engine cmd={mulino} name=one --engine cmd={mulino} name=two --depth 1 --games 4 \
             --openings {book} --tb {tb} --tb-adjudicate {mode} --max-moves 30 \
             --concurrency 2 --json {json}",
            &[
                ("mulino", MULINO),
                ("book", &book),
                ("tb", &tb),
                ("mode", mode),
                ("json", &json),
            ],
        ));
        let doc = read_json(&json);
        check_totals(&doc);
        assert_eq!(doc["tb"]["adjudicate"], mode);
        doc["games"].as_array().expect("games").clone()
    };
    // Both at once, with no move played.
    for g in run(&format!("fen {win}\nfen {draw}\n"), "both") {
        assert_eq!(g["termination"], "adjudication", "{g}");
        assert_eq!(int(&g["plies"]), 0, "{g}");
        let opening = g["opening"].as_str().expect("opening");
        let expected = if opening.contains(&win) {
            "1-0"
        } else {
            "1/2-1/2"
        };
        assert_eq!(g["result"], expected, "{g}");
    }
    // Neither: the draw is played on, and so is the win the counter may
    // yet spoil. Games may still end by adjudication later, but only as
    // wins, once a mistake shortens the way to the end.
    for g in run(&format!("fen {late_win}\nfen {draw}\n"), "win-loss") {
        assert!(int(&g["plies"]) > 0, "played on: {g}");
        if g["termination"] == "adjudication" {
            assert_ne!(g["result"], "1/2-1/2", "{g}");
        }
    }
    // Refused before any game: a directory without databases, a mode
    // that does not exist, rules the databases do not fit.
    for extra in [
        "--tb {scratch}",
        "--tb {tb} --tb-adjudicate sometimes",
        "--tb {tb} --variant russian",
    ] {
        let output = Command::new(MULINO)
            .arg("match")
            .args(argv(
                &format!("--engine cmd={{mulino}} --engine cmd={{mulino}} --depth 1 {extra}"),
                &[
                    ("mulino", MULINO),
                    ("tb", &tb),
                    ("scratch", &dir.path("none")),
                ],
            ))
            .output()
            .expect("run mulino match");
        assert_eq!(output.status.code(), Some(1), "{extra}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--tb"), "{extra}: {stderr}");
    }
}
