//! The packed folder's format (version 1): a manifest, an index, and data
//! files of at most [`MAX_FILE_BYTES`] each.
//!
//! - `manifest.json` names the format and its version, the rules and the
//!   N-move limits, the slots a block holds, and every table: a stored
//!   one with its slots, its blocks, where its index lies (with the
//!   SHA-256 of that region) and where its first block lies; a derived
//!   one (the values a one-ply look at the tables its moves lead into
//!   gives) with no data at all. Every file is listed with its size and
//!   SHA-256. The manifest's own SHA-256 is what a mirror is checked
//!   against.
//! - `index.bin` holds each stored table's region: its priors (a bitmap
//!   of the decisions that have one, then a byte each) and, for every
//!   block, its length and the first 16 bytes of its SHA-256.
//! - `data-NNN.bin` hold the blocks, each table's in order; a block that
//!   would pass [`MAX_FILE_BYTES`] starts the next file.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::model::{Priors, WDL_PROBS, Z_PROBS};
use crate::tb::TbRules;
use crate::tb::error::TbError;
use crate::tb::nmove::NMoveLimits;

/// What the manifest's `format` says.
pub const FORMAT: &str = "mulino packed databases";
/// The version this reader reads and this packer writes.
pub const VERSION: u32 = 1;
/// The largest data file (25 MiB: small enough for common static hosts).
pub const MAX_FILE_BYTES: u64 = 25 << 20;
pub const MANIFEST: &str = "manifest.json";
pub const INDEX: &str = "index.bin";
/// A block's checksum: the first bytes of its SHA-256.
pub const BLOCK_HASH_BYTES: usize = 16;

/// The data file number `n`.
pub fn data_file(n: u32) -> String {
    format!("data-{n:03}.bin")
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// A block's checksum.
pub fn block_hash(bytes: &[u8]) -> [u8; BLOCK_HASH_BYTES] {
    let digest = Sha256::digest(bytes);
    let mut h = [0u8; BLOCK_HASH_BYTES];
    h.copy_from_slice(&digest[..BLOCK_HASH_BYTES]);
    h
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub rules: RulesEntry,
    pub limits: LimitsEntry,
    pub block_slots: u64,
    pub max_file_bytes: u64,
    pub tables: Vec<TableEntry>,
    pub files: Vec<FileEntry>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulesEntry {
    pub flying: bool,
    pub fly_at: u8,
    pub diagonals: bool,
    pub remove_from_mills_always: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitsEntry {
    pub n_move: u16,
    pub endgame: u16,
}

/// A table: stored (with its data) or derived (none).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableEntry {
    /// `W-B` or `place-K` (`layout::TableId::name`).
    pub name: String,
    /// Where its data is; `None`: its values come from a one-ply look at
    /// the tables its moves lead into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<Stored>,
    /// Draws, wins and losses over its classes (as the source's header
    /// counts them).
    pub counts: [u64; 3],
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stored {
    pub slots: u64,
    pub blocks: u64,
    /// Its region of `index.bin`.
    pub index: Region,
    /// The data file of its first block, and the offset there.
    pub first_file: u32,
    pub first_offset: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub offset: u64,
    pub len: u64,
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

impl Manifest {
    /// Reads a manifest and checks that this reader can read it.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, TbError> {
        let bad = |what: String| TbError::Unusable(format!("{MANIFEST}: {what}"));
        let m: Manifest = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        if m.format != FORMAT {
            return Err(bad(format!("not a packed folder (format `{}`)", m.format)));
        }
        if m.version != VERSION {
            return Err(bad(format!(
                "format version {} (this mulino reads version {VERSION})",
                m.version
            )));
        }
        if m.block_slots == 0 || m.max_file_bytes == 0 {
            return Err(bad("blocks of no slots".into()));
        }
        Ok(m)
    }

    pub fn rules(&self) -> TbRules {
        let r = self.rules;
        TbRules {
            flying: r.flying,
            fly_at: r.fly_at,
            diagonals: r.diagonals,
            remove_from_mills_always: r.remove_from_mills_always,
        }
    }

    pub fn limits(&self) -> NMoveLimits {
        NMoveLimits {
            n_move: self.limits.n_move,
            endgame: self.limits.endgame,
        }
    }
}

impl RulesEntry {
    pub fn of(r: TbRules) -> RulesEntry {
        RulesEntry {
            flying: r.flying,
            fly_at: r.fly_at,
            diagonals: r.diagonals,
            remove_from_mills_always: r.remove_from_mills_always,
        }
    }
}

/// A stored table's index: its priors, and each block's length and
/// checksum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Index {
    pub priors: Priors,
    pub blocks: Vec<BlockEntry>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockEntry {
    pub len: u32,
    pub hash: [u8; BLOCK_HASH_BYTES],
}

const INDEX_MAGIC: &[u8; 4] = b"MLPI";

impl Index {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(INDEX_MAGIC);
        for bytes in [&self.priors.wdl, &self.priors.z] {
            let mut bitmap = vec![0u8; bytes.len().div_ceil(8)];
            for (i, &q) in bytes.iter().enumerate() {
                if q != 0 {
                    bitmap[i / 8] |= 1 << (i % 8);
                }
            }
            out.extend_from_slice(&bitmap);
            out.extend(bytes.iter().filter(|&&q| q != 0));
        }
        out.extend_from_slice(&(self.blocks.len() as u64).to_le_bytes());
        for b in &self.blocks {
            out.extend_from_slice(&b.len.to_le_bytes());
            out.extend_from_slice(&b.hash);
        }
        out
    }

    /// Reads an index region (whose SHA-256 the caller has checked).
    pub fn parse(bytes: &[u8]) -> Result<Index, String> {
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], String> {
            let part = bytes
                .get(at..at + n)
                .ok_or_else(|| "the index ends early".to_string())?;
            at += n;
            Ok(part)
        };
        if take(4)? != INDEX_MAGIC {
            return Err("not an index region".into());
        }
        let mut priors = [Vec::new(), Vec::new()];
        for (prior, len) in priors.iter_mut().zip([WDL_PROBS, Z_PROBS]) {
            let bitmap = take(len.div_ceil(8))?.to_vec();
            let set = bitmap.iter().map(|b| b.count_ones() as usize).sum();
            let mut values = take(set)?.iter();
            *prior = (0..len)
                .map(|i| {
                    if bitmap[i / 8] >> (i % 8) & 1 == 1 {
                        values.next().copied().unwrap_or(0)
                    } else {
                        0
                    }
                })
                .collect();
        }
        let count = u64::from_le_bytes(take(8)?.try_into().map_err(|_| "short")?);
        let mut blocks = Vec::new();
        for _ in 0..count {
            let len = u32::from_le_bytes(take(4)?.try_into().map_err(|_| "short")?);
            let mut hash = [0u8; BLOCK_HASH_BYTES];
            hash.copy_from_slice(take(BLOCK_HASH_BYTES)?);
            blocks.push(BlockEntry { len, hash });
        }
        let [wdl, z] = priors;
        Ok(Index {
            priors: Priors { wdl, z },
            blocks,
        })
    }

    /// Where each block lies: (data file, offset, length), from the
    /// table's first block on, a block that would pass `max_file_bytes`
    /// starting the next file (as the packer wrote them).
    pub fn locations(&self, stored: &Stored, max_file_bytes: u64) -> Vec<(u32, u64, u32)> {
        let (mut file, mut offset) = (stored.first_file, stored.first_offset);
        self.blocks
            .iter()
            .map(|b| {
                if offset > 0 && offset + u64::from(b.len) > max_file_bytes {
                    file += 1;
                    offset = 0;
                }
                let at = (file, offset, b.len);
                offset += u64::from(b.len);
                at
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_reads_back_and_refuses_what_is_short() {
        let mut priors = Priors::even();
        priors.wdl[3] = 200;
        priors.z[Z_PROBS - 1] = 7;
        let index = Index {
            priors,
            blocks: vec![
                BlockEntry {
                    len: 10,
                    hash: [1; BLOCK_HASH_BYTES],
                },
                BlockEntry {
                    len: 20,
                    hash: [2; BLOCK_HASH_BYTES],
                },
            ],
        };
        let bytes = index.to_bytes();
        assert_eq!(Index::parse(&bytes), Ok(index.clone()));
        assert!(Index::parse(&bytes[..bytes.len() - 1]).is_err_and(|e| e.contains("ends early")));
        assert_eq!(Index::parse(b"XXXX"), Err("not an index region".into()));
        let stored = Stored {
            slots: 0,
            blocks: 2,
            index: Region {
                offset: 0,
                len: 0,
                sha256: String::new(),
            },
            first_file: 4,
            first_offset: 15,
        };
        // The second block passes 25 bytes: it starts file 5.
        assert_eq!(index.locations(&stored, 25), [(4, 15, 10), (5, 0, 20)]);
    }

    #[test]
    fn a_manifest_of_another_version_is_refused() {
        let m = Manifest {
            format: FORMAT.into(),
            version: VERSION + 1,
            rules: RulesEntry::of(TbRules::from_rules(&crate::core::Rules::default()).unwrap()),
            limits: LimitsEntry {
                n_move: 100,
                endgame: 100,
            },
            block_slots: 65536,
            max_file_bytes: MAX_FILE_BYTES,
            tables: vec![],
            files: vec![],
        };
        let bytes = serde_json::to_vec(&m).unwrap();
        match Manifest::parse(&bytes) {
            Err(TbError::Unusable(e)) => assert!(e.contains("format version 2"), "{e}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(Manifest::parse(b"{"), Err(TbError::Unusable(_))));
    }
}
