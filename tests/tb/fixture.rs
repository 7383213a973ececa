//! The small databases the tests read, each set built once per run of
//! this binary: the first test that asks for a set builds it, the others
//! wait for it. They live in this run's folder, `mulino-tb-<pid>` in
//! Cargo's folder for test files (`target/tmp`), so that runs side by
//! side never share a file; a run removes the folders of earlier runs
//! whose process is gone. The sets are read only: a test that damages,
//! replaces or adds a file works on a copy ([`copy_of`], [`copy_all`]) in
//! a folder of its own ([`scratch`]).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use mulino::core::Rules;
use mulino::tb::format::{self, Kind};
use mulino::tb::moving::build::{self, Options};
use mulino::tb::placing::LAYERS;
use mulino::tb::placing::build::{PlacingOptions, build_layer};
use mulino::tb::{NMoveLimits, TbRules};

/// Worker threads of the shared builds: three, so that
/// `moving::threads_do_not_change_a_table` compares the shared files
/// with the same ones built on one thread.
pub const THREADS: usize = 3;

/// The most pieces a side has in the placing set ([`placing`]).
pub const PLACING_MAX: u8 = 4;

/// The standard rules, as the databases take them.
pub fn rules() -> TbRules {
    TbRules::from_rules(&Rules::default()).unwrap()
}

/// This run's folder, made on first use.
fn run_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
        remove_finished_runs(root);
        let dir = root.join(format!("mulino-tb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// Removes the run folders in `root` of processes that have ended (where
/// /proc tells: on Linux).
fn remove_finished_runs(root: &Path) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("mulino-tb-"))
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && pid != std::process::id()
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A fresh, empty folder of this run for one test's files (`name` unique
/// among the tests; the test may remove it when done).
pub fn scratch(name: &str) -> PathBuf {
    let dir = run_dir().join("scratch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The folder of shared set `name`, empty.
fn set_dir(name: &str) -> PathBuf {
    let dir = run_dir().join("sets").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn options(dir: &Path) -> Options {
    Options {
        dir: dir.to_path_buf(),
        threads: THREADS,
        memory: 1 << 30,
    }
}

/// Every subspace of the pairs up to `most` (`W-B` and `B-W`), sorted.
pub fn subspaces_to(most: (u8, u8)) -> Vec<(u8, u8)> {
    let mut all: Vec<(u8, u8)> = mulino::tb::index::plan(&[most])
        .into_iter()
        .flat_map(|(a, b)| [(a, b), (b, a)])
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// The file names of `kinds` of `subspaces`.
pub fn files_of(kinds: &[Kind], subspaces: &[(u8, u8)]) -> Vec<String> {
    subspaces
        .iter()
        .flat_map(|&(a, b)| kinds.iter().map(move |&k| format::file_name_of(k, a, b)))
        .collect()
}

/// The `.tb` and `.dtz` files (without N-move rules) of every subspace up
/// to 5-5, standard rules.
pub fn up_to_five() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = set_dir("moving-5-5");
        for (a, b) in mulino::tb::index::plan(&[(5, 5)]) {
            for kind in [Kind::ToEnd, Kind::ToRemoval] {
                build::PairBuild::of_kind(kind, rules(), a, b, &options(&dir))
                    .run(&|_| {})
                    .unwrap();
            }
        }
        dir
    })
}

/// The same files up to 4-4 (copied from [`up_to_five`]'s: a build up to
/// 4-4 gives them byte for byte).
pub fn up_to_four() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = set_dir("moving-4-4");
        let files = files_of(&[Kind::ToEnd, Kind::ToRemoval], &subspaces_to((4, 4)));
        copy_files(up_to_five(), &dir, &files);
        dir
    })
}

/// [`up_to_four`]'s files and the placing layers 17 to 0 where each side
/// has at most [`PLACING_MAX`] pieces, on board and in hand, exact under
/// the standard rules' N-move limits.
pub fn placing() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = set_dir("placing-4");
        let files = files_of(&[Kind::ToEnd, Kind::ToRemoval], &subspaces_to((4, 4)));
        copy_files(up_to_four(), &dir, &files);
        let placing = PlacingOptions {
            dir: dir.clone(),
            threads: THREADS,
            max: PLACING_MAX,
            limits: NMoveLimits::of(&Rules::default()),
            memory: 1 << 30,
        };
        for k in (0..LAYERS).rev() {
            build_layer(rules(), k, &placing, &|_| {}).unwrap();
        }
        dir
    })
}

/// The limits `NMoveRule` and `EndgameNMoveRule` `n`.
pub fn limits(n: u16) -> NMoveLimits {
    NMoveLimits {
        n_move: n,
        endgame: n,
    }
}

/// The `.wdz` files of 3-3, 4-3 and 3-4 under N-move limits of 100.
pub fn wdz_100() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = set_dir("wdz-100-4-3");
        for (a, b) in mulino::tb::index::plan(&[(4, 3)]) {
            build::PairBuild::wdz(rules(), limits(100), a, b, &options(&dir))
                .run(&|_| {})
                .unwrap();
        }
        dir
    })
}

/// The `.wdz` files under N-move limits of 100 of every subspace up to
/// 4-4, and the placing layers 17 to 0 where each side has at most
/// [`PLACING_MAX`] pieces, built over them: a whole game in miniature,
/// for the packed folders.
pub fn wdz_game() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = set_dir("wdz-game-4");
        for (a, b) in mulino::tb::index::plan(&[(4, 4)]) {
            build::PairBuild::wdz(rules(), limits(100), a, b, &options(&dir))
                .run(&|_| {})
                .unwrap();
        }
        let placing = PlacingOptions {
            dir: dir.clone(),
            threads: THREADS,
            max: PLACING_MAX,
            limits: limits(100),
            memory: 1 << 30,
        };
        for k in (0..LAYERS).rev() {
            build_layer(rules(), k, &placing, &|_| {}).unwrap();
        }
        dir
    })
}

fn copy_files(from: &Path, to: &Path, files: &[String]) {
    for file in files {
        std::fs::copy(from.join(file), to.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", from.join(file).display()));
    }
}

/// A fresh folder `name` ([`scratch`]) with a copy of `files` of `set`.
pub fn copy_of(set: &Path, name: &str, files: &[String]) -> PathBuf {
    let dir = scratch(name);
    copy_files(set, &dir, files);
    dir
}

/// A fresh folder `name` ([`scratch`]) with a copy of every file of `set`.
pub fn copy_all(set: &Path, name: &str) -> PathBuf {
    let files: Vec<String> = std::fs::read_dir(set)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    copy_of(set, name, &files)
}
