//! The value of a moving-phase position from the databases: tables are
//! memory-mapped on first use, so opening a directory costs nothing.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::format::{Kind, MappedTable, TbError, TbRules, Value};
use super::index::{MAX_PIECES, MIN_PIECES, Subspace};
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
        Value::decode(self.table.slots()[self.sub.index(own, opp) as usize])
    }
}

const SIDE: usize = MAX_PIECES as usize + 1;

/// The databases in one directory, for one set of rules.
pub struct Tablebases {
    dir: PathBuf,
    rules: TbRules,
    tables: Vec<OnceLock<Result<Loaded, TbError>>>,
    /// The `.dtz` tables, opened on first use too.
    dtz: Vec<OnceLock<Result<Loaded, TbError>>>,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("dir", &self.dir)
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

impl Tablebases {
    /// The databases in `dir`; nothing is read until a probe needs it.
    pub fn new(dir: &Path, rules: TbRules) -> Tablebases {
        Tablebases {
            dir: dir.to_path_buf(),
            rules,
            tables: (0..SIDE * SIDE).map(|_| OnceLock::new()).collect(),
            dtz: (0..SIDE * SIDE).map(|_| OnceLock::new()).collect(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The moving-phase rules the tables were opened for.
    pub fn tb_rules(&self) -> TbRules {
        self.rules
    }

    /// The `.tb` table of subspace `own-opp`, opened on first use.
    pub fn table(&self, own: u8, opp: u8) -> Result<&Loaded, &TbError> {
        self.loaded(Kind::ToEnd, own, opp)
    }

    /// The `.dtz` table of subspace `own-opp`, opened on first use.
    pub fn dtz_table(&self, own: u8, opp: u8) -> Result<&Loaded, &TbError> {
        self.loaded(Kind::ToRemoval, own, opp)
    }

    fn loaded(&self, kind: Kind, own: u8, opp: u8) -> Result<&Loaded, &TbError> {
        let Some(sub) = Subspace::new(own, opp) else {
            // Only reached for counts outside 3..=9; keep it an error.
            static BAD: OnceLock<TbError> = OnceLock::new();
            return Err(BAD.get_or_init(|| TbError::BadSubspace("out of range".into())));
        };
        let tables = match kind {
            Kind::ToEnd => &self.tables,
            Kind::ToRemoval => &self.dtz,
        };
        tables[own as usize * SIDE + opp as usize]
            .get_or_init(|| {
                let table = MappedTable::open_kind(&self.dir, kind, own, opp, self.rules)?;
                Ok(Loaded { sub, table })
            })
            .as_ref()
    }

    /// The value of `own` to move against `opp`.
    pub fn probe_sets(&self, own: Bitboard, opp: Bitboard) -> Result<Value, &TbError> {
        let t = self.table(own.count() as u8, opp.count() as u8)?;
        Ok(t.value(own, opp))
    }

    /// The value of a position for the side to move, if it is in the
    /// moving phase (both hands empty, no removal owed, 3 to 9 pieces a
    /// side) and its table is there. The rules must be the tables' (the
    /// caller checks once with `TbRules::from_rules`).
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        let us = pos.side_to_move();
        let them = us.opponent();
        if pos.in_hand(us) > 0 || pos.in_hand(them) > 0 || pos.pending_removals() > 0 {
            return None;
        }
        let (own, opp) = (pos.pieces(us), pos.pieces(them));
        let range = MIN_PIECES as u32..=MAX_PIECES as u32;
        if !range.contains(&own.count()) || !range.contains(&opp.count()) {
            return None;
        }
        self.probe_sets(own, opp).ok()
    }

    /// Whether the table of `own` against `opp` pieces (either side to
    /// move) is there and opens.
    pub fn holds(&self, own: u32, opp: u32) -> bool {
        let range = MIN_PIECES as u32..=MAX_PIECES as u32;
        range.contains(&own) && range.contains(&opp) && self.table(own as u8, opp as u8).is_ok()
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
        for own in MIN_PIECES..=MAX_PIECES {
            for opp in MIN_PIECES..=MAX_PIECES {
                let path = self.dir.join(super::format::file_name(own, opp));
                if !path.exists() {
                    continue;
                }
                match self.table(own, opp) {
                    Ok(_) => ok += 1,
                    Err(e) => problems.push(e.to_string()),
                }
            }
        }
        if ok == 0 && problems.is_empty() {
            problems.push(format!("{}: no database files", self.dir.display()));
        }
        (ok, problems)
    }

    /// Whether `rules` are the rules these tables were built for.
    pub fn fits(&self, rules: &Rules) -> bool {
        TbRules::from_rules(rules).is_ok_and(|r| r == self.rules)
    }
}

/// Whether a database win or loss `d` plies from `pos` (to the game's
/// end, through every removal) ends before the shortest N-move limit can
/// strike from the current counter: every removal resets the counter,
/// and every later stretch is shorter than `d`.
pub fn ends_in_time(rules: &Rules, pos: &Position, d: u8) -> bool {
    let limit = [rules.n_move_rule, rules.endgame_n_move_rule]
        .into_iter()
        .filter(|&n| n > 0)
        .min();
    limit.is_none_or(|n| (pos.rule50() as u32 + d as u32) < n as u32)
}
