//! Sanmill's rules, as its `tgf mill uci` takes them: every field of the
//! referee's [`Rules`] as one of Sanmill's own `setoption`s (Sanmill has
//! no variant option; it starts with Nine Men's Morris and changes one
//! field per option), with the name and value its `statejson` reports
//! the field under; and the check of that report, on the first position
//! of a game, against the referee: the same rules, the same position, the
//! same legal moves.
//!
//! The names, ranges and numbered choices are those of Sanmill's
//! `crates/tgf-cli/src/mill_uci/setoption.rs` and the rule types of
//! `crates/tgf-mill/src/rules/types.rs` (checked against a6623f88); its
//! eleven presets (`presets.rs`) are mulino's eleven variants, field for
//! field (the tests below).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::core::{FullBoardAction, Move, MoveList, PlacingMill, Position, Rules};

/// One of Sanmill's rule options, at the value the referee's rules need.
#[derive(Clone, Debug, PartialEq)]
pub struct SanmillOption {
    /// The `setoption` name.
    pub name: &'static str,
    /// The value sent.
    pub value: String,
    /// Where `statejson` reports it, as a JSON pointer into
    /// `rules_options`, and the value it reports for `value`.
    pub field: &'static str,
    pub reported: Value,
}

/// The rule options Sanmill accepts only at their defaults here: mulino
/// has no such rule, so they must stay off for both to play one game.
const SANMILL_ONLY: [(&str, &str, &str); 6] = [
    ("PiecesAtLeastCount", "/piecesAtLeastCount", "3"),
    (
        "RestrictRepeatedMillsFormation",
        "/restrictRepeatedMillsFormation",
        "false",
    ),
    (
        "StopPlacingWhenTwoEmptySquares",
        "/stopPlacingWhenTwoEmptySquares",
        "false",
    ),
    (
        "CustodianCaptureEnabled",
        "/custodianCapture/enabled",
        "false",
    ),
    (
        "InterventionCaptureEnabled",
        "/interventionCapture/enabled",
        "false",
    ),
    ("LeapCaptureEnabled", "/leapCapture/enabled", "false"),
];

/// Sanmill's `MillFormationActionInPlacingPhase` for mulino's placing mill.
fn placing_mill(m: PlacingMill) -> (u8, &'static str) {
    match m {
        PlacingMill::RemoveFromBoard => (0, "removeOpponentsPieceFromBoard"),
        PlacingMill::RemoveFromHand => (1, "removeOpponentsPieceFromHandThenOpponentsTurn"),
        PlacingMill::MarkAndDelay => (4, "markAndDelayRemovingPieces"),
        PlacingMill::ByMillCounts => (5, "removalBasedOnMillCounts"),
    }
}

/// Sanmill's `BoardFullAction` for mulino's.
fn full_board(a: FullBoardAction) -> (u8, &'static str) {
    match a {
        FullBoardAction::FirstPlayerLoses => (0, "firstPlayerLose"),
        FullBoardAction::FirstThenSecondRemove => (1, "firstAndSecondPlayerRemovePiece"),
        FullBoardAction::SecondThenFirstRemove => (2, "secondAndFirstPlayerRemovePiece"),
        FullBoardAction::Draw => (4, "agreeToDraw"),
    }
}

/// Sanmill's `EndgameNMoveRule` for mulino's `EndgameNMoveRule` `e` under
/// `NMoveRule` `n` (10 to 200). Sanmill applies its endgame rule only
/// below its `NMoveRule`, and refuses 0: an endgame rule that is off (0)
/// is sent as `n`, which is off for Sanmill too, and one the N-move rule
/// always meets first (`e >= n`) as itself, at most 200.
fn endgame_n_move(n: u16, e: u16) -> Result<u16, String> {
    match e {
        0 => Ok(n),
        e if e >= n => Ok(e.min(200)),
        5.. => Ok(e),
        _ => Err(format!(
            "cannot set EndgameNMoveRule={e} (Sanmill takes 5 to 200; 0 for off)"
        )),
    }
}

/// Every rule option Sanmill needs to play `rules`, in the order sent;
/// an error names a rule Sanmill cannot express.
pub fn options(rules: &Rules) -> Result<Vec<SanmillOption>, String> {
    if !(10..=200).contains(&rules.n_move_rule) {
        return Err(format!(
            "cannot set NMoveRule={} (Sanmill takes 10 to 200 and cannot turn it off)",
            rules.n_move_rule
        ));
    }
    let endgame = endgame_n_move(rules.n_move_rule, rules.endgame_n_move_rule)?;
    let int = |name, field, v: u16| SanmillOption {
        name,
        value: v.to_string(),
        field,
        reported: v.into(),
    };
    let flag = |name, field, v: bool| SanmillOption {
        name,
        value: v.to_string(),
        field,
        reported: v.into(),
    };
    let choice = |name, field, (v, reported): (u8, &str)| SanmillOption {
        name,
        value: v.to_string(),
        field,
        reported: reported.into(),
    };
    let stalemate = if rules.blocked_removes {
        (2, "removeOpponentsPieceAndMakeNextMove")
    } else {
        (0, "endWithStalemateLoss")
    };
    let mut out = vec![
        int("PiecesCount", "/pieceCount", rules.pieces.into()),
        flag("MayFly", "/mayFly", rules.flying),
        int("FlyPieceCount", "/flyPieceCount", rules.fly_at.into()),
        flag("HasDiagonalLines", "/hasDiagonalLines", rules.diagonals),
        choice(
            "MillFormationActionInPlacingPhase",
            "/millFormationActionInPlacingPhase",
            placing_mill(rules.placing_mill),
        ),
        flag(
            "MayRemoveFromMillsAlways",
            "/mayRemoveFromMillsAlways",
            rules.remove_from_mills_always,
        ),
        flag(
            "MayRemoveMultiple",
            "/mayRemoveMultiple",
            rules.remove_multiple,
        ),
        flag(
            "MayMoveInPlacingPhase",
            "/mayMoveInPlacingPhase",
            rules.move_in_placing,
        ),
        flag("OneTimeUseMill", "/oneTimeUseMill", rules.one_time_mills),
        int("NMoveRule", "/nMoveRule", rules.n_move_rule),
        int("EndgameNMoveRule", "/endgameNMoveRule", endgame),
        flag(
            "ThreefoldRepetitionRule",
            "/threefoldRepetitionRule",
            rules.threefold,
        ),
        choice(
            "BoardFullAction",
            "/boardFullAction",
            full_board(rules.full_board),
        ),
        flag(
            "IsDefenderMoveFirst",
            "/isDefenderMoveFirst",
            rules.defender_moves_first,
        ),
        choice("StalemateAction", "/stalemateAction", stalemate),
    ];
    for (name, field, value) in SANMILL_ONLY {
        let reported = match value {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            n => n.parse::<u64>().map_or(Value::Null, Value::from),
        };
        out.push(SanmillOption {
            name,
            value: value.into(),
            field,
            reported,
        });
    }
    Ok(out)
}

/// Whether `name` (an `option.NAME` of a Sanmill engine) is one of
/// Sanmill's rule options, which only `--variant` and `--rule` may set.
/// Sanmill ignores case and takes each name with spaces between its
/// words too (`May Fly`), and `PieceCount` for `PiecesCount`.
pub fn is_rule_option(name: &str) -> bool {
    let squash = |s: &str| s.replace(' ', "").to_ascii_lowercase();
    let name = squash(name);
    // Whatever the rules, the same names are sent.
    let names = options(&Rules::default()).unwrap_or_default();
    names
        .iter()
        .map(|o| o.name)
        .chain(["PieceCount"])
        .any(|n| squash(n) == name)
}

/// The first action of each of the legal moves of `pos`, in Sanmill's
/// atomic notation: the step of a whole turn, or its first removal.
pub fn first_actions(rules: &Rules, pos: &Position) -> BTreeSet<String> {
    let mut list = MoveList::new();
    pos.legal_moves(rules, &mut list);
    list.iter()
        .map(|&m| match (m.to(), m.removals().next()) {
            (None, Some(p)) => Move::remove_only(p).to_string(),
            _ => m.step_text(),
        })
        .collect()
}

/// Why the state a Sanmill engine reports (`statejson`'s JSON) is not
/// the referee's `pos` under `rules`, if it is not: a rule option at
/// another value, another position (the first ten FEN fields), or other
/// legal moves.
pub fn disagreement(rules: &Rules, pos: &Position, state: &Value) -> Option<String> {
    if state["status"] != "ok" {
        return Some(format!("reports status {}", state["status"]));
    }
    let wanted = options(rules).ok()?;
    for o in &wanted {
        let got = state["rules_options"].pointer(o.field);
        if got != Some(&o.reported) {
            return Some(format!(
                "plays {}={} (`statejson`: {}), the referee's rules need {}",
                o.name,
                got.map_or("nothing".to_string(), Value::to_string),
                &o.field[1..],
                o.reported
            ));
        }
    }
    let fen = pos.fen(rules);
    let theirs = state["fen"].as_str().unwrap_or_default();
    let fields = |f: &str| f.split_whitespace().take(10).collect::<Vec<_>>().join(" ");
    if fields(theirs) != fields(&fen) {
        return Some(format!(
            "is at another position: `{theirs}`, the referee at `{fen}`"
        ));
    }
    let ours = first_actions(rules, pos);
    let their_moves: BTreeSet<String> = state["legal_actions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a.as_str().map(String::from))
        .collect();
    if their_moves != ours {
        let list = |s: Vec<&String>| {
            let n = s.len();
            let mut words: Vec<&str> = s.into_iter().take(8).map(String::as_str).collect();
            if n > 8 {
                words.push("...");
            }
            words.join(" ")
        };
        return Some(format!(
            "lists other legal moves: {} more ({}) and {} fewer ({}) than the referee",
            their_moves.difference(&ours).count(),
            list(their_moves.difference(&ours).collect()),
            ours.difference(&their_moves).count(),
            list(ours.difference(&their_moves).collect()),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    /// Sanmill's presets (`crates/tgf-mill/src/presets.rs`) as the fields
    /// they change from its defaults (Nine Men's Morris), by rule index.
    const PRESETS: [(u8, &[(&str, &str)]); 11] = [
        (0, &[]),
        (1, &[("PiecesCount", "12"), ("HasDiagonalLines", "true")]),
        (
            2,
            &[
                ("PiecesCount", "12"),
                ("HasDiagonalLines", "true"),
                ("MillFormationActionInPlacingPhase", "1"),
            ],
        ),
        (
            3,
            &[
                ("PiecesCount", "12"),
                ("HasDiagonalLines", "true"),
                ("MayRemoveMultiple", "true"),
            ],
        ),
        (4, &[("OneTimeUseMill", "true")]),
        (
            5,
            &[("PiecesCount", "10"), ("MayMoveInPlacingPhase", "true")],
        ),
        (6, &[("MayFly", "false")]),
        (
            7,
            &[
                ("PiecesCount", "12"),
                ("HasDiagonalLines", "true"),
                ("MillFormationActionInPlacingPhase", "4"),
                ("IsDefenderMoveFirst", "true"),
                ("MayRemoveFromMillsAlways", "true"),
                ("MayFly", "false"),
            ],
        ),
        (
            8,
            &[
                ("PiecesCount", "12"),
                ("HasDiagonalLines", "true"),
                ("BoardFullAction", "1"),
                ("StalemateAction", "2"),
            ],
        ),
        (
            9,
            &[
                ("PiecesCount", "12"),
                ("MillFormationActionInPlacingPhase", "5"),
                ("MayRemoveFromMillsAlways", "true"),
                ("BoardFullAction", "1"),
                ("MayFly", "false"),
            ],
        ),
        (
            10,
            &[
                ("PiecesCount", "12"),
                ("HasDiagonalLines", "true"),
                ("IsDefenderMoveFirst", "true"),
                ("MayRemoveFromMillsAlways", "true"),
                ("BoardFullAction", "2"),
                ("MayFly", "false"),
            ],
        ),
    ];

    #[test]
    fn every_variant_is_its_sanmill_preset() {
        let defaults = options(&Variant::Nine.rules()).expect("nine");
        for variant in Variant::ALL {
            let (_, changed) = PRESETS[variant.sanmill_index() as usize];
            let sent = options(&variant.rules()).expect("every preset");
            assert_eq!(sent.len(), defaults.len());
            for (o, d) in sent.iter().zip(&defaults) {
                let expected = changed
                    .iter()
                    .find(|(n, _)| *n == o.name)
                    .map_or(d.value.as_str(), |(_, v)| v);
                assert_eq!(o.value, expected, "{variant}: {}", o.name);
            }
        }
        // Sanmill's defaults, as its `uci` lists them.
        let listed: Vec<(&str, &str)> = defaults
            .iter()
            .map(|o| (o.name, o.value.as_str()))
            .collect();
        assert!(listed.contains(&("NMoveRule", "100")));
        assert!(listed.contains(&("EndgameNMoveRule", "100")));
        assert!(listed.contains(&("FlyPieceCount", "3")));
    }

    #[test]
    fn what_sanmill_cannot_express() {
        let with = |n, e| Rules {
            n_move_rule: n,
            endgame_n_move_rule: e,
            ..Rules::default()
        };
        let value = |r: &Rules, name: &str| {
            let o = options(r).expect("expressible");
            o.into_iter().find(|o| o.name == name).expect("sent").value
        };
        assert_eq!(value(&with(40, 0), "EndgameNMoveRule"), "40");
        assert_eq!(value(&with(40, 60), "EndgameNMoveRule"), "60");
        assert_eq!(value(&with(40, 1000), "EndgameNMoveRule"), "200");
        assert_eq!(value(&with(40, 20), "EndgameNMoveRule"), "20");
        for (n, e) in [(0, 100), (9, 5), (201, 100), (100, 4), (100, 1)] {
            assert!(options(&with(n, e)).is_err(), "{n} {e}");
        }
        assert!(is_rule_option("pieces count"));
        assert!(is_rule_option("Piece Count"));
        assert!(is_rule_option("mayfly"));
        assert!(!is_rule_option("SkillLevel"));
    }

    #[test]
    fn a_state_is_checked_field_by_field() {
        let rules = Rules::default();
        let pos = Position::startpos(&rules);
        let mut fields = serde_json::Map::new();
        for o in options(&rules).expect("nine") {
            let mut slot = &mut fields;
            let path: Vec<&str> = o.field[1..].split('/').collect();
            for key in &path[..path.len() - 1] {
                slot = slot
                    .entry(key.to_string())
                    .or_insert_with(|| Value::Object(Default::default()))
                    .as_object_mut()
                    .expect("an object");
            }
            slot.insert(path[path.len() - 1].to_string(), o.reported);
        }
        let actions: Vec<String> = first_actions(&rules, &pos).into_iter().collect();
        assert_eq!(actions.len(), 24);
        let mut state = serde_json::json!({
            "status": "ok",
            "rules_options": fields,
            "fen": format!("{} ids:nodes", pos.fen(&rules)),
            "legal_actions": actions,
        });
        assert_eq!(disagreement(&rules, &pos, &state), None);
        state["rules_options"]["leapCapture"]["enabled"] = true.into();
        let why = disagreement(&rules, &pos, &state).expect("a capture rule");
        assert!(why.contains("LeapCaptureEnabled=true"), "{why}");
        state["rules_options"]["leapCapture"]["enabled"] = false.into();
        state["legal_actions"][0] = "d6-d5".into();
        let why = disagreement(&rules, &pos, &state).expect("a move");
        assert!(why.contains("1 more (d6-d5) and 1 fewer"), "{why}");
    }
}
