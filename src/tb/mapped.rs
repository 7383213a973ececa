//! A finished table, opened read-only and memory-mapped: its header
//! checked against the rules, the kind and the index's length before a
//! slot is read, its checksum on demand.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::error::TbError;
use super::format::{
    HEADER_LEN, Header, Kind, checksum, dtz_file_name, file_name_of, wdz_file_name,
};
use super::index::Subspace;
use super::nmove::NMoveLimits;
use super::rules::TbRules;

fn file_stamp(f: &File) -> io::Result<(u64, Option<std::time::SystemTime>)> {
    let meta = f.metadata()?;
    Ok((meta.len(), meta.modified().ok()))
}

/// A table opened read-only and memory-mapped.
pub struct MappedTable {
    pub header: Header,
    pub path: PathBuf,
    map: memmap2::Mmap,
    /// The open file, and its length and modification time when mapped:
    /// a file changed in place under the mapping is noticed
    /// ([`MappedTable::changed_on_disk`]) before it is read again.
    file: File,
    stamp: (u64, Option<std::time::SystemTime>),
}

/// The slots of subspace `own-opp`'s file at `path`: the length the index
/// needs, not the header's word for it (a probe must never read past the
/// end), and an error where the header says otherwise.
fn index_slots(header: &Header, path: &Path, own: u8, opp: u8) -> Result<u64, TbError> {
    let slots = Subspace::new(own, opp).map_or(0, |s| s.len());
    if header.slots != slots {
        return Err(TbError::BadLength {
            path: path.to_path_buf(),
            found: header.slots,
            expected: slots,
        });
    }
    Ok(slots)
}

impl MappedTable {
    /// Opens `dir/mulino-own-opp.tb` and checks its header against the
    /// rules and its length (not its checksum: see `verify_checksum`).
    pub fn open(dir: &Path, own: u8, opp: u8, rules: TbRules) -> Result<MappedTable, TbError> {
        MappedTable::open_kind(dir, Kind::ToEnd, own, opp, rules)
    }

    /// Opens the file of kind `kind` of subspace `own-opp` in `dir`, as
    /// [`MappedTable::open`] does.
    pub fn open_kind(
        dir: &Path,
        kind: Kind,
        own: u8,
        opp: u8,
        rules: TbRules,
    ) -> Result<MappedTable, TbError> {
        if kind == Kind::ToRemoval {
            return MappedTable::open_dtz(dir, own, opp, rules, NMoveLimits::NONE);
        }
        debug_assert!(
            kind != Kind::UnderRule,
            "a .wdz file is opened for its limits"
        );
        let path = dir.join(file_name_of(kind, own, opp));
        MappedTable::open_path(path, kind, rules, |header, path| {
            if (header.own, header.opp) != (own, opp) {
                return Err(TbError::WrongSubspace {
                    path: path.to_path_buf(),
                    found: format!("{}-{}", header.own, header.opp),
                    wanted: format!("{own}-{opp}"),
                });
            }
            index_slots(header, path, own, opp)
        })
    }

    /// Opens subspace `own-opp`'s `.dtz` file with its removals valued
    /// under `limits` ([`dtz_file_name`]).
    pub fn open_dtz(
        dir: &Path,
        own: u8,
        opp: u8,
        rules: TbRules,
        limits: NMoveLimits,
    ) -> Result<MappedTable, TbError> {
        let path = dir.join(dtz_file_name(own, opp, limits));
        MappedTable::open_under(path, Kind::ToRemoval, own, opp, rules, limits)
    }

    /// Opens subspace `own-opp`'s `.wdz` file built for `limits`.
    pub fn open_wdz(
        dir: &Path,
        own: u8,
        opp: u8,
        rules: TbRules,
        limits: NMoveLimits,
    ) -> Result<MappedTable, TbError> {
        let path = dir.join(wdz_file_name(own, opp, limits));
        MappedTable::open_under(path, Kind::UnderRule, own, opp, rules, limits)
    }

    /// Opens the file at `path` of subspace `own-opp` and kind `kind`,
    /// whose header must name `limits`.
    fn open_under(
        path: PathBuf,
        kind: Kind,
        own: u8,
        opp: u8,
        rules: TbRules,
        limits: NMoveLimits,
    ) -> Result<MappedTable, TbError> {
        MappedTable::open_path(path, kind, rules, |header, path| {
            if (header.own, header.opp) != (own, opp) || header.limits != limits {
                return Err(TbError::WrongSubspace {
                    path: path.to_path_buf(),
                    found: format!("{}-{} under {:?}", header.own, header.opp, header.limits),
                    wanted: format!("{own}-{opp} under {limits:?}"),
                });
            }
            index_slots(header, path, own, opp)
        })
    }

    /// Opens the file at `path` of kind `kind` for `rules`; `body` checks
    /// the header further and says how many bytes must follow it.
    pub fn open_path(
        path: PathBuf,
        kind: Kind,
        rules: TbRules,
        body: impl FnOnce(&Header, &Path) -> Result<u64, TbError>,
    ) -> Result<MappedTable, TbError> {
        if !path.exists() {
            return Err(TbError::Missing(path));
        }
        let f = File::open(&path).map_err(TbError::io(&path))?;
        let stamp = file_stamp(&f).map_err(TbError::io(&path))?;
        // SAFETY: the file is only read; a file changed under a running
        // engine would give wrong values but no memory unsafety beyond
        // what mmap of a read-only file always carries (a truncation, a
        // SIGBUS on the next read of a lost page: `changed_on_disk` lets
        // the engine notice it between searches), and finished tables are
        // never rewritten (builds write a new file and rename it).
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(TbError::io(&path))?;
        let header = Header::parse(&path, &map)?;
        if header.kind != kind {
            return Err(TbError::WrongKind {
                path,
                found: header.kind.describe(),
                wanted: kind.describe(),
            });
        }
        if header.rules != rules {
            return Err(TbError::WrongRules {
                path,
                found: header.rules.describe(),
                wanted: rules.describe(),
            });
        }
        let expected = HEADER_LEN as u64 + body(&header, &path)?;
        if map.len() as u64 != expected {
            return Err(TbError::BadLength {
                path,
                found: map.len() as u64,
                expected,
            });
        }
        Ok(MappedTable {
            header,
            path,
            map,
            file: f,
            stamp,
        })
    }

    /// Whether the mapped file was truncated or rewritten in place since
    /// it was opened (reading a truncated mapping would kill the process
    /// with SIGBUS). A file replaced by rename, as builds do, is not
    /// changed: the mapping keeps the old one.
    pub fn changed_on_disk(&self) -> bool {
        file_stamp(&self.file).map_or(true, |now| now != self.stamp)
    }

    /// The slot bytes.
    #[inline]
    pub fn slots(&self) -> &[u8] {
        &self.map[HEADER_LEN..]
    }

    /// Checks the stored checksum against the slot bytes.
    pub fn verify_checksum(&self) -> Result<(), TbError> {
        if checksum(self.slots()) != self.header.checksum {
            return Err(TbError::BadChecksum {
                path: self.path.clone(),
            });
        }
        Ok(())
    }
}
