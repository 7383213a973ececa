//! Perft against the reference numbers in `tests/data/perft/` (copied from
//! the project's shared data). Debug builds check the counts up to a node
//! limit; release builds (`cargo test --release`) check every number.

use mulino::core::perft::{PerftTable, perft, perft_plain};
use mulino::core::{Game, Position, Rules, Variant};

/// Debug builds skip expected counts above this.
const DEBUG_NODE_LIMIT: u64 = 20_000_000;

fn limit() -> u64 {
    if cfg!(debug_assertions) {
        DEBUG_NODE_LIMIT
    } else {
        u64::MAX
    }
}

fn rules_for(variant: &str) -> Rules {
    match variant {
        "nine" => Variant::Nine.rules(),
        "nine-nofly" => Rules {
            flying: false,
            ..Variant::Nine.rules()
        },
        "twelve" => Variant::Twelve.rules(),
        other => panic!("unknown variant {other} in perft data"),
    }
}

fn data_lines(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/tests/data/perft/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn startpos() {
    let mut checked = 0;
    for fields in data_lines("startpos.tsv") {
        let rules = rules_for(&fields[0]);
        let depth: u32 = fields[1].parse().unwrap();
        let expected: u64 = fields[2].parse().unwrap();
        if expected > limit() {
            continue;
        }
        let mut table = PerftTable::new(256);
        let got = perft(&Position::startpos(&rules), &rules, depth, &mut table);
        assert_eq!(got, expected, "{} depth {depth}", fields[0]);
        checked += 1;
    }
    assert!(
        checked >= 5,
        "too few start-position lines checked: {checked}"
    );
}

#[test]
fn games() {
    let mut checked = 0;
    for file in ["games-nine.tsv", "games-nine-nofly.tsv", "games-twelve.tsv"] {
        for fields in data_lines(file) {
            let rules = rules_for(&fields[0]);
            let game = Game::from_moves(
                rules,
                Position::startpos(&rules),
                fields[1].split_whitespace(),
            )
            .unwrap_or_else(|e| panic!("{file}: {}: {e}", fields[1]));
            let mut table = PerftTable::new(64);
            for (i, expected) in fields[2].split(',').enumerate() {
                let expected: u64 = expected.parse().unwrap();
                if expected > limit() {
                    break;
                }
                let depth = i as u32 + 1;
                let got = perft(game.position(), &rules, depth, &mut table);
                assert_eq!(got, expected, "{file}: {} depth {depth}", fields[1]);
                checked += 1;
            }
        }
    }
    assert!(checked > 600, "too few game lines checked: {checked}");
}

/// The memo table must not change any count: compare with plain perft.
#[test]
fn memo_agrees_with_plain_perft() {
    for fields in data_lines("games-nine.tsv").into_iter().take(30) {
        let rules = rules_for(&fields[0]);
        let game = Game::from_moves(
            rules,
            Position::startpos(&rules),
            fields[1].split_whitespace(),
        )
        .unwrap();
        let mut table = PerftTable::new(1);
        for depth in 1..=3 {
            assert_eq!(
                perft(game.position(), &rules, depth, &mut table),
                perft_plain(game.position(), &rules, depth),
                "{}",
                fields[1]
            );
        }
    }
}

/// The later variants' start-position counts (computed by mulino, see
/// `tests/data/perft-variants/README.md`), and their agreement with the
/// `perft` numbers of Sanmill's test vectors where both count alike.
#[test]
fn later_variants_startpos() {
    let path = format!(
        "{}/tests/data/perft-variants/startpos.tsv",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut checked = 0;
    let mut against_sanmill = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let variant: Variant = fields[0].parse().unwrap();
        let rules = variant.rules();
        let depth: u32 = fields[1].parse().unwrap();
        let expected: u64 = fields[2].parse().unwrap();
        if depth <= 4 {
            let sanmill = format!(
                "{}/tests/data/sanmill/{}.json",
                env!("CARGO_MANIFEST_DIR"),
                variant.sanmill_index()
            );
            let data: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&sanmill).unwrap()).unwrap();
            for pair in data["perft"].as_array().unwrap() {
                if pair[0].as_u64() == Some(depth as u64) {
                    assert_eq!(pair[1].as_u64(), Some(expected), "{variant} depth {depth}");
                    against_sanmill += 1;
                }
            }
        }
        if expected > limit() {
            continue;
        }
        let mut table = PerftTable::new(256);
        let got = perft(&Position::startpos(&rules), &rules, depth, &mut table);
        assert_eq!(got, expected, "{variant} depth {depth}");
        checked += 1;
    }
    assert!(checked >= 25, "too few lines checked: {checked}");
    assert_eq!(against_sanmill, 16, "depths compared with Sanmill");
}

/// The memo table keys every part of the later variants' state (marked
/// points, removals owed next or of one's own pieces): memo and plain
/// perft agree along seeded random games that cross the end of placing.
#[test]
fn later_variants_memo_agrees_with_plain_perft() {
    use mulino::core::MoveList;
    let variants = [
        Variant::Dooz,
        Variant::DaSanQi,
        Variant::ZhiQi,
        Variant::ElFilja,
        Variant::Experimental,
    ];
    for variant in variants {
        let rules = variant.rules();
        for seed in 1..=3u64 {
            let mut pos = Position::startpos(&rules);
            let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ variant as u64;
            let mut list = MoveList::new();
            for ply in 0..80 {
                pos.legal_moves(&rules, &mut list);
                if list.is_empty() {
                    break;
                }
                if ply >= 20 && ply % 4 == 0 {
                    let mut table = PerftTable::new(1);
                    assert_eq!(
                        perft(&pos, &rules, 3, &mut table),
                        perft_plain(&pos, &rules, 3),
                        "{variant} {}",
                        pos.fen(&rules)
                    );
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                pos = pos.play_unchecked(&rules, list[(state % list.len() as u64) as usize]);
            }
        }
    }
}
