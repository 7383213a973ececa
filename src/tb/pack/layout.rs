//! Where a packed table keeps its slots: one moving-phase subspace, or a
//! placing layer's sectors, each laid out with the side to move's set
//! major (`Subspace::with_counts`), so that every position a quiet move
//! leads to from one position lies in one class of the next table, and
//! every position after one removal in one more.
//!
//! The moving phase's own files are major by the side not to move (the
//! builder's order); the pack reorders them.

use std::ops::Range;

use crate::core::Bitboard;
use crate::tb::index::{MAX_PIECES, MIN_PIECES, Subspace};
use crate::tb::placing::{LAYERS, Layer, PIECES};

/// What a table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableId {
    /// The moving-phase subspace `own-opp` (pieces of the side to move,
    /// of the other).
    Moving { own: u8, opp: u8 },
    /// Placing layer `k` (`k` placements made), its sectors where each
    /// side has at most `max` pieces on the board and in hand (9: all).
    Placing { k: u8, max: u8 },
}

impl TableId {
    /// The table's name in a manifest: `7-4`, `place-16` (`place-16-max4`
    /// for a layer of the sectors of at most 4 pieces a side).
    pub fn name(self) -> String {
        match self {
            TableId::Moving { own, opp } => format!("{own}-{opp}"),
            TableId::Placing { k, max: PIECES } => format!("place-{k}"),
            TableId::Placing { k, max } => format!("place-{k}-max{max}"),
        }
    }

    /// The table a name names.
    pub fn parse(name: &str) -> Option<TableId> {
        if let Some(rest) = name.strip_prefix("place-") {
            let (k, max) = match rest.split_once("-max") {
                Some((k, max)) => (k, max.parse().ok()?),
                None => (rest, PIECES),
            };
            let k: u8 = k.parse().ok()?;
            return (k < LAYERS && (MIN_PIECES..=PIECES).contains(&max))
                .then_some(TableId::Placing { k, max });
        }
        let (own, opp) = name.split_once('-')?;
        let (own, opp): (u8, u8) = (own.parse().ok()?, opp.parse().ok()?);
        let range = MIN_PIECES..=MAX_PIECES;
        (range.contains(&own) && range.contains(&opp)).then_some(TableId::Moving { own, opp })
    }
}

/// One run of a table's slots: a subspace laid out from slot `first`.
#[derive(Clone, Debug)]
pub struct Part {
    pub sub: Subspace,
    pub first: u64,
}

/// A table's slots.
#[derive(Clone, Debug)]
pub struct Layout {
    pub id: TableId,
    pub parts: Vec<Part>,
    pub slots: u64,
    /// For placing layers, the pieces in hand: the side to move's, the
    /// other's.
    pub hands: (u8, u8),
}

impl Layout {
    pub fn of(id: TableId) -> Layout {
        let (parts, hands) = match id {
            TableId::Moving { own, opp } => {
                let sub = Subspace::with_counts(own, opp).expect("3 to 9 pieces fit");
                (vec![Part { sub, first: 0 }], (0, 0))
            }
            TableId::Placing { k, max } => {
                let layer = Layer { k, max };
                let parts = layer
                    .sectors()
                    .into_iter()
                    .map(|s| Part {
                        sub: s.sub,
                        first: s.first,
                    })
                    .collect();
                (parts, layer.hands())
            }
        };
        let slots = parts.iter().map(|p| p.sub.len()).sum();
        Layout {
            id,
            parts,
            slots,
            hands,
        }
    }

    /// The slot of `own` to move against `opp` (any symmetric image), if
    /// the table has a part for their counts.
    pub fn slot(&self, own: Bitboard, opp: Bitboard) -> Option<u64> {
        let (o, p) = (own.count() as u8, opp.count() as u8);
        let part = self
            .parts
            .iter()
            .find(|part| part.sub.own == o && part.sub.opp == p)?;
        Some(part.first + part.sub.index(own, opp))
    }

    /// Calls `f(slot, own, opp, holds_a_class)` for every slot of `range`,
    /// in order.
    pub fn for_each(&self, range: Range<u64>, mut f: impl FnMut(u64, Bitboard, Bitboard, bool)) {
        for part in &self.parts {
            let (start, end) = (part.first, part.first + part.sub.len());
            if end <= range.start || start >= range.end {
                continue;
            }
            let per_class = part.sub.per_class();
            let from = range.start.max(start) - start;
            let to = range.end.min(end) - start;
            for class in (from / per_class) as usize..to.div_ceil(per_class) as usize {
                let major = part.sub.major_set(class);
                let base = class as u64 * per_class;
                let ranks = from.saturating_sub(base)..(to - base).min(per_class);
                part.sub
                    .for_each_in_class_between(class, ranks, |idx, minor| {
                        let (own, opp) = part.sub.join(major, minor);
                        f(start + idx, own, opp, part.sub.is_canonical(class, minor));
                    });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for id in [
            TableId::Moving { own: 7, opp: 4 },
            TableId::Moving { own: 3, opp: 9 },
            TableId::Placing { k: 0, max: 9 },
            TableId::Placing { k: 17, max: 9 },
            TableId::Placing { k: 4, max: 4 },
        ] {
            assert_eq!(TableId::parse(&id.name()), Some(id));
        }
        assert_eq!(TableId::Placing { k: 4, max: 4 }.name(), "place-4-max4");
        for bad in [
            "2-5",
            "place-18",
            "7-10",
            "x",
            "place-",
            "place-3-max2",
            "place-3-max10",
        ] {
            assert_eq!(TableId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_walk_meets_each_slot_once_in_order_and_finds_it_again() {
        for id in [
            TableId::Moving { own: 4, opp: 3 },
            TableId::Placing { k: 5, max: 9 },
        ] {
            let layout = Layout::of(id);
            let mut next = 37;
            let range = 37..layout.slots.min(40_000);
            layout.for_each(range.clone(), |slot, own, opp, canonical| {
                assert_eq!(slot, next);
                next += 1;
                if canonical {
                    assert_eq!(layout.slot(own, opp), Some(slot), "{id:?}");
                }
            });
            assert_eq!(next, range.end);
        }
    }
}
