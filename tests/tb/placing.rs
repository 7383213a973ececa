//! The placing-phase databases on a set CI can afford: the moving phase
//! up to 4-4 and every placing sector where each side has at most four
//! pieces, on board and in hand. Each layer is checked by `tb verify`'s
//! recomputation and, for positions several placements from the moving
//! phase, by a minimax over the rules core's own moves; the engine keeps
//! the value move after move through the rest of the placing phase.

use std::path::Path;

use crate::common::{Engine, bestmove_of};
use crate::fixture;
use mulino::core::{Move, MoveList, Outcome, Position, Rules};
use mulino::matches::rules::adjudicate::{TbAdjudication, TbMode};
use mulino::tb::placing::build::{PlacingOptions, build_layer};
use mulino::tb::placing::verify::verify_layer;
use mulino::tb::placing::{LAYERS, Layer, PlacingLoaded, get, wdl};
use mulino::tb::probe::Tablebases;
use mulino::tb::{NMoveLimits, TbError, TbRules, Wdl};

const MAX: u8 = fixture::PLACING_MAX;

fn rules() -> TbRules {
    fixture::rules()
}

/// The moving phase up to 4-4 (both kinds of file) and the placing layers
/// of at most four pieces a side, built once for this test binary.
fn built() -> &'static Path {
    fixture::placing()
}

#[test]
fn every_layer_verifies_against_the_rules_core() {
    let dir = built();
    let mut decided = 0;
    for k in (0..LAYERS).rev() {
        let f = verify_layer(dir, rules(), k, MAX, 2, &|_| {}).unwrap();
        assert_eq!(f.mismatches, 0, "layer {k}: {:?}", f.first);
        let t = PlacingLoaded::open(dir, rules(), k).unwrap();
        decided += t.table.header.wins + t.table.header.losses;
    }
    // The set has wins and losses to check, not only draws.
    assert!(decided > 10_000, "{decided}");
}

/// The value of `pos` by minimax over the rules core's moves, down to the
/// moving phase (valued by its `.tb` files): independent of the placing
/// builder and of `verify`'s one-ply recomputation.
fn minimax(tables: &Tablebases, rules: &Rules, pos: &Position) -> Wdl {
    if !pos.is_placing() {
        // The moving phase from a counter of 0, under the default rule.
        return match tables.value(pos).and_then(|v| v.rule) {
            Some(v) => v,
            None => panic!("{}: no value under the rule", pos.fen(rules)),
        };
    }
    let mut moves = MoveList::new();
    pos.legal_moves(rules, &mut moves);
    let us = pos.side_to_move();
    let mut best = Wdl::Loss;
    for &m in moves.iter() {
        let child = pos.play_unchecked(rules, m);
        let v = match child.outcome(rules) {
            Some(Outcome::Win { winner, .. }) => {
                if winner == us {
                    Wdl::Win
                } else {
                    Wdl::Loss
                }
            }
            Some(_) => Wdl::Draw,
            None => minimax(tables, rules, &child).flip(),
        };
        best = best.max(v);
        if best == Wdl::Win {
            break;
        }
    }
    best
}

#[test]
fn layers_agree_with_a_minimax_to_the_moving_phase() {
    let dir = built();
    let game = Rules::default();
    let tables = Tablebases::under(dir, rules(), NMoveLimits::of(&game));
    let mut checked = [0u32; 3];
    // Layers 14 and 15: three and four placements from the moving phase.
    for k in [14, 15] {
        let t = PlacingLoaded::open(dir, rules(), k).unwrap();
        let layer = Layer { k, max: MAX };
        for s in &t.sectors {
            for class in (0..s.sub.major_classes()).step_by(7) {
                let own = s.sub.major_set(class);
                s.sub.for_each_in_class(class, |idx, opp| {
                    if !s.sub.is_canonical(class, opp) || idx % 5 != 0 {
                        return;
                    }
                    let pos = layer.position(&game, own, opp).unwrap();
                    let stored = wdl(get(t.table.slots(), s.first + idx));
                    assert_eq!(minimax(&tables, &game, &pos), stored, "{}", pos.fen(&game));
                    checked[stored as usize] += 1;
                });
            }
        }
    }
    assert!(checked.iter().all(|&n| n > 0), "{checked:?}");
}

/// The first win of the earliest layer that has one (as many placements
/// to go as the set allows).
fn first_placing_win(dir: &Path, game: &Rules) -> Position {
    let first_win = |k: u8| {
        let layer = Layer { k, max: MAX };
        let t = PlacingLoaded::open(dir, rules(), k).unwrap();
        t.sectors.iter().find_map(|s| {
            (0..s.sub.len()).find_map(|idx| {
                let (own, opp) = s.sub.position(idx);
                let canonical = s.sub.index(own, opp) == idx;
                (canonical && wdl(get(t.table.slots(), s.first + idx)) == Wdl::Win)
                    .then(|| layer.position(game, own, opp).unwrap())
            })
        })
    };
    (0..LAYERS).find_map(first_win).unwrap()
}

/// From a placing position the databases call won, the engine plays both
/// sides: each move keeps the value (the winner's a win, the loser's a
/// loss) through the placing phase and after it, and the winner wins.
#[test]
fn the_engine_keeps_the_value_through_the_placing_phase() {
    let dir = built();
    let game = Rules::default();
    let tables = Tablebases::new(dir, rules());
    let start = first_placing_win(dir, &game);
    assert!(Layer::of(&start).unwrap().k <= 13, "{}", start.fen(&game));
    let fen = start.fen(&game);
    let mut e = Engine::spawn();
    e.use_tablebases(dir);
    let mut pos = start;
    let mut moves: Vec<String> = Vec::new();
    let winner = start.side_to_move();
    for _ in 0..120 {
        if let Some(outcome) = pos.outcome(&game) {
            assert!(
                matches!(outcome, Outcome::Win { winner: w, .. } if w == winner),
                "{fen} {moves:?}: {outcome:?}"
            );
            return;
        }
        let expect = if pos.side_to_move() == winner {
            Wdl::Win
        } else {
            Wdl::Loss
        };
        let v = tables.value(&pos).and_then(|v| v.pure);
        assert_eq!(v, Some(expect), "{fen} moves {moves:?}");
        e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        let lines = e.go("depth 3");
        let best = bestmove_of(lines.last().unwrap()).to_string();
        let m: Move = best.parse().unwrap();
        pos = pos.play(&game, m).unwrap();
        moves.push(best);
    }
    panic!("no end in 120 plies: {fen} {moves:?}");
}

#[test]
fn a_placing_build_says_what_it_needs_and_keeps_to_its_rules() {
    let dir = fixture::scratch("placing-empty");
    let opts = PlacingOptions {
        dir: dir.clone(),
        threads: 1,
        max: MAX,
        limits: NMoveLimits::of(&Rules::default()),
        memory: 1 << 30,
    };
    // A layer that needs more memory than allowed is refused before
    // anything is read.
    let tight = PlacingOptions {
        memory: 1000,
        ..opts.clone()
    };
    match build_layer(rules(), 17, &tight, &|_| {}) {
        Err(TbError::Memory { subspace, .. }) => assert_eq!(subspace, "placing layer 17"),
        other => panic!("{other:?}"),
    }
    match build_layer(rules(), 17, &opts, &|_| {}) {
        Err(TbError::Unusable(why)) => {
            assert!(why.contains("needs the moving phase"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    // A layer built for these rules is not read for others.
    let no_fly = TbRules::from_rules(&mulino::core::Variant::ChengSanQi.rules()).unwrap();
    assert!(matches!(
        PlacingLoaded::open(built(), no_fly, 17),
        Err(TbError::WrongRules { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verification_names_a_wrong_placing_value() {
    // A copy of the set with one decided slot of layer 15 turned to the
    // other side: `verify` must name the slot, and the header's counts.
    let dir = fixture::copy_all(built(), "placing-wrong");
    let k = 15;
    let path = dir.join(mulino::tb::placing::file_name(k));
    let mut bytes = std::fs::read(&path).unwrap();
    let header = mulino::tb::format::HEADER_LEN;
    let body = &bytes[header..];
    let slot = (0..body.len() as u64 * 4)
        .find(|&i| wdl(get(body, i)) != Wdl::Draw)
        .expect("a decided slot");
    let flipped = match wdl(get(body, slot)) {
        Wdl::Win => mulino::tb::placing::code(Wdl::Loss),
        _ => mulino::tb::placing::code(Wdl::Win),
    };
    let byte = &mut bytes[header + (slot / 4) as usize];
    let shift = 2 * (slot % 4);
    *byte = (*byte & !(3 << shift)) | (flipped << shift);
    std::fs::write(&path, &bytes).unwrap();
    let f = verify_layer(&dir, rules(), k, MAX, 2, &|_| {}).unwrap();
    assert!(f.mismatches >= 2, "the slot and the header: {:?}", f.first);
    assert!(
        f.first.iter().any(|l| l.contains("successors give")),
        "{:?}",
        f.first
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_checks_the_layers_asked_for_and_nothing_else() {
    let dir = built();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mulino"))
            .args(["tb", "verify", "--dir"])
            .arg(dir)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--layers", "16,17,16"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("mulino-place-17.tb\tok"), "{stdout}");
    assert!(lines[1].starts_with("mulino-place-16.tb\tok"), "{stdout}");
    // Subspaces alone: no placing layer.
    let out = run(&["--subspaces", "3-3"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("mulino-3-3.tb\tok"), "{stdout}");
    assert!(!stdout.contains("place"), "{stdout}");
    let out = run(&["--layers", "18"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("placing layers are 0 to 17"),
        "{out:?}"
    );
}

/// `mulino match --tb` ends a game at the first moving-phase position the
/// databases hold (docs/matches.md); placing layers in the directory do
/// not end it earlier.
#[test]
fn match_adjudication_waits_for_the_moving_phase() {
    let dir = built();
    let game = Rules::default();
    let adjudication = TbAdjudication::open(dir, TbMode::Both, &game).unwrap();
    let tables = Tablebases::under(dir, rules(), NMoveLimits::of(&game));
    let mut pos = first_placing_win(dir, &game);
    let winner = pos.side_to_move();
    let mut moves = MoveList::new();
    while pos.is_placing() {
        let value = tables.value(&pos).and_then(|v| v.rule);
        let value = value.unwrap_or_else(|| panic!("no value: {}", pos.fen(&game)));
        assert!(
            adjudication.verdict(&game, &pos).is_none(),
            "{}",
            pos.fen(&game)
        );
        // On by a move that keeps the value.
        let want = value.flip();
        pos.legal_moves(&game, &mut moves);
        pos = moves
            .iter()
            .map(|&m| pos.play_unchecked(&game, m))
            .find(|c| {
                c.outcome(&game).is_none() && tables.value(c).and_then(|v| v.rule) == Some(want)
            })
            .unwrap();
    }
    let verdict = adjudication
        .verdict(&game, &pos)
        .expect("a moving-phase verdict");
    assert_eq!(verdict.winner, Some(winner), "{}", verdict.detail);
}
