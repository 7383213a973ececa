//! The endgame benchmark (`mulino endgames`, src/bench/endgames.rs) at a
//! small node count: the count of won and drawn endgames whose value the
//! engine keeps must not fall below what docs/performance.md promises, in
//! Nine Men's Morris (the built-in set) and in each rule set with a set of
//! its own in `tests/data/endgames/`. A change to the evaluation or the
//! search that converts fewer endgames fails here, whatever it does in
//! self-play.

use std::time::Duration;

use crate::common;

/// Nodes searched for each position (the benchmark's default is more).
const NODES: &str = "10000";

/// Searches a set at [`NODES`] and checks that at least `promised` of its
/// 300 positions keep their value. The count is exact: one thread, a fixed
/// node count, an empty table for each position.
fn keeps_at_least(variant: &str, file: Option<&str>, promised: usize) {
    let path = file.map(|f| format!("{}/tests/data/endgames/{f}", env!("CARGO_MANIFEST_DIR")));
    let mut args = vec!["endgames", "--nodes", NODES, "--variant", variant];
    if let Some(path) = &path {
        args.extend(["--file", path]);
    }
    let (status, out) = common::run_args(&args, Duration::from_secs(600));
    assert!(status.success(), "endgames failed: {out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("Endgames kept: "))
        .unwrap_or_else(|| panic!("no count in: {out}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let kept: usize = words[2].parse().expect("a count");
    let of: usize = words[4].parse().expect("a total");
    assert_eq!(of, 300, "{line}");
    assert!(
        kept >= promised,
        "{variant}: {line}: fewer than the {promised} promised (a search or evaluation change lost endgames)"
    );
}

#[test]
fn the_engine_keeps_the_value_of_the_endgames_it_promises() {
    keeps_at_least("nine", None, 290);
}

#[test]
fn twelve_keeps_its_endgames() {
    keeps_at_least("twelve", Some("twelve.tsv"), 287);
}

#[test]
fn lasker_keeps_its_endgames() {
    keeps_at_least("lasker", Some("lasker.tsv"), 290);
}

#[test]
fn cheng_san_qi_keeps_its_endgames() {
    keeps_at_least("cheng-san-qi", Some("cheng-san-qi.tsv"), 280);
}

#[test]
fn da_san_qi_keeps_its_endgames() {
    keeps_at_least("da-san-qi", Some("da-san-qi.tsv"), 261);
}

#[test]
fn el_filja_keeps_its_endgames() {
    keeps_at_least("el-filja", Some("el-filja.tsv"), 283);
}

#[test]
fn dooz_keeps_twelves_endgames() {
    // Dooz moves as Twelve does (its moving-phase databases are Twelve's,
    // file for file); it places differently and has a weight set of its own.
    keeps_at_least("dooz", Some("twelve.tsv"), 283);
}

#[test]
fn experimental_keeps_da_san_qis_endgames() {
    // Experimental moves as Da San Qi does (their moving-phase databases
    // are the same files); they place differently.
    keeps_at_least("experimental", Some("da-san-qi.tsv"), 265);
}
