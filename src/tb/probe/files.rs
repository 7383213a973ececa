//! The directory's files: which there are, opening them (headers only),
//! and telling once what is wrong with one that play needed.

use std::path::PathBuf;
use std::sync::atomic::Ordering::{Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU8};

use super::{BAD, Entry, FileId, Mapped, Tablebases, at};
use crate::tb::error::TbError;
use crate::tb::format::{self, Kind};
use crate::tb::index::{MAX_PIECES, plan};
use crate::tb::mapped::MappedTable;
use crate::tb::nmove::NMoveLimits;
use crate::tb::placing::LAYERS;

impl Tablebases {
    pub(super) fn path_of(&self, id: FileId) -> PathBuf {
        self.dir.join(match id {
            FileId::Moving(Kind::ToRemoval, own, opp) if self.limits != NMoveLimits::NONE => {
                let name = format::dtz_file_name(own, opp, self.limits);
                if self.dir.join(&name).exists() {
                    name
                } else {
                    format::file_name_of(Kind::ToRemoval, own, opp)
                }
            }
            FileId::Moving(Kind::UnderRule, own, opp) => {
                format::wdz_file_name(own, opp, self.limits)
            }
            FileId::Moving(kind, own, opp) => format::file_name_of(kind, own, opp),
            FileId::Placing(k) => crate::tb::placing::file_name(k),
        })
    }

    #[cold]
    pub(super) fn tell_missing<T>(&self, entry: &Entry<T>, id: FileId) {
        if entry.told.swap(true, Relaxed) {
            return;
        }
        let path = self.path_of(id);
        // A kind of file the directory has none of is told once for all
        // of them (.dtz files, in an older set), or not at all (placing
        // layers: without them the placing phase is searched, as always).
        let kind = match id {
            FileId::Moving(Kind::ToRemoval, ..) => Some((
                1,
                "no .dtz files: wins and losses count under the N-move rules only when they end in time",
            )),
            FileId::Placing(_) => Some((2, "")),
            // Without `.wdz` files the `.tb` and `.dtz` files serve.
            FileId::Moving(Kind::UnderRule, ..) => Some((4, "")),
            FileId::Moving(..) => None,
        };
        if let Some((bit, what)) = kind {
            if !path.exists() && self.none_of(id) {
                let first = self.told_kinds.fetch_or(bit, Relaxed) & bit == 0;
                if first && !what.is_empty() {
                    self.tell(&format!("{}: {what}", self.dir.display()));
                }
                return;
            }
        }
        let what = match id {
            _ if !path.exists() => format!("{} is missing", path.display()),
            FileId::Moving(kind, own, opp) => match self.loaded(kind, own, opp) {
                Err(e) => e.to_string(),
                Ok(_) => format!("{} was not checked", path.display()),
            },
            FileId::Placing(k) => match self.layer(k) {
                Err(e) => e.to_string(),
                Ok(_) => format!("{} was not checked", path.display()),
            },
        };
        let consequence = match id {
            FileId::Moving(Kind::ToRemoval, ..) => {
                "its wins and losses count under the N-move rules only when they end in time"
            }
            _ => "its positions have no database value",
        };
        self.tell(&format!("{what}: {consequence}"));
    }

    /// Whether the directory holds no file of `id`'s kind.
    pub(super) fn none_of(&self, id: FileId) -> bool {
        let same = |f: &FileId| match (f, id) {
            (FileId::Placing(_), FileId::Placing(_)) => true,
            (FileId::Moving(a, ..), FileId::Moving(b, ..)) => *a == b,
            _ => false,
        };
        !self.files().iter().any(same)
    }

    pub(super) fn tell(&self, what: &str) {
        if let Some(notify) = &self.notify {
            notify(what);
        }
    }

    /// The files of these databases in the directory, `.tb` before `.dtz`,
    /// smallest subspace first, then the placing layers, last first.
    pub(super) fn files(&self) -> Vec<FileId> {
        let mut v = Vec::new();
        let kinds: &[Kind] = match self.limits == NMoveLimits::NONE {
            true => &[Kind::ToEnd, Kind::ToRemoval],
            false => &[Kind::ToEnd, Kind::ToRemoval, Kind::UnderRule],
        };
        for &kind in kinds {
            for (own, opp) in plan(&[(MAX_PIECES, MAX_PIECES)]) {
                for (a, b) in [(own, opp), (opp, own)] {
                    let id = FileId::Moving(kind, a, b);
                    if self.path_of(id).exists() && !v.contains(&id) {
                        v.push(id);
                    }
                }
            }
        }
        for k in (0..LAYERS).rev() {
            if self.path_of(FileId::Placing(k)).exists() {
                v.push(FileId::Placing(k));
            }
        }
        v
    }

    /// Opens a file (as probes would) and gives its table to `f`.
    pub(super) fn with_file<R>(
        &self,
        id: FileId,
        f: impl FnOnce(Result<&MappedTable, &TbError>, &AtomicU8, &AtomicBool) -> R,
    ) -> R {
        match id {
            FileId::Moving(kind, own, opp) => {
                let entry = &self.entries(kind)[at(own as u32, opp as u32)];
                f(
                    self.loaded(kind, own, opp).map(Mapped::mapped),
                    &entry.state,
                    &entry.told,
                )
            }
            FileId::Placing(k) => {
                let entry = &self.place[k as usize];
                f(self.layer(k).map(Mapped::mapped), &entry.state, &entry.told)
            }
        }
    }

    /// Opens every database file in the directory (headers only: the
    /// values are read when probed) and says what is wrong with any: the
    /// number of usable files and the problems.
    pub fn open_all(&self) -> (usize, Vec<String>) {
        if let Some(pack) = &self.packed {
            return (pack.table_count(), Vec::new());
        }
        let mut ok = 0;
        let mut problems = Vec::new();
        if !self.dir.is_dir() {
            problems.push(format!("{}: no such directory", self.dir.display()));
            return (0, problems);
        }
        for id in self.files() {
            self.with_file(id, |table, state, told| match table {
                Ok(_) => ok += 1,
                Err(e) => {
                    // Told here, to whoever opened the tables: not again.
                    state.store(BAD, Release);
                    told.store(true, Relaxed);
                    problems.push(e.to_string());
                }
            });
        }
        if ok == 0 && problems.is_empty() {
            problems.push(format!("{}: no database files", self.dir.display()));
        }
        (ok, problems)
    }
}
