//! The builder's value of a slot while it builds: one `u16` with the win
//! or loss and its distance, whichever distance the build counts (to the
//! end of the game, or to the next removal, where a forced removal may
//! lose at an odd distance: so the sign is a bit of its own, not the
//! parity of the distance).

use std::sync::atomic::AtomicU16;

use crate::tb::value::Value;

/// `0`: not known (a draw once the build ends); else `1 + 2 d + win`.
pub type Code = u16;

/// A slot the build knows stays a draw, so that it never searches it: in
/// a `.dtz` build, a draw of the pair's own `.tb` table (no limit on
/// the plies to the next removal makes a draw decided). Not a win; written
/// as a draw ([`settle`]).
pub const NEVER: Code = u16::MAX;

/// A slot the build knows is never lost, not yet found won: in a `.dtz`
/// build, a win of the pair's own `.tb` table (a limit may make it a
/// draw, never a loss). The retrograde step counts no successors for it
/// and any win found replaces it; written as a draw if none is
/// ([`settle`]).
pub const NEVER_LOST: Code = u16::MAX - 1;

/// A count byte's bit set where a removal loses: when the position is
/// found lost, its loss is at least as long as that removal's.
pub const REMOVAL_LOSES: u8 = 0x80;

/// The count byte of a position still open with `successors` that have
/// yet to be found won (its distinct successor classes that remove
/// nothing, and one for a removal that draws): 1 + their number in the
/// low seven bits (1: all of them won, the position lost; 0: a slot no
/// count was set for), and [`REMOVAL_LOSES`].
#[inline]
pub fn count(successors: u32, removal_loses: bool) -> u8 {
    debug_assert!(successors < 127);
    (1 + successors) as u8 | if removal_loses { REMOVAL_LOSES } else { 0 }
}

/// The successors left of a count byte, plus one.
#[inline]
pub const fn left(count: u8) -> u8 {
    count & !REMOVAL_LOSES
}

/// Whether a code is a win or a loss.
#[inline]
pub const fn is_decided(c: Code) -> bool {
    c != 0 && c != NEVER && c != NEVER_LOST
}

/// Turns the slots known to stay draws, and those never found won, into
/// plain draws, once a build has ended.
pub fn settle(values: &mut [Code]) {
    for v in values {
        if *v == NEVER || *v == NEVER_LOST {
            *v = 0;
        }
    }
}

/// The code of a loss at distance `d`.
#[inline]
pub const fn loss(d: u16) -> Code {
    1 + 2 * d
}

/// The code of a win at distance `d`.
#[inline]
pub const fn win(d: u16) -> Code {
    2 + 2 * d
}

/// The distance of a known code.
#[inline]
pub const fn distance(c: Code) -> u16 {
    (c - 1) >> 1
}

#[inline]
pub const fn is_win(c: Code) -> bool {
    c != 0 && c & 1 == 0
}

/// The code of a value (a draw is "not known").
#[inline]
pub fn of_value(v: Value) -> Code {
    match v {
        Value::Draw => 0,
        Value::Win(d) => win(d as u16),
        Value::Loss(d) => loss(d as u16),
    }
}

/// The value of a code whose distance fits a byte (`None`: it does not).
#[inline]
pub fn to_value(c: Code) -> Option<Value> {
    if c == 0 {
        return Some(Value::Draw);
    }
    let d = u8::try_from(distance(c)).ok()?;
    Some(if is_win(c) {
        Value::Win(d)
    } else {
        Value::Loss(d)
    })
}

/// `values` as atomics, for threads that update it together.
pub fn atomic(values: &mut [Code]) -> &[AtomicU16] {
    // SAFETY: `AtomicU16` has the size, alignment and bit validity of
    // `u16`, and the exclusive borrow keeps every other access out while
    // the atomic view lives.
    unsafe { &*(values as *mut [Code] as *const [AtomicU16]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_keep_the_sign_apart_from_the_distance() {
        for d in 0..=254u8 {
            for v in [Value::Win(d), Value::Loss(d)] {
                let c = of_value(v);
                assert_eq!(to_value(c), Some(v));
                assert_eq!(distance(c), d as u16);
                assert_eq!(is_win(c), matches!(v, Value::Win(_)));
            }
        }
        assert_eq!(to_value(0), Some(Value::Draw));
        assert!(!is_win(0));
        assert_eq!(to_value(win(300)), None);
        assert!(!is_win(NEVER) && !is_decided(NEVER) && !is_decided(0));
        assert!(is_decided(loss(0)) && is_decided(win(253)));
        let mut slots = [NEVER, win(3), 0, NEVER];
        settle(&mut slots);
        assert_eq!(slots, [0, win(3), 0, 0]);
    }
}
