//! The moving-phase databases: 3-3, 3-4, 4-3 and 4-4 are built into a
//! temporary directory, verified against the rules core's move generator,
//! and their counts compared with the published values (exactly).

use std::path::{Path, PathBuf};

use mulino::core::{Rules, Variant};
use mulino::tb::build::{self, Options};
use mulino::tb::format::{self, MappedTable};
use mulino::tb::probe::Tablebases;
use mulino::tb::{TbError, TbRules, verify};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mulino-tb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// 3-3 of the standard rules, built into a fresh temporary directory.
fn three_three(name: &str) -> (PathBuf, TbRules) {
    let dir = temp_dir(name);
    let nine = TbRules::from_rules(&Rules::default()).unwrap();
    let opts = Options {
        dir: dir.clone(),
        threads: 1,
        memory: 1 << 30,
    };
    build::build_pair(nine, 3, 3, &opts, &|_| {}).unwrap();
    (dir, nine)
}

fn published() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tablebases/published.tsv");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

fn build_up_to_four(dir: &Path, rules: TbRules) {
    let opts = Options {
        dir: dir.to_path_buf(),
        threads: 2,
        memory: 1 << 30,
    };
    for (a, b) in build::plan(&[(4, 4)]) {
        build::build_pair(rules, a, b, &opts, &|_| {}).unwrap();
    }
}

#[test]
fn small_tables_verify_and_equal_the_published_counts() {
    let dir = temp_dir("small");
    let rules = TbRules::from_rules(&Rules::default()).unwrap();
    assert_eq!(build::plan(&[(4, 4)]), vec![(3, 3), (4, 3), (4, 4)]);
    build_up_to_four(&dir, rules);
    let tbs = Tablebases::new(&dir, rules);
    let rows = published();
    for (a, b) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
        let findings = verify::verify_table(&tbs, a, b, 2, &|_| {}).unwrap();
        assert_eq!(findings.mismatches, 0, "{a}-{b}: {:?}", findings.first);
        let t = tbs.table(a, b).unwrap();
        let h = build::summarise(&t.sub, t.table.slots(), rules);
        let row = format!(
            "{a}-{b}\t{}\t{}\t{}\t{}\t{}",
            h.wins, h.losses, h.draws, h.max_win, h.max_loss
        );
        assert!(rows.contains(&row), "{row} is not a published row");
        assert_eq!(t.table.header.wins, h.wins);
    }
    // A pair that needs more memory than allowed is refused before it starts.
    let tight = Options {
        dir: dir.clone(),
        threads: 1,
        memory: 1 << 20,
    };
    assert!(matches!(
        build::build_pair(rules, 5, 5, &tight, &|_| {}),
        Err(TbError::Memory { .. })
    ));
    // A finished pair is recognised, so it is never rebuilt.
    assert!(build::pair_done(&dir, rules, 4, 3));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Threads share the work of both steps (the retrograde one updates the
/// tables together); the files come out byte for byte the same.
#[test]
fn threads_do_not_change_a_table() {
    let rules = TbRules::from_rules(&Rules::default()).unwrap();
    let build_with = |threads: usize| {
        let dir = temp_dir(&format!("threads{threads}"));
        let opts = Options {
            dir: dir.clone(),
            threads,
            memory: 1 << 30,
        };
        for (a, b) in build::plan(&[(5, 4)]) {
            build::build_pair(rules, a, b, &opts, &|_| {}).unwrap();
        }
        dir
    };
    let (one, three) = (build_with(1), build_with(3));
    for (a, b) in [
        (3, 3),
        (4, 3),
        (3, 4),
        (4, 4),
        (5, 3),
        (3, 5),
        (5, 4),
        (4, 5),
    ] {
        let name = format::file_name(a, b);
        let x = std::fs::read(one.join(&name)).unwrap();
        let y = std::fs::read(three.join(&name)).unwrap();
        assert!(x == y, "{name} differs between 1 and 3 threads");
    }
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&three);
}

#[test]
fn tables_for_other_rules_or_damaged_files_are_refused() {
    let (dir, nine) = three_three("refuse");
    let no_fly = TbRules::from_rules(&Variant::ChengSanQi.rules()).unwrap();
    assert!(matches!(
        MappedTable::open(&dir, 3, 3, no_fly),
        Err(TbError::WrongRules { .. })
    ));
    assert!(matches!(
        TbRules::from_rules(&Variant::Russian.rules()),
        Err(TbError::UnsupportedRules(_))
    ));
    // A truncated file, as an interrupted copy would leave it.
    let path = dir.join(format::file_name(3, 3));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    assert!(matches!(
        MappedTable::open(&dir, 3, 3, nine),
        Err(TbError::BadLength { .. })
    ));
    // A header that understates the slots (the file cut to match) is
    // refused too: probes index by the subspace, not by the header.
    let mut short = bytes.clone();
    let slots = u64::from_le_bytes(short[24..32].try_into().unwrap());
    short[24..32].copy_from_slice(&(slots - 1).to_le_bytes());
    short.pop();
    std::fs::write(&path, &short).unwrap();
    assert!(matches!(
        MappedTable::open(&dir, 3, 3, nine),
        Err(TbError::BadLength { .. })
    ));
    // A changed value is caught by the checksum and by verification.
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 2;
    std::fs::write(&path, &bad).unwrap();
    let t = MappedTable::open(&dir, 3, 3, nine).unwrap();
    assert!(matches!(
        t.verify_checksum(),
        Err(TbError::BadChecksum { .. })
    ));
    // An unfinished build leaves only a temporary file: not a table.
    std::fs::remove_file(&path).unwrap();
    std::fs::write(path.with_extension("tb.tmp"), &bytes).unwrap();
    assert!(!build::pair_done(&dir, nine, 3, 3));
    assert!(matches!(
        MappedTable::open(&dir, 3, 3, nine),
        Err(TbError::Missing(_))
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verification_names_a_wrong_value() {
    let (dir, nine) = three_three("wrong");
    let path = dir.join(format::file_name(3, 3));
    let mut bytes = std::fs::read(&path).unwrap();
    // The first slot that holds a win: make it a loss.
    let at = format::HEADER_LEN
        + bytes[format::HEADER_LEN..]
            .iter()
            .position(|&b| b == 2)
            .unwrap();
    bytes[at] = 1;
    std::fs::write(&path, &bytes).unwrap();
    let tbs = Tablebases::new(&dir, nine);
    let f = verify::verify_table(&tbs, 3, 3, 1, &|_| {}).unwrap();
    assert!(f.mismatches >= 2, "the slot and the header/checksum");
    assert!(
        f.first.iter().any(|l| l.contains("stored Loss(0)")),
        "{:?}",
        f.first
    );
    let _ = std::fs::remove_dir_all(&dir);
}
