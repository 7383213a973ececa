//! Format version 2 moved the slots of the moving phase's files (the
//! class of the side not to move first, `tb::index`) and nothing else: a
//! file built by this builder holds, position by position, the value of
//! the same file built by the one before (version 1, the class of the
//! side to move first), with the same counts.
//!
//! `MULINO_TB_OLD=DIR1 MULINO_TB_NEW=DIR2 cargo test --release --test tb
//! same_values_as_version_1 -- --ignored --nocapture` compares every
//! moving-phase file of `DIR1` (version 1) with the file of the same name
//! in `DIR2` (version 2).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use mulino::tb::format::HEADER_LEN;
use mulino::tb::index::Subspace;

/// The counts `W-B` of a moving-phase file's name (`mulino-W-B.tb`,
/// `mulino-W-B-n100-100.wdz`, ...).
fn counts_of(name: &str) -> Option<(u8, u8)> {
    let rest = name.strip_prefix("mulino-")?;
    let mut parts = rest.split(['-', '.']);
    let w = parts.next()?.parse().ok()?;
    let b = parts.next()?.parse().ok()?;
    Some((w, b))
}

#[test]
#[ignore = "compares two folders of databases, named by MULINO_TB_OLD and MULINO_TB_NEW"]
fn same_values_as_version_1() {
    let dir = |var: &str| PathBuf::from(std::env::var(var).unwrap_or_else(|_| panic!("{var}")));
    let (old_dir, new_dir) = (dir("MULINO_TB_OLD"), dir("MULINO_TB_NEW"));
    let mut names: Vec<String> = std::fs::read_dir(&old_dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| counts_of(n).is_some() && !n.contains(".tmp"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no files in {}", old_dir.display());
    for name in names {
        let (w, b) = counts_of(&name).unwrap();
        let old = std::fs::read(old_dir.join(&name)).unwrap();
        let Ok(new) = std::fs::read(new_dir.join(&name)) else {
            println!("{name}: not in {}", new_dir.display());
            continue;
        };
        let u32_at = |h: &[u8], i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap());
        assert_eq!(
            (u32_at(&old, 8), u32_at(&new, 8)),
            (1, 2),
            "{name}: versions"
        );
        // Rules, kind, counts, longest distances, limits and cursed alike;
        // the slots and the checksum are the layout's.
        for range in [12..24, 32..64, 72..HEADER_LEN] {
            assert_eq!(
                old[range.clone()],
                new[range.clone()],
                "{name}: header {range:?}"
            );
        }
        // Version 1's layout is a placing sector's: the side to move first.
        let v1 = Subspace::with_counts(w, b).unwrap();
        let v2 = Subspace::new(w, b).unwrap();
        let (old, new) = (&old[HEADER_LEN..], &new[HEADER_LEN..]);
        assert_eq!((old.len() as u64, new.len() as u64), (v1.len(), v2.len()));
        let (positions, differ) = (AtomicU64::new(0), AtomicU64::new(0));
        v1.par_classes(
            2,
            || (),
            |_, idx, own, opp| {
                positions.fetch_add(1, Relaxed);
                if old[idx as usize] != new[v2.index(own, opp) as usize] {
                    differ.fetch_add(1, Relaxed);
                }
            },
            |_| {},
        );
        let (positions, differ) = (positions.into_inner(), differ.into_inner());
        // Every class of version 2 is one of version 1's: as many.
        let mut classes = 0u64;
        for class in 0..v2.major_classes() {
            v2.for_each_in_class(class, |_, minor| {
                classes += v2.is_canonical(class, minor) as u64;
            });
        }
        println!("{name}: {positions} positions, {differ} differ");
        assert_eq!((differ, classes), (0, positions), "{name}");
    }
}
