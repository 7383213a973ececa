//! The endgame benchmark (`mulino endgames`, src/bench/endgames.rs) at a
//! small node count: the count of won and drawn endgames whose value the
//! engine keeps must not fall below what docs/performance.md promises. A
//! change to the evaluation or the search that converts fewer endgames
//! fails here, whatever it does in self-play.

use std::time::Duration;

use crate::common;

/// Nodes searched for each position (the benchmark's default is more).
const NODES: &str = "10000";
/// The fewest of the set's 300 positions whose value must be kept at that
/// node count (docs/performance.md). The count is exact: one thread, a
/// fixed node count, an empty table for each position.
const PROMISED: usize = 290;

#[test]
fn the_engine_keeps_the_value_of_the_endgames_it_promises() {
    let (status, out) = common::run_args(&["endgames", "--nodes", NODES], Duration::from_secs(600));
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
        kept >= PROMISED,
        "{line}: fewer than the {PROMISED} promised (a search or evaluation change lost endgames)"
    );
}
