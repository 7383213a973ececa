//! Opening books (docs/books.md): every shipped book reads under its rule
//! set, line by line, with the position its moves reach, its value and
//! how it was established, no position twice, and at least the openings
//! the page claims; the generator by search gives the same book from the
//! same seed, within its threshold; bad lines are refused, naming what is
//! wrong.

use std::collections::HashSet;
use std::path::Path;

use mulino::book::generate::{canonical, search_limits};
use mulino::book::{BookSpec, Check, DEFAULT_THRESHOLD, Method, Progress, generate};
use mulino::core::{Color, Position, Variant};
use mulino::engine::Engine;
use mulino::matches::openings::book::{BookLine, load_book, parse_line};

use crate::matching::{MULINO, Scratch};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The openings docs/books.md claims for `variant`'s book.
fn claimed(variant: Variant) -> usize {
    let page = std::fs::read_to_string(root().join("docs/books.md")).expect("docs/books.md");
    let row = format!("| `books/{}.book` |", variant.name());
    let line = page
        .lines()
        .find(|l| l.starts_with(&row))
        .unwrap_or_else(|| panic!("docs/books.md has no row {row}"));
    let cells: Vec<&str> = line.split('|').map(str::trim).collect();
    cells[3]
        .parse()
        .unwrap_or_else(|_| panic!("openings column of {line}"))
}

/// The two scores of a `by search depth D scores A B` field.
fn search_scores(by: &str) -> Option<(u32, i32, i32)> {
    let words: Vec<&str> = by.split_whitespace().collect();
    match words[..] {
        ["search", "depth", d, "scores", a, b] => {
            Some((d.parse().ok()?, a.parse().ok()?, b.parse().ok()?))
        }
        _ => None,
    }
}

/// The self-play check's games of a `check self-play nodes N1 N2 ...: R1
/// R2 ...` field: as many results as node counts, each `1-0`, `0-1` or
/// `1/2-1/2`, and as many won by White as by Black.
fn check_level(check: &str, what: &str) {
    let (nodes, results) = check
        .strip_prefix("self-play nodes ")
        .and_then(|rest| rest.split_once(':'))
        .unwrap_or_else(|| panic!("{what}: check `{check}`"));
    let nodes: Vec<u64> = nodes
        .split_whitespace()
        .map(|n| n.parse().unwrap_or_else(|_| panic!("{what}: nodes `{n}`")))
        .collect();
    let results: Vec<&str> = results.split_whitespace().collect();
    assert!(!nodes.is_empty(), "{what}: {check}");
    assert_eq!(nodes.len(), results.len(), "{what}: {check}");
    for r in &results {
        assert!(["1-0", "0-1", "1/2-1/2"].contains(r), "{what}: {check}");
    }
    let count = |r: &str| results.iter().filter(|x| **x == r).count();
    assert_eq!(count("1-0"), count("0-1"), "{what}: not level: {check}");
}

/// The threshold a book's first line states (`within N centipawns`), or
/// the default where it states none (a book of the databases).
fn stated_threshold(path: &Path) -> i32 {
    let text = std::fs::read_to_string(path).expect("the book");
    let first = text.lines().next().unwrap_or("");
    first
        .split_once("within ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .map_or(DEFAULT_THRESHOLD, |n| {
            n.parse()
                .unwrap_or_else(|_| panic!("{}: `{first}`", path.display()))
        })
}

fn check_value(line: &BookLine, what: &str) {
    check_value_within(line, DEFAULT_THRESHOLD, what);
}

fn check_value_within(line: &BookLine, threshold: i32, what: &str) {
    if let Some(check) = &line.check {
        check_level(check, what);
    }
    let value = line
        .value
        .as_deref()
        .unwrap_or_else(|| panic!("{what}: no value"));
    let by = line
        .by
        .as_deref()
        .unwrap_or_else(|| panic!("{what}: no by"));
    match value {
        "draw" => assert_eq!(by, "tb", "{what}"),
        "even" => {
            let (_, a, b) = search_scores(by).unwrap_or_else(|| panic!("{what}: by `{by}`"));
            assert!(a.abs() <= threshold && b.abs() <= threshold, "{what}: {by}");
        }
        other => panic!("{what}: value `{other}`"),
    }
}

#[test]
fn every_shipped_book_reads_and_keeps_its_promises() {
    for variant in Variant::ALL {
        let rules = variant.rules();
        let path = root().join(format!("books/{}.book", variant.name()));
        let book = load_book(&path, &rules).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let claim = claimed(variant);
        let threshold = stated_threshold(&path);
        assert!(
            book.len() >= claim,
            "{}: {} openings, docs/books.md claims {claim}",
            path.display(),
            book.len()
        );
        let mut seen = HashSet::new();
        for (i, line) in book.iter().enumerate() {
            let what = format!("{} opening {}", path.display(), i + 1);
            // `load_book` checked the fen field against the moves; here
            // that every line has one.
            let fen = line
                .fen
                .as_deref()
                .unwrap_or_else(|| panic!("{what}: no fen"));
            let reached = line.opening.game(&rules);
            assert_eq!(reached.position().fen(&rules), fen, "{what}");
            assert!(reached.outcome().is_none(), "{what}");
            check_value_within(line, threshold, &what);
            assert!(
                seen.insert(canonical(reached.position(), &rules)),
                "{what}: its position (or a symmetric copy) comes earlier"
            );
        }
    }
}

fn tiny_spec(variant: Variant, seed: u64) -> BookSpec {
    let rules = variant.rules();
    BookSpec {
        variant,
        start: Position::startpos(&rules),
        start_fen: None,
        plies: 4,
        count: 4,
        seed,
        max_tries: 400,
        method: Method::Search {
            depth: 3,
            threshold: DEFAULT_THRESHOLD,
        },
        check: None,
    }
}

#[test]
fn the_generator_by_search_is_seeded_and_keeps_its_threshold() {
    let variant = Variant::Twelve;
    let rules = variant.rules();
    let a = generate(&tiny_spec(variant, 5), &mut |_| {}).expect("a book");
    let b = generate(&tiny_spec(variant, 5), &mut |_| {}).expect("a book");
    assert_eq!(a, b, "the same seed, the same book");
    assert_eq!(a.len(), 4);
    let other = generate(&tiny_spec(variant, 6), &mut |_| {}).expect("a book");
    assert_ne!(a, other, "another seed, another book");
    let mut engine = Engine::new();
    engine.set_option("Variant", Some(variant.name())).unwrap();
    let mut seen = HashSet::new();
    for entry in &a {
        let line = parse_line(&entry.line(), &rules).expect("its own line reads");
        assert_eq!(line.opening, entry.opening);
        check_value(&line, &entry.line());
        assert!(seen.insert(canonical(line.opening.game(&rules).position(), &rules)));
        // A search of its own, as the generator made it, scores the
        // position as the line says.
        let (depth, white_view, _) = search_scores(&entry.by).unwrap();
        engine.new_game().unwrap();
        engine.set_game(entry.opening.game(&rules)).unwrap();
        let result = engine.search_blocking(search_limits(depth)).unwrap();
        let side = engine.game().position().side_to_move();
        let score = if side == Color::White {
            result.score
        } else {
            -result.score
        };
        assert_eq!(score, white_view, "{}", entry.line());
    }
}

#[test]
fn the_self_play_check_keeps_only_level_openings() {
    let variant = Variant::Twelve;
    let rules = variant.rules();
    let spec = || BookSpec {
        check: Some(Check {
            nodes: 200,
            games: 2,
        }),
        count: 3,
        ..tiny_spec(variant, 7)
    };
    let mut last = Progress::default();
    let a = generate(&spec(), &mut |p| last = *p).expect("a book");
    let b = generate(&spec(), &mut |_| {}).expect("a book");
    assert_eq!(a, b, "the same seed, the same book");
    assert_eq!(a.len(), 3);
    // Some openings this seed draws pass the search but not the games.
    assert!(last.unlevel > 0, "{last}");
    assert_eq!(
        last.tried,
        last.kept as u64 + last.repeated + last.refused + last.unlevel + last.dead
    );
    for entry in &a {
        let line = parse_line(&entry.line(), &rules).expect("its own line reads");
        let check = line.check.as_deref().expect("a check field");
        assert!(check.starts_with("self-play nodes 200 300: "), "{check}");
        check_value(&line, &entry.line());
    }
}

#[test]
fn bad_lines_are_refused_with_what_is_wrong() {
    let rules = Variant::Nine.rules();
    let good = "startpos moves d6 f4";
    let fen = parse_line(good, &rules)
        .unwrap()
        .opening
        .game(&rules)
        .position()
        .fen(&rules);
    let line = format!("{good}; fen {fen}; value even; by search depth 2 scores +0 +0");
    let read = parse_line(&line, &rules).expect("a good line");
    assert_eq!(read.fen.as_deref(), Some(fen.as_str()));
    assert_eq!(read.value.as_deref(), Some("even"));
    // Fields other tools add are left to them.
    assert!(parse_line(&format!("{line}; note from elsewhere"), &rules).is_ok());

    let refused = |text: &str, expect: &str| {
        let e = parse_line(text, &rules).expect_err(text);
        assert!(e.contains(expect), "`{text}`: {e}");
    };
    refused("startpos moves d6 d6", "d6");
    refused(&format!("{good}; fen x/y/z w p p"), "fen field");
    let other = fen.replace(" w ", " b ");
    refused(
        &format!("{good}; fen {other}"),
        "is not the position the moves reach",
    );
    let earlier = parse_line("startpos moves d6", &rules)
        .unwrap()
        .opening
        .game(&rules)
        .position()
        .fen(&rules);
    refused(&format!("{good}; fen {earlier}"), "is not the position");
    refused(&format!("{line}; value draw"), "given twice");
    refused(&format!("{good}; value"), "empty");

    // In a file, the error names the file and the line; `mulino match`
    // stops before any game with it.
    let dir = Scratch::new("books-bad");
    let path = dir.path("bad.book");
    std::fs::write(&path, format!("# a book\n{line}\n{good}; fen {other}\n")).unwrap();
    let e = load_book(Path::new(&path), &rules).unwrap_err().to_string();
    assert!(e.contains("bad.book:3:"), "{e}");
    let output = std::process::Command::new(MULINO)
        .args(["match", "--engine", &format!("cmd={MULINO}"), "--engine"])
        .arg(format!("cmd={MULINO}"))
        .args(["--depth", "1", "--games", "2", "--concurrency", "1"])
        .args(["--openings", &path, "--quiet"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.book:3:"), "{stderr}");
    assert!(stderr.contains("is not the position"), "{stderr}");
}

#[test]
fn the_book_command_writes_a_book_that_matches_read() {
    let dir = Scratch::new("books-command");
    let out = dir.path("lasker.book");
    let output = std::process::Command::new(MULINO)
        .args([
            "book",
            "--variant",
            "lasker",
            "--plies",
            "4",
            "--count",
            "3",
        ])
        .args(["--seed", "9", "--depth", "2", "--out", &out])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("# mulino book: lasker, 3 openings of 4 plies"),
        "{text}"
    );
    assert!(
        text.contains("# made by: mulino book --variant lasker"),
        "{text}"
    );
    let book = load_book(Path::new(&out), &Variant::Lasker.rules()).unwrap();
    assert_eq!(book.len(), 3);
    for line in &book {
        assert_eq!(line.opening.moves.len(), 4);
        check_value(line, &out);
    }
    // The databases cover Nine Men's Morris's moving phase only.
    let refused = std::process::Command::new(MULINO)
        .args([
            "book",
            "--variant",
            "russian",
            "--plies",
            "4",
            "--count",
            "3",
        ])
        .args(["--tb", dir.0.to_str().unwrap(), "--out", &out])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("mulino book:"), "{stderr}");
}
