//! `mulino match --shard K/N` and `mulino match merge`: a match played in
//! one run and the same match played as slices and merged give the same
//! games and the same numbers, and reports that do not belong together
//! are refused.

use std::process::Command;

use crate::matching::*;
use serde_json::Value;

/// Mulino at depth 2 against itself at depth 1 (deterministic: one
/// thread, a fixed depth, the hash table cleared before every game), 20
/// games over 10 random openings, with an SPRT these few games cannot
/// decide. (Against itself at the same depth every pair is a win and a
/// loss: the numbers would be too plain to compare.) Seed 37 gives four
/// of the five pair classes and a pair that one colour won twice (a change
/// to the search or the evaluation may need another seed for that).
const MATCH: &str = "--engine cmd={mulino} name=a depth=2 --engine cmd={mulino} name=b depth=1 \
                     --games 20 --random-plies 4 --seed 37 --concurrency 2 --grace 20000 \
                     --sprt elo0=0 elo1=5";

/// The report without what may differ between runs of the same games:
/// times, the concurrency and which slices it holds.
fn comparable(doc: &Value) -> Value {
    let mut doc = doc.clone();
    let top = doc.as_object_mut().expect("a JSON object");
    for key in ["elapsed_seconds", "concurrency", "shard", "merged"] {
        top.remove(key);
    }
    for g in top["games"].as_array_mut().expect("games") {
        let g = g.as_object_mut().expect("a game");
        g.remove("seconds");
        for side in ["white", "black"] {
            let side = g["thinking"][side].as_object_mut().expect("thinking");
            side.remove("seconds");
        }
    }
    for e in top["engines"].as_array_mut().expect("engines") {
        let thinking = e["thinking"].as_object_mut().expect("thinking");
        thinking.remove("seconds");
        thinking.remove("mean_seconds");
    }
    doc
}

/// The summary's lines about the pairing (score, Elo, pairs lost,
/// pentanomial, SPRT).
fn pairing_lines(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| l.starts_with("a vs b") || l.starts_with("  "))
        .map(String::from)
        .collect()
}

fn merge(args: &[String]) -> std::process::Output {
    Command::new(MULINO)
        .args(["match", "merge"])
        .args(args)
        .output()
        .expect("run mulino match merge")
}

#[test]
fn slices_merged_equal_the_match_played_at_once() {
    let dir = Scratch::new("shards");
    let vars = [("mulino", MULINO)];
    let whole_json = dir.path("whole.json");
    let mut whole_args = argv(MATCH, &vars);
    whole_args.extend(["--json".to_string(), whole_json.clone()]);
    let whole_out = run_match(&whole_args);
    let whole = read_json(&whole_json);
    check_totals(&whole);
    assert_eq!(
        int(&whole["games_played"]),
        20,
        "the SPRT stopped the match"
    );

    let mut shard_paths = Vec::new();
    let mut rounds_by_shard = Vec::new();
    for k in 1..=3 {
        let path = dir.path(&format!("shard{k}.json"));
        let mut args = argv(MATCH, &vars);
        args.extend([
            "--shard".into(),
            format!("{k}/3"),
            "--json".into(),
            path.clone(),
        ]);
        let out = run_match(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(&format!("Shard {k}/3")), "{stdout}");
        let doc = read_json(&path);
        check_totals(&doc);
        assert_eq!(doc["shard"]["index"], k);
        let rounds: Vec<u64> = doc["games"]
            .as_array()
            .expect("games")
            .iter()
            .map(|g| int(&g["round"]))
            .collect();
        rounds_by_shard.push(rounds);
        shard_paths.push(path);
    }
    // Disjoint slices of whole pairs that together are every game.
    let mut all: Vec<u64> = rounds_by_shard.concat();
    all.sort_unstable();
    assert_eq!(all, (1..=20).collect::<Vec<u64>>(), "{rounds_by_shard:?}");
    assert_eq!(rounds_by_shard[0], [1, 2, 7, 8, 13, 14, 19, 20]);

    let merged_json = dir.path("merged.json");
    // In any order.
    let mut args: Vec<String> = shard_paths.iter().rev().cloned().collect();
    args.extend(["--json".to_string(), merged_json.clone()]);
    let out = merge(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Merged: all 3 shards"), "{stdout}");
    let merged = read_json(&merged_json);
    check_totals(&merged);
    // Every number (W-D-L by engine and colour, pentanomial, Elo and its
    // margin, LOS, LLR) and every game (numbers, colours, openings,
    // results) are those of the match played at once.
    assert_eq!(comparable(&merged), comparable(&whole));
    // The engines' thinking time is the slices' added up.
    for e in 0..2 {
        let slices: f64 = shard_paths
            .iter()
            .map(|path| num(&read_json(path)["engines"][e]["thinking"]["seconds"]))
            .sum();
        let thinking = &merged["engines"][e]["thinking"];
        assert!(
            (num(&thinking["seconds"]) - slices).abs() < 1e-6,
            "{thinking}"
        );
        assert!(int(&thinking["turns"]) > 0, "{thinking}");
    }
    let p = &merged["pairings"][0];
    assert!(p["elo"].is_number() && p["elo_error"].is_number(), "{p}");
    assert!(num(&p["sprt"]["llr"]) != 0.0, "{p}");
    let classes = p["pentanomial"].as_array().expect("pentanomial");
    assert!(classes.iter().filter(|c| int(c) > 0).count() >= 3, "{p}");
    // Pairs that one colour won twice are counted apart, as in one run.
    let decided = &p["colour_decided"];
    assert!(
        int(&decided["white_won_both"]) + int(&decided["black_won_both"]) > 0,
        "{p}"
    );
    assert_eq!(pairing_lines(&out.stdout), pairing_lines(&whole_out.stdout));
    assert_eq!(pairing_lines(&out.stdout).len(), 4, "{stdout}");

    refusals(&dir, &shard_paths);
}

/// What `merge` refuses, and a merge with a slice missing.
fn refusals(dir: &Scratch, shards: &[String]) {
    let failed = |args: &[&str], expected: &str| {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let out = merge(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (s1, s2, s3) = (shards[0].as_str(), shards[1].as_str(), shards[2].as_str());
    let partial = failed(&[s1, s3], "shards missing: 2/3");
    assert!(partial.contains("PARTIAL RESULT"), "{partial}");
    assert!(partial.contains("missing 2/3"), "{partial}");
    failed(&[s1, s2, s1], "shard 1/3 is given twice");

    // A slice of another match: another seed, another split, another
    // engine, a game that is not the slice's.
    let edited = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut doc = read_json(s2);
        edit(&mut doc);
        let path = dir.path(name);
        std::fs::write(&path, doc.to_string()).expect("write");
        path
    };
    let seed = edited("seed.json", &|d| d["settings"]["seed"] = "38".into());
    failed(&[s1, &seed, s3], "`seed` is `37`");
    let split = edited("split.json", &|d| d["shard"]["count"] = 4.into());
    failed(&[s1, &split], "shard 1/3 and");
    let engine = edited("engine.json", &|d| {
        let e = d["settings"]["engine 2"]
            .as_str()
            .expect("engine 2")
            .replace("name=b", "name=c");
        d["settings"]["engine 2"] = e.into();
    });
    failed(&[s1, &engine], "`engine 2`");
    let stray = edited("stray.json", &|d| d["games"][0]["pair"] = 1.into());
    failed(&[&stray], "pair 1 is not one of shard 2/3's");
    let garbage = dir.path("garbage.json");
    std::fs::write(&garbage, "{}").expect("write");
    failed(&[&garbage], "is not a report");
}

/// What `--shard` needs, refused before any game; a slice that does
/// not exist is a usage error.
#[test]
fn a_shard_needs_a_seed_and_a_report() {
    for (extra, expected, status) in [
        ("--shard 1/2 --json x.json", "needs --seed", 1),
        ("--shard 1/2 --seed 1", "needs --json", 1),
        ("--shard 3/2 --seed 1 --json x.json", "--shard", 2),
    ] {
        let out = Command::new(MULINO)
            .arg("match")
            .args(argv(
                &format!("--engine cmd={{mulino}} --engine cmd={{mulino}} --depth 1 {extra}"),
                &[("mulino", MULINO)],
            ))
            .output()
            .expect("run mulino match");
        assert_eq!(out.status.code(), Some(status), "{extra}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{extra}: {stderr}");
    }
}
