//! The files already checked: a small list in the databases' directory
//! (`.mulino-checked`), one line per file whose checksum passed, with what
//! identifies that file on disk (its size, modification time and inode)
//! and its header's checksum. A file whose stamp still matches is not
//! read again, so that opening a checked directory costs a few `stat`s
//! instead of minutes of reading; a file changed in any way (written,
//! replaced, touched) has another stamp and is checked again.
//!
//! Builds add the files they write (they have just checked what they
//! wrote); the engine's check adds the files it verified. The list is only
//! a cache: a directory that cannot be written to, or a damaged list,
//! costs a full check and nothing else.
//!
//! Several processes may build into one directory at once (the jobs of a
//! cluster's scheduler): a list is saved merged with the one on disk,
//! under a lock file of its own, so that no process's lines are lost.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

/// The list's name in a databases' directory.
pub const FILE_NAME: &str = ".mulino-checked";

/// The lock file that one saving process at a time holds.
const LOCK_NAME: &str = ".mulino-checked.lock";

/// How long a save waits for another's lock before it takes it as left
/// by a process that was killed (a save holds it for milliseconds).
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// The directory's lock, held while it lives.
struct DirLock(PathBuf);

impl DirLock {
    /// Waits for the lock (created only where none is), or takes an old
    /// one as stale after `LOCK_PATIENCE`; `None` where the directory
    /// cannot be written to.
    fn take(dir: &Path) -> Option<DirLock> {
        let path = dir.join(LOCK_NAME);
        let start = std::time::Instant::now();
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => return Some(DirLock(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if start.elapsed() > LOCK_PATIENCE {
                        let _ = std::fs::remove_file(&path);
                    } else {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                }
                Err(_) => return None,
            }
        }
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// What identifies one version of a file on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    /// Nanoseconds since the epoch of its last modification.
    pub modified: u128,
    /// Its inode (0 where the system has none to give).
    pub inode: u64,
    /// Its header's checksum of the values.
    pub checksum: u64,
}

impl Stamp {
    /// The stamp of the file at `path` as it is now, with the checksum its
    /// header gives (`None` where the file cannot be looked at).
    pub fn of(path: &Path, checksum: u64) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Stamp {
            len: meta.len(),
            modified: modified.as_nanos(),
            inode,
            checksum,
        })
    }

    fn line(&self, name: &str) -> String {
        format!(
            "{name}\t{}\t{}\t{}\t{:016x}",
            self.len, self.modified, self.inode, self.checksum
        )
    }

    fn parse(line: &str) -> Option<(String, Stamp)> {
        let mut f = line.split('\t');
        let name = f.next()?.to_string();
        let stamp = Stamp {
            len: f.next()?.parse().ok()?,
            modified: f.next()?.parse().ok()?,
            inode: f.next()?.parse().ok()?,
            checksum: u64::from_str_radix(f.next()?, 16).ok()?,
        };
        f.next().is_none().then_some((name, stamp))
    }
}

/// The checked files of one directory.
#[derive(Debug, Default)]
pub struct Checked {
    dir: PathBuf,
    files: Mutex<HashMap<String, Stamp>>,
}

impl Checked {
    /// The list of `dir` (empty where there is none, or it does not read).
    pub fn load(dir: &Path) -> Checked {
        let files = std::fs::read_to_string(dir.join(FILE_NAME))
            .map(|text| text.lines().filter_map(Stamp::parse).collect())
            .unwrap_or_default();
        Checked {
            dir: dir.to_path_buf(),
            files: Mutex::new(files),
        }
    }

    fn name(path: &Path) -> Option<String> {
        path.file_name()?.to_str().map(str::to_string)
    }

    /// Whether the file at `path`, whose header gives `checksum`, was
    /// checked as it is now.
    pub fn holds(&self, path: &Path, checksum: u64) -> bool {
        let (Some(name), Some(now)) = (Checked::name(path), Stamp::of(path, checksum)) else {
            return false;
        };
        let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.get(&name) == Some(&now)
    }

    /// Records that the file at `path` passed its check as it is now.
    pub fn add(&self, path: &Path, checksum: u64) {
        if let (Some(name), Some(now)) = (Checked::name(path), Stamp::of(path, checksum)) {
            let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
            files.insert(name, now);
        }
    }

    /// Writes the list, merged with the one on disk now (this list's
    /// line for a file wins), under the directory's lock: to a temporary
    /// file, then renamed. A directory that cannot be written to keeps no
    /// list.
    pub fn save(&self) {
        let Some(_lock) = DirLock::take(&self.dir) else {
            return;
        };
        let mut merged = Checked::load(&self.dir)
            .files
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        {
            let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
            merged.extend(files.iter().map(|(name, s)| (name.clone(), *s)));
        }
        let mut lines: Vec<String> = merged.iter().map(|(name, s)| s.line(name)).collect();
        lines.sort();
        let mut text = String::from(
            "# The database files mulino has checked, as they were then (name, size, \
             modified ns, inode, checksum). Delete it to check every file again.\n",
        );
        for l in lines {
            text.push_str(&l);
            text.push('\n');
        }
        let tmp = self
            .dir
            .join(format!("{FILE_NAME}.{}.tmp", std::process::id()));
        if std::fs::write(&tmp, text).is_ok()
            && std::fs::rename(&tmp, self.dir.join(FILE_NAME)).is_err()
        {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    /// Records one file in `dir`'s list at once (a build's).
    pub fn record(dir: &Path, path: &Path, checksum: u64) {
        let list = Checked::load(dir);
        list.add(path, checksum);
        list.save();
    }
}

/// The suffix of the note that `tb verify --stamp` leaves beside a file
/// it passed (`mulino-7-7-n100-100.wdz.verified`): what a plan's check
/// job writes, so that a scheduler sees the check done by a file.
pub const VERIFIED_SUFFIX: &str = ".verified";

/// The name of the note that says the file `name` passed `tb verify`.
pub fn verified_name(name: &str) -> String {
    format!("{name}{VERIFIED_SUFFIX}")
}

fn verified_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(VERIFIED_SUFFIX);
    PathBuf::from(p)
}

/// The note's line: the file as it was when it passed (name, size,
/// modified ns, inode) and the seconds its check took.
fn verified_line(path: &Path, seconds: f64) -> Option<String> {
    let s = Stamp::of(path, 0)?;
    let name = Checked::name(path)?;
    Some(format!(
        "{name}\t{}\t{}\t{}\t{seconds:.2}",
        s.len, s.modified, s.inode
    ))
}

/// Leaves beside the file at `path` the note that it passed `tb verify`
/// as it is now (written under a name of this process's own, then
/// renamed); where it did not pass, removes any note it had.
pub fn mark_verified(path: &Path, passed: bool, seconds: f64) -> std::io::Result<()> {
    let note = verified_path(path);
    if !passed {
        return match std::fs::remove_file(&note) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    let line = verified_line(path, seconds).ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::NotFound, "the verified file is gone")
    })?;
    let text = format!(
        "# mulino {} tb verify: every slot of this file agreed with the rules core's own moves \
         (name, size, modified ns, inode, seconds). A rebuilt file loses this note.\n{line}\n",
        env!("CARGO_PKG_VERSION")
    );
    let mut tmp = note.as_os_str().to_owned();
    tmp.push(format!(".tmp.{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &note).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Removes the note of the file at `path` (a build that writes it anew).
pub fn forget_verified(path: &Path) {
    let _ = std::fs::remove_file(verified_path(path));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_checked_until_it_changes() {
        let dir = std::env::temp_dir().join(format!("mulino-trust-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("mulino-3-3.tb");
        std::fs::write(&file, b"values").unwrap();
        Checked::record(&dir, &file, 7);
        let list = Checked::load(&dir);
        assert!(list.holds(&file, 7));
        // Another checksum in its header, or another content, is another file.
        assert!(!list.holds(&file, 8));
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&file, b"VALUES").unwrap();
        assert!(!Checked::load(&dir).holds(&file, 7));
        // A damaged list is an empty one.
        std::fs::write(dir.join(FILE_NAME), "mulino-3-3.tb\tx\n").unwrap();
        assert!(!Checked::load(&dir).holds(&file, 7));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Whether the file at `path` has a note that it passed `tb verify` as
    /// it is now (the same size, modification time and inode).
    fn is_verified(path: &Path) -> bool {
        let Ok(text) = std::fs::read_to_string(verified_path(path)) else {
            return false;
        };
        let Some(now) = verified_line(path, 0.0) else {
            return false;
        };
        let key = |l: &str| l.rsplit_once('\t').map(|(k, _)| k.to_string());
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .any(|l| key(l).is_some() && key(l) == key(&now))
    }

    #[test]
    fn a_verified_note_holds_until_the_file_changes() {
        let dir = std::env::temp_dir().join(format!("mulino-verified-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("mulino-3-3-n100-100.wdz");
        std::fs::write(&file, b"values").unwrap();
        assert!(!is_verified(&file));
        mark_verified(&file, true, 1.5).unwrap();
        assert!(is_verified(&file));
        let note = dir.join(verified_name("mulino-3-3-n100-100.wdz"));
        let text = std::fs::read_to_string(&note).unwrap();
        assert!(text.lines().nth(1).unwrap().ends_with("\t1.50"), "{text}");
        // A failed check takes the note away; a changed file has none.
        mark_verified(&file, false, 0.0).unwrap();
        assert!(!note.exists() && !is_verified(&file));
        mark_verified(&file, false, 0.0).unwrap();
        mark_verified(&file, true, 1.0).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&file, b"VALUES").unwrap();
        assert!(!is_verified(&file));
        forget_verified(&file);
        assert!(!note.exists());
        // No note for a file that is not there.
        assert!(mark_verified(&dir.join("mulino-4-3.tb"), true, 1.0).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn builds_recording_at_once_lose_no_file() {
        // As jobs of a plan do: each records its own files in one list.
        let dir = std::env::temp_dir().join(format!("mulino-trust-many-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let files: Vec<PathBuf> = (0..8)
            .map(|i| dir.join(format!("mulino-{i}-3.tb")))
            .collect();
        for f in &files {
            std::fs::write(f, b"values").unwrap();
        }
        std::thread::scope(|scope| {
            for (i, f) in files.iter().enumerate() {
                let dir = &dir;
                scope.spawn(move || {
                    for _ in 0..5 {
                        Checked::record(dir, f, i as u64);
                    }
                });
            }
        });
        let list = Checked::load(&dir);
        for (i, f) in files.iter().enumerate() {
            assert!(list.holds(f, i as u64), "{} lost", f.display());
        }
        assert!(!dir.join(LOCK_NAME).exists(), "the lock is left behind");
        // A lock left by a killed process is taken after a while.
        std::fs::write(dir.join(LOCK_NAME), b"").unwrap();
        let lock = DirLock::take(&dir);
        assert!(lock.is_some());
        drop(lock);
        assert!(!dir.join(LOCK_NAME).exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
