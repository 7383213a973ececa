//! The value of a moving-phase position from the databases: tables are
//! memory-mapped on first use, so opening a directory costs nothing.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::format::{MappedTable, TbError, TbRules, Value};
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
}

impl Tablebases {
    /// The databases in `dir`; nothing is read until a probe needs it.
    pub fn new(dir: &Path, rules: TbRules) -> Tablebases {
        Tablebases {
            dir: dir.to_path_buf(),
            rules,
            tables: (0..SIDE * SIDE).map(|_| OnceLock::new()).collect(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn rules(&self) -> TbRules {
        self.rules
    }

    /// The table of subspace `own-opp`, opened on first use.
    pub fn table(&self, own: u8, opp: u8) -> Result<&Loaded, &TbError> {
        let Some(sub) = Subspace::new(own, opp) else {
            // Only reached for counts outside 3..=9; keep it an error.
            static BAD: OnceLock<TbError> = OnceLock::new();
            return Err(BAD.get_or_init(|| TbError::BadSubspace("out of range".into())));
        };
        self.tables[own as usize * SIDE + opp as usize]
            .get_or_init(|| {
                let table = MappedTable::open(&self.dir, own, opp, self.rules)?;
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

    /// Whether `rules` are the rules these tables were built for.
    pub fn fits(&self, rules: &Rules) -> bool {
        TbRules::from_rules(rules).is_ok_and(|r| r == self.rules)
    }
}
