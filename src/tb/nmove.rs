//! The databases' values under the N-move rules: what a position is worth
//! as the game is played, with its counter, from the `.tb` value (to the
//! end of the game, no N-move rule) and the `.dtz` distance (to the next
//! removal that keeps the value).
//!
//! A stretch of moves without a removal ends in a draw when the counter
//! (FEN field 16) reaches the limit: `NMoveRule`, or `EndgameNMoveRule`
//! while some side has exactly three pieces (the smaller of the two that
//! apply, 0 meaning off). In the moving phase the pieces, and so the limit,
//! change only at a removal, which resets the counter: each subspace has
//! one limit. With `r` plies left (the limit less the counter), the side
//! to move wins if the `.tb` file says it wins and the `.dtz` distance is
//! at most `r`, loses likewise, and draws otherwise (`format.rs`).

use super::value::{Value, Wdl};
use crate::core::Rules;

/// The N-move limits of a set of rules (0: off).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NMoveLimits {
    pub n_move: u16,
    pub endgame: u16,
}

impl NMoveLimits {
    /// No N-move rule: the `.tb` values as they are.
    pub const NONE: NMoveLimits = NMoveLimits {
        n_move: 0,
        endgame: 0,
    };

    pub fn of(rules: &Rules) -> NMoveLimits {
        NMoveLimits {
            n_move: rules.n_move_rule,
            endgame: rules.endgame_n_move_rule,
        }
    }

    /// The limit of a moving-phase position with `own` and `opp` pieces
    /// (either side to move), or `None` when no rule applies.
    #[inline]
    pub fn limit(self, own: u32, opp: u32) -> Option<u16> {
        let endgame = (own == 3 || opp == 3) && self.endgame > 0;
        match (self.n_move > 0, endgame) {
            (true, true) => Some(self.n_move.min(self.endgame)),
            (true, false) => Some(self.n_move),
            (false, true) => Some(self.endgame),
            (false, false) => None,
        }
    }

    /// The smallest limit that can apply anywhere, if any.
    pub fn shortest(self) -> Option<u16> {
        [self.n_move, self.endgame]
            .into_iter()
            .filter(|&n| n > 0)
            .min()
    }

    /// Whether a `.tb` win or loss `d` plies from a position with counter
    /// `counter` ends, played out as the `.tb` file plays it, before any
    /// limit can strike: every removal resets the counter, and every
    /// later stretch is shorter than `d`. (The test that needs no `.dtz`
    /// file; it is stricter than the exact one.)
    #[inline]
    pub fn ends_in_time(self, counter: u16, d: u8) -> bool {
        self.shortest()
            .is_none_or(|n| (counter as u32 + d as u32) < n as u32)
    }
}

/// What the databases say of a position, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TbValue {
    /// The value as the game is played, under its N-move rules from the
    /// position's counter; `None` where the databases cannot say (a win
    /// or loss that the rules may draw, with no usable `.dtz` file).
    pub rule: Option<Wdl>,
    /// The value without N-move rules; `None` where only a `.wdz` file
    /// (values under the rule alone) holds the position and it draws:
    /// a draw, or a win or loss the rule draws at every counter.
    pub pure: Option<Wdl>,
    /// The plies to the end of the game without N-move rules (the winner
    /// hurrying, the loser delaying), for a win or loss of the moving
    /// phase (the placing files hold no distances).
    pub to_end: Option<u8>,
    /// The plies to the next removal that keeps the value (`.dtz`), for a
    /// win or loss whose `.dtz` file is in use.
    pub to_removal: Option<u8>,
}

impl TbValue {
    /// The value of a position from its `.tb` value, its `.dtz` distance
    /// (`None`: no usable file), its counter and its subspace's limit;
    /// `exact` says whether the subspaces its removals lead into have
    /// values the limits do not change from a counter of 0 (then the
    /// `.dtz` distance, or the `.tb` value where no limit applies here, is
    /// exact).
    #[inline]
    pub fn combine(
        pure: Value,
        to_removal: Option<u8>,
        counter: u16,
        limit: Option<u16>,
        exact: bool,
        limits: NMoveLimits,
    ) -> TbValue {
        let sign = Wdl::of(pure);
        let rule = match (pure, limit, to_removal) {
            (Value::Draw, _, _) => Some(Wdl::Draw),
            (_, None, _) if exact => Some(sign),
            (_, Some(n), Some(z)) if exact => {
                let left = n.saturating_sub(counter);
                Some(if z as u16 <= left { sign } else { Wdl::Draw })
            }
            (Value::Win(d) | Value::Loss(d), _, _) => {
                limits.ends_in_time(counter, d).then_some(sign)
            }
        };
        let to_end = match pure {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        };
        TbValue {
            rule,
            pure: Some(sign),
            to_end,
            to_removal: if pure == Value::Draw || !exact {
                None
            } else {
                to_removal
            },
        }
    }

    /// A win or loss that the N-move rules draw at every counter (its
    /// `.dtz` file, built for them, leaves it undecided).
    pub fn drawn_at_every_counter(pure: Value) -> TbValue {
        TbValue {
            rule: Some(Wdl::Draw),
            pure: Some(Wdl::of(pure)),
            to_end: match pure {
                Value::Win(d) | Value::Loss(d) => Some(d),
                Value::Draw => None,
            },
            to_removal: None,
        }
    }

    /// A value from a `.wdz` file (`v`, its distance the plies to the next
    /// removal) at counter `counter` under the subspace's `limit`, with
    /// the `.tb` value beside it where that file is in use too.
    pub fn under_rule(v: Value, pure: Option<Value>, counter: u16, limit: Option<u16>) -> TbValue {
        let (rule, to_removal) = match v {
            Value::Draw => (Wdl::Draw, None),
            Value::Win(z) | Value::Loss(z) => {
                let left = limit.map_or(u16::MAX, |n| n.saturating_sub(counter));
                let sign = if z as u16 <= left {
                    Wdl::of(v)
                } else {
                    Wdl::Draw
                };
                (sign, Some(z))
            }
        };
        TbValue {
            rule: Some(rule),
            pure: match (pure, v) {
                (Some(p), _) => Some(Wdl::of(p)),
                // A win or loss under a rule is one without it.
                (None, Value::Win(_) | Value::Loss(_)) => Some(Wdl::of(v)),
                (None, Value::Draw) => None,
            },
            to_end: match pure {
                Some(Value::Win(d) | Value::Loss(d)) => Some(d),
                _ => None,
            },
            to_removal,
        }
    }

    /// A value of the placing phase: its sign, exact under the rules
    /// (`exact`) or not known under them.
    pub fn placing(sign: Wdl, exact: bool) -> TbValue {
        TbValue {
            rule: (exact || sign == Wdl::Draw).then_some(sign),
            pure: Some(sign),
            to_end: None,
            to_removal: None,
        }
    }

    /// The `.tb` value, where the distance to the end is known.
    pub fn pure_value(self) -> Option<Value> {
        match (self.pure, self.to_end) {
            (Some(Wdl::Draw), _) => Some(Value::Draw),
            (Some(Wdl::Win), Some(d)) => Some(Value::Win(d)),
            (Some(Wdl::Loss), Some(d)) => Some(Value::Loss(d)),
            _ => None,
        }
    }

    /// The value for the side that moved of a move into a position of
    /// this value: a loss there is a win here, one ply longer; a move
    /// that removed (`removed`) is itself the next removal.
    pub fn for_mover(self, removed: bool) -> TbValue {
        TbValue {
            rule: self.rule.map(Wdl::flip),
            pure: self.pure.map(Wdl::flip),
            to_end: self.to_end.map(|d| d.saturating_add(1)),
            to_removal: if removed && self.pure.is_some_and(|p| p != Wdl::Draw) {
                Some(1)
            } else {
                self.to_removal.map(|z| z.saturating_add(1))
            },
        }
    }

    /// A move that wins the game at once (it leaves the opponent two
    /// pieces).
    pub const WINS_AT_ONCE: TbValue = TbValue {
        rule: Some(Wdl::Win),
        pure: Some(Wdl::Win),
        to_end: Some(1),
        to_removal: Some(1),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_follow_the_pieces() {
        let both = NMoveLimits {
            n_move: 100,
            endgame: 40,
        };
        assert_eq!(both.limit(5, 5), Some(100));
        assert_eq!(both.limit(3, 5), Some(40));
        assert_eq!(both.limit(6, 3), Some(40));
        let endgame_off = NMoveLimits {
            n_move: 60,
            endgame: 0,
        };
        assert_eq!(endgame_off.limit(3, 3), Some(60));
        assert_eq!(NMoveLimits::NONE.limit(3, 3), None);
        let only_endgame = NMoveLimits {
            n_move: 0,
            endgame: 50,
        };
        assert_eq!(only_endgame.limit(4, 4), None);
        assert_eq!(only_endgame.limit(4, 3), Some(50));
        assert_eq!(both.shortest(), Some(40));
    }

    #[test]
    fn a_win_stands_while_the_next_removal_is_in_reach() {
        let l = NMoveLimits {
            n_move: 100,
            endgame: 100,
        };
        let win =
            |counter| TbValue::combine(Value::Win(57), Some(11), counter, Some(100), true, l).rule;
        assert_eq!(win(0), Some(Wdl::Win));
        assert_eq!(win(89), Some(Wdl::Win));
        assert_eq!(win(90), Some(Wdl::Draw));
        let loss =
            |counter| TbValue::combine(Value::Loss(56), Some(32), counter, Some(100), true, l).rule;
        assert_eq!(loss(68), Some(Wdl::Loss));
        assert_eq!(loss(69), Some(Wdl::Draw));
        // A blocked side loses whatever the counter says.
        assert_eq!(
            TbValue::combine(Value::Loss(0), Some(0), 100, Some(100), true, l).rule,
            Some(Wdl::Loss)
        );
        // Without a .dtz file only a win that ends in time counts.
        let bare =
            |d, counter| TbValue::combine(Value::Win(d), None, counter, Some(100), true, l).rule;
        assert_eq!(bare(25, 74), Some(Wdl::Win));
        assert_eq!(bare(25, 75), None);
        assert_eq!(
            TbValue::combine(Value::Draw, None, 99, Some(100), false, l).rule,
            Some(Wdl::Draw)
        );
        assert_eq!(
            TbValue::combine(Value::Win(201), None, 99, None, true, NMoveLimits::NONE).rule,
            Some(Wdl::Win)
        );
        // Where a smaller subspace may be drawn by the rules, neither the
        // distance nor the absence of a limit here is trusted.
        let inexact = TbValue::combine(Value::Win(57), Some(11), 0, Some(100), false, l);
        assert_eq!((inexact.rule, inexact.to_removal), (Some(Wdl::Win), None));
        let inexact = TbValue::combine(Value::Win(57), Some(11), 50, Some(100), false, l);
        assert_eq!(inexact.rule, None);
    }

    #[test]
    fn a_move_takes_the_value_one_ply_back() {
        let lost = TbValue {
            rule: Some(Wdl::Loss),
            pure: Some(Wdl::Loss),
            to_end: Some(10),
            to_removal: Some(4),
        };
        assert_eq!(
            lost.for_mover(false),
            TbValue {
                rule: Some(Wdl::Win),
                pure: Some(Wdl::Win),
                to_end: Some(11),
                to_removal: Some(5)
            }
        );
        assert_eq!(lost.for_mover(true).to_removal, Some(1));
    }
}
