//! The background check of the files: each checksum once (or the
//! directory's list of files already checked), on two threads, the largest
//! first; its progress; and files dropped when they change on disk.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64};
use std::sync::{Arc, Mutex};

use super::{BAD, EXACT_UNKNOWN, FileId, Mapped, TRUSTED, Tablebases};
use crate::tb::format::Kind;
use crate::tb::mapped::MappedTable;
use crate::tb::trust::Checked;

/// The check's counters.
#[derive(Debug, Default)]
pub(super) struct Progress {
    total: AtomicU64,
    done: AtomicU64,
    files: AtomicU64,
    files_done: AtomicU64,
}

/// How far the background check of the files has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckProgress {
    pub bytes_done: u64,
    pub bytes: u64,
    pub files_done: u64,
    pub files: u64,
}

impl Tablebases {
    /// Checks every file in the directory now, on two threads, the largest
    /// first: opens it, checks its checksum (unless the directory's list
    /// of checked files says it was checked as it is now, `trust.rs`), and
    /// lets play use it if both pass. Returns the number of files play may
    /// use and the problems (each also told).
    pub fn check_all(&self) -> (usize, Vec<String>) {
        if let Some(pack) = &self.packed {
            // Its blocks are checked as they are read: here, each table's
            // index.
            return pack.check_indexes();
        }
        let mut files: Vec<(FileId, u64)> = self
            .files()
            .into_iter()
            .map(|id| {
                (
                    id,
                    std::fs::metadata(self.path_of(id)).map_or(0, |m| m.len()),
                )
            })
            .collect();
        files.sort_by_key(|&(_, len)| std::cmp::Reverse(len));
        let total: u64 = files.iter().map(|&(_, len)| len).sum();
        self.progress.total.store(total, Relaxed);
        self.progress.files.store(files.len() as u64, Relaxed);
        let checked = Checked::load(&self.dir);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let usable = std::sync::atomic::AtomicUsize::new(0);
        let problems = Mutex::new(Vec::new());
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        while let Some(&(id, len)) = files.get(next.fetch_add(1, Relaxed)) {
                            self.check_one(id, &checked, &usable, &problems);
                            self.progress.done.fetch_add(len, Relaxed);
                            self.progress.files_done.fetch_add(1, Relaxed);
                        }
                    })
                })
                .collect();
            // Joined by hand: the end of the scope waits only for the
            // closures, and a thread may still be freeing its thread-locals
            // after it (LeakSanitizer, under the tb_header fuzz target, saw
            // them as leaks). A checker panic is re-raised as the scope
            // would have.
            for w in workers {
                if let Err(panic) = w.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        });
        checked.save();
        self.forget_exactness();
        let problems = problems.into_inner().unwrap_or_else(|e| e.into_inner());
        (usable.into_inner(), problems)
    }

    /// The background check is over: whoever waits for it goes on.
    pub(super) fn end_checks(&self) {
        let (done, wake) = &self.checks_done;
        *done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
    }

    /// Checks one file (see [`Tablebases::check_all`]).
    pub(super) fn check_one(
        &self,
        id: FileId,
        checked: &Checked,
        usable: &std::sync::atomic::AtomicUsize,
        problems: &Mutex<Vec<String>>,
    ) {
        self.with_file(id, |table, state, told| {
            let verdict = match table {
                Ok(t) if checked.holds(&t.path, t.header.checksum) => Ok(()),
                Ok(t) => t
                    .verify_checksum()
                    .map_err(|e| e.to_string())
                    .inspect(|()| {
                        checked.add(&t.path, t.header.checksum);
                    }),
                Err(e) => Err(e.to_string()),
            };
            match verdict {
                Ok(()) => {
                    state.store(TRUSTED, Release);
                    usable.fetch_add(1, Relaxed);
                }
                Err(e) => {
                    state.store(BAD, Release);
                    if !told.swap(true, Relaxed) {
                        self.tell(&format!("{e}: the file is not used"));
                    }
                    problems.lock().unwrap_or_else(|e| e.into_inner()).push(e);
                }
            }
        });
    }

    /// How far the background check has come: bytes and files checked, of
    /// the bytes and files there are (0 of 0 before it starts).
    pub fn check_progress(&self) -> CheckProgress {
        let p = &self.progress;
        CheckProgress {
            bytes_done: p.done.load(Relaxed),
            bytes: p.total.load(Relaxed),
            files_done: p.files_done.load(Relaxed),
            files: p.files.load(Relaxed),
        }
    }

    /// Whether the background check has looked at every file.
    pub fn checks_finished(&self) -> bool {
        *self.checks_done.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the background check has looked at every file, or
    /// `timeout` has passed; whether it has.
    pub fn wait_for_checks_within(&self, timeout: std::time::Duration) -> bool {
        let (done, wake) = &self.checks_done;
        let finished = done.lock().unwrap_or_else(|e| e.into_inner());
        let (finished, _) = wake
            .wait_timeout_while(finished, timeout, |f| !*f)
            .unwrap_or_else(|e| e.into_inner());
        *finished
    }

    /// Starts the background check of every file ([`Tablebases::check_all`]);
    /// `on_done` gets its count of usable files and the problems.
    pub fn start_checks(
        self: &Arc<Self>,
        on_done: impl FnOnce(usize, Vec<String>) + Send + 'static,
    ) {
        if let Some(pack) = &self.packed {
            // Nothing to check up front: each index and block is checked
            // when it is first read (and WebAssembly has no threads).
            on_done(pack.table_count(), Vec::new());
            return;
        }
        *self.checks_done.0.lock().unwrap_or_else(|e| e.into_inner()) = false;
        for counter in [
            &self.progress.total,
            &self.progress.done,
            &self.progress.files,
            &self.progress.files_done,
        ] {
            counter.store(0, Relaxed);
        }
        self.checking.store(true, Release);
        let tables = Arc::clone(self);
        std::thread::spawn(move || {
            let (usable, problems) = tables.check_all();
            // The files are in use before it is said, and it is said
            // before `isready` answers.
            tables.checking.store(false, Release);
            on_done(usable, problems);
            tables.end_checks();
        });
    }

    #[inline]
    pub(super) fn checks_running(&self) -> bool {
        self.checking.load(Acquire)
    }

    /// Whether play may use the files: not while their check runs. Some
    /// files trusted and others not yet would give values the N-move rule
    /// can spoil (a `.tb` win without the `.dtz` or `.wdz` distance that
    /// says whether it comes in time): until every file has been looked
    /// at, the files are not used at all (`isready` waits for that).
    #[inline]
    pub(super) fn settled(&self) -> bool {
        !(self.checked && self.checks_running())
    }

    /// Waits until the background check has looked at every file.
    pub fn wait_for_checks(&self) {
        let (done, wake) = &self.checks_done;
        let mut finished = done.lock().unwrap_or_else(|e| e.into_inner());
        while !*finished {
            finished = wake.wait(finished).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Stops using every opened file that was truncated or rewritten in
    /// place since it was opened (a later read could kill the engine with
    /// SIGBUS); each is told once. Cheap: one `fstat` per open file.
    pub fn drop_changed_files(&self) {
        let mut dropped = false;
        let mut drop = |table: Option<&MappedTable>, state: &AtomicU8, told: &AtomicBool| {
            let Some(t) = table else {
                return;
            };
            if state.load(Relaxed) != BAD && t.changed_on_disk() {
                state.store(BAD, Release);
                dropped = true;
                if !told.swap(true, Relaxed) {
                    self.tell(&format!(
                        "{} changed on disk while in use: the file is not used (set TablebasePath again to reload it)",
                        t.path.display()
                    ));
                }
            }
        };
        for kind in [Kind::ToEnd, Kind::ToRemoval, Kind::UnderRule] {
            for entry in self.entries(kind) {
                let table = entry
                    .cell
                    .get()
                    .and_then(|r| r.as_ref().ok())
                    .map(Mapped::mapped);
                drop(table, &entry.state, &entry.told);
            }
        }
        for entry in &self.place {
            let table = entry
                .cell
                .get()
                .and_then(|r| r.as_ref().ok())
                .map(Mapped::mapped);
            drop(table, &entry.state, &entry.told);
        }
        if dropped {
            self.forget_exactness();
        }
    }

    pub(super) fn forget_exactness(&self) {
        for e in &self.exact {
            e.store(EXACT_UNKNOWN, Relaxed);
        }
    }
}
