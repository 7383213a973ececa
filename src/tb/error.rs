//! The error type of all of `tb`: reading, building and checking files.

use std::io;
use std::path::{Path, PathBuf};

use super::value::Value;

/// Everything that can go wrong with the databases.
#[derive(Debug, thiserror::Error)]
pub enum TbError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{0}: not a mulino database (bad magic)")]
    BadMagic(PathBuf),
    #[error(
        "{path}: format version {found}, this build reads version {expected}: rebuild it with this mulino"
    )]
    BadVersion {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("{path}: built for rules ({found}), the engine plays ({wanted})")]
    WrongRules {
        path: PathBuf,
        found: String,
        wanted: String,
    },
    #[error("{path}: header says subspace {found}, the file name {wanted}")]
    WrongSubspace {
        path: PathBuf,
        found: String,
        wanted: String,
    },
    #[error("{path}: {found} bytes, expected {expected} (truncated or corrupt)")]
    BadLength {
        path: PathBuf,
        found: u64,
        expected: u64,
    },
    #[error("{path}: unknown kind of file {found} (built by a newer mulino?)")]
    BadKind { path: PathBuf, found: u8 },
    #[error("{path}: holds {found}, expected {wanted}")]
    WrongKind {
        path: PathBuf,
        found: &'static str,
        wanted: &'static str,
    },
    #[error("{path}: checksum mismatch (corrupt)")]
    BadChecksum { path: PathBuf },
    #[error("{path}: header byte {at} is {found:#04x} where the format has 0 (corrupt)")]
    BadHeader { path: PathBuf, at: usize, found: u8 },
    #[error("these rules have no databases: {0}")]
    UnsupportedRules(String),
    #[error("subspace `{0}` is not W-B with 3 <= W, B <= 9")]
    BadSubspace(String),
    /// A table that could not be opened (the reason, as text).
    #[error("{0}")]
    Unusable(String),
    #[error("{0} is missing (build it first)")]
    Missing(PathBuf),
    #[error(
        "building {subspace} needs about {need_gib:.1} GiB, more than --memory {limit_gib:.1} GiB"
    )]
    Memory {
        subspace: String,
        need_gib: f64,
        limit_gib: f64,
    },
    #[error(
        "{subspace}: the distances to the next removal disagree with the values at {fen} (a bug)"
    )]
    Inconsistent { subspace: String, fen: String },
    #[error("{subspace}: the value of {fen} ({value:?}) does not fit the format")]
    Unrepresentable {
        subspace: String,
        fen: String,
        value: Value,
    },
}

impl TbError {
    /// An I/O error on `path`, for `map_err`.
    pub(crate) fn io(path: &Path) -> impl FnOnce(io::Error) -> TbError + '_ {
        move |source| TbError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
