//! GBGP, the protocol of Nine Morris 3D and Mühle Intelligence
//! (`proto=gbgp`): its own handshake and new-game command, Nine or Twelve
//! Men's Morris and no other rules, no increment and no node limit, scores
//! from White's side (a won position as `win N` plies), and a `pv` that
//! takes the rest of its `info` line. Its FEN has no hands, so games
//! start from the start position.

use super::{Dialect, Wording, go_command, setoption};
use crate::core::Variant;
use crate::matches::engine::limits::Limits;
use crate::matches::openings::Opening;
use crate::matches::rules::RuleSet;

/// GBGP.
#[derive(Clone, Copy, Debug)]
pub struct Gbgp;

impl Dialect for Gbgp {
    fn name(&self) -> &'static str {
        "gbgp"
    }

    fn hello(&self) -> (&'static str, &'static str) {
        ("gbgp", "gbgpok")
    }

    fn new_game(&self) -> &'static str {
        "newgame"
    }

    fn rule_lines(&self, rule_set: &RuleSet) -> Vec<String> {
        let twelve = rule_set.variant == Variant::Twelve;
        vec![setoption("TwelveMensMorris", twelve)]
    }

    fn wording(&self) -> Wording {
        Wording {
            best_anywhere: false,
            white_scores: true,
            pv_ends_line: true,
        }
    }

    fn check(
        &self,
        rule_set: &RuleSet,
        limits: &Limits,
        _engine_options: &[(String, String)],
    ) -> Result<(), String> {
        let variant = rule_set.variant;
        if !matches!(variant, Variant::Nine | Variant::Twelve) {
            return Err(format!(
                "knows only the variants nine and twelve, not `{}`",
                variant.name()
            ));
        }
        if let Some((name, _)) = rule_set.overrides.first() {
            return Err(format!("has no rule options (`--rule {name}`)"));
        }
        if limits.tc.is_some_and(|tc| tc.inc_ms > 0) {
            return Err("has no increment (give tc=SECONDS)".into());
        }
        if limits.nodes.is_some() {
            return Err("has no node limit".into());
        }
        Ok(())
    }

    fn refuses(&self, opening: &Opening) -> Option<&'static str> {
        opening
            .fen
            .is_some()
            .then_some("whose FEN has no hands: use openings from the start position")
    }

    /// The clocks without `winc` and `binc` (`check` refused an
    /// increment).
    fn go_line(
        &self,
        limits: &Limits,
        clocks: &[Option<u64>; 2],
        _incs: &[Option<u64>; 2],
    ) -> String {
        go_command(limits, clocks, &[None, None])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Color, Move};
    use crate::matches::engine::dialect::mulino::Mulino;
    use crate::matches::engine::dialect::{EngineScore, Reply};
    use crate::matches::engine::limits::TimeControl;

    #[test]
    fn go_has_no_increment() {
        let limits = Limits {
            tc: Some(TimeControl {
                base_ms: 1000,
                inc_ms: 0,
            }),
            ..Limits::default()
        };
        let clocks = [Some(900), Some(800)];
        assert_eq!(
            Gbgp.go_line(&limits, &clocks, &[Some(0), Some(0)]),
            "go wtime 900 btime 800"
        );
        assert_eq!(
            Mulino.go_line(&limits, &clocks, &[Some(0), Some(0)]),
            "go wtime 900 winc 0 btime 800 binc 0"
        );
    }

    #[test]
    fn whole_turns_and_scores_from_whites_side() {
        let moves: Vec<Move> = ["d6", "a1", "d7xa4", "d6-d5xb4xa1"]
            .map(|m| m.parse().expect("a move"))
            .into();
        assert_eq!(
            Gbgp.position_line(None, &moves),
            "position startpos moves d6 a1 d7xa4 d6-d5xb4xa1"
        );
        let line = "info depth 7 time 2470 nodes 3552790 score eval 15 pv d6 d2 score cp 3";
        assert_eq!(
            Gbgp.read_reply(line, Color::Black),
            Reply::Info {
                depth: Some(7),
                score: Some(EngineScore::Cp(-15)),
                said: false
            }
        );
        let win = "info depth 5 score win -3 pv a1";
        assert!(matches!(
            Gbgp.read_reply(win, Color::Black),
            Reply::Info {
                score: Some(EngineScore::Mate(2)),
                ..
            }
        ));
        assert_eq!(
            Gbgp.read_reply("bestmove none", Color::White),
            Reply::Best {
                depth: None,
                score: None,
                mv: None
            }
        );
    }
}
