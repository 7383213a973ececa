//! mulino's own protocol (`protocol.md`; `proto=mulino`, or `uci`, the
//! default): UCI's handshake and commands, the variant and every `--rule`
//! as mulino's own options, whole turns, scores from the mover's side.

use super::{Dialect, Wording, setoption};
use crate::matches::rules::RuleSet;

/// mulino's protocol.
#[derive(Clone, Copy, Debug)]
pub struct Mulino;

impl Dialect for Mulino {
    fn name(&self) -> &'static str {
        "mulino"
    }

    /// The variant, then the overrides: the referee's own rule options.
    fn rule_lines(&self, rule_set: &RuleSet) -> Vec<String> {
        let variant = setoption("Variant", rule_set.variant.name());
        let overrides = rule_set.overrides.iter();
        std::iter::once(variant)
            .chain(overrides.map(|(name, value)| setoption(name, value)))
            .collect()
    }

    fn wording(&self) -> Wording {
        Wording {
            best_anywhere: false,
            white_scores: false,
            pv_ends_line: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Color;
    use crate::matches::engine::dialect::{EngineScore, Reply};

    #[test]
    fn bestmove_first_and_the_movers_scores() {
        assert_eq!(Mulino.position_line(None, &[]), "position startpos");
        assert_eq!(
            Mulino.read_reply("bestmove d6 ponder d5", Color::White),
            Reply::Best {
                depth: None,
                score: None,
                mv: Some("d6".into())
            }
        );
        // `bestmove` only counts as the first word.
        let line = "info depth 7 score cp 12 nodes 345 bestmove d7";
        assert_eq!(
            Mulino.read_reply(line, Color::Black),
            Reply::Info {
                depth: Some(7),
                score: Some(EngineScore::Cp(12)),
                said: false
            }
        );
    }
}
