//! The Sanmill dialect in every variant: the fake Sanmill engine of
//! `tests/engines/sanmill.sh` (mulino underneath, Sanmill's options and
//! `statejson` on the outside) records the `setoption` lines it gets, so
//! these tests see the rule options sent for each variant, play whole
//! games with them, and see a game left out when the engine's state at
//! the first position is not the referee's.

use std::collections::BTreeMap;

use crate::matching::*;
use serde_json::Value;

/// The rule options sent to Sanmill, in order, with Nine Men's Morris's
/// values (Sanmill's defaults).
const NINE: [(&str, &str); 21] = [
    ("PiecesCount", "9"),
    ("MayFly", "true"),
    ("FlyPieceCount", "3"),
    ("HasDiagonalLines", "false"),
    ("MillFormationActionInPlacingPhase", "0"),
    ("MayRemoveFromMillsAlways", "false"),
    ("MayRemoveMultiple", "false"),
    ("MayMoveInPlacingPhase", "false"),
    ("OneTimeUseMill", "false"),
    ("NMoveRule", "100"),
    ("EndgameNMoveRule", "100"),
    ("ThreefoldRepetitionRule", "true"),
    ("BoardFullAction", "0"),
    ("IsDefenderMoveFirst", "false"),
    ("StalemateAction", "0"),
    ("PiecesAtLeastCount", "3"),
    ("RestrictRepeatedMillsFormation", "false"),
    ("StopPlacingWhenTwoEmptySquares", "false"),
    ("CustodianCaptureEnabled", "false"),
    ("InterventionCaptureEnabled", "false"),
    ("LeapCaptureEnabled", "false"),
];

/// Three variants whose rules differ most from the standard game, as
/// `--variant` and `--rule` words and the options that differ from
/// [`NINE`] (Sanmill's presets 7, 9 and 5).
const CASES: [(&str, &[(&str, &str)]); 3] = [
    (
        "--variant da-san-qi",
        &[
            ("PiecesCount", "12"),
            ("MayFly", "false"),
            ("HasDiagonalLines", "true"),
            ("MillFormationActionInPlacingPhase", "4"),
            ("MayRemoveFromMillsAlways", "true"),
            ("IsDefenderMoveFirst", "true"),
        ],
    ),
    (
        "--variant el-filja --rule NMoveRule=40 --rule EndgameNMoveRule=0",
        &[
            ("PiecesCount", "12"),
            ("MayFly", "false"),
            ("MillFormationActionInPlacingPhase", "5"),
            ("MayRemoveFromMillsAlways", "true"),
            ("NMoveRule", "40"),
            // Off: Sanmill's endgame rule applies only below NMoveRule.
            ("EndgameNMoveRule", "40"),
            ("BoardFullAction", "1"),
        ],
    ),
    (
        "--variant lasker",
        &[("PiecesCount", "10"), ("MayMoveInPlacingPhase", "true")],
    ),
];

/// `mulino match` between mulino and the fake Sanmill (2 games), with
/// `extra` words for the fake and the match.
fn play(dir: &Scratch, name: &str, fake: &str, extra: &str) -> (Value, String, String) {
    let (json, pgn) = (
        dir.path(&format!("{name}.json")),
        dir.path(&format!("{name}.pgn")),
    );
    let out = run_match(&argv(
        &format!(
            "--engine cmd={{mulino}} name=mulino depth=2 \
             --engine cmd=bash arg={{script}} arg={{mulino}} {fake} proto=sanmill name=sanmill \
             option.SkillLevel=30 depth=2 --games 2 --concurrency 2 --random-plies 4 --seed 9 \
             --grace 20000 --max-moves 150 --json {{json}} --pgn {{pgn}} {extra}"
        ),
        &[
            ("mulino", MULINO),
            ("script", &script("sanmill.sh")),
            ("json", &json),
            ("pgn", &pgn),
        ],
    ));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("warning"), "{stderr}");
    (read_json(&json), pgn, stdout + &stderr)
}

#[test]
fn sanmill_gets_every_rule_of_the_variant_and_plays_it() {
    let dir = Scratch::new("sanmill-variants");
    for (n, (words, changed)) in CASES.into_iter().enumerate() {
        let log = dir.path(&format!("options{n}.log"));
        let (doc, pgn, text) = play(&dir, &format!("v{n}"), &format!("arg=log={log}"), words);
        check_totals(&doc);
        assert_eq!(int(&doc["games_played"]), 2, "{words}: {text}");
        assert_eq!(doc["not_counted"], Value::Array(Vec::new()), "{words}");
        for g in doc["games"].as_array().expect("games") {
            let t = g["termination"].as_str().expect("termination");
            assert!(t == "normal" || t == "max moves", "{words}: {g}");
            assert_eq!(g["engine_errors"], Value::Array(Vec::new()), "{words}: {g}");
        }
        replay_pgn(&pgn, 2);

        // Every process of the fake got the whole rule set, in order,
        // then its own option.
        let mut expected: Vec<String> = NINE
            .iter()
            .map(|&(name, nine)| {
                let value = changed
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or(nine, |c| c.1);
                format!("setoption name {name} value {value}")
            })
            .collect();
        expected.push("setoption name SkillLevel value 30".into());
        let text = std::fs::read_to_string(&log).expect("the fake's log");
        let mut by_process: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for line in text.lines() {
            let (pid, sent) = line.split_once(' ').expect("pid and line");
            by_process.entry(pid).or_default().push(sent.to_string());
        }
        assert!(!by_process.is_empty(), "{words}");
        for sent in by_process.values() {
            assert_eq!(sent, &expected, "{words}");
        }
    }
}

/// A Sanmill whose legal moves at the first position are not the
/// referee's plays no game: each is left out of the counts, and the
/// report says why.
#[test]
fn a_sanmill_that_disagrees_on_the_rules_plays_no_game() {
    let dir = Scratch::new("sanmill-lies");
    let (doc, _, text) = play(&dir, "lies", "arg=lie", "--variant morabaraba");
    check_totals(&doc);
    assert_eq!(int(&doc["games_played"]), 0, "{text}");
    let left_out = doc["not_counted"].as_array().expect("not_counted");
    assert_eq!(left_out.len(), 2, "{text}");
    for g in left_out {
        let reason = g["reason"].as_str().expect("reason");
        assert!(reason.starts_with("sanmill ("), "{reason}");
        assert!(
            reason.contains("lists other legal moves: 0 more () and 1 fewer"),
            "{reason}"
        );
    }
    assert!(text.contains("Not counted: 2 games"), "{text}");
    assert!(text.contains("game 1 mulino-sanmill not counted"), "{text}");
}
