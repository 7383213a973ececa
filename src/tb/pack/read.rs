//! The reader of a packed folder: a position's value from the block that
//! holds it, fetched through a [`PackSource`] (a folder on disk, or bytes
//! a host fetched over HTTP), checked against its SHA-256, decoded, and
//! kept in a cache; or, for a derived table, from a one-ply look at the
//! tables its moves lead into.
//!
//! Nothing is trusted before it is checked: the manifest names every
//! stored table's index region with its SHA-256, and the index every
//! block's. A block or region that fails is never used: it is told once
//! and its positions have no value.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};

use super::coder::Decoder;
use super::format::{self, Index, MANIFEST, Manifest};
use super::layout::{Layout, TableId};
use super::model::{Board, Coding, Priors, walk};
use crate::core::Bitboard;
use crate::core::geometry::Geometry;
use crate::tb::TbRules;
use crate::tb::error::TbError;
use crate::tb::index::MIN_PIECES;
use crate::tb::nmove::NMoveLimits;
use crate::tb::placing::{DRAW, LAYERS, LOSS, Layer, WIN};
use crate::tb::value::{self, Value};

/// Where a packed folder's bytes come from: the storage seam under the
/// reader (a folder on disk, or a host's fetches over HTTP).
pub trait PackSource: Send + Sync {
    /// `len` bytes of file `name` from `offset` (`len` `None`: the whole
    /// file). `Ok(None)`: not at hand yet, and asked for (a host that
    /// fetches them will have them next time); `Err`: they cannot be had.
    fn read(&self, name: &str, offset: u64, len: Option<u64>) -> Result<Option<Vec<u8>>, String>;

    /// What to call the source in messages (a folder, a URL).
    fn describe(&self) -> String;

    /// Fetches what reads have asked for and not had (a host's source);
    /// whether there was any. A folder has everything at hand: `false`.
    fn fetch_wanted(&self) -> bool {
        false
    }
}

/// What makes a source for a packed folder's URL, where the host fetches
/// over HTTP (set once by the WebAssembly module's host).
static URL_SOURCES: OnceLock<MakeSource> = OnceLock::new();

/// What makes the source of a packed folder from its URL.
pub type MakeSource = fn(&str) -> Arc<dyn PackSource>;

/// Lets URLs name packed folders, fetched by `make`'s sources (once;
/// later calls change nothing).
pub fn serve_urls_with(make: MakeSource) {
    let _ = URL_SOURCES.set(make);
}

/// Whether `path` is a URL (`http://` or `https://`).
pub fn is_url(path: &str) -> bool {
    let lower = path.trim().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The source of the packed folder at `url`, where the host can fetch
/// one.
pub fn url_source(url: &str) -> Option<Arc<dyn PackSource>> {
    URL_SOURCES.get().map(|make| make(url.trim()))
}

/// A packed folder on disk.
#[cfg(not(target_family = "wasm"))]
#[derive(Debug)]
pub struct FolderSource {
    dir: std::path::PathBuf,
}

#[cfg(not(target_family = "wasm"))]
impl FolderSource {
    pub fn new(dir: &std::path::Path) -> FolderSource {
        FolderSource {
            dir: dir.to_path_buf(),
        }
    }
}

#[cfg(not(target_family = "wasm"))]
impl PackSource for FolderSource {
    fn read(&self, name: &str, offset: u64, len: Option<u64>) -> Result<Option<Vec<u8>>, String> {
        use std::io::{Read, Seek, SeekFrom};
        let path = self.dir.join(name);
        let fail = |e: std::io::Error| format!("{}: {e}", path.display());
        let mut f = std::fs::File::open(&path).map_err(fail)?;
        f.seek(SeekFrom::Start(offset)).map_err(fail)?;
        let mut bytes = Vec::new();
        match len {
            None => {
                f.read_to_end(&mut bytes).map_err(fail)?;
            }
            Some(n) => {
                bytes.resize(n as usize, 0);
                f.read_exact(&mut bytes).map_err(fail)?;
            }
        }
        Ok(Some(bytes))
    }

    fn describe(&self) -> String {
        self.dir.display().to_string()
    }
}

/// Where the problems found go (one sentence each).
pub type Notify = Arc<dyn Fn(&str) + Send + Sync>;

/// A stored table's index, once fetched and checked.
struct TableIndex {
    priors: Priors,
    /// Each block's data file, offset and length.
    locations: Vec<(u32, u64, u32)>,
    hashes: Vec<[u8; format::BLOCK_HASH_BYTES]>,
}

struct PackedTable {
    layout: Layout,
    stored: Option<format::Stored>,
    index: OnceLock<TableIndex>,
    /// Its index region failed its checksum (told once).
    bad: AtomicBool,
    /// Its decoded blocks, while the cache keeps them.
    decoded: Vec<Mutex<Option<Arc<[u8]>>>>,
}

/// Which decoded blocks the cache keeps, the oldest dropped first once
/// they pass the limit.
struct Cache {
    order: VecDeque<(TableId, u64)>,
    bytes: usize,
    limit: usize,
}

/// A block a thread used lately: the pack's number, the table, the
/// block.
type Recent = (u64, TableId, u64, Arc<[u8]>);

thread_local! {
    /// Each thread's blocks used lately, by table (most probes of a
    /// search or a check fall in a block just used).
    static RECENT: RefCell<Vec<Option<Recent>>> = RefCell::new(vec![None; 64]);
}

/// Each open pack's number, for [`RECENT`].
static PACKS: AtomicU64 = AtomicU64::new(0);

fn recent_slot(pack: u64, id: TableId) -> usize {
    let t = match id {
        TableId::Moving { own, opp } => usize::from(own) * 10 + usize::from(opp),
        TableId::Placing { k, .. } => 100 + usize::from(k),
    };
    (t + pack as usize * 7) % 64
}

/// The bytes of decoded blocks kept, unless told otherwise.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// A packed folder, open.
pub struct Packed {
    number: u64,
    source: Arc<dyn PackSource>,
    manifest: Manifest,
    rules: TbRules,
    limits: NMoveLimits,
    board: Board,
    g: &'static Geometry,
    tables: HashMap<TableId, PackedTable>,
    /// Each placing layer's table, if the pack has it.
    layers: Vec<Option<TableId>>,
    cache: Mutex<Cache>,
    /// Blocks that failed their checksum, told once each.
    bad_blocks: Mutex<HashSet<(TableId, u64)>>,
    notify: Option<Notify>,
}

impl std::fmt::Debug for Packed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Packed")
            .field("source", &self.source.describe())
            .field("tables", &self.tables.len())
            .finish_non_exhaustive()
    }
}

/// The value of a move for the side that plays it, from the value of
/// the position it leads to (for the side then to move), with the
/// distance to the next removal (a removal restarts it: the move's value
/// is then at 1).
#[inline]
fn backed_up(child: Value, removed: bool) -> Value {
    match (child, removed) {
        (Value::Draw, _) => Value::Draw,
        (Value::Loss(_), true) => Value::Win(1),
        (Value::Win(_), true) => Value::Loss(1),
        (Value::Loss(z), false) => Value::Win(z.saturating_add(1)),
        (Value::Win(z), false) => Value::Loss(z.saturating_add(1)),
    }
}

/// Whether `a` is better than `b` for the side to move: a win sooner, a
/// draw, a loss later.
#[inline]
fn better(a: Value, b: Value) -> bool {
    let rank = |v: Value| match v {
        Value::Win(z) => (2, -i32::from(z)),
        Value::Draw => (1, 0),
        Value::Loss(z) => (0, i32::from(z)),
    };
    rank(a) > rank(b)
}

impl Packed {
    /// Opens the packed folder `source` holds: reads and checks its
    /// manifest (nothing else until a probe needs it).
    pub fn open(source: Arc<dyn PackSource>, notify: Option<Notify>) -> Result<Packed, TbError> {
        let mut bytes = source.read(MANIFEST, 0, None).map_err(TbError::Unusable)?;
        if bytes.is_none() && source.fetch_wanted() {
            bytes = source.read(MANIFEST, 0, None).map_err(TbError::Unusable)?;
        }
        let bytes = bytes.ok_or_else(|| {
            TbError::Unusable(format!(
                "{}: the manifest could not be had",
                source.describe()
            ))
        })?;
        Packed::with_manifest(source, &bytes, notify)
    }

    /// Runs `probe` until every block it reads is at hand: after each run
    /// the source fetches what it asked for (all at once, where a host
    /// fetches them), at most four times (the indexes, then the blocks
    /// they locate). A folder's probe runs once.
    pub fn settled<R>(&self, probe: impl Fn() -> R) -> R {
        for _ in 0..4 {
            let r = probe();
            if !self.source.fetch_wanted() {
                return r;
            }
        }
        probe()
    }

    /// Opens a packed folder whose manifest's bytes are at hand.
    pub fn with_manifest(
        source: Arc<dyn PackSource>,
        manifest: &[u8],
        notify: Option<Notify>,
    ) -> Result<Packed, TbError> {
        let manifest = Manifest::parse(manifest)?;
        let rules = manifest.rules();
        let mut tables = HashMap::new();
        for t in &manifest.tables {
            let id = TableId::parse(&t.name).ok_or_else(|| {
                TbError::Unusable(format!("{MANIFEST}: a table named `{}`", t.name))
            })?;
            let layout = Layout::of(id);
            if let Some(s) = &t.stored {
                if s.slots != layout.slots
                    || s.blocks != layout.slots.div_ceil(manifest.block_slots)
                {
                    return Err(TbError::Unusable(format!(
                        "{MANIFEST}: table {} has {} slots in {} blocks, not {}",
                        t.name, s.slots, s.blocks, layout.slots
                    )));
                }
            }
            let blocks = t.stored.as_ref().map_or(0, |s| s.blocks as usize);
            tables.insert(
                id,
                PackedTable {
                    layout,
                    stored: t.stored.clone(),
                    index: OnceLock::new(),
                    bad: AtomicBool::new(false),
                    decoded: (0..blocks).map(|_| Mutex::new(None)).collect(),
                },
            );
        }
        let mut layers = vec![None; LAYERS as usize];
        for &id in tables.keys() {
            if let TableId::Placing { k, .. } = id {
                layers[k as usize] = Some(id);
            }
        }
        Ok(Packed {
            layers,
            number: PACKS.fetch_add(1, Relaxed),
            source,
            limits: manifest.limits(),
            board: Board::of(rules),
            g: Geometry::get(rules.diagonals),
            rules,
            manifest,
            tables,
            cache: Mutex::new(Cache {
                order: VecDeque::new(),
                bytes: 0,
                limit: DEFAULT_CACHE_BYTES,
            }),
            bad_blocks: Mutex::new(HashSet::new()),
            notify,
        })
    }

    /// Keeps at most `bytes` of decoded blocks.
    pub fn set_cache_bytes(&self, bytes: usize) {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).limit = bytes;
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn tb_rules(&self) -> TbRules {
        self.rules
    }

    /// The N-move limits the values are under.
    pub fn limits(&self) -> NMoveLimits {
        self.limits
    }

    pub fn describe(&self) -> String {
        self.source.describe()
    }

    /// Whether the pack has the table (stored or derived).
    pub fn has(&self, id: TableId) -> bool {
        self.tables.contains_key(&id)
    }

    /// The number of tables, stored and derived.
    pub fn table_count(&self) -> usize {
        self.tables.len()
    }

    /// Fetches and checks every stored table's index: how many tables
    /// (stored and derived) may be used, and what is wrong with the others
    /// (each also told). An index not at hand yet counts as usable.
    pub fn check_indexes(&self) -> (usize, Vec<String>) {
        let mut problems = Vec::new();
        for (&id, table) in &self.tables {
            if table.stored.is_some() && self.index(id, table).is_none() && table.bad.load(Relaxed)
            {
                problems.push(format!(
                    "table {} of {}: its index is not used",
                    id.name(),
                    self.describe()
                ));
            }
        }
        (self.tables.len() - problems.len(), problems)
    }

    fn tell(&self, what: &str) {
        if let Some(n) = &self.notify {
            n(what);
        }
    }

    /// The stored table's index, fetched and checked on first use.
    fn index<'a>(&self, id: TableId, table: &'a PackedTable) -> Option<&'a TableIndex> {
        if let Some(ix) = table.index.get() {
            return Some(ix);
        }
        let stored = table.stored.as_ref()?;
        if table.bad.load(Relaxed) {
            return None;
        }
        let region = &stored.index;
        let bytes = match self
            .source
            .read(format::INDEX, region.offset, Some(region.len))
        {
            Ok(Some(b)) => b,
            Ok(None) => return None,
            Err(e) => {
                if !table.bad.swap(true, Relaxed) {
                    self.tell(&format!("{e}: table {} is not used", id.name()));
                }
                return None;
            }
        };
        let parsed = if format::sha256_hex(&bytes) != region.sha256 {
            Err("its checksum fails".to_string())
        } else {
            Index::parse(&bytes).and_then(|ix| {
                if ix.blocks.len() as u64 == stored.blocks {
                    Ok(ix)
                } else {
                    Err("it lists other blocks than the manifest".into())
                }
            })
        };
        match parsed {
            Ok(ix) => {
                let locations = ix.locations(stored, self.manifest.max_file_bytes);
                let hashes = ix.blocks.iter().map(|b| b.hash).collect();
                let _ = table.index.set(TableIndex {
                    priors: ix.priors,
                    locations,
                    hashes,
                });
                table.index.get()
            }
            Err(e) => {
                if !table.bad.swap(true, Relaxed) {
                    self.tell(&format!(
                        "{}: the index of table {} is not used: {e}",
                        self.source.describe(),
                        id.name()
                    ));
                }
                None
            }
        }
    }

    /// Block `b` of a stored table, decoded (from the cache, or fetched,
    /// checked and decoded).
    fn block(&self, id: TableId, table: &PackedTable, b: u64) -> Option<Arc<[u8]>> {
        let slot = recent_slot(self.number, id);
        let recent = RECENT.with(|r| match &r.borrow()[slot] {
            Some((n, t, at, block)) if *n == self.number && *t == id && *at == b => {
                Some(Arc::clone(block))
            }
            _ => None,
        });
        if recent.is_some() {
            return recent;
        }
        let kept = table
            .decoded
            .get(b as usize)?
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let block = match kept {
            Some(block) => block,
            None => self.decode(id, table, b)?,
        };
        RECENT.with(|r| r.borrow_mut()[slot] = Some((self.number, id, b, Arc::clone(&block))));
        Some(block)
    }

    /// Fetches, checks and decodes block `b` of a stored table, and keeps
    /// it in the cache.
    fn decode(&self, id: TableId, table: &PackedTable, b: u64) -> Option<Arc<[u8]>> {
        let ix = self.index(id, table)?;
        let &(file, offset, len) = ix.locations.get(b as usize)?;
        if self
            .bad_blocks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&(id, b))
        {
            return None;
        }
        let name = format::data_file(file);
        let bytes = match self.source.read(&name, offset, Some(u64::from(len))) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return None,
            Err(e) => {
                self.refuse_block(id, b, &e);
                return None;
            }
        };
        if format::block_hash(&bytes) != ix.hashes[b as usize] {
            self.refuse_block(
                id,
                b,
                &format!(
                    "{}: block {b} of table {} fails its checksum",
                    self.source.describe(),
                    id.name()
                ),
            );
            return None;
        }
        let block_slots = self.manifest.block_slots;
        let range = b * block_slots..((b + 1) * block_slots).min(table.layout.slots);
        let mut slots = vec![0u8; (range.end - range.start) as usize];
        let mut coding = Coding::new(Decoder::new(&bytes), &ix.priors);
        walk(&mut coding, &table.layout, self.board, range, &mut slots);
        let block: Arc<[u8]> = slots.into();
        let mut kept = table.decoded[b as usize]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(other) = &*kept {
            // Another thread decoded it meanwhile.
            return Some(Arc::clone(other));
        }
        *kept = Some(Arc::clone(&block));
        drop(kept);
        self.keep(id, b, block.len());
        Some(block)
    }

    /// Counts a block just decoded into the cache, and drops the oldest
    /// while the cache holds more than its limit.
    fn keep(&self, id: TableId, b: u64, bytes: usize) {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.order.push_back((id, b));
        cache.bytes += bytes;
        while cache.bytes > cache.limit && cache.order.len() > 1 {
            let Some((old_id, old_b)) = cache.order.pop_front() else {
                break;
            };
            if let Some(t) = self.tables.get(&old_id) {
                let dropped = t.decoded[old_b as usize]
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take();
                if let Some(block) = dropped {
                    cache.bytes = cache.bytes.saturating_sub(block.len());
                }
            }
        }
    }

    #[cold]
    fn refuse_block(&self, id: TableId, b: u64, what: &str) {
        let first = self
            .bad_blocks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((id, b));
        if first {
            self.tell(&format!(
                "{what}: its positions have no value (play goes on by search)"
            ));
        }
    }

    /// The byte a stored table keeps for `own` to move against `opp`.
    fn stored_byte(
        &self,
        id: TableId,
        table: &PackedTable,
        own: Bitboard,
        opp: Bitboard,
    ) -> Option<u8> {
        let slot = table.layout.slot(own, opp)?;
        let block_slots = self.manifest.block_slots;
        let block = self.block(id, table, slot / block_slots)?;
        block.get((slot % block_slots) as usize).copied()
    }

    /// The moving-phase value of `own` to move against `opp` from a
    /// counter of 0, under the pack's limits (a `.wdz` file's value:
    /// the distance is to the next removal).
    pub fn moving(&self, own: Bitboard, opp: Bitboard) -> Option<Value> {
        let id = TableId::Moving {
            own: own.count() as u8,
            opp: opp.count() as u8,
        };
        let table = self.tables.get(&id)?;
        if table.stored.is_some() {
            return self.stored_byte(id, table, own, opp).map(value::wdz_decode);
        }
        self.derived_moving(own, opp)
    }

    /// The pieces of `opp` a mill may take.
    fn removable(&self, opp: Bitboard) -> Bitboard {
        if self.rules.remove_from_mills_always {
            return opp;
        }
        let free = opp & !self.g.pieces_in_mills(opp);
        if free.nonempty() { free } else { opp }
    }

    fn flies(&self, pieces: Bitboard) -> bool {
        self.rules.flying && pieces.count() == u32::from(self.rules.fly_at)
    }

    /// A derived moving-phase value: the best of the moves, each valued
    /// by the position it leads to (after a quiet move at a counter of 1,
    /// where the limit is one ply nearer; after a removal at 0). Every
    /// move is looked at even once one has no value, so that a host sees
    /// every block the position needs at once.
    fn derived_moving(&self, own: Bitboard, opp: Bitboard) -> Option<Value> {
        let g = self.g;
        let empty = !(own | opp);
        let fly = self.flies(own);
        let limit = self.limits.limit(own.count(), opp.count());
        let mut best: Option<Value> = None;
        let mut unknown = false;
        let mut moved = false;
        for from in own {
            let targets = if fly {
                empty
            } else {
                g.adjacent[from.index()] & empty
            };
            for to in targets {
                moved = true;
                let after = own.without(from).with(to);
                let values: Vec<Option<Value>> = if g.in_mill(to, after) {
                    self.removable(opp)
                        .into_iter()
                        .map(|x| {
                            let left = opp.without(x);
                            if left.count() < u32::from(MIN_PIECES) {
                                Some(Value::Win(1))
                            } else {
                                self.moving(left, after).map(|v| backed_up(v, true))
                            }
                        })
                        .collect()
                } else {
                    let child = self.moving(opp, after).map(|v| match (v, limit) {
                        // One ply nearer the limit, a win or loss that
                        // needs all of it is a draw.
                        (Value::Win(z) | Value::Loss(z), Some(n)) if u16::from(z) >= n => {
                            Value::Draw
                        }
                        _ => v,
                    });
                    vec![child.map(|v| backed_up(v, false))]
                };
                for v in values {
                    match v {
                        Some(Value::Win(1)) => return Some(Value::Win(1)),
                        Some(v) if best.is_none_or(|b| better(v, b)) => best = Some(v),
                        Some(_) => {}
                        None => unknown = true,
                    }
                }
            }
        }
        if !moved {
            return Some(Value::Loss(0));
        }
        if unknown { None } else { best }
    }

    /// The two-bit code (`placing::WIN`, `DRAW`, `LOSS`) of a placing
    /// position of layer `k`: `own` (the side to move) against `opp` on
    /// the board.
    pub fn placing(&self, k: u8, own: Bitboard, opp: Bitboard) -> Option<u8> {
        let id = *self.layers.get(k as usize)?.as_ref()?;
        let table = self.tables.get(&id)?;
        if table.stored.is_some() {
            return self.stored_byte(id, table, own, opp);
        }
        self.derived_placing(k, own, opp)
    }

    /// A derived placing value: the best placement, each valued by what
    /// it leads into (the next layer, or the moving phase at a counter of
    /// 0 after the last one).
    fn derived_placing(&self, k: u8, own: Bitboard, opp: Bitboard) -> Option<u8> {
        let (_, opp_hand) = Layer::full(k).hands();
        let empty = !(own | opp);
        let next = |o: Bitboard, p: Bitboard| -> Option<u8> {
            if k + 1 < LAYERS {
                self.placing(k + 1, o, p)
            } else {
                self.moving(o, p).map(|v| match v {
                    Value::Win(_) => WIN,
                    Value::Loss(_) => LOSS,
                    Value::Draw => DRAW,
                })
            }
        };
        let (mut draw, mut unknown) = (false, false);
        for p in empty {
            let placed = own.with(p);
            let replies: Vec<Option<u8>> = if self.g.in_mill(p, placed) {
                self.removable(opp)
                    .into_iter()
                    .map(|x| {
                        let left = opp.without(x);
                        if left.count() + u32::from(opp_hand) < 3 {
                            Some(LOSS)
                        } else {
                            next(left, placed)
                        }
                    })
                    .collect()
            } else {
                vec![next(opp, placed)]
            };
            for r in replies {
                match r {
                    Some(LOSS) => return Some(WIN),
                    Some(DRAW) => draw = true,
                    Some(_) => {}
                    None => unknown = true,
                }
            }
        }
        match (unknown, draw) {
            (true, _) => None,
            (false, true) => Some(DRAW),
            (false, false) => Some(LOSS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_back_up_and_rank_as_the_builder_does() {
        assert_eq!(backed_up(Value::Loss(4), false), Value::Win(5));
        assert_eq!(backed_up(Value::Loss(4), true), Value::Win(1));
        assert_eq!(backed_up(Value::Win(7), false), Value::Loss(8));
        assert_eq!(backed_up(Value::Win(7), true), Value::Loss(1));
        assert!(better(Value::Win(3), Value::Win(5)));
        assert!(better(Value::Draw, Value::Loss(90)));
        assert!(better(Value::Loss(9), Value::Loss(2)));
        assert!(!better(Value::Loss(9), Value::Draw));
    }
}
