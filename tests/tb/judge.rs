//! `mulino judge` over the small placing set: a game from a position the
//! set holds, with two book moves, good moves and one move that throws a
//! draw away, is judged move by move; a game the set does not hold counts
//! its moves as without a value; malformed PGN is refused with a message.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::BIN;
use crate::fixture;

/// Four pieces a side in hand, none placed: in the placing set.
const START: &str = "********/********/******** w p p 0 4 0 4 0 0 0 0 0 0 0 0 6";

/// Every move keeps the draw (the databases' values, checked move by
/// move when the line was chosen) except Black's `e4-e5` at ply 10: with
/// three pieces Black flies, and only a piece to d6 (`e4-d6`, `f2-d6`,
/// `a7-d6`) stops White's mill at d5-d6-d7.
fn games() -> String {
    format!(
        "[Event \"judge test\"]\n[White \"alpha\"]\n[Black \"beta\"]\n[Result \"*\"]\n\
         [Variant \"nine\"]\n[SetUp \"1\"]\n[FEN \"{START}\"]\n\n\
         6. d7 {{book}} f2 {{book}} 7. d5 {{+0.10/8 0.010s}} a7 8. a4 e4 9. d6xf2 f2\n\
         10. d6-b6 e4-e5 {{-0.20/6 0.010s}} *\n\n\
         [Event \"judge test\"]\n[White \"beta\"]\n[Black \"alpha\"]\n[Result \"*\"]\n\n\
         1. d6 a1 2. d5 *\n"
    )
}

fn judge(dir: &Path, pgn: &str, name: &str, json: bool) -> Output {
    let scratch = fixture::scratch(name);
    let file = scratch.join("games.pgn");
    std::fs::write(&file, pgn).unwrap();
    let mut command = Command::new(BIN);
    command.arg("judge").arg("--tb").arg(dir).arg(&file);
    if json {
        command.arg("--json");
    }
    command.output().unwrap()
}

#[test]
fn the_judge_finds_the_one_move_that_threw_the_draw_away() {
    let out = judge(fixture::placing(), &games(), "judge-json", true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{report:#}");
    let e = &errors[0];
    assert_eq!(e["game"], 1);
    assert_eq!(e["ply"], 10);
    assert_eq!(e["move"], "e4-e5");
    assert_eq!(e["player"], "beta");
    assert_eq!(e["color"], "black");
    assert_eq!(e["phase"], "flying");
    assert_eq!(
        (&e["before"], &e["after"]),
        (&"draw".into(), &"loss".into())
    );
    assert_eq!(e["keeping"], serde_json::json!(["e4-d6", "f2-d6", "a7-d6"]));

    let game = &report["games"][0];
    assert_eq!(game["plies"], 10);
    assert_eq!(game["opening"], "draw");
    let (w, b) = (&game["white_moves"], &game["black_moves"]);
    assert_eq!((&w["book"], &b["book"]), (&1.into(), &1.into()));
    // White: d5, a4, d6xf2 placing, d6-b6 moving; Black: a7, e4, f2
    // placing, e4-e5 flying.
    assert_eq!(w["placing"]["judged"], 3);
    assert_eq!(w["moving"]["judged"], 1);
    assert_eq!(w["placing"]["kept"], 3);
    assert_eq!(b["placing"]["kept"], 3);
    assert_eq!(b["flying"]["judged"], 1);
    assert_eq!(b["flying"]["threw_draw"], 1);
    assert_eq!(b["flying"]["threw_win"], 0);

    // The second game starts with nine pieces a side, which the set does
    // not hold: its three moves are counted apart.
    let other = &report["games"][1];
    assert_eq!(other["white_moves"]["placing"]["unvalued"], 2);
    assert_eq!(other["black_moves"]["placing"]["unvalued"], 1);
    assert_eq!(other["white_moves"]["placing"]["judged"], 0);

    // Per player, over both games.
    let beta = &report["players"]["beta"];
    assert_eq!(beta["games"], 2);
    assert_eq!(beta["flying"]["threw_draw"], 1);
    assert_eq!(beta["placing"]["unvalued"], 2);
    let alpha = &report["players"]["alpha"];
    assert_eq!(alpha["placing"]["threw_draw"], 0);
    assert_eq!(alpha["book"], 1);
}

#[test]
fn the_text_report_lists_the_error_and_the_sums() {
    let out = judge(fixture::placing(), &games(), "judge-text", false);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "game 1 ply 10 beta (black, flying): e4-e5 draw -> loss; kept by e4-d6 f2-d6 a7-d6"
        ),
        "{text}"
    );
    assert!(
        text.contains("alpha - beta *, 10 plies (2 book, 0 without a value)"),
        "{text}"
    );
    assert!(text.contains("games: 2"), "{text}");
}

#[test]
fn malformed_games_are_refused_with_a_message() {
    let header = format!("[White \"a\"]\n[Black \"b\"]\n[FEN \"{START}\"]\n\n");
    let cases = [
        (
            format!("{header}1. d6 d6 *\n"),
            "game 1: ply 2 `d6` is illegal",
        ),
        (
            format!("{header}1. d6 zz9 *\n"),
            "game 1: ply 2 `zz9` is not a move",
        ),
        (
            "[Variant \"chess\"]\n\n1. d6 *\n".to_string(),
            "game 1: tag Variant: unknown variant `chess`",
        ),
        (
            format!("{header}1. d6 *\n\n[FEN \"not a fen\"]\n\n1. d6 *\n"),
            "game 2: tag FEN:",
        ),
        (
            "[Rules \"Flying\"]\n\n1. d6 *\n".to_string(),
            "tag Rules: `Flying` is not NAME=VALUE",
        ),
        ("\n\n".to_string(), "no games in it"),
    ];
    for (i, (pgn, expected)) in cases.iter().enumerate() {
        let out = judge(fixture::placing(), pgn, &format!("judge-bad-{i}"), false);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{pgn}: {stderr}");
        assert!(stderr.starts_with("mulino judge: "), "{stderr}");
        assert!(stderr.contains(expected), "{pgn}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let missing = fixture::scratch("judge-no-tables").join("nothing");
    let out = judge(&missing, &games(), "judge-missing", false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no such folder"), "{stderr}");
}

/// The `.wdz` files of the same miniature game, and their packed folder,
/// judge the game alike: the same report, the same one error.
#[test]
fn a_packed_folder_judges_as_its_files() {
    let pgn = games();
    let files = judge(fixture::wdz_game(), &pgn, "judge-wdz", true);
    let packed = crate::pack::packed("judge-packed");
    let pack = judge(&packed, &pgn, "judge-wdz", true);
    for out in [&files, &pack] {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        String::from_utf8_lossy(&files.stdout),
        String::from_utf8_lossy(&pack.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&pack.stdout).unwrap();
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{report:#}");
    assert_eq!(
        (&errors[0]["ply"], &errors[0]["move"]),
        (&10.into(), &"e4-e5".into())
    );
}
