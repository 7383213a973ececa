//! The values the databases store and their byte codes: [`Value`], the
//! game-theoretic value with its distance in plies, [`Wdl`], its sign,
//! and the slot bytes of each kind of file (`format.rs` gives their
//! meaning). The bottom of `tb`: it depends on nothing.

/// The game-theoretic value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win(u8),
    Loss(u8),
    Draw,
}

impl Value {
    /// The slot byte.
    #[inline]
    pub fn encode(self) -> u8 {
        match self {
            Value::Draw => 0,
            Value::Win(d) | Value::Loss(d) => d + 1,
        }
    }

    /// The value of a slot byte.
    #[inline]
    pub fn decode(byte: u8) -> Value {
        match byte {
            0 => Value::Draw,
            b if (b - 1) % 2 == 1 => Value::Win(b - 1),
            b => Value::Loss(b - 1),
        }
    }

    /// The value, for the side that moved, of a move into a position of
    /// this value (for the side then to move): a loss there is a win here,
    /// one ply longer.
    #[inline]
    pub fn one_ply_back(self) -> Value {
        match self {
            Value::Loss(d) => Value::Win(d.saturating_add(1)),
            Value::Win(d) => Value::Loss(d.saturating_add(1)),
            Value::Draw => Value::Draw,
        }
    }

    /// Whether the encoding can hold it (wins odd, losses even, <= 254).
    pub fn representable(self) -> bool {
        match self {
            Value::Draw => true,
            Value::Win(d) => d % 2 == 1 && d < 255,
            Value::Loss(d) => d % 2 == 0 && d < 255,
        }
    }
}

/// The longest distance to the next removal a `.wdz` file holds, and so
/// the largest N-move limit it can be built for.
pub const WDZ_MAX_LIMIT: u16 = 126;

/// A `.wdz` slot byte: the value under the file's N-move limits from a
/// counter of 0, its distance the plies to the next removal that keeps
/// it. `None` where it does not fit (a distance past [`WDZ_MAX_LIMIT`]).
#[inline]
pub fn wdz_encode(v: Value) -> Option<u8> {
    match v {
        Value::Draw => Some(0),
        Value::Win(z) if (1..=127).contains(&z) => Some(1 + z),
        Value::Loss(z) if z as u16 <= WDZ_MAX_LIMIT => Some(129 + z),
        _ => None,
    }
}

/// The value a `.wdz` slot byte holds ([`wdz_encode`]).
#[inline]
pub fn wdz_decode(byte: u8) -> Value {
    match byte {
        0 => Value::Draw,
        1..=128 => Value::Win(byte - 1),
        _ => Value::Loss(byte - 129),
    }
}

/// A `.dtz` slot byte: `None` for a draw, else the plies to the next
/// removal that keeps the value.
#[inline]
pub fn dtz_decode(byte: u8) -> Option<u8> {
    byte.checked_sub(1)
}

/// Win, draw or loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    Loss,
    Draw,
    Win,
}

impl Wdl {
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// The sign of a `.tb` value.
    pub fn of(v: Value) -> Wdl {
        match v {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_a_byte() {
        for d in 0..=254u8 {
            let v = if d % 2 == 1 {
                Value::Win(d)
            } else {
                Value::Loss(d)
            };
            assert!(v.representable());
            assert_eq!(Value::decode(v.encode()), v);
        }
        assert_eq!(Value::decode(Value::Draw.encode()), Value::Draw);
        assert!(!Value::Win(2).representable());
        assert!(!Value::Loss(1).representable());
    }

    #[test]
    fn wdz_bytes_round_trip() {
        for v in [
            Value::Draw,
            Value::Win(1),
            Value::Win(127),
            Value::Loss(0),
            Value::Loss(126),
        ] {
            assert_eq!(wdz_decode(wdz_encode(v).unwrap()), v);
        }
        assert_eq!(wdz_encode(Value::Loss(127)), None);
        assert_eq!(wdz_encode(Value::Win(0)), None);
        assert_eq!(dtz_decode(0), None);
        assert_eq!(dtz_decode(5), Some(4));
    }
}
