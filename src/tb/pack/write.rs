//! The packer (`mulino tb pack`): the `.wdz` files of one N-move rule and
//! the placing layers in a folder, packed into a folder of compressed
//! blocks (`format.rs`).
//!
//! What it stores: of each pair of moving-phase subspaces `W-B` and
//! `B-W`, the one that compresses smaller (the other's values are a
//! one-ply look into it, and into the smaller subspaces its removals lead
//! to); of the placing layers, the odd ones, 17 to 1 (layer `k` even is a
//! one-ply look into layer `k + 1`). Layer 17 is stored, though it is the
//! largest: its placements lead into the moving phase, often into a
//! derived table, where one position would need hundreds of blocks. A
//! table whose moves lead into a table that is not packed is stored.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use super::coder::Encoder;
use super::format::{
    self, BlockEntry, FileEntry, INDEX, Index, LimitsEntry, MANIFEST, MAX_FILE_BYTES, Manifest,
    Region, RulesEntry, Stored, TableEntry,
};
use super::layout::{Layout, TableId};
use super::model::{Board, Coding, Counts, Priors, walk};
use crate::tb::TbRules;
use crate::tb::error::TbError;
use crate::tb::index::{MAX_PIECES, MIN_PIECES, Subspace};
use crate::tb::mapped::MappedTable;
use crate::tb::nmove::NMoveLimits;
use crate::tb::placing::{self, LAYERS, Layer};
use crate::tb::work::Event;

/// How to pack.
#[derive(Clone, Debug)]
pub struct PackOptions {
    pub src: PathBuf,
    pub out: PathBuf,
    pub threads: usize,
    /// Slots a block holds.
    pub block_slots: u64,
}

/// The slots a block holds unless told otherwise.
pub const DEFAULT_BLOCK_SLOTS: u64 = 1 << 16;

/// What a pack did.
#[derive(Clone, Debug)]
pub struct PackReport {
    pub tables: Vec<TableReport>,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub seconds: f64,
    /// The manifest's SHA-256.
    pub manifest_sha256: String,
}

/// One table of a pack: its name, slots, the source file's bytes and the
/// packed bytes (0 for a derived table).
#[derive(Clone, Debug)]
pub struct TableReport {
    pub name: String,
    pub slots: u64,
    pub source_bytes: u64,
    pub packed_bytes: u64,
    pub stored: bool,
}

/// The source folder's tables, open and checked.
struct Source {
    rules: TbRules,
    limits: NMoveLimits,
    tables: BTreeMap<TableKey, MappedTable>,
}

/// Tables in the order they are packed: the moving phase, smallest
/// first, then the placing layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct TableKey(u8, u8, u8, u8);

impl TableKey {
    fn of(id: TableId) -> TableKey {
        match id {
            TableId::Moving { own, opp } => TableKey(0, own + opp, own.max(opp), own),
            TableId::Placing { k, max } => TableKey(1, k, max, 0),
        }
    }

    fn id(self) -> TableId {
        match self {
            TableKey(0, sum, _, own) => TableId::Moving {
                own,
                opp: sum - own,
            },
            TableKey(_, k, max, _) => TableId::Placing { k, max },
        }
    }
}

/// The `.wdz` files and full placing layers in `dir`, for one set of
/// rules and one N-move rule, each checked against its checksum.
fn open_source(dir: &Path, progress: &(dyn Fn(Event) + Sync)) -> Result<Source, TbError> {
    let entries = std::fs::read_dir(dir).map_err(TbError::io(dir))?;
    let mut moving: Vec<(u8, u8, NMoveLimits)> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some((own, opp, limits)) = wdz_name(&name) {
            moving.push((own, opp, limits));
        }
    }
    let limits: HashSet<NMoveLimits> = moving.iter().map(|m| m.2).collect();
    let limits = match limits.len() {
        1 => *limits.iter().next().expect("one"),
        0 => {
            return Err(TbError::Unusable(format!(
                "{}: no .wdz files (build them with `mulino tb build --files wdz`)",
                dir.display()
            )));
        }
        _ => {
            return Err(TbError::Unusable(format!(
                "{}: .wdz files for several N-move rules ({limits:?}): pack one rule's files",
                dir.display()
            )));
        }
    };
    let mut tables = BTreeMap::new();
    // The rules are the first file's; every other file must be built for
    // them too.
    let (own, opp, _) = moving[0];
    let rules = rules_of_header(dir, own, opp, limits)?;
    for &(own, opp, _) in &moving {
        let table = MappedTable::open_wdz(dir, own, opp, rules, limits)?;
        tables.insert(TableKey::of(TableId::Moving { own, opp }), table);
    }
    for k in 0..LAYERS {
        if !dir.join(placing::file_name(k)).exists() {
            continue;
        }
        let table = placing::open_any_layer(dir, rules, k)?;
        if table.header.limits != limits {
            return Err(TbError::Unusable(format!(
                "{} was built for {:?}, the .wdz files for {limits:?}",
                table.path.display(),
                table.header.limits
            )));
        }
        let max = table.header.max;
        tables.insert(TableKey::of(TableId::Placing { k, max }), table);
    }
    let total = tables.values().map(|t| t.slots().len() as u64).sum();
    progress(Event::Phase {
        label: "check",
        total,
    });
    for table in tables.values() {
        table.verify_checksum()?;
        progress(Event::Advance(table.slots().len() as u64));
    }
    Ok(Source {
        rules,
        limits,
        tables,
    })
}

/// The rules a `.wdz` file was built for, from its header.
fn rules_of_header(dir: &Path, own: u8, opp: u8, limits: NMoveLimits) -> Result<TbRules, TbError> {
    let path = dir.join(crate::tb::format::wdz_file_name(own, opp, limits));
    let mut head = [0u8; crate::tb::format::HEADER_LEN];
    let mut f = File::open(&path).map_err(TbError::io(&path))?;
    std::io::Read::read_exact(&mut f, &mut head).map_err(TbError::io(&path))?;
    Ok(crate::tb::format::Header::parse(&path, &head)?.rules)
}

/// The subspace and limits of a `.wdz` file name (`mulino-W-B-nN-E.wdz`).
fn wdz_name(name: &str) -> Option<(u8, u8, NMoveLimits)> {
    let rest = name.strip_prefix("mulino-")?.strip_suffix(".wdz")?;
    let mut parts = rest.split('-');
    let own: u8 = parts.next()?.parse().ok()?;
    let opp: u8 = parts.next()?.parse().ok()?;
    let n_move: u16 = parts.next()?.strip_prefix('n')?.parse().ok()?;
    let endgame: u16 = parts.next()?.parse().ok()?;
    let range = MIN_PIECES..=MAX_PIECES;
    (parts.next().is_none() && range.contains(&own) && range.contains(&opp)).then_some((
        own,
        opp,
        NMoveLimits { n_move, endgame },
    ))
}

/// The tables a derived table's moves lead into (those that must be
/// packed for it to be derived).
pub fn leads_into(id: TableId) -> Vec<TableId> {
    match id {
        TableId::Moving { own, opp } => {
            let mut v = vec![TableId::Moving { own: opp, opp: own }];
            if opp > MIN_PIECES {
                v.push(TableId::Moving {
                    own: opp - 1,
                    opp: own,
                });
            }
            v
        }
        TableId::Placing { k, max } if k + 1 < LAYERS => vec![TableId::Placing { k: k + 1, max }],
        TableId::Placing { max, .. } => {
            // Black's last placement: White then moves with its pieces (one
            // fewer after a removal) against Black's, one more.
            let mut v = Vec::new();
            for s in (Layer { k: LAYERS - 1, max }).sectors() {
                for white in s.opp.saturating_sub(1).max(MIN_PIECES)..=s.opp {
                    let id = TableId::Moving {
                        own: white,
                        opp: s.own + 1,
                    };
                    if s.own + 1 >= MIN_PIECES && !v.contains(&id) {
                        v.push(id);
                    }
                }
            }
            v
        }
    }
}

/// One source table on its way into the pack: what it is, where its
/// slots go, its source file, and the blocks' size.
struct TableCoder<'a> {
    id: TableId,
    layout: Layout,
    src: &'a MappedTable,
    board: Board,
    block_slots: u64,
}

impl<'a> TableCoder<'a> {
    fn new(id: TableId, src: &'a MappedTable, board: Board, block_slots: u64) -> TableCoder<'a> {
        TableCoder {
            id,
            layout: Layout::of(id),
            src,
            board,
            block_slots,
        }
    }

    fn blocks(&self) -> u64 {
        self.layout.slots.div_ceil(self.block_slots)
    }

    fn range(&self, b: u64) -> std::ops::Range<u64> {
        b * self.block_slots..((b + 1) * self.block_slots).min(self.layout.slots)
    }

    /// The source bytes of the slots `range`, in the pack's order (a
    /// moving table's `.wdz` bytes; a layer's two-bit codes, a byte each).
    fn source_slots(&self, range: std::ops::Range<u64>) -> Vec<u8> {
        let mut out = vec![0u8; (range.end - range.start) as usize];
        let start = range.start;
        let bytes = self.src.slots();
        match self.id {
            TableId::Moving { own, opp } => {
                // The source's slots first, then their bytes: the reads,
                // scattered over the file, are then under way together.
                let sub = Subspace::new(own, opp).expect("a moving subspace");
                let mut at = Vec::with_capacity(out.len());
                self.layout.for_each(range, |slot, o, p, holds| {
                    if holds {
                        at.push(((slot - start) as u32, sub.index(o, p)));
                    }
                });
                for (k, i) in at {
                    out[k as usize] = bytes[i as usize];
                }
            }
            TableId::Placing { .. } => {
                for (i, b) in out.iter_mut().enumerate() {
                    *b = placing::get(bytes, start + i as u64);
                }
            }
        }
        out
    }

    /// Every `step`-th block, spread over the table, `sample` of them at
    /// most.
    fn sample(&self, sample: u64) -> Vec<u64> {
        let step = (self.blocks() / sample).max(1);
        (0..self.blocks()).step_by(step as usize).collect()
    }

    /// The priors, counted over up to `sample` blocks.
    fn priors(&self, sample: u64) -> Priors {
        let mut counts = Counts::new();
        for b in self.sample(sample) {
            let range = self.range(b);
            let mut slots = self.source_slots(range.clone());
            walk(&mut counts, &self.layout, self.board, range, &mut slots);
        }
        counts.priors()
    }

    /// Codes the blocks `blocks` on `threads` threads.
    fn code(
        &self,
        priors: &Priors,
        blocks: &[u64],
        threads: usize,
        progress: &(dyn Fn(Event) + Sync),
    ) -> Vec<Vec<u8>> {
        let out: Vec<Mutex<Vec<u8>>> = blocks.iter().map(|_| Mutex::new(Vec::new())).collect();
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Relaxed);
                        let Some(&b) = blocks.get(i) else {
                            break;
                        };
                        let range = self.range(b);
                        let mut slots = self.source_slots(range.clone());
                        let mut coding = Coding::new(Encoder::new(), priors);
                        walk(
                            &mut coding,
                            &self.layout,
                            self.board,
                            range.clone(),
                            &mut slots,
                        );
                        *out[i].lock().expect("no panics") = coding.coder.finish();
                        progress(Event::Advance(range.end - range.start));
                    }
                });
            }
        });
        out.into_iter()
            .map(|m| m.into_inner().expect("no panics"))
            .collect()
    }

    /// The bytes the table would take, from a sample of its blocks, for
    /// choosing which side of a pair to store.
    fn estimated_bytes(&self, threads: usize) -> u64 {
        let priors = self.priors(16);
        let sample = self.sample(16);
        let coded = self.code(&priors, &sample, threads, &|_| {});
        let bytes: u64 = coded.iter().map(|b| b.len() as u64).sum();
        bytes * self.blocks() / sample.len().max(1) as u64
    }
}

/// Which tables of the source to store: the cheaper side of each pair,
/// the even placing layers, and whatever cannot be derived.
fn choose_stored(
    src: &Source,
    board: Board,
    opts: &PackOptions,
    progress: &(dyn Fn(Event) + Sync),
) -> HashSet<TableId> {
    let present: HashSet<TableId> = src.tables.keys().map(|k| k.id()).collect();
    let mut stored = HashSet::new();
    progress(Event::Phase {
        label: "choose",
        total: present.len() as u64,
    });
    for &id in &present {
        match id {
            TableId::Moving { own, opp } if own > opp => {
                let twin = TableId::Moving { own: opp, opp: own };
                if !present.contains(&twin) {
                    stored.insert(id);
                    continue;
                }
                let size = |id: TableId| {
                    TableCoder::new(id, &src.tables[&TableKey::of(id)], board, opts.block_slots)
                        .estimated_bytes(opts.threads)
                };
                if size(id) <= size(twin) {
                    stored.insert(id);
                } else {
                    stored.insert(twin);
                }
            }
            TableId::Moving { own, opp } if own == opp => {
                stored.insert(id);
            }
            TableId::Moving { .. } => {
                let twin = match id {
                    TableId::Moving { own, opp } => TableId::Moving { own: opp, opp: own },
                    _ => id,
                };
                if !present.contains(&twin) {
                    stored.insert(id);
                }
            }
            TableId::Placing { k, .. } if k % 2 == 1 => {
                stored.insert(id);
            }
            TableId::Placing { .. } => {}
        }
        progress(Event::Advance(1));
    }
    // A table is derived only where every table its moves lead into is
    // packed (stored, or derived itself).
    loop {
        let derived_ok = |id: TableId, stored: &HashSet<TableId>| {
            leads_into(id).iter().all(|t| present.contains(t))
                && match id {
                    // The quiet moves' table must be stored.
                    TableId::Moving { own, opp } => {
                        stored.contains(&TableId::Moving { own: opp, opp: own })
                    }
                    TableId::Placing { k, max } if k + 1 < LAYERS => {
                        stored.contains(&TableId::Placing { k: k + 1, max })
                    }
                    // Layer 17 leads into the moving phase: stored.
                    TableId::Placing { .. } => false,
                }
        };
        let must: Vec<TableId> = present
            .iter()
            .filter(|id| !stored.contains(id) && !derived_ok(**id, &stored))
            .copied()
            .collect();
        if must.is_empty() {
            break;
        }
        stored.extend(must);
    }
    stored
}

/// Appends blocks to the data files, a new file where the next block
/// would pass the limit (as `Index::locations` reads them back).
struct DataWriter {
    dir: PathBuf,
    file: u32,
    offset: u64,
    out: Option<File>,
    written: Vec<(String, u64)>,
}

impl DataWriter {
    fn new(dir: &Path) -> DataWriter {
        DataWriter {
            dir: dir.to_path_buf(),
            file: 0,
            offset: 0,
            out: None,
            written: Vec::new(),
        }
    }

    /// Where the next block of `len` bytes goes.
    fn place(&mut self, len: u64) -> (u32, u64) {
        if self.offset > 0 && self.offset + len > MAX_FILE_BYTES {
            self.file += 1;
            self.offset = 0;
            self.out = None;
        }
        (self.file, self.offset)
    }

    fn write(&mut self, block: &[u8]) -> Result<(), TbError> {
        self.place(block.len() as u64);
        if self.out.is_none() {
            let name = format::data_file(self.file);
            let path = self.dir.join(&name);
            self.out = Some(File::create(&path).map_err(TbError::io(&path))?);
            self.written.push((name, 0));
        }
        let path = self.dir.join(format::data_file(self.file));
        let f = self.out.as_mut().expect("opened");
        f.write_all(block).map_err(TbError::io(&path))?;
        self.offset += block.len() as u64;
        if let Some(last) = self.written.last_mut() {
            last.1 = self.offset;
        }
        Ok(())
    }
}

/// Packs the `.wdz` files and placing layers of `opts.src` into
/// `opts.out` (which must not hold a manifest yet).
pub fn pack(opts: &PackOptions, progress: &(dyn Fn(Event) + Sync)) -> Result<PackReport, TbError> {
    let started = Instant::now();
    if opts.out.join(MANIFEST).exists() {
        return Err(TbError::Unusable(format!(
            "{} already holds a packed folder: pack into an empty folder",
            opts.out.display()
        )));
    }
    std::fs::create_dir_all(&opts.out).map_err(TbError::io(&opts.out))?;
    let src = open_source(&opts.src, progress)?;
    let board = Board::of(src.rules);
    let stored = choose_stored(&src, board, opts, progress);
    let total: u64 = src
        .tables
        .keys()
        .filter(|k| stored.contains(&k.id()))
        .map(|k| Layout::of(k.id()).slots)
        .sum();
    progress(Event::Phase {
        label: "pack",
        total,
    });
    let mut data = DataWriter::new(&opts.out);
    let mut index_bytes = Vec::new();
    let mut entries = Vec::new();
    let mut reports = Vec::new();
    for (key, table) in &src.tables {
        let id = key.id();
        let h = &table.header;
        let mut entry = TableEntry {
            name: id.name(),
            stored: None,
            counts: [h.draws, h.wins, h.losses],
        };
        let mut report = TableReport {
            name: id.name(),
            slots: Layout::of(id).slots,
            source_bytes: (crate::tb::format::HEADER_LEN + table.slots().len()) as u64,
            packed_bytes: 0,
            stored: false,
        };
        if stored.contains(&id) {
            let coder = TableCoder::new(id, table, board, opts.block_slots);
            let (placed, packed_bytes) =
                pack_table(&coder, &mut data, &mut index_bytes, opts.threads, progress)?;
            entry.stored = Some(placed);
            report.packed_bytes = packed_bytes;
            report.stored = true;
        }
        entries.push(entry);
        reports.push(report);
    }
    drop(data.out.take());
    write_file(&opts.out.join(INDEX), &index_bytes)?;
    let (files, text) = write_manifest(opts, &src, entries, &data.written)?;
    let bytes_out = files.iter().map(|f| f.bytes).sum::<u64>() + text.len() as u64;
    Ok(PackReport {
        bytes_in: reports.iter().map(|r| r.source_bytes).sum(),
        tables: reports,
        bytes_out,
        seconds: started.elapsed().as_secs_f64(),
        manifest_sha256: format::sha256_hex(&text),
    })
}

/// Codes one table's blocks into the data files and appends its block
/// index to `index_bytes`; returns where it went and its packed size
/// (blocks and index).
fn pack_table(
    coder: &TableCoder,
    data: &mut DataWriter,
    index_bytes: &mut Vec<u8>,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<(Stored, u64), TbError> {
    let priors = coder.priors(64);
    let all: Vec<u64> = (0..coder.blocks()).collect();
    let mut blocks = Vec::new();
    let mut first = None;
    let mut packed_bytes = 0;
    // A few hundred blocks at a time, to keep what is in memory small.
    for chunk in all.chunks(256) {
        let coded = coder.code(&priors, chunk, threads, progress);
        for block in coded {
            first.get_or_insert(data.place(block.len() as u64));
            blocks.push(BlockEntry {
                len: block.len() as u32,
                hash: format::block_hash(&block),
            });
            packed_bytes += block.len() as u64;
            data.write(&block)?;
        }
    }
    let (first_file, first_offset) = first.unwrap_or((data.file, data.offset));
    let index = Index { priors, blocks };
    let region = index.to_bytes();
    let stored = Stored {
        slots: coder.layout.slots,
        blocks: index.blocks.len() as u64,
        index: Region {
            offset: index_bytes.len() as u64,
            len: region.len() as u64,
            sha256: format::sha256_hex(&region),
        },
        first_file,
        first_offset,
    };
    packed_bytes += region.len() as u64;
    index_bytes.extend_from_slice(&region);
    Ok((stored, packed_bytes))
}

/// Writes the manifest: the rules and limits, every table and every
/// file (the data files `written` and the index) with its checksum.
/// Returns the files and the manifest's own bytes.
fn write_manifest(
    opts: &PackOptions,
    src: &Source,
    tables: Vec<TableEntry>,
    written: &[(String, u64)],
) -> Result<(Vec<FileEntry>, Vec<u8>), TbError> {
    let mut files: Vec<FileEntry> = Vec::new();
    for (name, _) in written.iter().chain([(INDEX.to_string(), 0)].iter()) {
        let path = opts.out.join(name);
        let bytes = std::fs::read(&path).map_err(TbError::io(&path))?;
        files.push(FileEntry {
            name: name.clone(),
            bytes: bytes.len() as u64,
            sha256: format::sha256_hex(&bytes),
        });
    }
    let manifest = Manifest {
        format: format::FORMAT.into(),
        version: format::VERSION,
        rules: RulesEntry::of(src.rules),
        limits: LimitsEntry {
            n_move: src.limits.n_move,
            endgame: src.limits.endgame,
        },
        block_slots: opts.block_slots,
        max_file_bytes: MAX_FILE_BYTES,
        tables,
        files: files.clone(),
    };
    let mut text = serde_json::to_vec_pretty(&manifest)
        .map_err(|e| TbError::Unusable(format!("the manifest: {e}")))?;
    text.push(b'\n');
    write_file(&opts.out.join(MANIFEST), &text)?;
    Ok((files, text))
}

/// Writes a file whole: to a temporary name, then renamed.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), TbError> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(TbError::io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(TbError::io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wdz_names_are_read() {
        let limits = NMoveLimits {
            n_move: 100,
            endgame: 40,
        };
        assert_eq!(wdz_name("mulino-7-4-n100-40.wdz"), Some((7, 4, limits)));
        assert_eq!(wdz_name("mulino-7-4.tb"), None);
        assert_eq!(wdz_name("mulino-2-4-n100-40.wdz"), None);
        assert_eq!(wdz_name("mulino-7-4-n100-40-1.wdz"), None);
    }

    #[test]
    fn table_keys_order_the_moving_phase_first_smallest_first() {
        let mut keys: Vec<TableKey> = [
            TableId::Placing { k: 3, max: 9 },
            TableId::Moving { own: 4, opp: 3 },
            TableId::Moving { own: 3, opp: 3 },
            TableId::Moving { own: 3, opp: 4 },
        ]
        .map(TableKey::of)
        .to_vec();
        keys.sort();
        let ids: Vec<TableId> = keys.iter().map(|k| k.id()).collect();
        assert_eq!(
            ids,
            [
                TableId::Moving { own: 3, opp: 3 },
                TableId::Moving { own: 3, opp: 4 },
                TableId::Moving { own: 4, opp: 3 },
                TableId::Placing { k: 3, max: 9 },
            ]
        );
    }
}
