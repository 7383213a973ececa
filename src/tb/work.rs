//! What the builders and checkers of both phases share: the progress
//! events they report, the memory a build may take and its working
//! tables, the process's peak memory, and what a check finds.

use std::path::Path;

use super::error::TbError;
use crate::largemem::{HugeTable, Zeroed};

/// What a build reports to whoever shows progress.
pub enum Event<'a> {
    /// A phase of a subspace pair starts, with `total` units of work.
    Phase { label: &'a str, total: u64 },
    /// `n` more units of the current phase are done.
    Advance(u64),
    /// The retrograde analysis reached distance `k`.
    Level(u32),
}

/// Refuses a build of `what` that needs `need` bytes of memory where
/// `limit` are allowed (`--memory`).
pub fn check_memory(what: impl FnOnce() -> String, need: u64, limit: u64) -> Result<(), TbError> {
    if need <= limit {
        return Ok(());
    }
    let gib = |x: u64| x as f64 / (1u64 << 30) as f64;
    Err(TbError::Memory {
        subspace: what(),
        need_gib: gib(need),
        limit_gib: gib(limit),
    })
}

/// A zeroed working table of `len` slots for a build into `dir` (the
/// directory named if the memory cannot be had).
pub fn working_table<T: Zeroed>(len: usize, dir: &Path) -> Result<HugeTable<T>, TbError> {
    HugeTable::zeroed(len).map_err(|source| TbError::Io {
        path: dir.to_path_buf(),
        source,
    })
}

/// Resets the kernel's peak-RSS mark (Linux; elsewhere a no-op), so that
/// each pair reports its own peak.
pub fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The peak resident memory since the last reset, bytes (0 if unknown).
pub fn peak_memory() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// The process's CPU time so far, user and system together, seconds (0
/// if unknown): Linux's `/proc/self/stat`, in clock ticks of 1/100 s.
pub fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The fields after the command name (which may hold blanks, inside
    // parentheses): utime and stime are the 12th and 13th of them.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let ticks: u64 = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|t| t.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
}

/// What went wrong in one table.
#[derive(Debug, Default)]
pub struct Findings {
    /// How many slots disagree.
    pub mismatches: u64,
    /// The first ones, as text (FEN, stored and recomputed value).
    pub first: Vec<String>,
}

impl Findings {
    pub fn add(&mut self, what: String) {
        self.mismatches += 1;
        if self.first.len() < 10 {
            self.first.push(what);
        }
    }
}

/// `counts` as atomics, for threads that update them together.
pub fn atomic_u8(counts: &mut [u8]) -> &[std::sync::atomic::AtomicU8] {
    // SAFETY: `AtomicU8` has the size, alignment and bit validity of `u8`,
    // and the exclusive borrow keeps every other access out while the
    // atomic view lives.
    unsafe { &*(counts as *mut [u8] as *const [std::sync::atomic::AtomicU8]) }
}
