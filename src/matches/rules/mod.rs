//! The rules a match is played by: a variant plus `--rule NAME=VALUE`
//! overrides, by the names of the engine's rule options (sent to every
//! engine too, each in its dialect's terms, so the referee and the engines
//! play the same game); and the endgame databases that may end a game
//! early ([`adjudicate`]).

pub mod adjudicate;

use crate::core::options::{BadValue, RuleOption};
use crate::core::{Rules, Variant};

/// The rules as `--variant` and `--rule` give them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSet {
    pub variant: Variant,
    /// The overrides with their canonical names, in order.
    pub overrides: Vec<(String, String)>,
    /// The variant's rules with the overrides applied: what the referee
    /// applies.
    pub rules: Rules,
}

impl RuleSet {
    /// `variant` with `overrides` applied in order.
    pub fn new(variant: Variant, overrides: &[(RuleOption, String)]) -> Result<RuleSet, RuleError> {
        Ok(RuleSet {
            variant,
            rules: build_rules(variant, overrides)?,
            overrides: overrides
                .iter()
                .map(|(option, value)| (option.name().to_string(), value.clone()))
                .collect(),
        })
    }
}

/// The rule options' names, as `uci` lists them.
fn rule_names() -> String {
    RuleOption::ALL.map(RuleOption::name).join(", ")
}

/// Why a `--rule` was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("`{0}` is not NAME=VALUE")]
    Shape(String),
    #[error("unknown rule `{0}` (rules: {list})", list = rule_names())]
    Unknown(String),
    #[error("rule {option}: {error}")]
    BadValue { option: RuleOption, error: BadValue },
}

/// Splits `NAME=VALUE` into the rule option and its value.
pub fn parse_rule(text: &str) -> Result<(RuleOption, String), RuleError> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| RuleError::Shape(text.to_string()))?;
    let option =
        RuleOption::from_name(name).ok_or_else(|| RuleError::Unknown(name.trim().to_string()))?;
    Ok((option, value.trim().to_string()))
}

/// Sets one rule option on `rules`, with the engine's ranges.
pub fn apply_rule(rules: &mut Rules, option: RuleOption, value: &str) -> Result<(), RuleError> {
    option
        .set(rules, value)
        .map_err(|error| RuleError::BadValue { option, error })
}

/// The variant's rules with the overrides applied in order.
pub fn build_rules(
    variant: Variant,
    overrides: &[(RuleOption, String)],
) -> Result<Rules, RuleError> {
    let mut rules = variant.rules();
    for (option, value) in overrides {
        apply_rule(&mut rules, *option, value)?;
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
                let ours = parse_rule(&format!("{name}={value}"))
                    .and_then(|(option, value)| apply_rule(&mut rules, option, &value));
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
            Ok((RuleOption::NMoveRule, "40".to_string()))
        );
        assert!(matches!(parse_rule("Hash=16"), Err(RuleError::Unknown(_))));
        assert!(matches!(parse_rule("Pieces"), Err(RuleError::Shape(_))));
    }
}
