//! The moving-phase databases: 3-3, 3-4, 4-3 and 4-4 (both kinds of
//! file, the shared set of `fixture.rs`) are verified against the rules
//! core's move generator, their counts compared with the published values
//! (exactly), and their values under N-move rules compared with a
//! rule-aware minimax of their own; damaged files and files of other
//! rules are refused, by play and by builds.

use std::path::{Path, PathBuf};

use crate::fixture;
use mulino::core::{Rules, Variant};
use mulino::tb::format::{self, Kind};
use mulino::tb::mapped::MappedTable;
use mulino::tb::moving::build::{self, Options};
use mulino::tb::moving::{nmove_check, verify};
use mulino::tb::probe::Tablebases;
use mulino::tb::{TbError, TbRules};

/// The `.tb` file of 3-3 of the standard rules, alone in a fresh
/// directory (a copy of the shared one).
fn three_three(name: &str) -> (PathBuf, TbRules) {
    let file = format::file_name(3, 3);
    let dir = fixture::copy_of(fixture::up_to_five(), name, &[file]);
    (dir, fixture::rules())
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

#[test]
fn small_tables_verify_and_equal_the_published_counts() {
    let dir = fixture::up_to_four();
    let rules = fixture::rules();
    assert_eq!(
        mulino::tb::index::plan(&[(4, 4)]),
        vec![(3, 3), (4, 3), (4, 4)]
    );
    let tbs = Tablebases::new(dir, rules);
    let rows = published();
    for (a, b) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
        for kind in [Kind::ToEnd, Kind::ToRemoval] {
            let findings = verify::verify_kind(&tbs, kind, a, b, 2, &|_| {}).unwrap();
            assert_eq!(findings.mismatches, 0, "{a}-{b}: {:?}", findings.first);
        }
        let t = tbs.table(a, b).unwrap();
        let h = mulino::tb::moving::summarise(&t.sub, t.table.slots(), rules);
        let row = format!(
            "{a}-{b}\t{}\t{}\t{}\t{}\t{}",
            h.wins, h.losses, h.draws, h.max_win, h.max_loss
        );
        assert!(rows.contains(&row), "{row} is not a published row");
        assert_eq!(t.table.header.wins, h.wins);
    }
    // A pair that needs more memory than allowed is refused before it
    // starts (before it writes anything in the shared directory).
    let tight = Options {
        dir: dir.to_path_buf(),
        threads: 1,
        memory: 1 << 20,
    };
    assert!(matches!(
        build::PairBuild::tb(rules, 5, 5, &tight).run(&|_| {}),
        Err(TbError::Memory { .. })
    ));
    // A finished pair is recognised, so it is never rebuilt.
    assert!(build::pair_done(dir, rules, 4, 3));
    assert!(build::pair_state(dir, Kind::ToRemoval, rules, 4, 3).unwrap());
    // The longest distances to the next removal (3-4: 11, where the end
    // of the game is 33 plies away).
    let t = tbs.dtz_table(3, 4).unwrap();
    assert_eq!(t.table.header.max_win, 11);
}

/// Every position of 3-3 to 4-4 and every counter: the engine's values
/// under N-move rules are the minimax's. Under limits of 40 and 100 the
/// `.dtz` files without N-move rules are exact; under 10, shorter than
/// some distances to a removal in 3-3 (26 plies), they are not, and the
/// engine gives no value where it cannot know one, never a wrong one,
/// until files are built for that limit: then it knows every one.
#[test]
fn values_under_the_n_move_rules_agree_with_a_minimax() {
    // A copy: files for a limit of 10 are added.
    let dir = fixture::copy_all(fixture::up_to_four(), "moving-nmove");
    let rules = fixture::rules();
    check_limits(&dir, &[10, 40, 100], false);
    // Files for a limit of 10 where the ones without the rule are not
    // exact: the pairs above 3-3.
    let ten = mulino::tb::NMoveLimits {
        n_move: 10,
        endgame: 10,
    };
    let opts = Options {
        dir: dir.clone(),
        threads: 2,
        memory: 1 << 30,
    };
    let mut built = Vec::new();
    for (a, b) in mulino::tb::index::plan(&[(4, 4)]) {
        if !build::clean_below(&dir, rules, ten, a, b) {
            build::PairBuild::dtz(rules, ten, a, b, &opts)
                .run(&|_| {})
                .unwrap();
            built.push((a, b));
        }
    }
    assert_eq!(built, [(4, 3), (4, 4)]);
    let reports = check_limits(&dir, &[10], true);
    // `tb stats` counts the wins and losses the rule draws from a counter
    // of 0 from the files the engine uses under the limit (the ones for
    // 10 where they exist): the minimax's counts.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mulino"))
        .args(["tb", "stats", "--limits", "10", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for r in &reports {
        let row = format!("10\t{}-{}\t", r.own, r.opp);
        let line = text
            .lines()
            .find(|l| l.starts_with(&row))
            .unwrap_or_else(|| panic!("{text}"));
        let f: Vec<&str> = line.split('\t').collect();
        let counts = (
            f[3].parse::<u64>().unwrap(),
            f[4].parse::<u64>().unwrap(),
            f[5].parse::<u64>().unwrap(),
        );
        assert_eq!(
            counts,
            (r.wins_drawn, r.losses_drawn, r.win_counters_drawn),
            "{line}"
        );
        assert_eq!(f[6], "yes", "{line}");
    }
    assert!(reports.iter().any(|r| r.wins_drawn > 0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `nmove_check` over 3-3 to 4-4 under each limit: no wrong value, and
/// no unknown one where the files are exact (from 40 up, or everywhere
/// when `all_known`); the reports of the last limit.
fn check_limits(dir: &Path, limits: &[u16], all_known: bool) -> Vec<nmove_check::SubspaceCheck> {
    let mut last = Vec::new();
    for &limit in limits {
        let game = Rules {
            n_move_rule: limit,
            endgame_n_move_rule: limit,
            ..Rules::default()
        };
        let tables = Tablebases::for_play(dir, &game, None).unwrap();
        assert!(tables.check_all().1.is_empty());
        let reports = nmove_check::check(&tables, &game, &[(4, 4)], 2, |_| {});
        assert_eq!(reports.len(), 4);
        for r in &reports {
            let at = format!("{limit}: {}-{}: {:?}", r.own, r.opp, r.first);
            assert_eq!(r.mismatches, 0, "{at}");
            assert!(r.compared >= r.classes, "{r:?}");
            if limit >= 40 || all_known {
                assert_eq!(r.unknown, 0, "{at}");
            }
            if limit >= 40 {
                assert_eq!(r.wins_drawn + r.losses_drawn, 0, "{r:?}");
            }
        }
        let three = &reports[0];
        // Its longest distance to a removal is 26 plies; the thresholds
        // are looked for up to the limit.
        assert_eq!((three.own, three.opp), (3, 3));
        assert_eq!(three.longest, 26.min(limit), "{three:?}");
        if limit == 10 {
            // The rule draws wins here from a counter of 0.
            assert!(three.wins_drawn > 0, "{three:?}");
            assert_eq!(all_known, reports.iter().all(|r| r.unknown == 0));
        }
        last = reports;
    }
    last
}

/// A build reads only sound tables: a smaller table with a changed byte
/// stops it, and a file of the same name built for other rules is never
/// replaced.
#[test]
fn builds_refuse_damaged_tables_and_other_rules_files() {
    let (dir, nine) = three_three("moving-buildrefuse");
    let opts = Options {
        dir: dir.clone(),
        threads: 1,
        memory: 1 << 30,
    };
    let path = dir.join(format::file_name(3, 3));
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 2;
    std::fs::write(&path, &bad).unwrap();
    assert!(matches!(
        build::PairBuild::tb(nine, 4, 3, &opts).run(&|_| {}),
        Err(TbError::BadChecksum { .. })
    ));
    assert!(!dir.join(format::file_name(4, 3)).exists());
    // Nor is the damaged pair itself kept as finished.
    assert!(matches!(
        build::pair_state(&dir, Kind::ToEnd, nine, 3, 3),
        Err(TbError::BadChecksum { .. })
    ));
    std::fs::write(&path, &good).unwrap();
    // Cheng San Qi (no flying) into a directory of standard files.
    let no_fly = TbRules::from_rules(&Variant::ChengSanQi.rules()).unwrap();
    assert!(matches!(
        build::pair_state(&dir, Kind::ToEnd, no_fly, 3, 3),
        Err(TbError::WrongRules { .. })
    ));
    assert!(matches!(
        build::PairBuild::tb(no_fly, 3, 3, &opts).run(&|_| {}),
        Err(TbError::WrongRules { .. })
    ));
    assert_eq!(std::fs::read(&path).unwrap(), good);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Threads share the work of both steps (the retrograde one updates the
/// tables together); the files come out byte for byte the same: those
/// built on one thread here and the shared ones, built on three.
#[test]
fn threads_do_not_change_a_table() {
    let rules = fixture::rules();
    let one = fixture::scratch("moving-threads1");
    let opts = Options {
        dir: one.clone(),
        threads: 1,
        memory: 1 << 30,
    };
    for (a, b) in mulino::tb::index::plan(&[(5, 4)]) {
        build::PairBuild::tb(rules, a, b, &opts)
            .run(&|_| {})
            .unwrap();
    }
    assert_eq!(fixture::THREADS, 3);
    let three = fixture::up_to_five();
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
}

#[test]
fn tables_for_other_rules_or_damaged_files_are_refused() {
    let (dir, nine) = three_three("moving-refuse");
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
    // A changed value is caught by the checksum, and play does not use
    // the file.
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 2;
    std::fs::write(&path, &bad).unwrap();
    let t = MappedTable::open(&dir, 3, 3, nine).unwrap();
    assert!(matches!(
        t.verify_checksum(),
        Err(TbError::BadChecksum { .. })
    ));
    let play = Tablebases::for_play(&dir, &Rules::default(), None).unwrap();
    let (usable, problems) = play.check_all();
    assert_eq!(usable, 0);
    assert!(problems[0].contains("checksum"), "{problems:?}");
    assert!(!play.holds(3, 3));
    // An unfinished build leaves only a temporary file: not a table.
    std::fs::remove_file(&path).unwrap();
    std::fs::write(path.with_extension("tb.tmp.12345"), &bytes).unwrap();
    assert!(!build::pair_done(&dir, nine, 3, 3));
    assert!(matches!(
        MappedTable::open(&dir, 3, 3, nine),
        Err(TbError::Missing(_))
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verification_names_a_wrong_value() {
    let (dir, nine) = three_three("moving-wrong");
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

/// A folder that is not there is a failure for every command that reads
/// one, with its name in the message: never a report on nothing.
#[test]
fn the_commands_fail_on_a_folder_that_is_not_there() {
    let missing = std::env::temp_dir().join(format!("mulino-no-such-{}", std::process::id()));
    for command in [
        vec!["tb", "stats"],
        vec!["tb", "verify"],
        vec!["tb", "nmove", "--subspaces", "3-3"],
        vec!["tb", "endgames"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mulino"))
            .args(&command)
            .arg("--dir")
            .arg(&missing)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{command:?}: {out:?}");
        assert!(
            err.contains("no such directory") && out.stdout.is_empty(),
            "{command:?}: {out:?}"
        );
    }
}
