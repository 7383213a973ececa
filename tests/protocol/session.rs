//! The text protocol, through the built binary: the handshake (`uci`,
//! `isready`), `d`, `moves` and `perft` (in the foreground, in the
//! background and from the command line), `help` and the terminal
//! greeting, `position` with and without moves, and the rule options
//! (`Variant`, `Flying`, case). Bad input is in `errors.rs`, the
//! search commands in `go.rs`.

use std::time::Duration;

use crate::common::{self, Engine, START_FEN, run_args, run_args_with_stderr};

// ---------------------------------------------------------------------
// Identification, display, moves, perft
// ---------------------------------------------------------------------

/// The engine's answer to `uci`, `uciok` included.
fn uci_answer() -> Vec<String> {
    let mut engine = Engine::spawn();
    engine.send("uci");
    engine.read_until(|l| l == "uciok")
}

/// The option lines of a `uci` answer: after the two `id` lines, before
/// `uciok`.
fn option_lines(lines: &[String]) -> &[String] {
    assert!(lines.len() >= 3, "too short an answer to `uci`: {lines:?}");
    &lines[2..lines.len() - 1]
}

#[test]
fn uci_identifies_the_engine_and_lists_each_option_once() {
    let lines = uci_answer();
    assert_eq!(
        lines[0],
        format!("id name mulino {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(lines[1].starts_with("id author "), "{lines:?}");
    assert!(lines[1].len() > "id author ".len(), "{lines:?}");
    let options = option_lines(&lines);
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
    assert_eq!(lines.last().unwrap(), "uciok");
}

#[test]
fn uci_options_have_their_types_defaults_and_ranges() {
    let lines = uci_answer();
    let options = option_lines(&lines);
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

    // Stockfish's name; the older `MoveOverhead` is still accepted.
    let overhead = option("Move Overhead");
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
    // The time alone: memoised bulk counting has no meaningful speed.
    let ms = lines[26]
        .strip_prefix("Time: ")
        .and_then(|t| t.strip_suffix(" ms"));
    assert!(
        ms.is_some_and(|ms| ms.parse::<u64>().is_ok()),
        "{}",
        lines[26]
    );
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
fn help_lists_the_commands() {
    if !common::native_only("`--help` is the binary's command line, not the protocol") {
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
        let (status, out, _) = run_args_with_stderr(&["bench", "--help"], Duration::from_secs(60));
        assert!(
            status.success() && out.contains("Usage: mulino bench"),
            "{out}"
        );
    }
    // `mulino help` is the protocol's help, which points at `--help`.
    let (status, out, _) = run_args_with_stderr(&["help"], Duration::from_secs(60));
    assert!(status.success(), "{out}");
    assert!(
        out.starts_with("mulino speaks a UCI-style protocol"),
        "{out}"
    );
    assert!(out.contains("`mulino --help` lists the tools"), "{out}");
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

#[test]
fn help_of_one_tool_or_one_command() {
    let long = Duration::from_secs(60);
    if !common::native_only("the tools are the binary's command line, not the protocol") {
        // `mulino help TOOL [SUB]` is that tool's `--help`.
        for (words, usage) in [
            (&["help", "bench"][..], "Usage: mulino bench"),
            (&["help", "tb", "build"][..], "Usage: mulino tb build"),
            (&["help", "tb", "plan"][..], "Usage: mulino tb plan"),
            (&["help", "match"][..], "Usage: mulino match"),
            (&["help", "endgames"][..], "Usage: mulino endgames"),
        ] {
            let (status, out, _) = run_args_with_stderr(words, long);
            assert!(status.success() && out.contains(usage), "{words:?}: {out}");
        }
        let (status, out, err) = run_args_with_stderr(&["help", "tb", "nonsense"], long);
        assert_eq!(status.code(), Some(2), "{out}{err}");
        assert!(err.contains("`tb` has no subcommand `nonsense`"), "{err}");
    }
    // A protocol command's help is its lines of `help`.
    let (status, out, _) = run_args_with_stderr(&["help", "go"], long);
    assert!(status.success(), "{out}");
    assert!(
        out.starts_with("  go [depth N]") && out.contains("searchmoves"),
        "{out}"
    );
    let (status, out, err) = run_args_with_stderr(&["help", "nonsense"], long);
    assert_eq!(status.code(), Some(1), "{out}{err}");
    assert!(err.contains("help: no command `nonsense`"), "{err}");
    let mut engine = Engine::spawn();
    let lines = engine.ask("help position");
    assert!(lines[0].starts_with("  position startpos|fen"), "{lines:?}");
}

/// At a terminal the engine greets once; `script` (util-linux) gives it
/// one. Through a pipe it says nothing first (the other tests see
/// `id name` as the first answer to `uci`). The input is typed once the
/// engine has said something (the terminal echoes what is typed).
#[test]
#[cfg(target_os = "linux")]
fn a_terminal_gets_one_greeting_line() {
    use std::io::{Read as _, Write as _};
    use std::process::{Command, Stdio};
    let engine = common::engine_override().unwrap_or_else(|| common::BIN.to_string());
    let mut child = Command::new("script")
        .args(["-qec", &engine, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("`script` (util-linux) runs the engine on a terminal");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stdout.read(&mut buf) {
            all.extend_from_slice(&buf[..n]);
            let _ = tx.send(());
        }
        all
    });
    let _ = rx.recv_timeout(common::TIMEOUT);
    let _ = stdin.write_all(b"isready\n");
    std::thread::sleep(Duration::from_millis(300));
    let _ = stdin.write_all(b"quit\n");
    drop(stdin);
    let _ = child.wait().expect("the engine exits");
    let out = reader.join().expect("the output");
    let text = String::from_utf8_lossy(&out).replace('\r', "");
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
    // `isready` is answered while it counts, and nothing else is said; a
    // change waits for the count.
    assert!(engine.sync().is_empty());
    assert!(engine.ask("position startpos moves d6").is_empty());
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
    // The position that waited was then set.
    assert_eq!(
        engine.fen(),
        "********/O*******/******** b p p 1 8 0 9 0 0 0 0 0 0 0 0 1"
    );
    // The engine is free again, and its memo gives exact counts.
    engine.send("position startpos");
    engine.send("perft 4");
    let lines = engine.read_until(|l| l.starts_with("Time:"));
    assert!(
        lines.contains(&"Nodes searched: 255024".to_string()),
        "{lines:?}"
    );
    // `quit` waits for a perft's total, as Stockfish's does; `stop` ends
    // the count, and then `quit` is taken.
    engine.send("perft 30");
    assert!(engine.sync().is_empty());
    engine.send("quit");
    assert!(
        engine.wait_exit(Duration::from_millis(500)).is_none(),
        "quit ended a perft before its total"
    );
    engine.send("stop");
    assert!(
        engine.wait_exit(Duration::from_secs(10)).is_some(),
        "quit was not taken after the perft ended"
    );
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
