//! The moving phase (both hands empty, 3 to 9 pieces a side): one pair of
//! subspaces `W-B` and `B-W` at a time, each a file of one byte per slot
//! of the subspace's index (`index.rs`).
//!
//! - `build`: retrograde analysis of a pair over the finished smaller
//!   subspaces, into `.tb`, `.dtz` or `.wdz` files (`format.rs`).
//! - `verify`: every value recomputed from the rules core's own moves.
//! - `nmove_check`: the values under the N-move rules against a minimax
//!   of its own, which knows no `.dtz` file.
//!
//! Here: a finished table's header, counted from its slots (the builder
//! writes it, the verifier checks it).

pub mod build;
pub mod nmove_check;
pub mod verify;

use super::format::{Header, Kind};
use super::index::Subspace;
use super::nmove::NMoveLimits;
use super::rules::TbRules;
use super::value::{Value, dtz_decode, wdz_decode};

/// The header of a finished `.tb` table: class counts and longest
/// distances.
pub fn summarise(sub: &Subspace, values: &[u8], rules: TbRules) -> Header {
    summarise_kind(Kind::ToEnd, sub, values, rules)
}

/// The header of a finished table of kind `kind`: class counts and the
/// longest distances. A `.dtz` table counts its decided classes as wins
/// (it holds no sign); [`summarise_dtz`] splits them.
fn summarise_kind(kind: Kind, sub: &Subspace, values: &[u8], rules: TbRules) -> Header {
    let mut histogram = [0u64; 256];
    for &b in values {
        histogram[b as usize] += 1;
    }
    // The slots that hold no class are draws, and not counted.
    histogram[0] -= sub.unused_slots();
    header_of(kind, sub, rules, &histogram)
}

/// The header of a table of kind `kind` whose classes hold `histogram[b]`
/// slots of byte `b` each (its checksum and limits still to be set).
pub(crate) fn header_of(
    kind: Kind,
    sub: &Subspace,
    rules: TbRules,
    histogram: &[u64; 256],
) -> Header {
    let mut h = empty_header(kind, sub, rules);
    for (byte, &n) in histogram.iter().enumerate() {
        let byte = byte as u8;
        let v = match kind {
            Kind::ToEnd | Kind::Placing => Value::decode(byte),
            Kind::ToRemoval => dtz_decode(byte).map_or(Value::Draw, Value::Win),
            Kind::UnderRule => wdz_decode(byte),
        };
        if n > 0 {
            h.count_many(v, n);
        }
    }
    h
}

/// The header of a finished `.wdz` table: its wins, losses and draws
/// under its limits, and the longest distances to the next removal.
pub fn summarise_wdz(sub: &Subspace, values: &[u8], rules: TbRules) -> Header {
    summarise_kind(Kind::UnderRule, sub, values, rules)
}

/// The header of a finished `.dtz` table, the signs taken from its `.tb`
/// table: wins, losses, draws and the longest distances to the next
/// removal of each.
pub fn summarise_dtz(sub: &Subspace, tb: &[u8], dtz: &[u8], rules: TbRules) -> Header {
    let mut h = empty_header(Kind::ToRemoval, sub, rules);
    for_each_class(sub, |idx| {
        let v = match (Value::decode(tb[idx]), dtz_decode(dtz[idx])) {
            (Value::Win(_), Some(z)) => Value::Win(z),
            (Value::Loss(_), Some(z)) => Value::Loss(z),
            _ => Value::Draw,
        };
        h.count(v);
    });
    h
}

fn empty_header(kind: Kind, sub: &Subspace, rules: TbRules) -> Header {
    Header {
        kind,
        layer: 0,
        pieces: 0,
        max: 0,
        own: sub.own,
        opp: sub.opp,
        rules,
        slots: sub.len(),
        wins: 0,
        losses: 0,
        draws: 0,
        max_win: 0,
        max_loss: 0,
        checksum: 0,
        limits: NMoveLimits::NONE,
        cursed: 0,
    }
}

/// Calls `f(slot)` for every slot of `sub` that holds a class.
fn for_each_class(sub: &Subspace, mut f: impl FnMut(usize)) {
    for class in 0..sub.major_classes() {
        sub.for_each_in_class(class, |idx, minor| {
            if sub.is_canonical(class, minor) {
                f(idx as usize);
            }
        });
    }
}
