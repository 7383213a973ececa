//! `mulino tb wdl` over the small moving-phase set: the same seed fits the
//! same table, every row sums to 1000, the shares are monotone in the
//! score, and every scored position is counted twice (mirrored).

use std::process::Command;

use crate::common::BIN;
use crate::fixture;

fn fit() -> String {
    let out = Command::new(BIN)
        .args(["tb", "wdl", "--pieces", "3-4", "--count", "300"])
        .args(["--nodes", "500", "--buckets", "6", "--seed", "3", "--dir"])
        .arg(fixture::up_to_four())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_fit_is_reproducible_monotone_and_counts_every_position() {
    let text = fit();
    assert_eq!(text, fit(), "the same seed, the same table");
    let scored: u32 = text
        .split("): ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of positions in {text}"));
    // `    (upper, win, draw, loss), // positions`
    let rows: Vec<[i64; 5]> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix('('))
        .map(|l| {
            let numbers: Vec<i64> = l
                .replace("i32::MAX", &i32::MAX.to_string())
                .split(|c: char| !c.is_ascii_digit() && c != '-')
                .filter_map(|w| w.parse().ok())
                .collect();
            numbers.try_into().unwrap_or_else(|n| panic!("{l}: {n:?}"))
        })
        .collect();
    assert!(rows.len() >= 3, "{text}");
    assert_eq!(rows.last().map(|r| r[0]), Some(i64::from(i32::MAX)));
    assert_eq!(
        rows.iter().map(|r| r[4]).sum::<i64>(),
        2 * i64::from(scored)
    );
    for r in &rows {
        assert_eq!(r[1] + r[2] + r[3], 1000, "{r:?}");
    }
    for pair in rows.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        assert!(
            a[0] < b[0] && a[1] <= b[1] && a[3] >= b[3],
            "{a:?} then {b:?}"
        );
    }
}
