//! The README's example session is real: replay its input lines through
//! the binary and compare every answer, but for the clock's values (`time`
//! and `nps` in info lines, the numbers of perft's `Time:` line).

use std::time::Duration;

use crate::common::Engine;

/// The example session's lines, from the `text` block under its heading.
fn session() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let section = readme
        .split("## Example session")
        .nth(1)
        .expect("README has an example session");
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the example session is a text block");
    block.lines().map(str::to_string).collect()
}

/// A line with the machine-dependent values blanked.
fn masked(line: &str) -> String {
    if line.starts_with("Time: ") {
        // Only the numbers: the words of the line are the format.
        let mut out = String::new();
        for c in line.chars() {
            match (c.is_ascii_digit(), out.ends_with('_')) {
                (true, true) => {}
                (true, false) => out.push('_'),
                (false, _) => out.push(c),
            }
        }
        return out;
    }
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if words.first() == Some(&"info") {
        for i in 1..words.len() {
            if matches!(words[i - 1], "time" | "nps") {
                words[i] = "_";
            }
        }
    }
    words.join(" ")
}

#[test]
fn the_readme_session_is_what_the_engine_says() {
    let lines = session();
    assert!(
        lines[0].starts_with("$ cargo run"),
        "the session starts with the command: {lines:?}"
    );
    // The greeting is for a terminal only; a pipe gets none.
    assert!(lines[1].starts_with("mulino "), "{}", lines[1]);
    let mut exchanges: Vec<(String, Vec<String>)> = Vec::new();
    for line in &lines[2..] {
        match line.strip_prefix("> ") {
            Some(input) => exchanges.push((input.to_string(), Vec::new())),
            None => exchanges
                .last_mut()
                .expect("output before any input")
                .1
                .push(line.clone()),
        }
    }
    assert!(exchanges.len() >= 4, "{exchanges:?}");
    let mut engine = Engine::spawn();
    for (input, expected) in &exchanges {
        engine.send(input);
        if input == "quit" {
            assert!(expected.is_empty());
            assert!(engine.wait_exit(Duration::from_secs(30)).is_some());
            return;
        }
        let mut got = Vec::new();
        while got.len() < expected.len() {
            got.extend(engine.read_until(|_| true));
        }
        let got: Vec<String> = got.iter().map(|l| masked(l)).collect();
        let want: Vec<String> = expected.iter().map(|l| masked(l)).collect();
        assert_eq!(got, want, "the answer to `{input}`");
        assert!(
            engine.sync().is_empty(),
            "`{input}` said more than the README shows"
        );
    }
    panic!("the session should end with quit");
}

/// The number a line of `text` quotes after `before` (digits and the
/// thousands' commas of docs/ tables).
fn quoted(text: &str, before: &str, what: &str) -> u64 {
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("{what}: no `{before}`"));
    let digits: String = text[at + before.len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("{what}: no number after `{before}`"))
}

fn read(relative: &str) -> String {
    let path = format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The figures the README quotes are the engine's (the bench signature,
/// which docs/performance.md quotes too) and the reference data's (perft
/// 7 from the start), so that no copy drifts from its source.
#[test]
fn the_readme_quotes_the_bench_signature_and_perft_7() {
    let readme = read("README.md");
    let performance = read("docs/performance.md");
    let (status, out) = crate::common::run_args(&["bench"], Duration::from_secs(300));
    assert!(status.success(), "{out}");
    let nodes = quoted(&out, "Nodes searched: ", "bench");
    assert_eq!(
        quoted(&readme, "the search signature: ", "README"),
        nodes,
        "README.md quotes another bench signature than `mulino bench` prints"
    );
    assert_eq!(
        quoted(
            &performance,
            "| `mulino bench` (depth 9) | ",
            "docs/performance.md"
        ),
        nodes,
        "docs/performance.md quotes another bench signature"
    );
    // The reference count of perft 7 (tests/data/perft/startpos.tsv).
    let reference = read("tests/data/perft/startpos.tsv");
    let perft_7 = reference
        .lines()
        .find_map(|l| l.strip_prefix("nine\t7\t"))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .expect("nine's perft 7 in startpos.tsv");
    assert_eq!(quoted(&readme, "mulino perft 7      # ", "README"), perft_7);
}
