//! Where the game stands by the position alone: a win (fewer than three
//! pieces, no legal move, a full board the first player loses) or a draw.

use super::Position;
use crate::core::point::Color;
use crate::core::rules::{FullBoardAction, Rules};

/// Where the game stands, judged from the position alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win { winner: Color, reason: WinReason },
    Draw(DrawReason),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinReason {
    /// The loser has fewer than three pieces, on the board and in hand.
    FewerThanThree,
    /// The loser, to move, has no legal move.
    Blocked,
    /// The board filled up and the rules make the first player lose.
    FullBoard,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    FullBoard,
    ThreefoldRepetition,
    NMoveRule,
    EndgameNMoveRule,
}

impl Outcome {
    /// A sentence for `d` and `info string`.
    pub fn describe(self) -> String {
        match self {
            Outcome::Win { winner, reason } => {
                let loser = winner.opponent();
                let why = match reason {
                    WinReason::FewerThanThree => format!("{loser} has fewer than three pieces"),
                    WinReason::Blocked => format!("{loser} has no legal move"),
                    WinReason::FullBoard => {
                        "the board is full and the first player loses".to_string()
                    }
                };
                format!("{winner} wins: {why}")
            }
            Outcome::Draw(reason) => {
                let why = match reason {
                    DrawReason::FullBoard => "the board is full",
                    DrawReason::ThreefoldRepetition => "threefold repetition",
                    DrawReason::NMoveRule => "N-move rule",
                    DrawReason::EndgameNMoveRule => "endgame N-move rule",
                };
                format!("draw: {why}")
            }
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn result_text(self) -> &'static str {
        match self {
            Outcome::Win {
                winner: Color::White,
                ..
            } => "1-0",
            Outcome::Win {
                winner: Color::Black,
                ..
            } => "0-1",
            Outcome::Draw(_) => "1/2-1/2",
        }
    }
}

impl Position {
    /// The result if the game is over by the position alone (fewer than
    /// three pieces, no legal move, full board); draws that need the
    /// game's history are the `Game`'s business.
    pub fn outcome(&self, rules: &Rules) -> Option<Outcome> {
        let us = self.side;
        for c in [us, us.opponent()] {
            if self.material(c) < Rules::MIN_PIECES as u32 {
                return Some(Outcome::Win {
                    winner: c.opponent(),
                    reason: WinReason::FewerThanThree,
                });
            }
        }
        if self.pending > 0 || self.has_legal_move(rules) {
            return None;
        }
        if self.empty().is_empty() {
            match rules.full_board {
                FullBoardAction::FirstPlayerLoses => {
                    return Some(Outcome::Win {
                        winner: Color::Black,
                        reason: WinReason::FullBoard,
                    });
                }
                FullBoardAction::Draw => return Some(Outcome::Draw(DrawReason::FullBoard)),
                // The removals that follow a full board are owed when
                // placing ends; a full board met otherwise blocks.
                FullBoardAction::FirstThenSecondRemove | FullBoardAction::SecondThenFirstRemove => {
                }
            }
        }
        Some(Outcome::Win {
            winner: us.opponent(),
            reason: WinReason::Blocked,
        })
    }

    /// Whether the side to move has at least one legal turn (ignoring the
    /// piece count).
    pub fn has_legal_move(&self, rules: &Rules) -> bool {
        if self.pending > 0 {
            return self.removal_targets(rules).nonempty();
        }
        let empty = self.empty();
        let us = self.side;
        let can_step = if empty.is_empty() {
            false
        } else if self.hand[us.index()] > 0 || self.can_fly(rules, us) {
            self.board[us.index()].nonempty() || self.hand[us.index()] > 0
        } else {
            (self.board[us.index()] & rules.geometry().neighbours(empty)).nonempty()
        };
        can_step || (rules.blocked_removes && self.blocked_targets(rules).nonempty())
    }
}
