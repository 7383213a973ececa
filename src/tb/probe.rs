//! The value of a position from the databases, a moving-phase subspace's
//! file or a placing layer's: tables are memory-mapped on first use, so
//! opening a directory costs nothing.
//!
//! Tables opened for play ([`Tablebases::for_play`]) are trusted only
//! after their checksum has passed, which a background thread checks once
//! for every file ([`Tablebases::start_checks`]); until then, and for
//! good once a file fails, a probe of its positions finds nothing. Each
//! problem (a damaged file, a missing one that a probe needed, a file
//! changed on disk) is told once through the `notify` callback.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use super::error::TbError;
use super::format::{self, Kind};
use super::index::{MAX_PIECES, MIN_PIECES, Subspace, plan};
use super::mapped::MappedTable;
use super::nmove::{NMoveLimits, TbValue};
use super::placing::{LAYERS, Layer, PlacingLoaded};
use super::rules::TbRules;
use super::trust::Checked;
use super::value::{self, Value};
use crate::core::{Bitboard, Position, Rules};

/// One opened table with its index.
pub struct Loaded {
    pub sub: Subspace,
    pub table: MappedTable,
}

impl Loaded {
    /// The value of `own` to move against `opp` (counts as the table's).
    #[inline]
    pub fn value(&self, own: Bitboard, opp: Bitboard) -> Value {
        Value::decode(self.byte(own, opp))
    }

    /// The slot byte of `own` to move against `opp`.
    #[inline]
    pub fn byte(&self, own: Bitboard, opp: Bitboard) -> u8 {
        self.table.slots()[self.sub.index(own, opp) as usize]
    }
}

const SIDE: usize = MAX_PIECES as usize + 1;

/// Whether a table may serve play.
const UNCHECKED: u8 = 0;
const TRUSTED: u8 = 1;
const BAD: u8 = 2;

/// Whether a subspace's `.dtz` values are exact under the limits.
const EXACT_UNKNOWN: u8 = 0;
const EXACT: u8 = 1;
const NOT_EXACT: u8 = 2;

/// Where the problems found go (one sentence each).
pub type Notify = Arc<dyn Fn(&str) + Send + Sync>;

/// One table's slot: opened on first use, trusted once checked.
struct Entry<T> {
    cell: OnceLock<Result<T, TbError>>,
    state: AtomicU8,
    /// Whether its problem has been told.
    told: AtomicBool,
}

/// An opened table of either phase.
trait Mapped {
    fn mapped(&self) -> &MappedTable;
}

impl Mapped for Loaded {
    fn mapped(&self) -> &MappedTable {
        &self.table
    }
}

impl Mapped for PlacingLoaded {
    fn mapped(&self) -> &MappedTable {
        &self.table
    }
}

/// A database file: a moving-phase subspace's, or a placing layer's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FileId {
    Moving(Kind, u8, u8),
    Placing(u8),
}

impl<T> Entry<T> {
    fn new() -> Entry<T> {
        Entry {
            cell: OnceLock::new(),
            state: AtomicU8::new(UNCHECKED),
            told: AtomicBool::new(false),
        }
    }
}

/// The databases in one directory, for one set of rules.
pub struct Tablebases {
    dir: PathBuf,
    rules: TbRules,
    limits: NMoveLimits,
    /// Whether a table must pass its checksum before play uses it.
    checked: bool,
    tb: Vec<Entry<Loaded>>,
    dtz: Vec<Entry<Loaded>>,
    /// The `.wdz` files for `limits`, used before the other two.
    wdz: Vec<Entry<Loaded>>,
    /// The placing layers, by placements made.
    place: Vec<Entry<PlacingLoaded>>,
    /// Per subspace: whether its `.dtz` values are exact under `limits`.
    exact: Vec<AtomicU8>,
    notify: Option<Notify>,
    /// The kinds of file (bits: 1 `.dtz`, 2 placing) found missing as a
    /// whole.
    told_kinds: AtomicU8,
    /// Whether a background check is under way.
    checking: AtomicBool,
    /// Set when the background check has looked at every file.
    checks_done: (Mutex<bool>, Condvar),
    /// How far the check has come.
    progress: Progress,
}

/// The check's counters.
#[derive(Debug, Default)]
struct Progress {
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

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("dir", &self.dir)
            .field("rules", &self.rules)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// The slot of subspace `own-opp` in the per-subspace vectors.
#[inline]
fn at(own: u32, opp: u32) -> usize {
    own as usize * SIDE + opp as usize
}

impl Tablebases {
    /// The databases in `dir`, without N-move rules and without the
    /// checksum gate (for the builder, `verify` and `stats`); nothing is
    /// read until a probe needs it.
    pub fn new(dir: &Path, rules: TbRules) -> Tablebases {
        Tablebases::with(dir, rules, NMoveLimits::NONE, false, None)
    }

    fn with(
        dir: &Path,
        rules: TbRules,
        limits: NMoveLimits,
        checked: bool,
        notify: Option<Notify>,
    ) -> Tablebases {
        Tablebases {
            dir: dir.to_path_buf(),
            rules,
            limits,
            checked,
            tb: (0..SIDE * SIDE).map(|_| Entry::new()).collect(),
            dtz: (0..SIDE * SIDE).map(|_| Entry::new()).collect(),
            wdz: (0..SIDE * SIDE).map(|_| Entry::new()).collect(),
            place: (0..LAYERS).map(|_| Entry::new()).collect(),
            exact: (0..SIDE * SIDE).map(|_| AtomicU8::new(0)).collect(),
            notify,
            told_kinds: AtomicU8::new(0),
            checking: AtomicBool::new(false),
            checks_done: (Mutex::new(true), Condvar::new()),
            progress: Progress::default(),
        }
    }

    /// The databases in `dir` under `limits`, without the checksum gate
    /// (for builds and checks that read values under N-move rules).
    pub fn under(dir: &Path, rules: TbRules, limits: NMoveLimits) -> Tablebases {
        Tablebases::with(dir, rules, limits, false, None)
    }

    /// The databases in `dir` for play under `rules` (their moving-phase
    /// rules and N-move limits): every table is used only once its
    /// checksum has passed (call [`Tablebases::start_checks`]). An error
    /// when the rules have no databases, or the directory holds no file
    /// of them.
    pub fn for_play(
        dir: &Path,
        rules: &Rules,
        notify: Option<Notify>,
    ) -> Result<Tablebases, TbError> {
        let tb_rules = TbRules::from_rules(rules)?;
        let tables = Tablebases::with(dir, tb_rules, NMoveLimits::of(rules), true, notify);
        if !dir.is_dir() {
            return Err(TbError::Unusable(format!(
                "{}: no such directory",
                dir.display()
            )));
        }
        if tables.files().is_empty() {
            return Err(TbError::Unusable(format!(
                "{}: no database files",
                dir.display()
            )));
        }
        Ok(tables)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The moving-phase rules the tables were opened for.
    pub fn tb_rules(&self) -> TbRules {
        self.rules
    }

    /// The N-move limits the values are given under.
    pub fn limits(&self) -> NMoveLimits {
        self.limits
    }

    /// Whether `rules` are the rules these tables were built for.
    pub fn fits(&self, rules: &Rules) -> bool {
        TbRules::from_rules(rules).is_ok_and(|r| r == self.rules)
    }

    fn entries(&self, kind: Kind) -> &[Entry<Loaded>] {
        match kind {
            Kind::ToEnd | Kind::Placing => &self.tb,
            Kind::ToRemoval => &self.dtz,
            Kind::UnderRule => &self.wdz,
        }
    }

    /// The `.tb` table of subspace `own-opp`, opened on first use (checked
    /// or not).
    pub fn table(&self, own: u8, opp: u8) -> Result<&Loaded, &TbError> {
        self.loaded(Kind::ToEnd, own, opp)
    }

    /// The `.dtz` table of subspace `own-opp`, opened on first use.
    pub fn dtz_table(&self, own: u8, opp: u8) -> Result<&Loaded, &TbError> {
        self.loaded(Kind::ToRemoval, own, opp)
    }

    /// The `.wdz` table of subspace `own-opp` for these limits, opened on
    /// first use.
    pub fn wdz_table(&self, own: u8, opp: u8) -> Result<&Loaded, &TbError> {
        self.loaded(Kind::UnderRule, own, opp)
    }

    fn loaded(&self, kind: Kind, own: u8, opp: u8) -> Result<&Loaded, &TbError> {
        if !(MIN_PIECES..=MAX_PIECES).contains(&own) || !(MIN_PIECES..=MAX_PIECES).contains(&opp) {
            // Only reached for counts outside 3..=9; keep it an error.
            static BAD_COUNTS: OnceLock<TbError> = OnceLock::new();
            return Err(BAD_COUNTS.get_or_init(|| TbError::BadSubspace("out of range".into())));
        }
        // The subspace (and its shared reference count, which every
        // probe of two threads would otherwise bump on one cache line:
        // two thirds of a placing layer's verify) only on first use.
        self.entries(kind)[at(own as u32, opp as u32)]
            .cell
            .get_or_init(|| {
                let sub = Subspace::new(own, opp).expect("counts checked above");
                let table = match kind {
                    // The file built for these limits, if there is one.
                    Kind::ToRemoval if self.limits != NMoveLimits::NONE => {
                        match MappedTable::open_dtz(&self.dir, own, opp, self.rules, self.limits) {
                            Err(TbError::Missing(_)) => {
                                MappedTable::open_kind(&self.dir, kind, own, opp, self.rules)
                            }
                            other => other,
                        }
                    }
                    Kind::UnderRule => {
                        MappedTable::open_wdz(&self.dir, own, opp, self.rules, self.limits)
                    }
                    _ => MappedTable::open_kind(&self.dir, kind, own, opp, self.rules),
                }?;
                Ok(Loaded { sub, table })
            })
            .as_ref()
    }

    /// The table if play may use it: opened, and checked where the
    /// checksum gate applies. A missing or unusable table is told once.
    #[inline]
    fn usable(&self, kind: Kind, own: u32, opp: u32) -> Option<&Loaded> {
        let entry = &self.entries(kind)[at(own, opp)];
        self.gate(entry, FileId::Moving(kind, own as u8, opp as u8), || {
            self.loaded(kind, own as u8, opp as u8)
        })
    }

    /// The placing layer `k` if play may use it (see `usable`).
    #[inline]
    fn usable_layer(&self, k: u8) -> Option<&PlacingLoaded> {
        let entry = &self.place[k as usize];
        self.gate(entry, FileId::Placing(k), || self.layer(k))
    }

    /// The placing layer `k`, opened on first use (checked or not).
    pub fn layer(&self, k: u8) -> Result<&PlacingLoaded, &TbError> {
        self.place[k as usize]
            .cell
            .get_or_init(|| PlacingLoaded::open(&self.dir, self.rules, k))
            .as_ref()
    }

    #[inline]
    fn gate<'a, T>(
        &'a self,
        entry: &'a Entry<T>,
        id: FileId,
        open: impl FnOnce() -> Result<&'a T, &'a TbError>,
    ) -> Option<&'a T> {
        let state = entry.state.load(Acquire);
        if state == BAD || (self.checked && state != TRUSTED) {
            if state == UNCHECKED && !self.checks_running() {
                // No background check will come: a table that was not
                // there when it ran (or a gate without one).
                self.tell_missing(entry, id);
            }
            return None;
        }
        match open() {
            Ok(t) => Some(t),
            Err(_) => {
                self.tell_missing(entry, id);
                None
            }
        }
    }

    fn path_of(&self, id: FileId) -> PathBuf {
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
            FileId::Placing(k) => super::placing::file_name(k),
        })
    }

    #[cold]
    fn tell_missing<T>(&self, entry: &Entry<T>, id: FileId) {
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
    fn none_of(&self, id: FileId) -> bool {
        let same = |f: &FileId| match (f, id) {
            (FileId::Placing(_), FileId::Placing(_)) => true,
            (FileId::Moving(a, ..), FileId::Moving(b, ..)) => *a == b,
            _ => false,
        };
        !self.files().iter().any(same)
    }

    fn tell(&self, what: &str) {
        if let Some(notify) = &self.notify {
            notify(what);
        }
    }

    /// The `.tb` value of `own` to move against `opp`, if play may use
    /// its table.
    #[inline]
    pub fn probe_sets(&self, own: Bitboard, opp: Bitboard) -> Result<Value, &TbError> {
        let t = self.table(own.count() as u8, opp.count() as u8)?;
        Ok(t.value(own, opp))
    }

    /// The moving-phase sets of a position (both hands empty, no removal
    /// owed, 3 to 9 pieces a side): side to move's first.
    #[inline]
    fn moving_sets(pos: &Position) -> Option<(Bitboard, Bitboard)> {
        let us = pos.side_to_move();
        let them = us.opponent();
        if pos.in_hand(us) > 0 || pos.in_hand(them) > 0 || pos.pending_removals() > 0 {
            return None;
        }
        let (own, opp) = (pos.pieces(us), pos.pieces(them));
        let range = MIN_PIECES as u32..=MAX_PIECES as u32;
        (range.contains(&own.count()) && range.contains(&opp.count())).then_some((own, opp))
    }

    /// The `.tb` value of a position for the side to move (without N-move
    /// rules), if it is in the moving phase and play may use its table.
    /// The rules must be the tables' (the caller checks once with
    /// `TbRules::from_rules`).
    #[inline]
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        if !self.settled() {
            return None;
        }
        let (own, opp) = Tablebases::moving_sets(pos)?;
        let t = self.usable(Kind::ToEnd, own.count(), opp.count())?;
        Some(t.value(own, opp))
    }

    /// A position's value under the N-move limits these tables were
    /// opened with, from its counter, if the databases hold it.
    #[inline]
    pub fn value(&self, pos: &Position) -> Option<TbValue> {
        if !self.settled() {
            return None;
        }
        if pos.is_placing() {
            return self.placing_value(pos);
        }
        let (own, opp) = Tablebases::moving_sets(pos)?;
        let (w, b) = (own.count(), opp.count());
        if let Some(z) = self.wdz_usable(w, b) {
            let pure = self.peek(Kind::ToEnd, w, b).map(|t| t.value(own, opp));
            let v = value::wdz_decode(z.byte(own, opp));
            let limit = self.limits.limit(w, b);
            return Some(TbValue::under_rule(v, pure, pos.rule50(), limit));
        }
        let t = self.usable(Kind::ToEnd, w, b)?;
        let pure = t.value(own, opp);
        if pure == Value::Draw {
            return Some(TbValue::combine(pure, None, 0, None, true, self.limits));
        }
        let exact = self.exact(w, b);
        let limit = self.limits.limit(w, b);
        let dtz = match (exact, limit) {
            (true, Some(_)) => self.usable(Kind::ToRemoval, w, b),
            _ => None,
        };
        let to_removal = dtz.and_then(|z| value::dtz_decode(z.byte(own, opp)));
        if dtz.is_some() && to_removal.is_none() {
            // A file for these limits leaves the wins and losses the rule
            // draws at every counter undecided.
            return Some(TbValue::drawn_at_every_counter(pure));
        }
        Some(TbValue::combine(
            pure,
            to_removal,
            pos.rule50(),
            limit,
            exact,
            self.limits,
        ))
    }

    /// The `.wdz` table of `own-opp` for these limits, if play may use it
    /// (none without limits, and none told missing where the directory
    /// has no `.wdz` file: the `.tb` and `.dtz` files serve).
    #[inline]
    fn wdz_usable(&self, own: u32, opp: u32) -> Option<&Loaded> {
        if self.limits == NMoveLimits::NONE || self.told_kinds.load(Relaxed) & 4 != 0 {
            return None;
        }
        self.usable(Kind::UnderRule, own, opp)
    }

    /// The table if play may use it, without telling anything when it
    /// cannot (a `.tb` value shown beside a `.wdz` one).
    #[inline]
    fn peek(&self, kind: Kind, own: u32, opp: u32) -> Option<&Loaded> {
        let entry = &self.entries(kind)[at(own, opp)];
        let state = entry.state.load(Acquire);
        if state == BAD || (self.checked && state != TRUSTED) {
            return None;
        }
        self.loaded(kind, own as u8, opp as u8).ok()
    }

    /// A placing position's value, if its layer's file is in use and holds
    /// its sector.
    #[inline]
    fn placing_value(&self, pos: &Position) -> Option<TbValue> {
        let layer = Layer::of(pos)?;
        let t = self.usable_layer(layer.k)?;
        let us = pos.side_to_move();
        let code = t.code(pos.pieces(us), pos.pieces(us.opponent()))?;
        let sign = super::placing::wdl(code);
        // The layers are exact under the limits they were built for.
        Some(TbValue::placing(sign, t.table.header.limits == self.limits))
    }

    /// Whether the `.dtz` values of subspace `own-opp` are exact under the
    /// limits: every subspace a removal leads into (from either side to
    /// move, and on down) has no position that the rules draw from a
    /// counter of 0, as its `.dtz` header's longest distances show.
    #[inline]
    fn exact(&self, own: u32, opp: u32) -> bool {
        match self.exact[at(own, opp)].load(Relaxed) {
            EXACT => true,
            NOT_EXACT => false,
            _ => self.find_exact(own, opp),
        }
    }

    #[cold]
    fn find_exact(&self, own: u32, opp: u32) -> bool {
        // A file built for these limits is exact by construction.
        let own_file = &self.dtz[at(own, opp)];
        let settled =
            !(self.checked && own_file.state.load(Acquire) == UNCHECKED && self.checks_running());
        let for_limits = settled
            && self.limits != NMoveLimits::NONE
            && self
                .usable(Kind::ToRemoval, own, opp)
                .is_some_and(|t| t.table.header.limits == self.limits);
        if for_limits {
            self.exact[at(own, opp)].store(EXACT, Relaxed);
            return true;
        }
        let mut known = settled;
        let mut exact = true;
        for (a, b) in plan(&[(own as u8, opp as u8)]) {
            if (a as u32, b as u32) == (own.max(opp), own.min(opp)) {
                continue;
            }
            for (x, y) in [(a as u32, b as u32), (b as u32, a as u32)] {
                let Some(limit) = self.limits.limit(x, y) else {
                    continue;
                };
                let entry = &self.dtz[at(x, y)];
                if self.checked && entry.state.load(Acquire) == UNCHECKED && self.checks_running() {
                    // Not decided yet: ask again later.
                    known = false;
                    continue;
                }
                match self.usable(Kind::ToRemoval, x, y) {
                    Some(t) => {
                        let h = &t.table.header;
                        if h.cursed > 0 || h.max_win.max(h.max_loss) as u16 > limit {
                            exact = false;
                        }
                    }
                    None => exact = false,
                }
            }
        }
        if known || !exact {
            let state = if exact { EXACT } else { NOT_EXACT };
            self.exact[at(own, opp)].store(state, Relaxed);
        }
        exact && known
    }

    /// Whether the `.tb` table of `own` against `opp` pieces (either side
    /// to move) is there and play may use it.
    pub fn holds(&self, own: u32, opp: u32) -> bool {
        let range = MIN_PIECES as u32..=MAX_PIECES as u32;
        self.settled()
            && range.contains(&own)
            && range.contains(&opp)
            && (self.wdz_usable(own, opp).is_some() || self.usable(Kind::ToEnd, own, opp).is_some())
    }

    /// The files of these databases in the directory, `.tb` before `.dtz`,
    /// smallest subspace first, then the placing layers, last first.
    fn files(&self) -> Vec<FileId> {
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
    fn with_file<R>(
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

    /// Checks every file in the directory now, on two threads, the largest
    /// first: opens it, checks its checksum (unless the directory's list
    /// of checked files says it was checked as it is now, `trust.rs`), and
    /// lets play use it if both pass. Returns the number of files play may
    /// use and the problems (each also told).
    pub fn check_all(&self) -> (usize, Vec<String>) {
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
    fn end_checks(&self) {
        let (done, wake) = &self.checks_done;
        *done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
    }

    /// Checks one file (see [`Tablebases::check_all`]).
    fn check_one(
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
    fn checks_running(&self) -> bool {
        self.checking.load(Acquire)
    }

    /// Whether play may use the files: not while their check runs. Some
    /// files trusted and others not yet would give values the N-move rule
    /// can spoil (a `.tb` win without the `.dtz` or `.wdz` distance that
    /// says whether it comes in time): until every file has been looked
    /// at, the files are not used at all (`isready` waits for that).
    #[inline]
    fn settled(&self) -> bool {
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

    fn forget_exactness(&self) {
        for e in &self.exact {
            e.store(EXACT_UNKNOWN, Relaxed);
        }
    }
}
