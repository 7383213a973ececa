//! The text protocol, through the built binary: identification and
//! options, `d`/`moves`/`perft`, positions, refusal of bad input without
//! any change of state, rule options, and the search commands (`go`,
//! `stop`, `quit`, end of input, clocks).

mod common;

use std::time::{Duration, Instant};

use common::{Engine, bestmove_of, run_args, run_args_with_stderr};

const START_FEN: &str = "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1";

/// Asserts that `input` (raw bytes, newline included) is answered with
/// exactly one `info string error:` line and leaves the position alone.
fn assert_refused(engine: &mut Engine, input: &[u8], fen_before: &str) {
    engine.send_raw(input);
    let reply = engine.sync();
    let shown = String::from_utf8_lossy(&input[..input.len().min(80)]).into_owned();
    assert_eq!(
        reply.len(),
        1,
        "`{shown}` should get exactly one reply line: {reply:?}"
    );
    assert!(
        reply[0].starts_with("info string error:"),
        "`{shown}` should be refused with `info string error:`, got {reply:?}"
    );
    assert_eq!(engine.fen(), fen_before, "`{shown}` changed the position");
}

/// [`assert_refused`] for a line of text.
fn assert_line_refused(engine: &mut Engine, line: &str, fen_before: &str) {
    assert_refused(engine, format!("{line}\n").as_bytes(), fen_before);
}

/// An engine in a position other than the start, and that position's FEN.
fn engine_in_play() -> (Engine, String) {
    let mut engine = Engine::spawn();
    assert!(engine.ask("position startpos moves d6 a1 d5").is_empty());
    let fen = engine.fen();
    assert_ne!(fen, START_FEN);
    (engine, fen)
}

/// After a test's garbage: the engine still answers and still runs.
fn assert_still_healthy(engine: &mut Engine) {
    assert!(engine.sync().is_empty(), "unexpected output before readyok");
    assert!(engine.is_alive(), "the engine died");
    // And it can still search.
    let lines = engine.go("depth 1");
    assert!(
        lines.iter().all(|l| !l.contains("error")),
        "go depth 1 failed: {lines:?}"
    );
}

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
// Identification, display, moves, perft
// ---------------------------------------------------------------------

#[test]
fn uci_identifies_the_engine_and_lists_its_options() {
    let mut engine = Engine::spawn();
    engine.send("uci");
    let lines = engine.read_until(|l| l == "uciok");
    assert_eq!(
        lines[0],
        format!("id name mulino {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(lines[1].starts_with("id author "), "{lines:?}");
    assert!(lines[1].len() > "id author ".len(), "{lines:?}");
    let options = &lines[2..lines.len() - 1];
    assert!(!options.is_empty());
    for line in options {
        assert!(
            line.starts_with("option name ") && line.contains(" type "),
            "not an option line: {line}"
        );
    }
    // One line per option: no name twice.
    let names: Vec<&str> = options
        .iter()
        .map(|l| {
            let rest = &l["option name ".len()..];
            &rest[..rest.find(" type ").unwrap()]
        })
        .collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        names.len(),
        "an option is listed twice: {names:?}"
    );

    let option = |name: &str| -> String {
        let prefix = format!("option name {name} type ");
        options
            .iter()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no option {name} in {options:?}"))
            .to_string()
    };
    let words = |s: String| -> Vec<String> { s.split_whitespace().map(str::to_string).collect() };
    // The value following `key` in an option's description.
    let field = |desc: &str, key: &str| -> String {
        let w = words(desc.to_string());
        let at = w
            .iter()
            .position(|x| x == key)
            .unwrap_or_else(|| panic!("no `{key}` in `{desc}`"));
        w[at + 1].clone()
    };

    let hash = option("Hash");
    assert!(hash.starts_with("spin "), "{hash}");
    assert_eq!(field(&hash, "default"), "64");
    assert_eq!(field(&hash, "min"), "1");

    let threads = option("Threads");
    assert!(threads.starts_with("spin "), "{threads}");
    assert_eq!(field(&threads, "default"), "1");
    assert_eq!(field(&threads, "min"), "1");

    let multipv = option("MultiPV");
    assert!(multipv.starts_with("spin "), "{multipv}");
    assert_eq!(field(&multipv, "default"), "1");

    let overhead = option("MoveOverhead");
    assert!(overhead.starts_with("spin "), "{overhead}");
    assert_eq!(field(&overhead, "default"), "30");

    let ponder = option("Ponder");
    assert!(ponder.starts_with("check "), "{ponder}");

    let skill = option("Skill Level");
    assert!(skill.starts_with("spin "), "{skill}");
    assert_eq!(field(&skill, "default"), "20");
    assert_eq!(field(&skill, "min"), "0");
    assert_eq!(field(&skill, "max"), "20");

    let variant = option("Variant");
    assert!(variant.starts_with("combo "), "{variant}");
    assert_eq!(field(&variant, "default"), "nine");
    let vars: Vec<String> = {
        let w = words(variant.clone());
        w.windows(2)
            .filter(|p| p[0] == "var")
            .map(|p| p[1].clone())
            .collect()
    };
    for v in [
        "nine",
        "twelve",
        "morabaraba",
        "russian",
        "lasker",
        "cheng-san-qi",
    ] {
        assert!(vars.iter().any(|x| x == v), "Variant lacks {v}: {variant}");
    }

    let flying = option("Flying");
    assert!(flying.starts_with("check "), "{flying}");
    assert_eq!(field(&flying, "default"), "true");

    assert_eq!(lines.last().unwrap(), "uciok");
}

#[test]
fn isready_and_display_at_the_start() {
    let mut engine = Engine::spawn();
    assert!(engine.sync().is_empty());
    let lines = engine.display();
    // The drawing: seven ranks and the file letters, before the facts.
    let fen_at = lines
        .iter()
        .position(|l| l.starts_with("Fen: "))
        .expect("a Fen line");
    let drawing = &lines[..fen_at];
    for rank in 1..=7 {
        assert!(
            drawing.iter().any(|l| l.starts_with(&rank.to_string())),
            "rank {rank} missing from the drawing: {drawing:?}"
        );
    }
    assert!(
        drawing
            .iter()
            .any(|l| l.trim() == "a   b   c   d   e   f   g"),
        "{drawing:?}"
    );
    let facts = &lines[fen_at..];
    assert_eq!(facts[0], format!("Fen: {START_FEN}"));
    for prefix in ["Key: ", "Side to move: ", "Phase: ", "Status: "] {
        assert!(
            facts.iter().any(|l| l.starts_with(prefix)),
            "no `{prefix}` line in {facts:?}"
        );
    }
    assert!(
        facts.contains(&"Side to move: white".to_string()),
        "{facts:?}"
    );
    assert!(facts.contains(&"Phase: placing".to_string()), "{facts:?}");
    assert!(facts.contains(&"Status: in play".to_string()), "{facts:?}");
    assert_eq!(lines.last().unwrap(), "Legal moves: 24");
}

#[test]
fn moves_and_positions_with_moves() {
    let mut engine = Engine::spawn();
    let mut moves = engine.legal_moves();
    assert_eq!(moves.len(), 24);
    moves.sort();
    let mut all: Vec<String> =
        "a1 a4 a7 b2 b4 b6 c3 c4 c5 d1 d2 d3 d5 d6 d7 e3 e4 e5 f2 f4 f6 g1 g4 g7"
            .split(' ')
            .map(str::to_string)
            .collect();
    all.sort();
    assert_eq!(moves, all);

    // White d6, d5, d7 (a mill: removes a4), black a1, a4.
    assert!(
        engine
            .ask("position startpos moves d6 a1 d5 a4 d7xa4")
            .is_empty()
    );
    let fen = engine.fen();
    let fields: Vec<&str> = fen.split(' ').collect();
    assert_eq!(fields.len(), 17, "{fen}");
    // inner d5..., middle d6..., outer d7 g7 g4 g1 d1 a1 a4 a7.
    assert_eq!(fields[0], "O*******/O*******/O****@**", "{fen}");
    assert_eq!(
        fields[1..15].join(" "),
        "b p p 3 6 1 7 0 0 0 0 0 0 0",
        "{fen}"
    );
    let display = engine.display();
    assert!(display.contains(&"Side to move: black".to_string()));
    assert_eq!(display.last().unwrap(), "Legal moves: 20");
    let moves = engine.legal_moves();
    assert_eq!(moves.len(), 20);
    for taken in ["d5", "d6", "d7", "a1"] {
        assert!(!moves.iter().any(|m| m == taken), "{taken} in {moves:?}");
    }
    assert!(moves.iter().any(|m| m == "a4"), "a4 is free again");

    // Sanmill's separate removal token gives the same position.
    assert!(
        engine
            .ask("position startpos moves d6 a1 d5 a4 d7 xa4")
            .is_empty()
    );
    assert_eq!(engine.fen(), fen);
    // And so does `position fen` with that FEN.
    assert!(engine.ask(&format!("position fen {fen}")).is_empty());
    assert_eq!(engine.fen(), fen);
    // `position startpos` goes back to the start.
    assert!(engine.ask("position startpos").is_empty());
    assert_eq!(engine.fen(), START_FEN);
}

#[test]
fn perft_divides_and_totals() {
    let mut engine = Engine::spawn();
    engine.send("perft 3");
    let lines = engine.read_until(|l| l.starts_with("Time:"));
    let moves = engine.legal_moves();
    assert_eq!(lines.len(), 24 + 3, "{lines:?}");
    let mut sum = 0u64;
    let mut divided = Vec::new();
    for line in &lines[..24] {
        let (mv, count) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("not `<move>: <count>`: {line}"));
        let count: u64 = count.parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(moves.iter().any(|m| m == mv), "{mv} is not legal");
        assert!(count > 0, "{line}");
        divided.push(mv.to_string());
        sum += count;
    }
    divided.sort();
    divided.dedup();
    assert_eq!(divided.len(), 24, "every root move once");
    assert_eq!(sum, 12144);
    assert_eq!(lines[24], "");
    assert_eq!(lines[25], "Nodes searched: 12144");
    assert!(lines[26].starts_with("Time: "), "{}", lines[26]);
    assert!(engine.sync().is_empty());
}

#[test]
fn perft_from_the_command_line() {
    let (status, out) = run_args(&["perft", "4"], Duration::from_secs(60));
    assert!(status.success(), "exit status {status}: {out}");
    assert!(
        out.lines().any(|l| l == "Nodes searched: 255024"),
        "no total in {out}"
    );
}

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

#[test]
fn help_lists_the_commands() {
    let (status, out, _) = run_args_with_stderr(&["--help"], Duration::from_secs(60));
    assert!(status.success());
    for sub in ["perft", "bench", "match"] {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(sub)),
            "--help does not list `{sub}`: {out}"
        );
    }
    assert!(
        out.contains("stdin"),
        "--help should say a bare mulino reads stdin: {out}"
    );
    let (status, out, _) = run_args_with_stderr(&["help", "bench"], Duration::from_secs(60));
    assert!(
        status.success() && out.contains("Usage: mulino bench"),
        "{out}"
    );
    // The protocol's own `help`, and no greeting when a program drives it.
    let mut engine = Engine::spawn();
    let lines = engine.ask("help");
    for command in ["uci", "position", "go", "perft", "setoption", "stop"] {
        assert!(
            lines.iter().any(|l| l.contains(command)),
            "help does not mention `{command}`: {lines:?}"
        );
    }
    engine.send("uci");
    let first = engine.read_until(|l| l == "uciok");
    assert!(first[0].starts_with("id name "), "{first:?}");
}

/// At a terminal the engine greets once; `script` (util-linux) gives it
/// one. Through a pipe it says nothing first (the other tests see
/// `id name` as the first answer to `uci`).
#[test]
#[cfg(target_os = "linux")]
fn a_terminal_gets_one_greeting_line() {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new("script")
        .args(["-qec", common::BIN, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("`script` (util-linux) runs the engine on a terminal");
    let mut stdin = child.stdin.take().expect("stdin");
    std::thread::sleep(Duration::from_millis(300));
    let _ = stdin.write_all(b"isready\n");
    std::thread::sleep(Duration::from_millis(300));
    let _ = stdin.write_all(b"quit\n");
    drop(stdin);
    let out = child.wait_with_output().expect("output");
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let greeting = format!(
        "mulino {} by the mulino developers: a Mill engine. Type `help` for the commands.",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(lines.first(), Some(&greeting.as_str()), "{text:?}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("mulino ")).count(), 1);
    assert!(lines.contains(&"readyok"), "{text:?}");
}

#[test]
fn perft_runs_in_the_background_and_stops() {
    let mut engine = Engine::spawn();
    // Far too deep to finish during the test.
    engine.send("perft 30");
    // `isready` is answered while it counts, and nothing else is said.
    assert!(engine.sync().is_empty());
    assert_line_refused(&mut engine, "position startpos moves d6", START_FEN);
    engine.send("stop");
    let lines = engine.read_until(|l| l.starts_with("info string perft"));
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("info string perft 30 stopped after ")
            && last.contains(" of 24 root moves counted"),
        "{lines:?}"
    );
    // Each line before it is one root move counted in full.
    assert!(lines.len() <= 24);
    for line in &lines[..lines.len() - 1] {
        assert!(line.split_once(": ").is_some(), "{line}");
    }
    // The engine is free again, and its memo gives exact counts.
    engine.send("perft 4");
    let lines = engine.read_until(|l| l.starts_with("Time:"));
    assert!(
        lines.contains(&"Nodes searched: 255024".to_string()),
        "{lines:?}"
    );
    // `quit` ends a perft at once.
    engine.send("perft 30");
    assert!(engine.sync().is_empty());
    engine.send("quit");
    assert!(
        engine.wait_exit(Duration::from_secs(10)).is_some(),
        "quit did not end a running perft"
    );
}

// ---------------------------------------------------------------------
// Bad input: one error line each, no change of state, no crash
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
// Rule options
// ---------------------------------------------------------------------

#[test]
fn variant_option_changes_the_rules() {
    let mut engine = Engine::spawn();
    assert!(engine.ask("position startpos moves d6").is_empty());
    assert!(engine.ask("setoption name Variant value twelve").is_empty());
    // A rule change starts the new rules' game.
    let display = engine.display();
    assert!(
        display.contains(&"White: 0 on board, 12 in hand".to_string()),
        "{display:?}"
    );
    assert!(
        display.contains(&"Black: 0 on board, 12 in hand".to_string()),
        "{display:?}"
    );
    assert_eq!(
        engine.fen(),
        "********/********/******** w p p 0 12 0 12 0 0 0 0 0 0 0 0 1"
    );
    assert_eq!(engine.legal_moves().len(), 24);
    // Back to nine.
    assert!(engine.ask("setoption name Variant value nine").is_empty());
    assert_eq!(engine.fen(), START_FEN);
}

#[test]
fn flying_option_changes_the_moves() {
    let mut engine = Engine::spawn();
    // White has three pieces (d5 e4 d3), black three (d7 g4 d1).
    let fen = "O*O*O***/********/@*@*@*** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
    assert!(engine.ask(&format!("position fen {fen}")).is_empty());
    assert_eq!(engine.fen(), fen);
    let display = engine.display();
    assert!(
        display.contains(&"Phase: moving (flying)".to_string()),
        "{display:?}"
    );
    // Flying: each of three pieces to each of 18 empty points.
    assert_eq!(display.last().unwrap(), "Legal moves: 54");

    assert!(engine.ask("setoption name Flying value false").is_empty());
    assert!(engine.ask(&format!("position fen {fen}")).is_empty());
    let display = engine.display();
    assert!(
        display.contains(&"Phase: moving".to_string()),
        "{display:?}"
    );
    let moves = engine.legal_moves();
    // d5: c5 e5 d6; e4: e5 e3 f4; d3: c3 e3 d2 (e5 and e3 twice).
    assert_eq!(moves.len(), 9, "{moves:?}");
    assert!(moves.iter().all(|m| m.contains('-')), "{moves:?}");

    assert!(engine.ask("setoption name Flying value true").is_empty());
    assert!(engine.ask(&format!("position fen {fen}")).is_empty());
    assert_eq!(engine.legal_moves().len(), 54);
}

#[test]
fn option_names_and_values_ignore_case() {
    let mut engine = Engine::spawn();
    for line in [
        "setoption name variant value TWELVE",
        "SETOPTION NAME VARIANT VALUE Twelve",
        "setoption name hash value 16",
        "setoption name skill level value 20",
        "setoption name SKILL LEVEL value 20",
        "setoption name moveoverhead value 30",
        "setoption name clear hash",
        "setoption name FLYING value FALSE",
        "setoption name Ponder value True",
    ] {
        assert!(engine.ask(line).is_empty(), "`{line}` refused");
    }
    let display = engine.display();
    assert!(
        display.contains(&"White: 0 on board, 12 in hand".to_string()),
        "{display:?}"
    );
    // Command words are case-insensitive too.
    engine.send("ISREADY");
    engine.read_until(|l| l == "readyok");
}

// ---------------------------------------------------------------------
// Search commands
// ---------------------------------------------------------------------

/// The word after `key` in a line (`info_value(l, "depth")`; for `pv`, the
/// first move).
fn info_value(line: &str, key: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == key)?;
    words.get(at + 1).map(|s| s.to_string())
}

#[test]
fn go_depth_reports_and_answers_one_legal_bestmove() {
    let mut engine = Engine::spawn();
    let legal = engine.legal_moves();
    let lines = engine.go("depth 3");
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth ") && l.contains(" score "))
        .collect();
    assert!(!infos.is_empty(), "{lines:?}");
    for (i, info) in infos.iter().enumerate() {
        assert_eq!(
            info_value(info, "depth"),
            Some((i + 1).to_string()),
            "{info}"
        );
        for key in ["seldepth", "score", "nodes", "nps", "time", "pv"] {
            assert!(info_value(info, key).is_some(), "no {key} in {info}");
        }
        let pv_first = info_value(info, "pv").unwrap();
        assert!(legal.contains(&pv_first), "{info}");
    }
    assert_eq!(
        info_value(infos.last().unwrap(), "depth").as_deref(),
        Some("3")
    );
    let last = lines.last().unwrap();
    let best = bestmove_of(last).to_string();
    assert!(legal.contains(&best), "{best} not in {legal:?}");
    // A ponder move, if given, is legal after the bestmove.
    if let Some(ponder) = info_value(last, "ponder") {
        assert!(
            engine
                .ask(&format!("position startpos moves {best}"))
                .is_empty()
        );
        assert!(engine.legal_moves().contains(&ponder), "{last}");
    }
    // Exactly one bestmove.
    assert!(engine.sync().iter().all(|l| !l.starts_with("bestmove")));
}

/// After `bestmove` the engine is idle: a GUI sends the next `position`
/// and `go` at once, and they must be accepted.
#[test]
fn commands_right_after_bestmove_are_accepted() {
    let mut engine = Engine::spawn();
    for round in 0..50 {
        engine.send("go depth 1");
        let lines = engine.read_until(|l| l.starts_with("bestmove") || l.contains("error"));
        assert!(
            lines.last().unwrap().starts_with("bestmove"),
            "round {round}: `go depth 1` refused: {lines:?}"
        );
        let best = bestmove_of(lines.last().unwrap()).to_string();
        engine.send(&format!("position startpos moves {best}"));
        let reply = engine.sync();
        assert!(
            reply.is_empty(),
            "round {round}: `position` right after bestmove refused: {reply:?}"
        );
        engine.send("position startpos");
        assert!(engine.sync().is_empty(), "round {round}");
    }
}

#[test]
fn go_infinite_answers_isready_refuses_changes_and_stops() {
    let (mut engine, fen) = engine_in_play();
    engine.send("go infinite");
    // Answered during the search; no bestmove yet.
    let before = engine.sync();
    assert!(
        before.iter().all(|l| !l.starts_with("bestmove")),
        "{before:?}"
    );
    // State changes are refused while searching.
    for line in [
        "position startpos",
        "position startpos moves d7",
        "setoption name Variant value twelve",
        "setoption name Hash value 16",
        "ucinewgame",
        "go depth 1",
        "perft 1",
    ] {
        engine.send(line);
        let reply = engine.sync();
        let errors: Vec<&String> = reply
            .iter()
            .filter(|l| l.starts_with("info string error"))
            .collect();
        assert_eq!(errors.len(), 1, "`{line}` during a search: {reply:?}");
        assert!(
            reply.iter().all(|l| !l.starts_with("bestmove")),
            "{reply:?}"
        );
    }
    engine.send("stop");
    let sent = Instant::now();
    let lines = engine.read_until(|l| l.starts_with("bestmove"));
    let took = sent.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "bestmove came {took:?} after stop"
    );
    let best = bestmove_of(lines.last().unwrap()).to_string();
    assert_eq!(engine.fen(), fen, "the position changed during the search");
    assert!(engine.legal_moves().contains(&best));
    // A second stop does nothing.
    assert!(
        engine
            .ask("stop")
            .iter()
            .all(|l| !l.starts_with("bestmove"))
    );
}

#[test]
fn quit_during_go_infinite_exits() {
    let mut engine = Engine::spawn();
    engine.send("go infinite");
    engine.read_until(|l| l.starts_with("info depth"));
    engine.send("quit");
    let status = engine.wait_exit(Duration::from_secs(5));
    let status = status.expect("the engine did not exit within 5 s of quit");
    assert!(status.success(), "exit status {status}");
}

#[test]
fn go_movetime_returns_in_time() {
    let mut engine = Engine::spawn();
    // Warm up (page in the table) so the measurement is of the search.
    engine.go("depth 1");
    engine.send("go movetime 300");
    let sent = Instant::now();
    let lines = engine.read_until(|l| l.starts_with("bestmove"));
    let took = sent.elapsed();
    assert!(
        took < Duration::from_millis(300 + 1000),
        "movetime 300 took {took:?}"
    );
    let best = bestmove_of(lines.last().unwrap()).to_string();
    assert!(engine.legal_moves().contains(&best));
}

#[test]
fn go_at_a_finished_game_says_so() {
    let mut engine = Engine::spawn();
    // Black has two pieces and none in hand.
    let fen = "O*O*O***/********/@*@***** w m s 3 0 2 0 0 0 0 0 0 0 0 0 1";
    assert!(engine.ask(&format!("position fen {fen}")).is_empty());
    let display = engine.display();
    assert!(
        display.contains(&"Phase: game over".to_string()),
        "{display:?}"
    );
    assert!(
        display.iter().any(|l| l.starts_with("Status: white wins")),
        "{display:?}"
    );
    assert_eq!(display.last().unwrap(), "Legal moves: 0");
    let lines = engine.go("depth 3");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("info string game over: white wins"),
        "{lines:?}"
    );
    assert_eq!(lines[1], "bestmove (none)");

    // Blocked, reached by a move: Cheng San Qi has no flying; white g1-d1
    // takes black's last free point.
    assert!(
        engine
            .ask("setoption name Variant value cheng-san-qi")
            .is_empty()
    );
    let fen = "********/**O***O*/O**O*@@@ w m s 4 0 3 0 0 0 0 0 0 0 0 0 1";
    assert!(
        engine
            .ask(&format!("position fen {fen} moves g1-d1"))
            .is_empty()
    );
    let lines = engine.go("depth 3");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("info string game over: white wins"),
        "{lines:?}"
    );
    assert_eq!(lines[1], "bestmove (none)");
    // An infinite search of a finished game answers at once too.
    let lines = engine.go("infinite");
    assert_eq!(lines.last().unwrap(), "bestmove (none)");
}

#[test]
fn end_of_input_finishes_a_search_first() {
    let mut engine = Engine::spawn();
    engine.send("position startpos moves d6 a1");
    engine.send("go depth 4");
    engine.close_stdin();
    let lines = engine.read_until(|l| l.starts_with("bestmove"));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 4 ") && l.contains(" score ")),
        "the search was cut short: {lines:?}"
    );
    let status = engine.wait_exit(common::TIMEOUT).expect("no exit at EOF");
    assert!(status.success(), "exit status {status}");

    // An infinite search is stopped by the end of input, with a bestmove.
    let mut engine = Engine::spawn();
    engine.send("go infinite");
    engine.read_until(|l| l.starts_with("info depth"));
    engine.close_stdin();
    engine.read_until(|l| l.starts_with("bestmove"));
    let status = engine.wait_exit(common::TIMEOUT).expect("no exit at EOF");
    assert!(status.success(), "exit status {status}");
}

#[test]
fn end_of_input_without_a_final_newline() {
    let mut engine = Engine::spawn();
    engine.send_raw(b"isready");
    engine.close_stdin();
    assert_eq!(engine.read_until(|l| l == "readyok"), vec!["readyok"]);
    let status = engine.wait_exit(common::TIMEOUT).expect("no exit at EOF");
    assert!(status.success(), "exit status {status}");
}

#[test]
fn end_of_input_with_only_the_other_sides_clock_exits() {
    // Black to move, only White's clock given: no limit for the side to
    // move, so the search is infinite, and end of input stops it.
    let mut engine = Engine::spawn();
    engine.send("position startpos moves d6");
    engine.send("go wtime 1000 winc 10");
    engine.close_stdin();
    let lines = engine.read_until(|l| l.starts_with("bestmove"));
    assert_ne!(bestmove_of(lines.last().unwrap()), "(none)");
    let status = engine.wait_exit(common::TIMEOUT).expect("no exit at EOF");
    assert!(status.success(), "exit status {status}");
}

#[test]
fn ponder_search_waits_for_ponderhit_or_stop() {
    let mut engine = Engine::spawn();
    engine.send("go ponder wtime 2000 btime 2000");
    // Far past the move's time budget: still pondering.
    std::thread::sleep(Duration::from_millis(700));
    let lines = engine.sync();
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "a ponder search ended before ponderhit: {lines:?}"
    );
    // After ponderhit the clock runs and the search ends by itself.
    engine.send("ponderhit");
    let lines = engine.read_until(|l| l.starts_with("bestmove"));
    assert_ne!(bestmove_of(lines.last().unwrap()), "(none)");

    // `stop` ends a ponder search too.
    engine.send("go ponder");
    engine.read_until(|l| l.starts_with("info depth"));
    engine.send("stop");
    let lines = engine.read_until(|l| l.starts_with("bestmove"));
    assert_ne!(bestmove_of(lines.last().unwrap()), "(none)");
    // `ponderhit` with no search does nothing.
    assert!(engine.ask("ponderhit").is_empty());
}

/// A node-limited search on one thread is deterministic: the same lines
/// (but for the clock's `time` and `nps`) and the same bestmove, in a
/// fresh process or after `ucinewgame` clears the table.
#[test]
fn identical_node_limited_searches_give_identical_output() {
    let strip_clock = |lines: Vec<String>| -> Vec<String> {
        lines
            .into_iter()
            .map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                let mut kept = Vec::new();
                let mut i = 0;
                while i < words.len() {
                    if matches!(words[i], "time" | "nps") && i + 1 < words.len() {
                        i += 2;
                    } else {
                        kept.push(words[i]);
                        i += 1;
                    }
                }
                kept.join(" ")
            })
            .collect()
    };
    let search = |engine: &mut Engine| {
        engine.send("position startpos moves d6 a1 d5 a4 d7xa4 b4");
        strip_clock(engine.go("nodes 30000"))
    };
    let mut first = Engine::spawn();
    let a = search(&mut first);
    assert!(
        a.len() > 2 && a.last().unwrap().starts_with("bestmove "),
        "{a:?}"
    );
    assert!(engine_reported_nodes(&a) <= 30_000, "{a:?}");
    let b = search(&mut Engine::spawn());
    assert_eq!(a, b, "a second process");
    first.send("ucinewgame");
    let c = search(&mut first);
    assert_eq!(a, c, "the same process after ucinewgame");
}

/// The largest `nodes` count in a search's info lines.
fn engine_reported_nodes(lines: &[String]) -> u64 {
    lines
        .iter()
        .filter_map(|l| info_value(l, "nodes"))
        .filter_map(|v| v.parse().ok())
        .max()
        .unwrap_or(0)
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut engine = Engine::spawn();
    let lines = engine.go("depth 3 searchmoves a7 g1");
    let best = bestmove_of(lines.last().unwrap());
    assert!(best == "a7" || best == "g1", "{best} was not allowed");
    for line in lines.iter().filter(|l| l.contains(" pv ")) {
        let first = info_value(line, "pv").unwrap();
        assert!(first == "a7" || first == "g1", "{line}");
    }
}

#[test]
fn multipv_reports_several_lines() {
    let mut engine = Engine::spawn();
    assert!(engine.ask("setoption name MultiPV value 3").is_empty());
    let lines = engine.go("depth 2");
    for depth in 1..=2 {
        let firsts: Vec<String> = (1..=3)
            .map(|k| {
                let line = lines
                    .iter()
                    .find(|l| {
                        l.starts_with(&format!("info depth {depth} "))
                            && info_value(l, "multipv") == Some(k.to_string())
                    })
                    .unwrap_or_else(|| panic!("no multipv {k} at depth {depth}: {lines:?}"));
                info_value(line, "pv").unwrap()
            })
            .collect();
        let mut distinct = firsts.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "the lines repeat a move: {firsts:?}");
    }
    let best = bestmove_of(lines.last().unwrap()).to_string();
    assert!(engine.legal_moves().contains(&best));
}

#[test]
fn threads_and_skill_levels_still_play_legal_moves() {
    let mut engine = Engine::spawn();
    let legal = engine.legal_moves();
    assert!(engine.ask("setoption name Threads value 2").is_empty());
    let lines = engine.go("depth 4");
    assert!(legal.contains(&bestmove_of(lines.last().unwrap()).to_string()));
    assert!(engine.ask("setoption name Threads value 1").is_empty());
    for level in [0, 10] {
        assert!(
            engine
                .ask(&format!("setoption name Skill Level value {level}"))
                .is_empty()
        );
        let lines = engine.go("depth 3");
        let best = bestmove_of(lines.last().unwrap()).to_string();
        assert!(legal.contains(&best), "skill {level}: {best}");
    }
}

#[test]
fn self_play_under_a_clock_never_flags() {
    const START_MS: i64 = 1000;
    const INC_MS: i64 = 10;
    let mut engine = Engine::spawn();
    let mut clock = [START_MS, START_MS];
    let mut moves: Vec<String> = Vec::new();
    let mut finished = false;
    for ply in 0..150 {
        let side = ply % 2;
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        // The clock runs from the position command to the bestmove.
        let sent = Instant::now();
        engine.send(&position);
        engine.send(&format!(
            "go wtime {} btime {} winc {INC_MS} binc {INC_MS}",
            clock[0], clock[1]
        ));
        let lines = engine.read_until(|l| l.starts_with("bestmove"));
        let took = sent.elapsed().as_millis() as i64;
        assert!(
            lines.iter().all(|l| !l.starts_with("info string error")),
            "ply {ply}: {lines:?}"
        );
        clock[side] -= took;
        assert!(
            clock[side] >= 0,
            "ply {ply}: {} flagged (took {took} ms; clocks {clock:?}; moves {})",
            ["white", "black"][side],
            moves.join(" ")
        );
        clock[side] += INC_MS;
        let best = bestmove_of(lines.last().unwrap()).to_string();
        if best == "(none)" {
            assert!(
                lines.iter().any(|l| l.starts_with("info string game over")),
                "{lines:?}"
            );
            finished = true;
            break;
        }
        moves.push(best);
    }
    // The engine's own move list agrees with how the loop ended: none
    // after `bestmove (none)`, some after 150 plies.
    engine.send(&format!("position startpos moves {}", moves.join(" ")));
    let legal = engine.legal_moves();
    assert_eq!(
        legal.is_empty(),
        finished,
        "finished: {finished}, legal moves {legal:?} after {}",
        moves.join(" ")
    );
    assert!(engine.sync().is_empty());
}

/// A hash table larger than the memory the system has free is refused
/// (zeroing it would swap, or end the process at the hands of the kernel's
/// out-of-memory killer), and the engine goes on with its table. Checked
/// where /proc/meminfo says so, with less than the largest `Hash` free.
#[test]
fn a_hash_table_beyond_the_free_memory_is_refused() {
    let available_mb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map(|kb| kb / 1024);
    let Some(available_mb) = available_mb.filter(|&mb| mb < 32768) else {
        eprintln!("skipped: free memory unknown or above 32768 MB ({available_mb:?})");
        return;
    };
    let (mut engine, fen) = engine_in_play();
    let answer = engine.ask("setoption name Hash value 32768");
    assert_eq!(answer.len(), 1, "{answer:?} ({available_mb} MB free)");
    assert!(
        answer[0].starts_with("info string error: a 32768 MB hash table is more than the "),
        "{answer:?}"
    );
    assert_line_refused(&mut engine, "setoption name Hash value 32768", &fen);
    assert_eq!(engine.fen(), fen);
    assert_still_healthy(&mut engine);
}
