//! The bench signature: `mulino bench 7` must print the node count recorded
//! here. CI runs this test in a debug build and in a release build, so the
//! two builds are checked to search the same tree; a change to the search
//! updates `SIGNATURE` (and says `Bench: N` for the default depth in its
//! commit message).

use std::time::Duration;

use crate::common;

/// Depth of the signature run (the default bench depth is deeper; this one
/// keeps the debug build quick).
const DEPTH: &str = "7";
/// Nodes `mulino bench 7` searches, as printed by a release build.
const SIGNATURE: u64 = 192640;

#[test]
fn bench_node_count_is_the_signature() {
    let (status, out) = common::run_args(&["bench", DEPTH], Duration::from_secs(300));
    assert!(status.success(), "bench failed: {out}");
    let nodes: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("Nodes searched: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no node count in: {out}"));
    assert_eq!(
        nodes, SIGNATURE,
        "bench {DEPTH} searched {nodes} nodes; the recorded signature is {SIGNATURE}"
    );
    assert!(out.contains("Nodes/second: "));
}
