//! `.wdz` files: the values under one N-move rule built on their own,
//! without the `.tb` and `.dtz` files. They must give the engine exactly
//! what those two give together under the same rule, at every counter,
//! agree with the rule-aware minimax, be caught by `verify` when a byte
//! changes, and carry the placing phase to the same layers.

use std::path::Path;
use std::process::Command;

use crate::fixture::{self, limits};
use mulino::core::Rules;
use mulino::tb::format::{self, Kind};
use mulino::tb::index::Subspace;
use mulino::tb::moving::build::{self, Options};
use mulino::tb::moving::{nmove_check, verify};
use mulino::tb::probe::Tablebases;
use mulino::tb::{TbError, TbRules};

fn options(dir: &Path) -> Options {
    Options {
        dir: dir.to_path_buf(),
        threads: 2,
        memory: 1 << 30,
    }
}

fn game(n: u16) -> Rules {
    Rules {
        n_move_rule: n,
        endgame_n_move_rule: n,
        ..Rules::default()
    }
}

/// The `.tb` files (copies of the shared ones) and the `.dtz` files for
/// `n` up to 4-4 in `both`, the `.wdz` files for `n` in `wdz`.
fn build_both_ways(both: &Path, wdz: &Path, n: u16, rules: TbRules) {
    let tb_files = fixture::files_of(&[Kind::ToEnd], &fixture::subspaces_to((4, 4)));
    for file in &tb_files {
        std::fs::copy(fixture::up_to_four().join(file), both.join(file)).unwrap();
    }
    for (a, b) in mulino::tb::index::plan(&[(4, 4)]) {
        build::PairBuild::dtz(rules, limits(n), a, b, &options(both))
            .run(&|_| {})
            .unwrap();
        build::PairBuild::wdz(rules, limits(n), a, b, &options(wdz))
            .run(&|_| {})
            .unwrap();
    }
}

/// Under a limit of 10 the rule draws wins and losses in 3-3 to 4-4 from
/// a counter of 0 and at later counters: the `.wdz` files must give what
/// the `.tb` and `.dtz` files give together, position by position.
#[test]
fn wdz_files_give_what_tb_and_dtz_files_give_under_their_rule() {
    let (both, wdz) = (fixture::scratch("wdz-both"), fixture::scratch("wdz-alone"));
    let rules = fixture::rules();
    build_both_ways(&both, &wdz, 10, rules);
    assert!(!wdz.join(format::file_name(3, 3)).exists());
    let from_both = Tablebases::for_play(&both, &game(10), None).unwrap();
    let from_wdz = Tablebases::for_play(&wdz, &game(10), None).unwrap();
    assert!(from_both.check_all().1.is_empty());
    assert!(from_wdz.check_all().1.is_empty());
    let (mut compared, mut drawn_by_counter, mut decisive) = (0u64, 0u64, 0u64);
    for (a, b) in mulino::tb::index::plan(&[(4, 4)]) {
        for (x, y) in [(a, b), (b, a)] {
            let sub = Subspace::new(x, y).unwrap();
            for idx in 0..sub.len() {
                let (own, opp) = sub.position(idx);
                if own.count() != x as u32 || opp.count() != y as u32 {
                    continue;
                }
                let Some(pos) = rules.position(own, opp) else {
                    continue;
                };
                for counter in [0, 4, 9] {
                    let at = pos.with_rule50(counter);
                    let want = from_both.value(&at).unwrap();
                    let got = from_wdz.value(&at).unwrap();
                    assert_eq!(got.rule, want.rule, "{x}-{y} slot {idx} counter {counter}");
                    if want.rule.is_some_and(|r| r != mulino::tb::Wdl::Draw) {
                        assert_eq!(got.to_removal, want.to_removal, "{x}-{y} slot {idx}");
                        decisive += 1;
                    } else if got.to_removal.is_some() {
                        drawn_by_counter += 1;
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 10_000_000, "{compared}");
    assert!(
        decisive > 100_000 && drawn_by_counter > 1_000,
        "{decisive} {drawn_by_counter}"
    );
    let _ = std::fs::remove_dir_all(&both);

    // The rule-aware minimax agrees at every counter, and `verify`
    // recomputes every slot from its successors.
    let tables = Tablebases::for_play(&wdz, &game(10), None).unwrap();
    assert!(tables.check_all().1.is_empty());
    for r in nmove_check::check(&tables, &game(10), &[(4, 4)], 2, |_| {}) {
        assert_eq!((r.mismatches, r.unknown), (0, 0), "{r:?}");
    }
    let under = Tablebases::under(&wdz, rules, limits(10));
    for (a, b) in mulino::tb::index::plan(&[(4, 4)]) {
        for (x, y) in [(a, b), (b, a)] {
            let f = verify::verify_kind(&under, Kind::UnderRule, x, y, 2, &|_| {}).unwrap();
            assert_eq!(f.mismatches, 0, "{x}-{y}: {:?}", f.first);
        }
    }
    let _ = std::fs::remove_dir_all(&wdz);
}

#[test]
fn verification_names_a_changed_wdz_value() {
    let file = format::wdz_file_name(3, 3, limits(100));
    let dir = fixture::copy_of(fixture::wdz_100(), "wdz-wrong", std::slice::from_ref(&file));
    let rules = fixture::rules();
    let path = dir.join(file);
    let mut bytes = std::fs::read(&path).unwrap();
    // The first win in 1 (a removal that leaves two pieces): a loss.
    let at = format::HEADER_LEN
        + bytes[format::HEADER_LEN..]
            .iter()
            .position(|&b| mulino::tb::value::wdz_decode(b) == mulino::tb::Value::Win(1))
            .unwrap();
    bytes[at] = mulino::tb::value::wdz_encode(mulino::tb::Value::Loss(0)).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    let under = Tablebases::under(&dir, rules, limits(100));
    let f = verify::verify_kind(&under, Kind::UnderRule, 3, 3, 1, &|_| {}).unwrap();
    assert!(
        f.mismatches >= 2,
        "the slot and the checksum: {:?}",
        f.first
    );
    assert!(
        f.first.iter().any(|l| l.contains("stored Loss(0)")),
        "{:?}",
        f.first
    );
    // A build refuses to read it.
    let err = build::PairBuild::wdz(rules, limits(100), 4, 3, &options(&dir)).run(&|_| {});
    assert!(matches!(err, Err(TbError::BadChecksum { .. })), "{err:?}");
    // And no .wdz file is made for no rule or for a limit it cannot hold.
    for n in [0, 127, 200] {
        let e = build::PairBuild::wdz(rules, limits(n), 3, 3, &options(&dir)).run(&|_| {});
        assert!(matches!(e, Err(TbError::Unusable(_))), "{n}: {e:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn mulino(args: &[&str], dir: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_mulino"))
        .args(args)
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
}

/// The placing layers built over the `.wdz` files are byte for byte those
/// built over the `.tb` and `.dtz` files for the same rule.
#[test]
fn placing_layers_over_wdz_files_are_the_same() {
    let (both, wdz) = (
        fixture::scratch("wdz-place-both"),
        fixture::scratch("wdz-place-alone"),
    );
    let placing = [
        "tb",
        "build",
        "--placing",
        "--placing-max",
        "4",
        "--threads",
        "2",
    ];
    mulino(&["tb", "build", "--pieces", "4", "--threads", "2"], &both);
    mulino(&placing, &both);
    let wdz_build = [
        "tb",
        "build",
        "--pieces",
        "4",
        "--files",
        "wdz",
        "--threads",
        "2",
    ];
    mulino(&wdz_build, &wdz);
    mulino(&placing, &wdz);
    for k in 0..18 {
        let name = mulino::tb::placing::file_name(k);
        let (a, b) = (
            std::fs::read(both.join(&name)).unwrap(),
            std::fs::read(wdz.join(&name)).unwrap(),
        );
        assert!(a == b, "layer {k} differs");
    }
    // `tb stats` and `tb verify` work on a directory of .wdz files.
    mulino(&["tb", "stats"], &wdz);
    mulino(&["tb", "verify", "--threads", "2"], &wdz);
    let _ = std::fs::remove_dir_all(&both);
    let _ = std::fs::remove_dir_all(&wdz);
}

/// A damaged `.wdz` file is refused by the engine's check and never
/// read; the other files still serve.
#[test]
fn a_damaged_wdz_file_is_not_used_in_play() {
    // The .wdz files of 3-3, 4-3 and 3-4 under limits of 100.
    let dir = fixture::copy_all(fixture::wdz_100(), "wdz-damaged");
    let path = dir.join(format::wdz_file_name(4, 3, limits(100)));
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let told = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = told.clone();
    let notify: mulino::tb::probe::Notify =
        std::sync::Arc::new(move |s: &str| sink.lock().unwrap().push(s.to_string()));
    let tables = Tablebases::for_play(&dir, &game(100), Some(notify)).unwrap();
    let (usable, problems) = tables.check_all();
    assert_eq!((usable, problems.len()), (2, 1), "{problems:?}");
    assert!(
        problems[0].contains("mulino-4-3-n100-100.wdz"),
        "{problems:?}"
    );
    let fen = |f: &str| mulino::core::Position::from_fen(f, &game(100)).unwrap();
    // 4-3 (White to move, four against three): no value; 3-3: a value.
    let four_three = fen("OOOO****/@@@*****/******** w m s 4 0 3 0 0 0 0 0 0 0 0 0 1");
    let three_three = fen("OOO*****/@@@*****/******** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1");
    assert!(tables.value(&four_three).is_none());
    assert!(tables.value(&three_three).is_some());
    assert!(
        told.lock().unwrap().iter().any(|t| t.contains("not used")),
        "{told:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
