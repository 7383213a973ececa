//! The rule options: one table, by typed id, of every knob of [`Rules`]
//! that `setoption` turns. The engine lists and sets its options from it,
//! the protocol prints it, and the match runner's `--rule` reads it, so a
//! rule is named, bounded and parsed in exactly one place.
//!
//! [`OptionKind`] and [`OptionValue`] describe any option (the engine's
//! own, such as `Hash`, use them too).

use std::fmt;

use super::rules::{FullBoardAction, PlacingMill, Rules, Variant};

/// What an option looks like to a GUI, as `uci` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
    Button,
    /// Free text (a path); `<empty>` stands for the empty string.
    Text {
        default: &'static str,
    },
}

/// A value for an option, parsed and checked against its [`OptionKind`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    Int(i64),
    Bool(bool),
    /// One of a combo's vars (the canonical spelling).
    Choice(&'static str),
    /// A button press.
    Press,
    /// A text option's value (empty for `<empty>`).
    Text(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Int(v) => write!(f, "{v}"),
            OptionValue::Bool(v) => write!(f, "{v}"),
            OptionValue::Choice(v) => f.write_str(v),
            OptionValue::Press => f.write_str("(button)"),
            OptionValue::Text(t) if t.is_empty() => f.write_str("<empty>"),
            OptionValue::Text(t) => f.write_str(t),
        }
    }
}

/// Why a value does not fit an option; the text says what would.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not valid ({expected})")]
pub struct BadValue {
    pub value: String,
    pub expected: String,
}

impl OptionKind {
    /// Parses `raw` (trimmed, case-insensitive for flags and choices).
    pub fn parse(&self, raw: &str) -> Result<OptionValue, BadValue> {
        let raw = raw.trim();
        let bad = |expected: String| BadValue {
            value: raw.to_string(),
            expected,
        };
        match *self {
            OptionKind::Spin { min, max, .. } => raw
                .parse::<i64>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .map(OptionValue::Int)
                .ok_or_else(|| bad(format!("an integer from {min} to {max}"))),
            OptionKind::Check { .. } => match raw.to_ascii_lowercase().as_str() {
                "true" => Ok(OptionValue::Bool(true)),
                "false" => Ok(OptionValue::Bool(false)),
                _ => Err(bad("`true` or `false`".into())),
            },
            OptionKind::Combo { vars, .. } => vars
                .iter()
                .find(|v| v.eq_ignore_ascii_case(raw))
                .map(|v| OptionValue::Choice(v))
                .ok_or_else(|| bad(format!("one of {}", vars.join(", ")))),
            OptionKind::Button => Ok(OptionValue::Press),
            OptionKind::Text { .. } if raw == "<empty>" => Ok(OptionValue::Text(String::new())),
            OptionKind::Text { .. } => Ok(OptionValue::Text(raw.to_string())),
        }
    }

    /// The value an option starts with (`Press` for a button).
    pub fn default_value(&self) -> OptionValue {
        match *self {
            OptionKind::Spin { default, .. } => OptionValue::Int(default),
            OptionKind::Check { default } => OptionValue::Bool(default),
            OptionKind::Combo { default, .. } => OptionValue::Choice(default),
            OptionKind::Button => OptionValue::Press,
            OptionKind::Text { default } => OptionValue::Text(default.to_string()),
        }
    }
}

/// One rule knob: a field of [`Rules`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleOption {
    Pieces,
    Flying,
    FlyPieceCount,
    DiagonalLines,
    MayRemoveFromMillsAlways,
    MayRemoveMultiple,
    MayMoveInPlacingPhase,
    OneTimeUseMill,
    NMoveRule,
    EndgameNMoveRule,
    ThreefoldRepetition,
    BoardFullAction,
    MillFormationActionInPlacingPhase,
    IsDefenderMoveFirst,
    BlockedSideRemoves,
}

impl RuleOption {
    /// Every rule option, in the order `uci` lists them and the match
    /// runner applies them.
    pub const ALL: [RuleOption; 15] = [
        RuleOption::Pieces,
        RuleOption::Flying,
        RuleOption::FlyPieceCount,
        RuleOption::DiagonalLines,
        RuleOption::MayRemoveFromMillsAlways,
        RuleOption::MayRemoveMultiple,
        RuleOption::MayMoveInPlacingPhase,
        RuleOption::OneTimeUseMill,
        RuleOption::NMoveRule,
        RuleOption::EndgameNMoveRule,
        RuleOption::ThreefoldRepetition,
        RuleOption::BoardFullAction,
        RuleOption::MillFormationActionInPlacingPhase,
        RuleOption::IsDefenderMoveFirst,
        RuleOption::BlockedSideRemoves,
    ];

    /// The option's name, as `uci` lists it.
    pub const fn name(self) -> &'static str {
        match self {
            RuleOption::Pieces => "Pieces",
            RuleOption::Flying => "Flying",
            RuleOption::FlyPieceCount => "FlyPieceCount",
            RuleOption::DiagonalLines => "DiagonalLines",
            RuleOption::MayRemoveFromMillsAlways => "MayRemoveFromMillsAlways",
            RuleOption::MayRemoveMultiple => "MayRemoveMultiple",
            RuleOption::MayMoveInPlacingPhase => "MayMoveInPlacingPhase",
            RuleOption::OneTimeUseMill => "OneTimeUseMill",
            RuleOption::NMoveRule => "NMoveRule",
            RuleOption::EndgameNMoveRule => "EndgameNMoveRule",
            RuleOption::ThreefoldRepetition => "ThreefoldRepetition",
            RuleOption::BoardFullAction => "BoardFullAction",
            RuleOption::MillFormationActionInPlacingPhase => "MillFormationActionInPlacingPhase",
            RuleOption::IsDefenderMoveFirst => "IsDefenderMoveFirst",
            RuleOption::BlockedSideRemoves => "BlockedSideRemoves",
        }
    }

    /// The option named `name` (case-insensitive, surrounding blanks ignored).
    pub fn from_name(name: &str) -> Option<RuleOption> {
        let name = name.trim();
        Self::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(name))
    }

    /// Its kind, with the default of the standard rules (Nine Men's Morris).
    pub fn kind(self) -> OptionKind {
        let spin = |min, max| OptionKind::Spin {
            default: match self.get(&Rules::default()) {
                OptionValue::Int(v) => v,
                _ => min,
            },
            min,
            max,
        };
        let check = || OptionKind::Check {
            default: self.get(&Rules::default()) == OptionValue::Bool(true),
        };
        match self {
            RuleOption::Pieces => spin(9, 12),
            RuleOption::FlyPieceCount => spin(3, 4),
            RuleOption::NMoveRule | RuleOption::EndgameNMoveRule => spin(0, 10_000),
            RuleOption::Flying
            | RuleOption::DiagonalLines
            | RuleOption::MayRemoveFromMillsAlways
            | RuleOption::MayRemoveMultiple
            | RuleOption::MayMoveInPlacingPhase
            | RuleOption::OneTimeUseMill
            | RuleOption::ThreefoldRepetition
            | RuleOption::IsDefenderMoveFirst
            | RuleOption::BlockedSideRemoves => check(),
            RuleOption::BoardFullAction => OptionKind::Combo {
                default: Rules::default().full_board.name(),
                vars: &FullBoardAction::NAMES,
            },
            RuleOption::MillFormationActionInPlacingPhase => OptionKind::Combo {
                default: Rules::default().placing_mill.name(),
                vars: &PlacingMill::NAMES,
            },
        }
    }

    /// The knob's value in `rules`.
    pub fn get(self, rules: &Rules) -> OptionValue {
        use OptionValue::{Bool, Int};
        match self {
            RuleOption::Pieces => Int(rules.pieces.into()),
            RuleOption::Flying => Bool(rules.flying),
            RuleOption::FlyPieceCount => Int(rules.fly_at.into()),
            RuleOption::DiagonalLines => Bool(rules.diagonals),
            RuleOption::MayRemoveFromMillsAlways => Bool(rules.remove_from_mills_always),
            RuleOption::MayRemoveMultiple => Bool(rules.remove_multiple),
            RuleOption::MayMoveInPlacingPhase => Bool(rules.move_in_placing),
            RuleOption::OneTimeUseMill => Bool(rules.one_time_mills),
            RuleOption::NMoveRule => Int(rules.n_move_rule.into()),
            RuleOption::EndgameNMoveRule => Int(rules.endgame_n_move_rule.into()),
            RuleOption::ThreefoldRepetition => Bool(rules.threefold),
            RuleOption::BoardFullAction => OptionValue::Choice(rules.full_board.name()),
            RuleOption::MillFormationActionInPlacingPhase => {
                OptionValue::Choice(rules.placing_mill.name())
            }
            RuleOption::IsDefenderMoveFirst => Bool(rules.defender_moves_first),
            RuleOption::BlockedSideRemoves => Bool(rules.blocked_removes),
        }
    }

    /// Parses `raw` against the knob's range and sets it on `rules`; on
    /// error `rules` is unchanged.
    pub fn set(self, rules: &mut Rules, raw: &str) -> Result<(), BadValue> {
        let value = self.kind().parse(raw)?;
        // The kind checked the range, so the narrowing casts are exact.
        let (int, flag) = match &value {
            OptionValue::Int(v) => (*v, false),
            OptionValue::Bool(b) => (0, *b),
            OptionValue::Choice(_) | OptionValue::Press | OptionValue::Text(_) => (0, false),
        };
        match self {
            RuleOption::Pieces => rules.pieces = int as u8,
            RuleOption::Flying => rules.flying = flag,
            RuleOption::FlyPieceCount => rules.fly_at = int as u8,
            RuleOption::DiagonalLines => rules.diagonals = flag,
            RuleOption::MayRemoveFromMillsAlways => rules.remove_from_mills_always = flag,
            RuleOption::MayRemoveMultiple => rules.remove_multiple = flag,
            RuleOption::MayMoveInPlacingPhase => rules.move_in_placing = flag,
            RuleOption::OneTimeUseMill => rules.one_time_mills = flag,
            RuleOption::NMoveRule => rules.n_move_rule = int as u16,
            RuleOption::EndgameNMoveRule => rules.endgame_n_move_rule = int as u16,
            RuleOption::ThreefoldRepetition => rules.threefold = flag,
            RuleOption::BoardFullAction => {
                rules.full_board = match value {
                    OptionValue::Choice(name) => name.parse().map_err(|_| BadValue {
                        value: raw.trim().to_string(),
                        expected: FullBoardAction::NAMES.join(" or "),
                    })?,
                    _ => rules.full_board,
                }
            }
            RuleOption::MillFormationActionInPlacingPhase => {
                rules.placing_mill = match value {
                    OptionValue::Choice(name) => name.parse().map_err(|_| BadValue {
                        value: raw.trim().to_string(),
                        expected: PlacingMill::NAMES.join(" or "),
                    })?,
                    _ => rules.placing_mill,
                }
            }
            RuleOption::IsDefenderMoveFirst => rules.defender_moves_first = flag,
            RuleOption::BlockedSideRemoves => rules.blocked_removes = flag,
        }
        Ok(())
    }
}

impl fmt::Display for RuleOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The `Variant` option: a combo of the presets, which sets every knob.
pub fn variant_kind() -> OptionKind {
    OptionKind::Combo {
        default: Variant::Nine.name(),
        vars: &Variant::NAMES,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every knob reads back what was set, for every value of a check or
    /// combo and the ends and default of every spin, under every preset.
    #[test]
    fn every_knob_sets_and_reads_back() {
        for variant in Variant::ALL {
            for opt in RuleOption::ALL {
                let values: Vec<String> = match opt.kind() {
                    OptionKind::Spin { default, min, max } => {
                        vec![min.to_string(), default.to_string(), max.to_string()]
                    }
                    OptionKind::Check { .. } => vec!["true".into(), "false".into()],
                    OptionKind::Combo { vars, .. } => vars.iter().map(|v| v.to_string()).collect(),
                    OptionKind::Button | OptionKind::Text { .. } => {
                        unreachable!("no rule is a button or text")
                    }
                };
                for v in values {
                    let mut rules = variant.rules();
                    opt.set(&mut rules, &v).unwrap();
                    assert_eq!(opt.get(&rules).to_string(), v, "{variant} {opt}");
                    // Every other knob keeps the preset's value.
                    for other in RuleOption::ALL.into_iter().filter(|o| *o != opt) {
                        assert_eq!(other.get(&rules), other.get(&variant.rules()));
                    }
                }
            }
        }
    }

    #[test]
    fn bad_values_change_nothing() {
        let cases = [
            (RuleOption::Pieces, "8"),
            (RuleOption::Pieces, "13"),
            (RuleOption::Pieces, "nine"),
            (RuleOption::FlyPieceCount, "5"),
            (RuleOption::Flying, "yes"),
            (RuleOption::NMoveRule, "10001"),
            (RuleOption::NMoveRule, "-1"),
            (RuleOption::BoardFullAction, "nobody"),
        ];
        for (opt, raw) in cases {
            let mut rules = Rules::default();
            let err = opt.set(&mut rules, raw).unwrap_err();
            assert_eq!(err.value, raw);
            assert_eq!(rules, Rules::default(), "{opt}={raw}");
        }
    }

    #[test]
    fn names_round_trip_case_insensitively() {
        for opt in RuleOption::ALL {
            assert_eq!(RuleOption::from_name(opt.name()), Some(opt));
            assert_eq!(
                RuleOption::from_name(&format!(" {} ", opt.name().to_uppercase())),
                Some(opt)
            );
        }
        assert_eq!(RuleOption::from_name("Hash"), None);
    }

    #[test]
    fn defaults_are_the_standard_rules() {
        let mut rules = Variant::Lasker.rules();
        for opt in RuleOption::ALL {
            opt.set(&mut rules, &opt.kind().default_value().to_string())
                .unwrap();
        }
        assert_eq!(rules, Rules::default());
    }
}
