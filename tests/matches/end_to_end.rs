//! End-to-end tests of `mulino match`: the built binary runs matches
//! between copies of itself and against the misbehaving engines in
//! `tests/engines/`, and the tests read its `--json` report and replay
//! every record of its `--pgn` file through the rules core.

use std::path::Path;
use std::process::Command;

use crate::matching::*;
use mulino::matches::stats::elo::Pentanomial;
use mulino::matches::stats::sprt::Sprt;
use serde_json::Value;

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
            .map(|m| &m.text)
            .filter(|m| m.contains('x'))
            .inspect(|m| assert!(!m.starts_with('x'), "{proto}: `{m}` is not a whole turn"))
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
            // Its mean time a turn is what it took, not what it was told.
            let thinking = &slow["thinking"];
            assert!(num(&thinking["mean_seconds"]) >= 0.3, "{thinking}");
            let per_game: u64 = doc["games"]
                .as_array()
                .expect("games")
                .iter()
                .map(|g| {
                    let side = if g["white"] == "slow" {
                        "white"
                    } else {
                        "black"
                    };
                    int(&g["thinking"][side]["turns"])
                })
                .sum();
            assert_eq!(int(&thinking["turns"]), per_game, "{thinking}");
            assert!(text.contains("Time per turn (mean): mulino "), "{text}");
            assert!(text.contains(" x mulino)"), "{text}");
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
        let book_moves = r
            .moves
            .iter()
            .take_while(|m| m.comments.first().is_some_and(|c| c == "book"))
            .count();
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
    use mulino::tb::moving::build::{self, Options};
    use mulino::tb::probe::Tablebases;
    use mulino::tb::{TbRules, Value as TbValue};
    let rules = Rules::default();
    let tb_rules = TbRules::from_rules(&rules).expect("nine men's morris has databases");
    let opts = Options {
        dir: dir.to_path_buf(),
        threads: 1,
        memory: 1 << 30,
    };
    build::PairBuild::tb(tb_rules, 3, 3, &opts)
        .run(&|_| {})
        .expect("build 3-3");
    let tb = Tablebases::new(dir, tb_rules);
    let table = tb.table(3, 3).expect("3-3 opens");
    let find = |wanted: TbValue| {
        (0..table.table.slots().len() as u64)
            .filter_map(|slot| {
                let (own, opp) = table.sub.position(slot);
                tb_rules.position(own, opp)
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
        let output = run_match(&argv(
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
        let report = String::from_utf8_lossy(&output.stdout).into_owned();
        (doc["games"].as_array().expect("games").clone(), report)
    };
    // Both at once, with no move played.
    let (games, report) = run(&format!("fen {win}\nfen {draw}\n"), "both");
    // Each game's opening valued by the databases, and the first
    // engine's results set apart by it (it has White in one game of each
    // pair: the won opening is a win for it once and a loss once).
    assert!(
        report.contains(
            "by the databases' value of the opening for one: a win 1 (W-D-L 1-0-0), \
             a draw 2 (W-D-L 0-2-0), a loss 1 (W-D-L 0-0-1)"
        ),
        "{report}"
    );
    for g in games {
        let opening = g["opening"].as_str().expect("opening");
        let value = if opening.contains(&win) {
            "1-0"
        } else {
            "1/2-1/2"
        };
        assert_eq!(g["opening_value"], value, "{g}");
        assert_eq!(g["termination"], "adjudication", "{g}");
        assert_eq!(int(&g["plies"]), 0, "{g}");
        assert_eq!(g["result"], value, "{g}");
    }
    // Neither: the draw is played on, and so is the win the counter may
    // yet spoil. Games may still end by adjudication later, but only as
    // wins, once a mistake shortens the way to the end.
    for g in run(&format!("fen {late_win}\nfen {draw}\n"), "win-loss").0 {
        assert!(int(&g["plies"]) > 0, "played on: {g}");
        if g["termination"] == "adjudication" {
            assert_ne!(g["result"], "1/2-1/2", "{g}");
        }
    }
    // Refused before any game: a directory without databases, a mode
    // that does not exist (a usage error), rules the databases do not fit.
    for (extra, status) in [
        ("--tb {scratch}", 1),
        ("--tb {tb} --tb-adjudicate sometimes", 2),
        ("--tb {tb} --variant russian", 1),
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
        assert_eq!(output.status.code(), Some(status), "{extra}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--tb"), "{extra}: {stderr}");
    }
}
