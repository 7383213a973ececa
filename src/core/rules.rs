//! The rules configuration: every knob a variant can turn, and the named
//! variants (Sanmill's presets 0 to 10).

use std::fmt;
use std::str::FromStr;

use super::geometry::Geometry;

/// What happens when the board is full at the end of the placing phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FullBoardAction {
    /// The player who moved first loses.
    FirstPlayerLoses,
    /// The game is drawn.
    Draw,
    /// White removes one black piece, then Black one white piece, then
    /// White moves (Zhi Qi, El Filja).
    FirstThenSecondRemove,
    /// Black removes one white piece, then White one black piece, then
    /// Black moves (Experimental).
    SecondThenFirstRemove,
}

impl FullBoardAction {
    pub const ALL: [FullBoardAction; 4] = [
        FullBoardAction::FirstPlayerLoses,
        FullBoardAction::Draw,
        FullBoardAction::FirstThenSecondRemove,
        FullBoardAction::SecondThenFirstRemove,
    ];
    pub const NAMES: [&'static str; 4] = [
        "first-player-loses",
        "draw",
        "first-then-second-remove",
        "second-then-first-remove",
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl FromStr for FullBoardAction {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        let s = s.to_ascii_lowercase();
        Self::ALL.into_iter().find(|a| a.name() == s).ok_or(())
    }
}

/// What a mill closed by a placement does (Sanmill's
/// `MillFormationActionInPlacingPhase`). Mills closed by moving always
/// remove from the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PlacingMill {
    /// Remove an opponent's piece from the board (the standard rule).
    RemoveFromBoard,
    /// Take one of the opponent's pieces in hand instead, and the turn
    /// passes; from the board only when the opponent's hand is empty
    /// (Dooz).
    RemoveFromHand,
    /// The removed piece is only marked: its point (`X` in the FEN) stays
    /// blocked, out of every mill, until placing ends, when every mark
    /// leaves the board (Da San Qi).
    MarkAndDelay,
    /// Placing mills remove nothing; when placing ends, each side removes
    /// according to how many mills both sides hold (El Filja): neither
    /// side has a mill, each removes one of its own pieces; only one side
    /// has mills, it removes two and the other one; both have, the side
    /// with fewer mills `n` removes `n` and the other `n + 1` (equal: each
    /// removes its own count). White removes first, then Black, then White
    /// moves.
    ByMillCounts,
}

impl PlacingMill {
    pub const ALL: [PlacingMill; 4] = [
        PlacingMill::RemoveFromBoard,
        PlacingMill::RemoveFromHand,
        PlacingMill::MarkAndDelay,
        PlacingMill::ByMillCounts,
    ];
    pub const NAMES: [&'static str; 4] = [
        "remove-from-board",
        "remove-from-hand",
        "mark-and-delay",
        "by-mill-counts",
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl FromStr for PlacingMill {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        let s = s.to_ascii_lowercase();
        Self::ALL.into_iter().find(|a| a.name() == s).ok_or(())
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
    /// What a mill closed by a placement does.
    pub placing_mill: PlacingMill,
    /// The second player (Black) makes the first move of the moving phase.
    pub defender_moves_first: bool,
    /// A side to move that cannot move (in the moving phase) removes an
    /// opposing piece next to one of its own, mills no protection, and
    /// moves again, instead of losing (Zhi Qi).
    pub blocked_removes: bool,
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

    /// Whether anything special happens when placing ends (marks leave,
    /// the defender moves first, removals by mill counts or on a full
    /// board). Without these, the standard alternation simply goes on.
    #[inline]
    pub fn placing_end_matters(&self) -> bool {
        self.defender_moves_first
            || self.placing_mill != PlacingMill::RemoveFromBoard
            || matches!(
                self.full_board,
                FullBoardAction::FirstThenSecondRemove | FullBoardAction::SecondThenFirstRemove
            )
    }

    /// Whether a removal can be owed by the side not to move (removals
    /// that follow the end of placing), or of one's own pieces.
    #[inline]
    pub fn has_placing_end_removals(&self) -> bool {
        self.placing_mill == PlacingMill::ByMillCounts
            || matches!(
                self.full_board,
                FullBoardAction::FirstThenSecondRemove | FullBoardAction::SecondThenFirstRemove
            )
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
    Dooz,
    DaSanQi,
    ZhiQi,
    ElFilja,
    Experimental,
}

impl Variant {
    pub const ALL: [Variant; 11] = [
        Variant::Nine,
        Variant::Twelve,
        Variant::Morabaraba,
        Variant::Russian,
        Variant::Lasker,
        Variant::ChengSanQi,
        Variant::Dooz,
        Variant::DaSanQi,
        Variant::ZhiQi,
        Variant::ElFilja,
        Variant::Experimental,
    ];

    /// The presets' names, in the order of [`Variant::ALL`].
    pub const NAMES: [&'static str; 11] = [
        "nine",
        "twelve",
        "morabaraba",
        "russian",
        "lasker",
        "cheng-san-qi",
        "dooz",
        "da-san-qi",
        "zhi-qi",
        "el-filja",
        "experimental",
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
            Variant::Dooz => 2,
            Variant::DaSanQi => 7,
            Variant::ZhiQi => 8,
            Variant::ElFilja => 9,
            Variant::Experimental => 10,
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
            placing_mill: PlacingMill::RemoveFromBoard,
            defender_moves_first: false,
            blocked_removes: false,
        };
        let twelve = Rules {
            pieces: 12,
            diagonals: true,
            ..nine
        };
        match self {
            Variant::Nine => nine,
            Variant::Twelve => twelve,
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
            Variant::Dooz => Rules {
                placing_mill: PlacingMill::RemoveFromHand,
                ..twelve
            },
            Variant::DaSanQi => Rules {
                placing_mill: PlacingMill::MarkAndDelay,
                defender_moves_first: true,
                remove_from_mills_always: true,
                flying: false,
                ..twelve
            },
            Variant::ZhiQi => Rules {
                full_board: FullBoardAction::FirstThenSecondRemove,
                blocked_removes: true,
                ..twelve
            },
            Variant::ElFilja => Rules {
                pieces: 12,
                placing_mill: PlacingMill::ByMillCounts,
                remove_from_mills_always: true,
                full_board: FullBoardAction::FirstThenSecondRemove,
                flying: false,
                ..nine
            },
            Variant::Experimental => Rules {
                defender_moves_first: true,
                remove_from_mills_always: true,
                full_board: FullBoardAction::SecondThenFirstRemove,
                flying: false,
                ..twelve
            },
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rule set's name that names none: the name, and the names there are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant `{0}` (one of: {names})", names = Variant::NAMES.join(", "))]
pub struct UnknownVariant(pub String);

/// A rule set by its name, in any case (a command line's `--variant`, the
/// `Variant` option).
impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(name: &str) -> Result<Self, UnknownVariant> {
        let s = name.to_ascii_lowercase();
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownVariant(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_names_a_variant_in_any_case_or_gets_its_name_back() {
        assert_eq!("Twelve".parse(), Ok(Variant::Twelve));
        let err = "tic-tac-toe".parse::<Variant>().unwrap_err();
        assert_eq!(err, UnknownVariant("tic-tac-toe".into()));
        assert!(
            err.to_string()
                .starts_with("unknown variant `tic-tac-toe` (one of: nine, twelve, "),
            "{err}"
        );
    }

    #[test]
    fn names_follow_the_order_of_all() {
        for (i, v) in Variant::ALL.into_iter().enumerate() {
            assert_eq!(v.name(), Variant::NAMES[i]);
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
        }
    }
}
