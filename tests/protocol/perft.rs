//! The reference perft numbers (`tests/data/perft/`, and the later
//! variants' in `tests/data/perft-variants/`), counted through the
//! protocol: the rules of every variant as the engine the tests run has
//! them (the built binary, or `MULINO_ENGINE`'s, such as the WebAssembly
//! one). `tests/rules/perft.rs` checks every number through the library;
//! here the counts stop at a size that a debug build counts at once.

use crate::common::Engine;

/// Counts above this are left to `tests/rules/perft.rs`.
const NODE_LIMIT: u64 = 300_000;

/// The data lines of a file of `tests/data/`, split at tabs.
fn data_lines(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Sets the rules of a variant as the data names it.
fn set_variant(engine: &mut Engine, variant: &str) {
    let (name, flying) = match variant {
        "nine-nofly" => ("nine", false),
        other => (other, true),
    };
    let reply = engine.ask(&format!("setoption name Variant value {name}"));
    assert!(reply.is_empty(), "{variant}: {reply:?}");
    if !flying {
        assert!(engine.ask("setoption name Flying value false").is_empty());
    }
}

/// `perft depth`'s total.
fn perft(engine: &mut Engine, depth: u32) -> u64 {
    engine.send(&format!("perft {depth}"));
    let lines = engine.read_until(|l| l.starts_with("Time:"));
    lines
        .iter()
        .find_map(|l| l.strip_prefix("Nodes searched: "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no total in {lines:?}"))
}

#[test]
fn the_reference_counts_from_the_start() {
    let mut engine = Engine::spawn();
    let mut checked = 0;
    for file in ["perft/startpos.tsv", "perft-variants/startpos.tsv"] {
        for fields in data_lines(file) {
            let expected: u64 = fields[2].parse().unwrap();
            if expected > NODE_LIMIT {
                continue;
            }
            set_variant(&mut engine, &fields[0]);
            let depth: u32 = fields[1].parse().unwrap();
            assert_eq!(perft(&mut engine, depth), expected, "{fields:?}");
            checked += 1;
        }
    }
    assert!(checked >= 24, "too few counts checked: {checked}");
}

#[test]
fn the_reference_counts_along_games() {
    let mut engine = Engine::spawn();
    let mut checked = 0;
    for file in [
        "perft/games-nine.tsv",
        "perft/games-nine-nofly.tsv",
        "perft/games-twelve.tsv",
    ] {
        for fields in data_lines(file) {
            set_variant(&mut engine, &fields[0]);
            let reply = engine.ask(&format!("position startpos moves {}", fields[1]));
            assert!(reply.is_empty(), "{file}: {}: {reply:?}", fields[1]);
            for (i, expected) in fields[2].split(',').enumerate() {
                let expected: u64 = expected.parse().unwrap();
                if expected > NODE_LIMIT {
                    break;
                }
                let depth = i as u32 + 1;
                let got = perft(&mut engine, depth);
                assert_eq!(got, expected, "{file}: {} depth {depth}", fields[1]);
                checked += 1;
            }
        }
    }
    assert!(checked > 400, "too few game counts checked: {checked}");
}
