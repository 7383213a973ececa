//! A script's whole session piped in at once, as `printf ... | mulino`
//! does: every command answered in its turn (protocol.md, §1), nothing
//! refused for being early, and the end of input letting finite work
//! finish. Each test writes all its input, closes it, and reads the
//! answers to the end.

use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::mpsc::channel;
use std::time::Duration;

use crate::common::engine_command;

/// How long a piped session may take before the test calls it a hang.
const LIMIT: Duration = Duration::from_secs(120);

/// The lines the engine prints for `input`, written at once and closed.
fn pipe(input: &str) -> Vec<String> {
    let mut child = engine_command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the engine starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let shown = input.to_string();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        let _ = tx.send(out);
    });
    let out = match rx.recv_timeout(LIMIT) {
        Ok(out) => out,
        Err(_) => {
            let _ = child.kill();
            panic!("the piped session {shown:?} did not end");
        }
    };
    let _ = writer.join();
    let status = child.wait().expect("the engine exits");
    assert!(status.success(), "exit status {status}");
    out.lines().map(str::to_string).collect()
}

fn bestmoves(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(|rest| rest.split_whitespace().next().unwrap_or_default())
        .collect()
}

fn totals(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("Nodes searched: "))
        .collect()
}

#[test]
fn a_perft_then_quit_gives_its_total() {
    let lines = pipe("perft 5\nquit\n");
    assert_eq!(totals(&lines), ["5140800"], "{lines:?}");
}

#[test]
fn two_perfts_and_the_end_of_input_give_two_totals() {
    let lines = pipe("perft 4\nperft 3\n");
    assert_eq!(totals(&lines), ["255024", "12144"], "{lines:?}");
}

#[test]
fn a_second_search_waits_for_the_first_and_then_answers() {
    let lines =
        pipe("position startpos\ngo depth 5\nposition startpos moves d6\ngo depth 3\nquit\n");
    let moves = bestmoves(&lines);
    assert_eq!(moves.len(), 2, "{lines:?}");
    // The second answer is a move of the position after d6: not d6.
    assert_ne!(moves[1], "d6", "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.contains("error")),
        "nothing is refused: {lines:?}"
    );
}

#[test]
fn an_option_and_a_search_wait_for_a_timed_search() {
    let lines = pipe("go movetime 300\nsetoption name Hash value 8\ngo depth 3\nquit\n");
    assert_eq!(bestmoves(&lines).len(), 2, "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
}

#[test]
fn answers_come_in_the_order_of_the_lines() {
    // An endless search, so that the lines behind it surely arrive while
    // it runs (a `go depth 6` may be over before `isready` is read).
    let lines = pipe("go infinite\nposition startpos moves d6\nbogus\nd\nisready\nstop\n");
    // `isready` and `stop` are answered at once; the rest in order: the
    // search's answer, the error of `bogus`, then the board after d6.
    let at = |pred: &dyn Fn(&str) -> bool| {
        lines
            .iter()
            .position(|l| pred(l))
            .unwrap_or_else(|| panic!("{lines:?}"))
    };
    let ready = at(&|l| l == "readyok");
    let best = at(&|l| l.starts_with("bestmove "));
    let error = at(&|l| l.starts_with("info string error: unknown command `bogus`"));
    let board = at(&|l| l.starts_with("Fen: "));
    assert!(ready < best, "{lines:?}");
    assert!(best < error && error < board, "{lines:?}");
    assert_eq!(
        lines[board],
        "Fen: ********/O*******/******** b p p 1 8 0 9 0 0 0 0 0 0 0 0 1"
    );
}

#[test]
fn the_end_of_input_lets_a_finite_search_finish_and_stops_an_endless_one() {
    let lines = pipe("go depth 7\n");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 7 ") && l.contains(" pv ")),
        "{lines:?}"
    );
    assert_eq!(bestmoves(&lines).len(), 1, "{lines:?}");
    let lines = pipe("go infinite\n");
    assert_eq!(bestmoves(&lines).len(), 1, "{lines:?}");
    // What waited for the endless search is carried out after it.
    let lines = pipe("go infinite\nposition startpos moves d6\nd\n");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("waits for the running search"))
            .count(),
        1,
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Fen: ********/O*******")),
        "{lines:?}"
    );
}

#[test]
fn quit_ends_a_search_at_once_after_its_bestmove() {
    let lines = pipe("go depth 60\nquit\n");
    assert_eq!(bestmoves(&lines).len(), 1, "{lines:?}");
}

#[test]
fn info_lines_give_no_speed_for_time_that_did_not_pass() {
    let lines = pipe("go depth 4\n");
    let field = |words: &[&str], key: &str| -> u64 {
        let i = words.iter().position(|w| *w == key).expect(key);
        words[i + 1].parse().expect("a number")
    };
    for l in lines.iter().filter(|l| l.starts_with("info depth")) {
        let words: Vec<&str> = l.split_whitespace().collect();
        let (nodes, nps, time) = (
            field(&words, "nodes"),
            field(&words, "nps"),
            field(&words, "time"),
        );
        // Under a millisecond the speed is the nodes over the microseconds
        // that passed, so more than 1000 times the nodes (or 0 if none).
        if time == 0 && nodes > 0 {
            assert!(nps == 0 || nps > nodes * 1000, "{l}");
        } else if let Some(per_ms) = nodes.checked_div(time) {
            // Over a millisecond the time is rounded down: at most the
            // nodes of one millisecond more.
            assert!(nps <= (per_ms + nodes) * 1000, "{l}");
        }
    }
}

#[test]
fn the_board_is_drawn_as_the_fen_writes_it() {
    let lines = pipe(
        "setoption name Variant value da-san-qi\nposition startpos moves a7 b6 d7 b4 g7xb6\nd\n",
    );
    let board: Vec<&String> = lines.iter().take(13).collect();
    assert_eq!(board[2], "6 |   X-------*-------*   |", "{lines:?}");
    // Da San Qi has diagonals: drawn between the corners.
    assert_eq!(board[1], "  | \\         |         / |", "{lines:?}");
    let fen = lines
        .iter()
        .find_map(|l| l.strip_prefix("Fen: "))
        .expect("a Fen line");
    assert!(fen.starts_with("********/******@X/"), "{fen}");
}

#[test]
fn move_overhead_takes_stockfishs_name_and_the_old_one() {
    let lines = pipe(
        "setoption name Move Overhead value 50\nsetoption name MoveOverhead value 60\n\
         setoption name move overhead value 70\nuci\n",
    );
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Move Overhead type spin default 30")),
        "{lines:?}"
    );
}

#[test]
fn a_fen_of_one_field_says_one_field() {
    let lines = pipe("position fen x\n");
    assert_eq!(
        lines,
        [
            "info string error: position: FEN has 1 field, expected 17 (then optionally `ids:nodes`, `s:1`)"
        ]
    );
}
