//! The text protocol's refusal of bad input, through the built binary:
//! each bad command, FEN, move list, option value, search or perft
//! number, byte sequence or huge line is answered with exactly one
//! `info string error:` line, changes nothing and leaves the engine able
//! to search; a bad command line fails with one line on stderr; and a
//! hash table beyond the free memory is refused.

use std::process::Command;
use std::time::Duration;

use crate::common::{
    self, BIN, Engine, START_FEN, assert_line_refused, assert_refused, assert_still_healthy,
    engine_in_play, put_in_play, run_args_with_stderr,
};

/// Deterministic pseudo-random bytes (a 64-bit LCG), never `\n`.
fn noise(len: usize, seed: u64, printable: bool) -> Vec<u8> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (state >> 33) as u8;
            if printable {
                // Printable ASCII and spaces.
                b' ' + r % 95
            } else if r == b'\n' {
                0xff
            } else {
                r
            }
        })
        .collect()
}

// ---------------------------------------------------------------------
// Protocol lines: one error line each, no change of state, no crash
// ---------------------------------------------------------------------

#[test]
fn bad_commands_are_refused() {
    let (mut engine, fen) = engine_in_play();
    for line in [
        "xyzzy",
        "positionstartpos",
        "go-depth 3",
        "uci now",
        "isready please",
        "d now",
        "moves all",
        "stop now",
        "ucinewgame now",
        "bench 0",
        "bench 33",
        "bench fast",
        "position",
        "position banana",
        "position startpos d6",
        "position startpos d6 moves a1",
        "setoption",
        "setoption Hash 16",
        "setoption name",
        "setoption name value 3",
    ] {
        assert_line_refused(&mut engine, line, &fen);
    }
    // Empty and blank lines are ignored without a reply.
    engine.send("");
    engine.send("   \t  ");
    assert!(engine.sync().is_empty());
    // Windows line ends are fine.
    engine.send_raw(b"isready\r\n");
    assert_eq!(
        engine.read_until(|l| l == "readyok"),
        vec!["readyok".to_string()]
    );
    assert_eq!(engine.fen(), fen);
    assert_still_healthy(&mut engine);
}

#[test]
fn malformed_fens_are_refused() {
    let (mut engine, fen) = engine_in_play();
    let s = "********/********/********";
    for bad in [
        // No FEN, too few fields, too many.
        String::new(),
        s.to_string(),
        format!("{s} w p p 0 9 0 9 0 0 0 0 0 0 0 0"),
        format!("{s} w p p 0 9 0 9 0 0 0 0 0 0 0 0 1 2"),
        // Board shape and characters.
        "*******/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1".to_string(),
        "*********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1".to_string(),
        "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1 ids:nodes x".to_string(),
        "********//******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1".to_string(),
        "********/********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1".to_string(),
        "********/********/*******Z w p p 0 9 0 9 0 0 0 0 0 0 0 0 1".to_string(),
        "ÄÄÄÄÄÄÄÄ/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1".to_string(),
        // Side, phase, action letters.
        format!("{s} x p p 0 9 0 9 0 0 0 0 0 0 0 0 1"),
        format!("{s} w q p 0 9 0 9 0 0 0 0 0 0 0 0 1"),
        format!("{s} w p z 0 9 0 9 0 0 0 0 0 0 0 0 1"),
        // Counts that disagree with the board or the rules.
        format!("{s} w p p 1 9 0 9 0 0 0 0 0 0 0 0 1"),
        format!("{s} w p p 0 10 0 9 0 0 0 0 0 0 0 0 1"),
        "OOO@@@@@/OOOOOOOO/OOOOOOOO w p p 19 0 5 0 0 0 0 0 0 0 0 0 1".to_string(),
        // Numbers that are not numbers, or out of range.
        format!("{s} w p p 0 -1 0 9 0 0 0 0 0 0 0 0 1"),
        format!("{s} w p p 0 abc 0 9 0 0 0 0 0 0 0 0 1"),
        format!("{s} w p p 0 99999999999999999999 0 9 0 0 0 0 0 0 0 0 1"),
        format!("{s} w p p 0 9 0 9 0 0 99 0 0 0 0 0 1"),
        // Actions that do not fit the hands or the removals.
        format!("{s} w p s 0 9 0 9 0 0 0 0 0 0 0 0 1"),
        format!("{s} w p r 0 9 0 9 1 0 0 0 0 0 0 0 1"),
        format!("{s} w p p 0 9 0 9 0 1 0 0 0 0 0 0 1"),
    ] {
        assert_line_refused(&mut engine, &format!("position fen {bad}"), &fen);
        // A valid move list does not rescue a bad FEN.
        assert_line_refused(&mut engine, &format!("position fen {bad} moves d6"), &fen);
    }
    // A good FEN with a bad move list is refused as a whole too.
    assert_line_refused(
        &mut engine,
        &format!("position fen {START_FEN} moves d6 d6"),
        &fen,
    );
    assert_still_healthy(&mut engine);
}

#[test]
fn bad_move_lists_are_refused_whole() {
    let (mut engine, fen) = engine_in_play();
    for moves in [
        // Ply 7 places on an occupied point.
        "d6 a1 d5 a4 d7xa4 b4 d6",
        // Ply 7 in Sanmill notation (the removal is a token of its own).
        "d6 a1 d5 a4 d7 xa4 b4 d5",
        // A removal without a mill, a slide while placing, a removal
        // while none is owed, a removal of one's own piece.
        "d6xa1",
        "d6 a1 d6-d5",
        "xd6",
        "d6 a1 d5 a4 d7xd6",
        // Removing a piece that stands in a mill (d7 d6 d5) while another
        // (b6) does not.
        "d6 g1 d5 g4 d7xg1 g1 b6 g7xd6",
        // A move after a mill without the removal that is owed, then a
        // normal placement.
        "d6 a1 d5 a4 d7 a7",
        // Malformed texts.
        "d6 zz9",
        "d6 h9",
        "d6 d0",
        "d6 a2",
        "d6 d6-",
        "d6 -d6",
        "d6 d6-d6",
        "d6 d6xx",
        "d6 d5xb4xb4",
        "d6 d5xa1xa4xa7xg7",
        "d6 x",
        "d6 -",
        "d6 a1-",
        "d6 é6",
    ] {
        assert_line_refused(
            &mut engine,
            &format!("position startpos moves {moves}"),
            &fen,
        );
    }
    assert_still_healthy(&mut engine);
}

#[test]
fn bad_options_are_refused() {
    let (mut engine, fen) = engine_in_play();
    for line in [
        "setoption name Nonsense value 1",
        "setoption name Hashes value 16",
        "setoption name Hash value abc",
        "setoption name Hash value 0",
        "setoption name Hash value -1",
        "setoption name Hash value 99999999",
        "setoption name Hash value 1.5",
        "setoption name Hash",
        "setoption name Hash value",
        "setoption name Threads value 0",
        "setoption name MultiPV value 0",
        "setoption name MoveOverhead value -5",
        "setoption name Skill Level value 21",
        "setoption name Skill Level value -1",
        "setoption name Flying value maybe",
        "setoption name Flying value 1",
        "setoption name Flying",
        "setoption name Ponder value yes",
        "setoption name Variant value tenmen",
        "setoption name Variant",
        "setoption name Pieces value 8",
        "setoption name Pieces value 13",
        "setoption name BoardFullAction value nobody",
    ] {
        assert_line_refused(&mut engine, line, &fen);
    }
    // The options kept their values: the rules are still the default ones
    // (a rule change would reset the position) and the engine searches.
    assert_eq!(engine.fen(), fen);
    assert_still_healthy(&mut engine);
}

#[test]
fn bad_numbers_for_go_and_perft_are_refused() {
    let (mut engine, fen) = engine_in_play();
    for line in [
        "go depth -1",
        "go depth 0",
        "go depth 65",
        "go depth 99999999999",
        "go depth",
        "go depth x",
        "go depth 3 depth 4",
        "go movetime abc",
        "go movetime -5",
        "go wtime",
        "go wtime 99999999999999999999999",
        "go nodes 0",
        "go mate 0",
        "go movestogo 0",
        "go fast",
        "go searchmoves",
        "go searchmoves zz9",
        "go searchmoves d6 depth 2",
        "perft -1",
        "perft 0",
        "perft",
        "perft x",
        "perft 65",
        "perft 99999999999",
        "perft 3 4",
    ] {
        assert_line_refused(&mut engine, line, &fen);
    }
    // None of them started a search: the next `go` is not refused as busy,
    // and exactly one bestmove arrives.
    let lines = engine.go("depth 2");
    assert!(
        lines.iter().all(|l| !l.starts_with("info string")),
        "{lines:?}"
    );
    assert!(engine.sync().iter().all(|l| !l.starts_with("bestmove")));
    assert_still_healthy(&mut engine);
}

#[test]
fn bad_bytes_are_refused() {
    let (mut engine, fen) = engine_in_play();
    for input in [
        &b"\xff\xfe\xfd\n"[..],
        b"isready \xc3\x28\n",
        b"position startpos moves \xe2\x82\n",
        b"\xc0\xaf\n",
        b"isready\0\n",
        b"\0\n",
        b"d\0\n",
        b"position startpos\0 moves d6\n",
        b"\0\0\0\0\0\0\0\0\n",
    ] {
        assert_refused(&mut engine, input, &fen);
    }
    assert_still_healthy(&mut engine);
}

#[test]
fn huge_lines_are_refused() {
    let (mut engine, fen) = engine_in_play();
    // 300 KB of printable garbage, and 300 KB of arbitrary bytes.
    let mut line = b"garbage ".to_vec();
    line.extend(noise(300 * 1024, 7, true));
    line.push(b'\n');
    assert_refused(&mut engine, &line, &fen);
    let mut line = noise(300 * 1024, 11, false);
    line.push(b'\n');
    assert_refused(&mut engine, &line, &fen);
    // A `position` command with a huge move list.
    let mut line = b"position startpos moves".to_vec();
    for _ in 0..50_000 {
        line.extend_from_slice(b" d6");
    }
    line.push(b'\n');
    assert_refused(&mut engine, &line, &fen);
    // Over the engine's 1 MB line limit, then far over it.
    let mut line = vec![b'x'; (1 << 20) + 100];
    line.push(b'\n');
    assert_refused(&mut engine, &line, &fen);
    let mut line = b"isready ".to_vec();
    line.extend(noise(3 << 20, 13, true));
    line.push(b'\n');
    assert_refused(&mut engine, &line, &fen);
    assert_still_healthy(&mut engine);
}

// ---------------------------------------------------------------------
// The command line, and a table too large for the memory
// ---------------------------------------------------------------------

#[test]
fn a_refused_command_line_fails_on_stderr() {
    for args in [
        &["foo"][..],
        &["perft", "7x"],
        &["perft", "0"],
        &["bench", "33"],
        &["go", "depth", "0"],
        &["setoption", "name", "Hash", "value", "0"],
    ] {
        let (status, out, err) = run_args_with_stderr(args, Duration::from_secs(60));
        assert!(!status.success(), "`mulino {}` exited 0", args.join(" "));
        assert!(out.is_empty(), "`mulino {}` wrote {out:?}", args.join(" "));
        assert!(
            err.starts_with("mulino: ") && err.ends_with('\n') && err.lines().count() == 1,
            "`mulino {}` should explain itself in one line on stderr: {err:?}",
            args.join(" ")
        );
    }
    // A valid command that prints nothing still succeeds.
    let (status, out, err) = run_args_with_stderr(&["isready"], Duration::from_secs(60));
    assert!(
        status.success() && out == "readyok\n" && err.is_empty(),
        "{out:?} {err:?}"
    );
}

/// A hash table larger than the memory the system has free is refused
/// (zeroing it would swap, or end the process at the hands of the kernel's
/// out-of-memory killer), and the engine goes on with its table. The
/// engine runs under an address-space limit of about 4 GB (`ulimit -v`),
/// so that a 32768 MB table is refused on every machine: as more than the
/// memory available where /proc/meminfo says less is free, or as one the
/// allocator cannot give where more is (the limit refuses the mapping).
#[test]
fn a_hash_table_beyond_the_free_memory_is_refused() {
    if common::native_only("`ulimit -v` limits the binary; in WebAssembly, Hash stops at 1024 MB") {
        return;
    }
    let mut limited = Command::new("sh");
    limited.args(["-c", "ulimit -v 4000000 && exec \"$0\"", BIN]);
    let (mut engine, fen) = put_in_play(Engine::spawn_command(limited));
    let answer = engine.ask("setoption name Hash value 32768");
    assert_eq!(answer.len(), 1, "{answer:?}");
    assert!(is_hash_refusal(&answer[0], 32768), "{answer:?}");
    assert_line_refused(&mut engine, "setoption name Hash value 32768", &fen);
    assert_eq!(engine.fen(), fen);
    assert_still_healthy(&mut engine);
}

/// Whether `line` is one of the two ways `setoption name Hash` refuses an
/// `mb` MB table (`TtAllocError`): more than the memory available (a
/// number of MB below `mb`), or what the allocator would not give.
fn is_hash_refusal(line: &str, mb: u64) -> bool {
    let too_large = line
        .strip_prefix(&format!(
            "info string error: a {mb} MB hash table is more than the "
        ))
        .and_then(|rest| rest.strip_suffix(" MB of memory available"))
        .and_then(|available| available.parse::<u64>().ok())
        .is_some_and(|available| available < mb);
    too_large || line == format!("info string error: cannot allocate a {mb} MB hash table")
}
