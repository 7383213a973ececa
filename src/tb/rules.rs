//! The rules a database is built for: the moving-phase rules that decide
//! its values. A table is only read under the rules it was built for.

use super::error::TbError;
use crate::core::{Bitboard, Color, FenAction, FenPhase, Position, Rules, Setup};

/// The rules that decide moving-phase values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TbRules {
    pub flying: bool,
    pub fly_at: u8,
    pub diagonals: bool,
    pub remove_from_mills_always: bool,
}

impl TbRules {
    /// The moving-phase rules of `rules`, if the databases support them.
    pub fn from_rules(rules: &Rules) -> Result<TbRules, TbError> {
        if rules.one_time_mills {
            return Err(TbRules::unsupported(
                "one-time mills need the record of formed mills",
            ));
        }
        if rules.remove_multiple {
            return Err(TbRules::unsupported("several removals per move"));
        }
        // The other later rules (placing mills, who moves first, full
        // board) end with placing; this one changes the moving phase.
        if rules.blocked_removes {
            return Err(TbRules::unsupported(
                "a blocked side removes and moves again",
            ));
        }
        Ok(TbRules {
            flying: rules.flying,
            fly_at: rules.fly_at,
            diagonals: rules.diagonals,
            remove_from_mills_always: rules.remove_from_mills_always,
        })
    }

    fn unsupported(what: &str) -> TbError {
        TbError::UnsupportedRules(what.to_string())
    }

    /// The rules core's rule set that plays this moving phase (the
    /// placing rules as in Nine), for move generation and FEN.
    pub fn game_rules(self) -> Rules {
        Rules {
            flying: self.flying,
            fly_at: self.fly_at,
            diagonals: self.diagonals,
            remove_from_mills_always: self.remove_from_mills_always,
            ..Rules::default()
        }
    }

    pub fn describe(self) -> String {
        format!(
            "flying {}, fly at {}, diagonals {}, mill pieces {}",
            if self.flying { "on" } else { "off" },
            self.fly_at,
            if self.diagonals { "on" } else { "off" },
            if self.remove_from_mills_always {
                "always removable"
            } else {
                "protected"
            }
        )
    }

    /// The FEN of a moving-phase position (for messages).
    pub fn fen(self, own: Bitboard, opp: Bitboard) -> String {
        match self.position(own, opp) {
            Some(p) => p.fen(&self.game_rules()),
            None => format!("(own {own:?} against {opp:?})"),
        }
    }

    /// The rules core's position with `own` (White) to move against `opp`,
    /// both hands empty.
    pub fn position(self, own: Bitboard, opp: Bitboard) -> Option<Position> {
        self.position_of(&self.game_rules(), Color::White, own, opp)
    }

    /// The position under `rules` (whose moving phase these are) with
    /// `mover`'s pieces `own` to move against `opp`, both hands empty, at
    /// a counter of 0.
    pub fn position_of(
        self,
        rules: &Rules,
        mover: Color,
        own: Bitboard,
        opp: Bitboard,
    ) -> Option<Position> {
        let mut board = [own, opp];
        if mover == Color::Black {
            board.swap(0, 1);
        }
        let setup = Setup {
            board,
            marked: Bitboard::EMPTY,
            side: mover,
            phase: FenPhase::Moving,
            action: FenAction::Select,
            on_board: [board[0].count() as u8, board[1].count() as u8],
            in_hand: [0, 0],
            to_remove: [0, 0],
            last_mill: [None; 4],
            formed: [Bitboard::EMPTY; 2],
            rule50: 0,
            fullmove: 1,
            blocked_removal: false,
        };
        Position::from_setup(&setup, rules).ok()
    }
}
