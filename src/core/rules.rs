//! The rules configuration: every knob a variant can turn, and the named
//! variants (Sanmill's presets 0, 1, 3, 4, 5 and 6).

use std::fmt;
use std::str::FromStr;

use super::geometry::Geometry;

/// What happens when the board is full at the end of the placing phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FullBoardAction {
    /// The player who moved first loses.
    FirstPlayerLoses,
    /// The game is drawn.
    Draw,
}

impl FullBoardAction {
    pub const NAMES: [&'static str; 2] = ["first-player-loses", "draw"];

    pub fn name(self) -> &'static str {
        match self {
            FullBoardAction::FirstPlayerLoses => Self::NAMES[0],
            FullBoardAction::Draw => Self::NAMES[1],
        }
    }
}

impl FromStr for FullBoardAction {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s.to_ascii_lowercase().as_str() {
            "first-player-loses" => Ok(FullBoardAction::FirstPlayerLoses),
            "draw" => Ok(FullBoardAction::Draw),
            _ => Err(()),
        }
    }
}

/// A complete rule set. Every field is one `setoption` knob
/// ([`super::options::RuleOption`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Pieces per side, 9 to 12.
    pub pieces: u8,
    /// Whether a side reduced to `fly_at` pieces may fly.
    pub flying: bool,
    /// The piece count (on the board) at or below which flying starts: 3 or 4.
    pub fly_at: u8,
    /// The four diagonal lines (and their adjacency).
    pub diagonals: bool,
    /// Pieces standing in mills may always be removed.
    pub remove_from_mills_always: bool,
    /// A step that closes several mills at once removes that many pieces.
    pub remove_multiple: bool,
    /// A side may move a piece instead of placing one (Lasker Morris).
    pub move_in_placing: bool,
    /// A mill counts only the first time it is formed (Russian Mill).
    pub one_time_mills: bool,
    /// Draw after this many plies without a placement or removal (0: off).
    pub n_move_rule: u16,
    /// Draw after this many plies without a placement or removal while a
    /// side has three pieces on the board and none in hand (0: off).
    pub endgame_n_move_rule: u16,
    /// Draw on the third occurrence of a position.
    pub threefold: bool,
    /// The result when the board fills up during placing.
    pub full_board: FullBoardAction,
}

impl Default for Rules {
    fn default() -> Self {
        Variant::Nine.rules()
    }
}

impl Rules {
    /// Pieces below which a side has lost.
    pub const MIN_PIECES: u8 = 3;

    #[inline]
    pub fn geometry(&self) -> &'static Geometry {
        Geometry::get(self.diagonals)
    }
}

/// The named variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Variant {
    Nine,
    Twelve,
    Morabaraba,
    Russian,
    Lasker,
    ChengSanQi,
}

impl Variant {
    pub const ALL: [Variant; 6] = [
        Variant::Nine,
        Variant::Twelve,
        Variant::Morabaraba,
        Variant::Russian,
        Variant::Lasker,
        Variant::ChengSanQi,
    ];

    /// The presets' names, in the order of [`Variant::ALL`].
    pub const NAMES: [&'static str; 6] = [
        "nine",
        "twelve",
        "morabaraba",
        "russian",
        "lasker",
        "cheng-san-qi",
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Sanmill's rule index for this preset.
    pub fn sanmill_index(self) -> u8 {
        match self {
            Variant::Nine => 0,
            Variant::Twelve => 1,
            Variant::Morabaraba => 3,
            Variant::Russian => 4,
            Variant::Lasker => 5,
            Variant::ChengSanQi => 6,
        }
    }

    /// Every knob as the preset sets it.
    pub fn rules(self) -> Rules {
        let nine = Rules {
            pieces: 9,
            flying: true,
            fly_at: 3,
            diagonals: false,
            remove_from_mills_always: false,
            remove_multiple: false,
            move_in_placing: false,
            one_time_mills: false,
            n_move_rule: 100,
            endgame_n_move_rule: 100,
            threefold: true,
            full_board: FullBoardAction::FirstPlayerLoses,
        };
        match self {
            Variant::Nine => nine,
            Variant::Twelve => Rules {
                pieces: 12,
                diagonals: true,
                ..nine
            },
            Variant::Morabaraba => Rules {
                pieces: 12,
                diagonals: true,
                remove_multiple: true,
                ..nine
            },
            Variant::Russian => Rules {
                one_time_mills: true,
                ..nine
            },
            Variant::Lasker => Rules {
                pieces: 10,
                move_in_placing: true,
                ..nine
            },
            Variant::ChengSanQi => Rules {
                flying: false,
                ..nine
            },
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        let s = s.to_ascii_lowercase();
        Variant::ALL.into_iter().find(|v| v.name() == s).ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_order_of_all() {
        for (i, v) in Variant::ALL.into_iter().enumerate() {
            assert_eq!(v.name(), Variant::NAMES[i]);
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
        }
    }
}
