//! Sanmill's `tgf mill uci` (`proto=sanmill`): UCI's handshake and
//! commands, every rule as one of Sanmill's own options ([`options`]),
//! atomic moves (a step, then each removal as a move of its own), the
//! best move at the end of an `info` line, scores from White's side; and,
//! before a game is counted, its `statejson` report held against the
//! referee's rules at the game's first position.

pub mod options;

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::{Dialect, Disagreement, Wording, setoption};
use crate::core::{Move, Position, Rules};
use crate::matches::engine::limits::Limits;
use crate::matches::engine::process::{EngineProcess, Failure};
use crate::matches::openings::Opening;
use crate::matches::rules::RuleSet;

/// Sanmill's protocol.
#[derive(Clone, Copy, Debug)]
pub struct Sanmill;

impl Dialect for Sanmill {
    fn name(&self) -> &'static str {
        "sanmill"
    }

    /// Every rule, each as an option of its own; `check` refused the
    /// rules Sanmill cannot express.
    fn rule_lines(&self, rule_set: &RuleSet) -> Vec<String> {
        let sent = options::options(&rule_set.rules).unwrap_or_default();
        sent.iter().map(|o| setoption(o.name, &o.value)).collect()
    }

    fn wording(&self) -> Wording {
        Wording {
            best_anywhere: true,
            white_scores: true,
            pv_ends_line: false,
        }
    }

    /// Every rule within Sanmill's ranges, and none of its rule options
    /// from `option.`, which would change its rules behind the referee's
    /// back.
    fn check(
        &self,
        rule_set: &RuleSet,
        _limits: &Limits,
        engine_options: &[(String, String)],
    ) -> Result<(), String> {
        options::options(&rule_set.rules)?;
        let rule_option = engine_options
            .iter()
            .find(|(name, _)| options::is_rule_option(name));
        if let Some((name, _)) = rule_option {
            return Err(format!(
                "takes its rules from --variant and --rule, not `option.{name}` (the referee would not know them)"
            ));
        }
        Ok(())
    }

    /// The step, then each removal as a move of its own.
    fn write_move(&self, line: &mut String, m: Move) {
        if m.to().is_some() {
            let _ = write!(line, " {}", m.step_text());
        }
        for p in m.removals() {
            let _ = write!(line, " {}", Move::remove_only(p));
        }
    }

    /// Asks for the engine's state at the first position (`statejson`:
    /// its rule options, the position, its legal moves) and compares it
    /// with the referee's.
    fn agree_on_rules(
        &self,
        engine: &mut EngineProcess,
        rules: &Rules,
        opening: &Opening,
        position: &Position,
        timeout: Duration,
    ) -> Result<(), Disagreement> {
        let setup = self.position_line(opening.fen.as_deref(), &opening.moves);
        engine.send(&format!("{setup}\nstatejson"));
        let deadline = Instant::now() + timeout;
        let state = loop {
            let line = match engine.recv(deadline) {
                Ok((line, _)) => line,
                Err(Failure::Gone(how)) => {
                    let what = format!("{how} before answering `statejson`");
                    return Err(Disagreement::Gone(what));
                }
                Err(Failure::Timeout) => {
                    let what = format!(
                        "did not answer `statejson` within {} ms: the rules it plays are unknown",
                        timeout.as_millis()
                    );
                    return Err(Disagreement::Silent(what));
                }
            };
            if let Some((_, json)) = line.split_once("sanmill_state ") {
                break serde_json::from_str(json).unwrap_or_default();
            }
            if line.contains("unknown command") {
                let what = format!("cannot report its rules (`{line}`)");
                return Err(Disagreement::Rules(what));
            }
        };
        match options::disagreement(rules, position, &state) {
            Some(what) => Err(Disagreement::Rules(format!(
                "does not play the referee's rules at the first position: it {what}"
            ))),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Color;
    use crate::matches::engine::dialect::{EngineScore, Reply};

    fn mv(s: &str) -> Move {
        s.parse().expect("a move")
    }

    #[test]
    fn positions_split_turns() {
        let moves = [mv("d6"), mv("a1"), mv("d7xa4"), mv("d6-d5xb4xa1")];
        assert_eq!(
            Sanmill.position_line(None, &moves),
            "position startpos moves d6 a1 d7 xa4 d6-d5 xb4 xa1"
        );
        assert_eq!(
            Sanmill.position_line(None, &[mv("xb4")]),
            "position startpos moves xb4"
        );
    }

    #[test]
    fn the_best_move_ends_an_info_line() {
        let line = "info depth 7 score cp 12 nodes 345 bestmove d7";
        assert_eq!(
            Sanmill.read_reply(line, Color::Black),
            Reply::Best {
                depth: Some(7),
                score: Some(EngineScore::Cp(-12)),
                mv: Some("d7".into())
            }
        );
        assert_eq!(
            Sanmill.read_reply("info score 0 bestmove none", Color::White),
            Reply::Best {
                depth: None,
                score: None,
                mv: None
            }
        );
        assert!(matches!(
            Sanmill.read_reply(
                "info depth 3 score cp 0 nodes 9 bestmove draw",
                Color::White
            ),
            Reply::Best { mv: None, .. }
        ));
    }
}
