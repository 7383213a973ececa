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
//!
//! Here: the tables and the probes. `files.rs`: the directory's files,
//! opened and told about; `check.rs`: their background check.

mod check;
mod files;
mod packed;

pub use check::CheckProgress;
use check::Progress;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{Acquire, Relaxed};
use std::sync::atomic::{AtomicBool, AtomicU8};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use super::error::TbError;
use super::format::Kind;
use super::index::{MAX_PIECES, MIN_PIECES, Subspace, plan};
use super::mapped::MappedTable;
use super::nmove::{NMoveLimits, TbValue};
use super::placing::{LAYERS, Layer, PlacingLoaded};
use super::rules::TbRules;
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
    /// A packed folder (`tb::pack`), read instead of the files.
    packed: Option<crate::tb::pack::Packed>,
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
            packed: None,
        }
    }

    /// The databases in `dir` under `limits`, without the checksum gate
    /// (for builds and checks that read values under N-move rules).
    pub fn under(dir: &Path, rules: TbRules, limits: NMoveLimits) -> Tablebases {
        let mut tables = Tablebases::with(dir, rules, limits, false, None);
        // A packed folder that does not open holds nothing.
        let _ = tables.read_pack_in_dir();
        tables
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
        let mut tables = Tablebases::with(dir, tb_rules, NMoveLimits::of(rules), true, notify);
        tables.read_pack_in_dir()?;
        if tables.packed.is_some() {
            return Ok(tables);
        }
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
        if self.packed.is_some() || !self.settled() {
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
        if let Some(pack) = &self.packed {
            return self.packed_value(pack, pos);
        }
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
        if let Some(pack) = &self.packed {
            return self.pack_holds(pack, own, opp);
        }
        let range = MIN_PIECES as u32..=MAX_PIECES as u32;
        self.settled()
            && range.contains(&own)
            && range.contains(&opp)
            && (self.wdz_usable(own, opp).is_some() || self.usable(Kind::ToEnd, own, opp).is_some())
    }
}
