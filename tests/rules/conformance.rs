//! Conformance of the rules core with Sanmill's test vectors.
//!
//! The data in `tests/data/sanmill/` was copied from Sanmill
//! (github.com/calcitem/Sanmill, snapshot a6623f88; format and notation in
//! the project's `shared/conformance/sanmill/README.md`): `N.json` holds 8
//! seeded random games of Sanmill preset `N` (0 nine, 1 twelve, 2 Dooz,
//! 3 Morabaraba, 4 Russian, 5 Lasker, 6 Cheng San Qi, 7 Da San Qi, 8 Zhi
//! Qi, 9 El Filja, 10 Experimental), every position with
//! its FEN, its legal moves in Sanmill's atomic notation and the move
//! played; `golden_games.json` holds 14 hand-written nine men's morris games
//! with their expected final state. Only the data is used, no Sanmill code.
//!
//! For every step of every game of every variant this checks that:
//! 1. the FEN parses, and writing it back gives the same fields 1-10 and 15;
//! 2. our legal moves, as Sanmill's atomic actions (the step part of each
//!    whole turn, or the single removals while a removal is owed), are
//!    exactly Sanmill's `legal_uci` (details in `check_legal`);
//! 3. playing `picked_uci` (atomic, with `Position::play`) gives the next
//!    step's FEN in fields 1-10 (board to removal counts) and field 15
//!    (formed mills); fields 11-14 are always 0 and fields 16-17 are frozen
//!    at `0 1` in the data, so they are not compared;
//! 4. after the last step's move the game is over, or still in the moving
//!    phase, as `final_phase_tag` says, with the side to move (and winner)
//!    that `final_side_to_move` implies (see `check_final`).
//!
//! The golden games are replayed from the start and their final counts,
//! side, phase, action and winner compared.
//!
//! Mismatches are collected and reported together at the end of each test,
//! which also asserts how many positions it checked (11,789 in all), so it
//! cannot pass on missing data.

use std::collections::{BTreeMap, BTreeSet};

use mulino::core::{Color, Move, MoveList, Outcome, Point, Position, Rules, Variant, WinReason};
use serde_json::Value;

/// How many mismatches a failing test lists before summarising the rest.
const MAX_LISTED: usize = 200;

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/sanmill/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn int(v: &Value, key: &str) -> i64 {
    v[key]
        .as_i64()
        .unwrap_or_else(|| panic!("`{key}` is not an integer in {v}"))
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("`{key}` is not a string in {v}"))
}

fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("`{key}` is not an array"))
}

/// Sanmill's side code: 1 white, 2 black.
fn side_code(code: i64) -> Color {
    match code {
        1 => Color::White,
        2 => Color::Black,
        other => panic!("side code {other} is neither 1 nor 2"),
    }
}

/// FEN fields 1-10 and 15 (0-based 0..10 and 14): the ones both sides
/// track. A FEN that does not have them is returned as a whole.
fn compared_fields(fen: &str) -> String {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.len() < 15 {
        return fen.to_string();
    }
    format!("{} | {}", fields[..10].join(" "), fields[14])
}

/// `set` as sorted text, for messages.
fn listed(set: &BTreeSet<String>) -> String {
    set.iter().cloned().collect::<Vec<_>>().join(" ")
}

/// Compares our legal whole turns in `pos` with Sanmill's atomic actions.
///
/// With no removal owed, the step parts of our turns (`d6-d5xb4` gives
/// `d6-d5`) must be exactly Sanmill's list. With a removal owed Sanmill
/// lists the single removals (`xb4`), and:
/// - `Position::play` must accept exactly those single removals;
/// - with one removal owed, our removal-only turns (`xb4`) must be exactly
///   that list;
/// - with two or more owed, our turns (`xb4xa1`) hold one order per *set*
///   of removed points (the generator drops other orders of the same set, as
///   they reach the same position), so their first removals need not cover
///   Sanmill's list: each must be in it, and each of Sanmill's removals must
///   be in some turn.
fn check_legal(
    rules: &Rules,
    pos: &Position,
    list: &MoveList,
    theirs: &BTreeSet<String>,
) -> Result<(), String> {
    let pending = pos.pending_removals();
    let differ = |what: &str, ours: &BTreeSet<String>| {
        Err(format!(
            "{what} differ: we have [{}], Sanmill has [{}] (only ours: [{}]; only Sanmill's: [{}])",
            listed(ours),
            listed(theirs),
            listed(&ours.difference(theirs).cloned().collect()),
            listed(&theirs.difference(ours).cloned().collect()),
        ))
    };
    if pending == 0 {
        let steps: BTreeSet<String> = list.iter().map(|m| m.step_text()).collect();
        return if &steps == theirs {
            Ok(())
        } else {
            differ("legal steps", &steps)
        };
    }
    let single: BTreeSet<String> = Point::ALL
        .into_iter()
        .filter(|&p| pos.play(rules, Move::remove_only(p)).is_ok())
        .map(|p| format!("x{p}"))
        .collect();
    if &single != theirs {
        return differ("single removals accepted by play", &single);
    }
    if let Some(m) = list.iter().find(|m| m.to().is_some()) {
        return Err(format!("{m} listed while a removal is owed"));
    }
    let firsts: BTreeSet<String> = list
        .iter()
        .filter_map(|m| m.removals().next())
        .map(|p| format!("x{p}"))
        .collect();
    if pending == 1 {
        return if &firsts == theirs {
            Ok(())
        } else {
            differ("removal-only turns", &firsts)
        };
    }
    let anywhere: BTreeSet<String> = list
        .iter()
        .flat_map(|m| m.removals())
        .map(|p| format!("x{p}"))
        .collect();
    if firsts.is_subset(theirs) && theirs.is_subset(&anywhere) {
        Ok(())
    } else {
        differ(
            &format!(
                "first removals (of {pending} owed, in [{}])",
                listed(&anywhere)
            ),
            &firsts,
        )
    }
}

/// Collected mismatches of one test.
#[derive(Default)]
struct Report {
    mismatches: Vec<String>,
}

impl Report {
    fn add(&mut self, at: &str, what: String) {
        self.mismatches.push(format!("{at}: {what}"));
    }

    fn assert_clean(&self, name: &str) {
        if self.mismatches.is_empty() {
            return;
        }
        let mut msg = format!("{name}: {} mismatches\n", self.mismatches.len());
        for m in self.mismatches.iter().take(MAX_LISTED) {
            msg.push_str("  ");
            msg.push_str(m);
            msg.push('\n');
        }
        if self.mismatches.len() > MAX_LISTED {
            msg.push_str(&format!(
                "  ... and {} more\n",
                self.mismatches.len() - MAX_LISTED
            ));
        }
        panic!("{msg}");
    }
}

/// Checks one variant's file; `expected_steps` pins the size of the copied
/// snapshot.
fn check_variant(variant: Variant, expected_steps: usize) {
    let rules = variant.rules();
    let index = variant.sanmill_index();
    let data = load(&format!("{index}.json"));
    assert_eq!(
        int(&data, "rule_idx"),
        i64::from(index),
        "{variant}: rule_idx"
    );
    let trajectories = array(&data, "trajectories");
    assert_eq!(trajectories.len(), 8, "{variant}: trajectories");

    let mut report = Report::default();
    let mut steps_checked = 0;
    let mut ends: BTreeMap<&str, usize> = BTreeMap::new();
    let mut list = MoveList::new();
    for (t, trajectory) in trajectories.iter().enumerate() {
        let steps = array(trajectory, "steps");
        assert!(!steps.is_empty(), "{variant}: trajectory {t} has no steps");
        for (s, step) in steps.iter().enumerate() {
            steps_checked += 1;
            let fen = text(step, "fen");
            let picked = text(step, "picked_uci");
            let at = format!("{variant} trajectory {t} step {s} [{fen}]");

            // 1. The FEN parses and is written back the same way.
            let Some(pos) = check_fen(&rules, step, &at, &mut report) else {
                continue;
            };

            // 2. The legal moves, as atomic actions.
            pos.legal_moves(&rules, &mut list);
            let theirs: BTreeSet<String> = array(step, "legal_uci")
                .iter()
                .map(|v| v.as_str().expect("legal_uci entry").to_string())
                .collect();
            if let Err(what) = check_legal(&rules, &pos, &list, &theirs) {
                report.add(&at, what);
            }

            // 3. The picked move leads to the next step's position.
            let m: Move = match picked.parse() {
                Ok(m) => m,
                Err(e) => {
                    report.add(&at, format!("picked move `{picked}` does not parse: {e}"));
                    continue;
                }
            };
            let next = match pos.play(&rules, m) {
                Ok(next) => next,
                Err(e) => {
                    report.add(&at, format!("playing `{picked}` failed: {e}"));
                    continue;
                }
            };
            match steps.get(s + 1) {
                Some(following) => {
                    let expected = text(following, "fen");
                    let got = next.fen(&rules);
                    if compared_fields(&got) != compared_fields(expected) {
                        report.add(
                            &at,
                            format!("after `{picked}` we have {got}, expected {expected}"),
                        );
                    }
                }
                None => {
                    // 4. The end of the trajectory.
                    let tag = int(trajectory, "final_phase_tag");
                    let final_side = side_code(int(trajectory, "final_side_to_move"));
                    match check_final(&rules, &next, tag, final_side) {
                        Ok(kind) => *ends.entry(kind).or_default() += 1,
                        Err(what) => {
                            *ends.entry("mismatched").or_default() += 1;
                            report.add(&at, format!("after the last move `{picked}`: {what}"));
                        }
                    }
                }
            }
        }
    }
    let ends_text: Vec<String> = ends.iter().map(|(k, n)| format!("{n} {k}")).collect();
    eprintln!(
        "sanmill {index} ({variant}): {steps_checked} positions, game ends: {}; {} mismatches",
        ends_text.join(", "),
        report.mismatches.len()
    );
    report.assert_clean(&format!("sanmill {index} ({variant})"));
    assert_eq!(
        steps_checked, expected_steps,
        "{variant}: positions checked"
    );
    let finals_checked: usize = ends.values().sum();
    assert_eq!(finals_checked, trajectories.len(), "{variant}: game ends");
}

/// Step 1 of a step's checks: its FEN parses, is written back the same
/// way, and has Sanmill's side to move. The position, if it parses.
fn check_fen(rules: &Rules, step: &Value, at: &str, report: &mut Report) -> Option<Position> {
    let fen = text(step, "fen");
    let pos = match Position::from_fen(fen, rules) {
        Ok(pos) => pos,
        Err(e) => {
            report.add(at, format!("FEN rejected: {e}"));
            return None;
        }
    };
    let written = pos.fen(rules);
    if compared_fields(&written) != compared_fields(fen) {
        report.add(at, format!("FEN written back as {written}"));
    }
    let side = side_code(int(step, "side_to_move"));
    if pos.side_to_move() != side {
        report.add(
            at,
            format!("side to move {}, expected {side}", pos.side_to_move()),
        );
    }
    Some(pos)
}

/// Compares the position after a trajectory's last move with Sanmill's
/// `final_phase_tag` (3 moving, 4 game over) and `final_side_to_move`.
///
/// Sanmill's final side is simply its engine's side to move, not the
/// winner, and the two engines hand the turn over differently at the end:
/// - fewer than three pieces: Sanmill ends the game inside the removal, so
///   the remover is still to move; we end the turn first, so the loser is to
///   move. Expect: winner = final side, our side to move = its opponent.
/// - no legal move (and the full board, which Sanmill treats as no legal
///   move, after Black's last placement): both have the stuck side to move.
///   Expect: our side to move = final side, winner (if any) = its opponent.
/// - still moving (the game was cut at 200 plies): no outcome, nobody is
///   placing, same side to move.
fn check_final(
    rules: &Rules,
    pos: &Position,
    tag: i64,
    final_side: Color,
) -> Result<&'static str, String> {
    let side = pos.side_to_move();
    let outcome = pos.outcome(rules);
    let kind = match (tag, outcome) {
        (
            4,
            Some(Outcome::Win {
                winner,
                reason: WinReason::FewerThanThree,
            }),
        ) if winner == final_side && side == final_side.opponent() => "fewer than three",
        (
            4,
            Some(Outcome::Win {
                winner,
                reason: WinReason::Blocked,
            }),
        ) if winner == final_side.opponent() && side == final_side => "blocked",
        (
            4,
            Some(Outcome::Win {
                winner,
                reason: WinReason::FullBoard,
            }),
        ) if winner == final_side.opponent() && side == final_side => "full board",
        (4, Some(Outcome::Draw(_))) if side == final_side => "draw",
        (3, None) if !pos.is_placing() && side == final_side => "cut while moving",
        _ => {
            return Err(format!(
                "final_phase_tag {tag}, final side {final_side}; we have {} with {side} to move, outcome {outcome:?}",
                pos.fen(rules)
            ));
        }
    };
    Ok(kind)
}

#[test]
fn sanmill_0_nine() {
    check_variant(Variant::Nine, 1142);
}

#[test]
fn sanmill_1_twelve() {
    check_variant(Variant::Twelve, 806);
}

#[test]
fn sanmill_3_morabaraba() {
    check_variant(Variant::Morabaraba, 858);
}

#[test]
fn sanmill_4_russian() {
    check_variant(Variant::Russian, 1587);
}

#[test]
fn sanmill_5_lasker() {
    check_variant(Variant::Lasker, 1249);
}

#[test]
fn sanmill_6_cheng_san_qi() {
    check_variant(Variant::ChengSanQi, 1262);
}

#[test]
fn sanmill_2_dooz() {
    check_variant(Variant::Dooz, 914);
}

#[test]
fn sanmill_7_da_san_qi() {
    check_variant(Variant::DaSanQi, 967);
}

#[test]
fn sanmill_8_zhi_qi() {
    check_variant(Variant::ZhiQi, 979);
}

#[test]
fn sanmill_9_el_filja() {
    check_variant(Variant::ElFilja, 1113);
}

#[test]
fn sanmill_10_experimental() {
    check_variant(Variant::Experimental, 912);
}

/// Our state in the golden file's words: phase and action from the FEN
/// we write (`p`/`m`/`o`, `p`/`s`/`r`/`?`), side, counts and winner.
fn golden_state(rules: &Rules, pos: &Position) -> Vec<(&'static str, String)> {
    let fen = pos.fen(rules);
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let phase = match fields[2] {
        "p" => "placing",
        "m" => "moving",
        "o" => "gameOver",
        other => other,
    };
    let action = match fields[3] {
        "p" => "place",
        "s" => "select",
        "r" => "remove",
        "?" => "none",
        other => other,
    };
    let winner = match pos.outcome(rules) {
        None => "none".to_string(),
        Some(Outcome::Win { winner, .. }) => winner.name().to_string(),
        Some(Outcome::Draw(_)) => "draw".to_string(),
    };
    let side = if pos.outcome(rules).is_some() {
        "none"
    } else {
        pos.side_to_move().name()
    };
    vec![
        ("phase", phase.to_string()),
        ("action", action.to_string()),
        ("side", side.to_string()),
        ("w_on", pos.pieces(Color::White).count().to_string()),
        ("b_on", pos.pieces(Color::Black).count().to_string()),
        ("w_hand", pos.in_hand(Color::White).to_string()),
        ("b_hand", pos.in_hand(Color::Black).to_string()),
        ("winner", winner),
    ]
}

#[test]
fn sanmill_golden_games() {
    let data = load("golden_games.json");
    assert_eq!(
        int(&data, "rule_index"),
        0,
        "golden games are nine men's morris"
    );
    let rules = Variant::Nine.rules();
    let games = array(&data, "games");
    let mut report = Report::default();
    let mut moves_played = 0;
    for game in games {
        let id = text(game, "id");
        let mut pos = Position::startpos(&rules);
        let mut failed = false;
        for (i, mv) in array(game, "moves").iter().enumerate() {
            let mv = mv.as_str().expect("move text");
            let result = mv
                .parse::<Move>()
                .map_err(|e| e.to_string())
                .and_then(|m| pos.play(&rules, m).map_err(|e| e.to_string()));
            match result {
                Ok(next) => {
                    pos = next;
                    moves_played += 1;
                }
                Err(e) => {
                    report.add(id, format!("move {i} `{mv}` failed: {e}"));
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            continue;
        }
        let expected = &game["final"];
        for (key, got) in golden_state(&rules, &pos) {
            let want = match &expected[key] {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                other => panic!("{id}: final `{key}` is {other}"),
            };
            if got != want {
                report.add(
                    id,
                    format!(
                        "final {key} is {got}, expected {want} ({})",
                        pos.fen(&rules)
                    ),
                );
            }
        }
    }
    eprintln!(
        "sanmill golden games: {} games, {moves_played} moves, {} mismatches",
        games.len(),
        report.mismatches.len()
    );
    report.assert_clean("sanmill golden games");
    assert_eq!(games.len(), 14, "golden games");
    assert_eq!(moves_played, 105, "golden game moves played");
}
