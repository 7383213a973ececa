//! The referee's rules: a variant plus `--rule NAME=VALUE` overrides, by
//! the names of the engine's rule options (sent to every engine as
//! `setoption` too, so the referee and the engines play the same game).

use crate::core::{FullBoardAction, Rules, Variant};

/// The rule options, in the order they are applied, as `protocol.md`
/// and `uci` name them.
pub const RULE_OPTIONS: [&str; 12] = [
    "Pieces",
    "Flying",
    "FlyPieceCount",
    "DiagonalLines",
    "MayRemoveFromMillsAlways",
    "MayRemoveMultiple",
    "MayMoveInPlacingPhase",
    "OneTimeUseMill",
    "NMoveRule",
    "EndgameNMoveRule",
    "ThreefoldRepetition",
    "BoardFullAction",
];

/// Why a `--rule` was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("`{0}` is not NAME=VALUE")]
    Shape(String),
    #[error("unknown rule `{0}` (rules: {list})", list = RULE_OPTIONS.join(", "))]
    Unknown(String),
    #[error("rule {name}: `{value}` is not valid ({expected})")]
    BadValue {
        name: &'static str,
        value: String,
        expected: &'static str,
    },
}

/// Splits `NAME=VALUE` and returns the option's canonical name.
pub fn parse_rule(text: &str) -> Result<(&'static str, String), RuleError> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| RuleError::Shape(text.to_string()))?;
    let canonical = RULE_OPTIONS
        .iter()
        .find(|n| n.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| RuleError::Unknown(name.trim().to_string()))?;
    Ok((canonical, value.trim().to_string()))
}

/// Sets one rule option on `rules`, with the engine's ranges.
pub fn apply_rule(rules: &mut Rules, name: &str, value: &str) -> Result<(), RuleError> {
    let name = *RULE_OPTIONS
        .iter()
        .find(|n| n.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| RuleError::Unknown(name.trim().to_string()))?;
    let bad = |expected| RuleError::BadValue {
        name,
        value: value.to_string(),
        expected,
    };
    let int = |min: u16, max: u16, expected| {
        value
            .parse::<u16>()
            .ok()
            .filter(|v| (min..=max).contains(v))
            .ok_or_else(|| bad(expected))
    };
    let flag = || match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(bad("`true` or `false`")),
    };
    match name {
        "Pieces" => rules.pieces = int(9, 12, "9 to 12")? as u8,
        "Flying" => rules.flying = flag()?,
        "FlyPieceCount" => rules.fly_at = int(3, 4, "3 or 4")? as u8,
        "DiagonalLines" => rules.diagonals = flag()?,
        "MayRemoveFromMillsAlways" => rules.remove_from_mills_always = flag()?,
        "MayRemoveMultiple" => rules.remove_multiple = flag()?,
        "MayMoveInPlacingPhase" => rules.move_in_placing = flag()?,
        "OneTimeUseMill" => rules.one_time_mills = flag()?,
        "NMoveRule" => rules.n_move_rule = int(0, 10000, "0 to 10000")?,
        "EndgameNMoveRule" => rules.endgame_n_move_rule = int(0, 10000, "0 to 10000")?,
        "ThreefoldRepetition" => rules.threefold = flag()?,
        _ => {
            rules.full_board = value
                .parse::<FullBoardAction>()
                .map_err(|_| bad("`first-player-loses` or `draw`"))?
        }
    }
    Ok(())
}

/// The variant's rules with the overrides applied in order.
pub fn build_rules(variant: Variant, overrides: &[(String, String)]) -> Result<Rules, RuleError> {
    let mut rules = variant.rules();
    for (name, value) in overrides {
        apply_rule(&mut rules, name, value)?;
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;

    /// The referee must read every rule option exactly as the engine does.
    #[test]
    fn rules_agree_with_the_engine_options() {
        let samples = [
            ("Pieces", "12"),
            ("Pieces", "8"),
            ("Flying", "false"),
            ("Flying", "maybe"),
            ("FlyPieceCount", "4"),
            ("DiagonalLines", "true"),
            ("MayRemoveFromMillsAlways", "true"),
            ("MayRemoveMultiple", "true"),
            ("MayMoveInPlacingPhase", "true"),
            ("OneTimeUseMill", "true"),
            ("NMoveRule", "50"),
            ("NMoveRule", "10001"),
            ("EndgameNMoveRule", "0"),
            ("ThreefoldRepetition", "false"),
            ("BoardFullAction", "draw"),
            ("BoardFullAction", "nobody"),
        ];
        let mut engine = Engine::new();
        for variant in Variant::ALL {
            for (name, value) in samples {
                // Setting the variant resets every rule to its preset.
                let engine_ok = engine.set_option("Variant", Some(variant.name())).is_ok()
                    && engine.set_option(name, Some(value)).is_ok();
                let mut rules = variant.rules();
                let ours = apply_rule(&mut rules, name, value);
                assert_eq!(engine_ok, ours.is_ok(), "{variant} {name}={value}");
                if engine_ok {
                    assert_eq!(engine.rules(), &rules, "{variant} {name}={value}");
                }
            }
        }
    }

    #[test]
    fn names_are_checked() {
        assert_eq!(
            parse_rule("nmoverule=40"),
            Ok(("NMoveRule", "40".to_string()))
        );
        assert!(matches!(parse_rule("Hash=16"), Err(RuleError::Unknown(_))));
        assert!(matches!(parse_rule("Pieces"), Err(RuleError::Shape(_))));
    }
}
