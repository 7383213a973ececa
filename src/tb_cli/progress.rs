//! The whole build at a glance: a line after each subspace pair and each
//! placing layer (the slots done of all the build writes, the rate, the
//! time left), and a summary at the end (wall and CPU time, peak memory,
//! the files on disk). Each pair's and layer's own bar stays as it was.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::tb::work::cpu_seconds;

/// The progress of one `mulino tb build`.
pub struct Whole {
    started: Instant,
    cpu_at_start: f64,
    dir: PathBuf,
    /// The slots of every file the build makes or finds made.
    total: u64,
    /// The slots of the files finished so far, found or built.
    done: u64,
    /// The slots built by this run (the rate counts only these).
    built: u64,
    /// The highest peak resident memory a pair or layer reported, bytes.
    peak: u64,
}

impl Whole {
    /// A build of `total` slots into `dir`.
    pub fn new(dir: &Path, total: u64) -> Whole {
        Whole {
            started: Instant::now(),
            cpu_at_start: cpu_seconds(),
            dir: dir.to_path_buf(),
            total,
            done: 0,
            built: 0,
            peak: 0,
        }
    }

    /// Files of `slots` slots were there already, finished.
    pub fn found(&mut self, slots: u64) {
        self.done += slots;
    }

    /// `what` was built now: `slots` slots, its peak resident memory
    /// `peak` bytes. Writes the whole build's line.
    pub fn built(&mut self, what: &str, slots: u64, peak: u64) {
        self.done += slots;
        self.built += slots;
        self.peak = self.peak.max(peak);
        let secs = self.started.elapsed().as_secs_f64();
        let rate = self.built as f64 / secs.max(1e-9);
        let left = self.total.saturating_sub(self.done) as f64 / rate.max(1.0);
        eprintln!(
            "tb build: {what} built; all: {} of {} slots ({:.1}%), {}/s, {} so far, about {} to go",
            giga(self.done),
            giga(self.total),
            100.0 * self.done as f64 / self.total.max(1) as f64,
            mega(rate),
            clock(secs),
            clock(left)
        );
    }

    /// The summary: time, CPU, peak memory and what lies on disk.
    pub fn summary(&self) {
        let secs = self.started.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - self.cpu_at_start;
        let (files, bytes) = disk(&self.dir);
        eprintln!(
            "tb build: finished in {} ({secs:.0} s, CPU {cpu:.0} s); {} slots built, {}/s; \
             peak resident memory {:.2} GiB; {files} files, {:.2} GB in {}",
            clock(secs),
            giga(self.built),
            mega(self.built as f64 / secs.max(1e-9)),
            self.peak as f64 / (1u64 << 30) as f64,
            bytes as f64 / 1e9,
            self.dir.display()
        );
    }
}

/// The files directly in `dir` and their bytes together.
fn disk(dir: &Path) -> (usize, u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, 0);
    };
    entries
        .filter_map(|e| e.ok()?.metadata().ok())
        .filter(|m| m.is_file())
        .fold((0, 0), |(n, b), m| (n + 1, b + m.len()))
}

fn giga(slots: u64) -> String {
    format!("{:.2} G", slots as f64 / 1e9)
}

fn mega(rate: f64) -> String {
    format!("{:.1} M", rate / 1e6)
}

/// `1h02m03s`, `2m03s` or `3s`.
fn clock(secs: f64) -> String {
    let s = secs.round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_as_hours_minutes_seconds() {
        assert_eq!(clock(3.4), "3s");
        assert_eq!(clock(123.0), "2m03s");
        assert_eq!(clock(3723.0), "1h02m03s");
    }
}
