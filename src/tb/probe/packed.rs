//! The databases read from a packed folder (`tb::pack`) instead of the
//! files: the same values, a position at a time, under the same rules.

use std::sync::Arc;

use super::Tablebases;
use crate::core::Position;
use crate::tb::error::TbError;
use crate::tb::index::{MAX_PIECES, MIN_PIECES};
use crate::tb::nmove::TbValue;
use crate::tb::pack::{PackSource, Packed, TableId};
use crate::tb::placing::{self, Layer};

impl Tablebases {
    /// Reads the packed folder in the directory, where it has one (a
    /// manifest); nothing changes where it has none; an error where the
    /// pack does not open or is for other rules.
    pub(super) fn read_pack_in_dir(&mut self) -> Result<(), TbError> {
        if !self.dir.join(crate::tb::pack::format::MANIFEST).is_file() {
            return Ok(());
        }
        #[cfg(not(target_family = "wasm"))]
        {
            let source: Arc<dyn PackSource> =
                Arc::new(crate::tb::pack::read::FolderSource::new(&self.dir));
            self.open_pack(source, None)
        }
        #[cfg(target_family = "wasm")]
        {
            Err(TbError::Unusable(
                "no folders in WebAssembly: give the pack's URL".into(),
            ))
        }
    }

    /// Reads the packed folder `source` holds (its manifest at hand, or
    /// read now) instead of files, if it is for these rules.
    pub fn open_pack(
        &mut self,
        source: Arc<dyn PackSource>,
        manifest: Option<&[u8]>,
    ) -> Result<(), TbError> {
        let notify = self.notify.clone();
        let pack = match manifest {
            Some(bytes) => Packed::with_manifest(source, bytes, notify)?,
            None => Packed::open(source, notify)?,
        };
        if pack.tb_rules() != self.rules {
            return Err(TbError::Unusable(format!(
                "{}: packed for {}, not {}",
                pack.describe(),
                pack.tb_rules().describe(),
                self.rules.describe()
            )));
        }
        self.packed = Some(pack);
        Ok(())
    }

    /// The packed folder read, if any.
    pub fn pack(&self) -> Option<&Packed> {
        self.packed.as_ref()
    }

    /// The databases of a packed folder `source` holds (a host's fetches
    /// over HTTP), for play under `rules`.
    pub fn for_pack(
        source: Arc<dyn PackSource>,
        rules: &crate::core::Rules,
        notify: Option<super::Notify>,
    ) -> Result<Tablebases, TbError> {
        let tb_rules = crate::tb::TbRules::from_rules(rules)?;
        let dir = std::path::PathBuf::from(source.describe());
        let limits = crate::tb::NMoveLimits::of(rules);
        let mut tables = Tablebases::with(&dir, tb_rules, limits, true, notify);
        tables.open_pack(source, None)?;
        Ok(tables)
    }

    /// Runs `probe` until every block it reads is at hand (a pack a host
    /// fetches for; see `Packed::settled`); once, for files and folders.
    pub fn fetching<R>(&self, probe: impl Fn() -> R) -> R {
        match &self.packed {
            Some(pack) => pack.settled(probe),
            None => probe(),
        }
    }

    /// A position's value from the pack (see [`Tablebases::value`]): the
    /// moving phase's only under the limits it was packed for, the
    /// placing layers' exact only under them.
    pub(super) fn packed_value(&self, pack: &Packed, pos: &Position) -> Option<TbValue> {
        let us = pos.side_to_move();
        let (own, opp) = (pos.pieces(us), pos.pieces(us.opponent()));
        if pos.is_placing() {
            let layer = Layer::of(pos)?;
            let code = pack.placing(layer.k, own, opp)?;
            return Some(TbValue::placing(
                placing::wdl(code),
                pack.limits() == self.limits,
            ));
        }
        let (own, opp) = Tablebases::moving_sets(pos)?;
        if pack.limits() != self.limits {
            return None;
        }
        let v = pack.moving(own, opp)?;
        let limit = self.limits.limit(own.count(), opp.count());
        Some(TbValue::under_rule(v, None, pos.rule50(), limit))
    }

    /// Whether the pack holds subspace `own-opp` under these limits.
    pub(super) fn pack_holds(&self, pack: &Packed, own: u32, opp: u32) -> bool {
        let range = MIN_PIECES as u32..=MAX_PIECES as u32;
        range.contains(&own)
            && range.contains(&opp)
            && pack.limits() == self.limits
            && pack.has(TableId::Moving {
                own: own as u8,
                opp: opp as u8,
            })
    }
}
