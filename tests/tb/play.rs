//! Playing from the databases: the engine probes them in its search and
//! at the root (tbhits, scores beyond any evaluation, the value kept), the
//! N-move rules decide which database wins and losses stand (the `.dtz`
//! distances to the next removal), and a missing or damaged file never
//! costs a won position or the engine's life.

use std::path::{Path, PathBuf};

use crate::common::{Engine, bestmove_of, last_score};
use crate::fixture;
use mulino::core::{Color, Game, Move, MoveList, Outcome, Position, Rules};
use mulino::search::{MATE, MATE_BOUND, TB_DRAW_BAND, TB_WIN, tb_score, value_keeping_moves};
use mulino::tb::format::{self, Kind};
use mulino::tb::probe::Tablebases;
use mulino::tb::root::probe_root;
use mulino::tb::{NMoveLimits, TbRules, Value, Wdl};

/// Both kinds of file of every subspace up to 5-5, built once for this
/// test binary (the tests that damage files work on copies).
fn up_to_five() -> &'static Path {
    fixture::up_to_five()
}

/// A copy of the files of `subspaces` (both kinds) in a fresh directory.
fn copy_of(name: &str, subspaces: &[(u8, u8)]) -> PathBuf {
    let files = fixture::files_of(&[Kind::ToEnd, Kind::ToRemoval], subspaces);
    fixture::copy_of(up_to_five(), &format!("play-{name}"), &files)
}

/// Every subspace up to 5-5.
fn all_to_five() -> Vec<(u8, u8)> {
    fixture::subspaces_to((5, 5))
}

/// The tables in `dir` for play under `rules`, checked.
fn tables(dir: &Path, rules: &Rules) -> Tablebases {
    let t = Tablebases::for_play(dir, rules, None).unwrap();
    let (_, problems) = t.check_all();
    assert!(problems.is_empty(), "{problems:?}");
    t
}

/// `fen` with the N-move counter (field 16) at `counter`.
fn with_counter(fen: &str, counter: u16) -> String {
    let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
    fields[15] = counter.to_string();
    fields.join(" ")
}

/// White (to move) d7, g7, b2 against d5, e4, c3: b2-a7 closes a mill and
/// leaves Black two pieces.
const WIN_IN_ONE: &str = "@*@**@**/*****O**/OO****** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";

/// A 5-5 win in 27 that only d6-f6xd2 and d6-f6xb4 keep (both go into
/// 4-5); every other move draws.
const TWO_WINNING_REMOVALS: &str = "O@@@O***/O*OO@*@*/******** w m s 5 0 5 0 0 0 0 0 0 0 0 0 1";

/// A 5-5 win: with the counter at 89 (of 100) White still forces a
/// removal in 11 plies, but not by the fastest line to the end.
const WIN_IN_REACH: &str = "O@@@OO**/OO@*@***/******** w m s 5 0 5 0 0 0 0 0 0 0 0 89 1";

#[test]
fn the_engine_plays_and_reports_from_the_databases() {
    let dir = copy_of("engine", &[(3, 3)]);
    let mut e = Engine::spawn();
    let answer = e.use_tablebases(&dir);
    assert_eq!(
        answer,
        ["info string TablebasePath: 2 files checked, all in use"]
    );
    // Black to move loses: every line has tbhits, the score is a mate.
    e.send(&format!(
        "position fen {}",
        WIN_IN_ONE.replace(" w ", " b ")
    ));
    let lines = e.go("depth 4");
    assert!(lines.iter().any(|l| l.contains(" tbhits ")), "{lines:?}");
    assert_eq!(last_score(&lines).unwrap().0, "mate");
    e.send(&format!("position fen {WIN_IN_ONE}"));
    let lines = e.go("depth 3");
    assert_eq!(last_score(&lines), Some(("mate".to_string(), 1)));
    assert_eq!(bestmove_of(lines.last().unwrap()), "b2-a7xd5");
    // Under a clock the database's answer comes at once, searched no
    // further (a minute's movetime would outlast the read's timeout).
    let lines = e.go("movetime 60000");
    assert_eq!(bestmove_of(lines.last().unwrap()), "b2-a7xd5");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 1 ") && l.contains(" nodes 0 ")),
        "{lines:?}"
    );
    // tbprobe: the value, then every legal move's, best first.
    let probe = e.ask("tbprobe");
    assert_eq!(probe[0], "tbprobe value win 1 removal 1");
    assert_eq!(probe[1], "tbprobe move b2-a7xd5 win 1 removal 1");
    assert_eq!(probe.len(), 1 + e.legal_moves().len());
    assert!(probe.iter().skip(1).all(|l| l.starts_with("tbprobe move ")));
    let board = e.display();
    assert!(
        board.iter().any(|l| l == "Tablebase: win 1 removal 1"),
        "{board:?}"
    );
    // A directory that is not there is an error, and play goes on.
    let answer = e.use_tablebases(Path::new("/no/such/mulino/dir"));
    assert!(
        answer
            .iter()
            .any(|l| l.starts_with("info string error: TablebasePath")),
        "{answer:?}"
    );
    e.send(&format!("position fen {WIN_IN_ONE}"));
    let lines = e.go("depth 2");
    assert!(!lines.iter().any(|l| l.contains(" tbhits ")), "{lines:?}");
    assert_eq!(bestmove_of(lines.last().unwrap()), "b2-a7xd5");
    let answer = e.ask("tbprobe");
    assert!(
        answer.iter().any(|l| l.contains("no databases in use")),
        "{answer:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn database_values_follow_the_n_move_rule_through_the_next_removal() {
    let rules = Rules::default();
    let tb = tables(up_to_five(), &rules);
    // The longest win of 3-3 (25 plies; in 3-3 every removal ends the
    // game, so the next removal is the end too).
    let t = tb.table(3, 3).unwrap();
    let slot = t.table.slots().iter().position(|&b| b == 26).unwrap();
    let (own, opp) = t.sub.position(slot as u64);
    let tb_rules = TbRules::from_rules(&rules).unwrap();
    let pos = tb_rules.position(own, opp).unwrap();
    let v = tb.value(&pos).unwrap();
    assert_eq!(
        (v.pure_value(), v.to_removal, v.rule),
        (Some(Value::Win(25)), Some(25), Some(Wdl::Win))
    );
    assert_eq!(tb_score(&tb, &pos, 0), Some(MATE - 25));
    assert_eq!(tb_score(&tb, &pos.with_rule50(74), 3), Some(MATE - 28));
    // 75 + 25 plies reach the 100-ply limit, and 25 is all the room left
    // at 75: a win under the rule, no longer a mate the rule cannot touch.
    assert_eq!(tb_score(&tb, &pos.with_rule50(75), 0), Some(TB_WIN - 25));
    const { assert!(TB_WIN - 300 > TB_DRAW_BAND && TB_WIN < MATE_BOUND) };
    // One more ply on the counter and the rule draws it.
    assert_eq!(
        tb.value(&pos.with_rule50(76)).unwrap().rule,
        Some(Wdl::Draw)
    );
    assert_eq!(tb_score(&tb, &pos.with_rule50(76), 0), Some(0));
    // Without N-move rules the counter means nothing.
    let no_limit = Rules {
        n_move_rule: 0,
        endgame_n_move_rule: 0,
        ..rules
    };
    let free = tables(up_to_five(), &no_limit);
    assert_eq!(tb_score(&free, &pos.with_rule50(90), 0), Some(MATE - 25));
    // The 5-5 win with 89 on the counter: the fastest line to the end
    // (31 plies) is too long, but the next removal is 11 plies away, and
    // 11 are left: a win, and its one winning move.
    let deep = Position::from_fen(WIN_IN_REACH, &rules).unwrap();
    let v = tb.value(&deep).unwrap();
    assert_eq!(
        (v.rule, v.pure_value(), v.to_removal),
        (Some(Wdl::Win), Some(Value::Win(31)), Some(11))
    );
    assert_eq!(tb_score(&tb, &deep, 0), Some(TB_WIN - 11));
    assert_eq!(
        tb.value(&deep.with_rule50(90)).unwrap().rule,
        Some(Wdl::Draw)
    );
    let mut list = MoveList::new();
    deep.legal_moves(&rules, &mut list);
    let moves: Vec<Move> = list.iter().copied().collect();
    let keep = value_keeping_moves(&tb, &rules, &deep, &moves).unwrap();
    assert_eq!(
        keep.iter().map(Move::to_string).collect::<Vec<_>>(),
        ["c3-c4"]
    );
    // Without the .dtz files the engine cannot say that this win stands:
    // it scores it below a sure one, and the root keeps every move.
    let bare = copy_of("bare", &all_to_five());
    for (a, b) in all_to_five() {
        std::fs::remove_file(bare.join(format::file_name_of(Kind::ToRemoval, a, b))).unwrap();
    }
    let bare_tb = tables(&bare, &rules);
    assert_eq!(bare_tb.value(&deep).unwrap().rule, None);
    assert_eq!(tb_score(&bare_tb, &deep, 0), Some(TB_WIN - 100 - 20));
    assert_eq!(value_keeping_moves(&bare_tb, &rules, &deep, &moves), None);
    let _ = std::fs::remove_dir_all(&bare);
}

/// Plays `game` to its end: the engine `e` moves for `engine_side`, the
/// other side plays `oracle`'s move; at most `plies` plies.
fn play_out(
    e: &mut Engine,
    mut game: Game,
    engine_side: mulino::core::Color,
    go: &str,
    plies: usize,
    oracle: impl Fn(&Position) -> Move,
) -> (Game, Option<Outcome>) {
    let start = game.start().fen(game.rules());
    for _ in 0..plies {
        if let Some(outcome) = game.outcome() {
            return (game, Some(outcome));
        }
        let pos = *game.position();
        let m = if pos.side_to_move() == engine_side {
            let moves: Vec<String> = game.moves().iter().map(Move::to_string).collect();
            e.send(&format!("position fen {start} moves {}", moves.join(" ")));
            let lines = e.go(go);
            bestmove_of(lines.last().unwrap()).parse().unwrap()
        } else {
            oracle(&pos)
        };
        game.play(m).unwrap();
    }
    let outcome = game.outcome();
    (game, outcome)
}

/// The move a perfect defender plays from a lost position: the one that
/// puts the next removal furthest off, then the end of the game (what the
/// root probe keeps).
fn delaying(tb: &Tablebases, rules: &Rules, pos: &Position) -> Move {
    probe_root(tb, rules, pos).keeping_moves().unwrap()[0]
}

/// The defender's moves of a line that the build before the `.dtz`
/// files drew by the N-move rule from `WIN_IN_REACH` (it played c3-c4
/// c4-b4 f6-f4 b4-b2 b2-d2 d6-b6, the fastest line to the end, against
/// them): each delays the next removal as long as any move does.
const DELAYING_LINE: [&str; 5] = ["d2-d1", "f4-f2", "d1-d2", "d2-d1", "d1-g1"];

#[test]
fn a_win_within_the_n_move_rule_is_won_against_a_defender_that_delays() {
    let rules = Rules::default();
    let tb = tables(up_to_five(), &rules);
    let mut e = Engine::spawn();
    e.use_tablebases(up_to_five());
    let game = Game::from_position(rules, Position::from_fen(WIN_IN_REACH, &rules).unwrap());
    let white = mulino::core::Color::White;
    // The line above while its moves delay the removal most, then the
    // root probe's most delaying move. After each engine move the
    // defender is still lost under the rule.
    let defender_moves = std::cell::Cell::new(0);
    let (game, outcome) = play_out(&mut e, game, white, "depth 3", 300, |p| {
        let v = tb.value(p).unwrap();
        assert_eq!(v.rule, Some(Wdl::Loss), "{}", p.fen(&rules));
        let probe = probe_root(&tb, &rules, p);
        let most = probe
            .moves
            .iter()
            .filter_map(|(_, v)| v.and_then(|v| v.to_removal))
            .max();
        let k = defender_moves.replace(defender_moves.get() + 1);
        let scripted = DELAYING_LINE.get(k).and_then(|s| {
            probe
                .moves
                .iter()
                .find(|(m, v)| m.to_string() == *s && v.and_then(|v| v.to_removal) == most)
                .map(|&(m, _)| m)
        });
        scripted.unwrap_or_else(|| delaying(&tb, &rules, p))
    });
    let moves: Vec<String> = game.moves().iter().map(Move::to_string).collect();
    assert!(
        matches!(outcome, Some(Outcome::Win { winner, .. }) if winner == white),
        "{outcome:?} after {moves:?}"
    );
    // The first removal came in time: within the 11 plies left.
    let first = game.moves().iter().position(|m| m.has_removal()).unwrap();
    assert!(first < 11, "{moves:?}");
}

#[test]
fn a_loss_the_n_move_rule_draws_is_held() {
    let rules = Rules::default();
    let tb = tables(up_to_five(), &rules);
    // A 5-5 loss whose next removal is 30 plies or more away: from a
    // counter of 80 the winner has 20 plies, too few.
    let loss = {
        let t = tb.table(5, 5).unwrap();
        let z = tb.dtz_table(5, 5).unwrap();
        let slot = (0..t.table.slots().len())
            .find(|&i| {
                let (tb_byte, z_byte) = (t.table.slots()[i], z.table.slots()[i]);
                tb_byte != 0 && (tb_byte - 1) % 2 == 0 && z_byte > 30
            })
            .unwrap();
        let (own, opp) = t.sub.position(slot as u64);
        TbRules::from_rules(&rules)
            .unwrap()
            .position(own, opp)
            .unwrap()
            .with_rule50(80)
    };
    let v = tb.value(&loss).unwrap();
    assert!(
        v.pure == Some(Wdl::Loss) && v.rule == Some(Wdl::Draw),
        "{v:?}"
    );
    let mut e = Engine::spawn();
    e.use_tablebases(up_to_five());
    let defender = loss.side_to_move();
    // The attacker plays the fastest line to the end, in case the
    // defender goes wrong.
    let attack = |p: &Position| {
        let probe = probe_root(&tb, &rules, p);
        probe
            .moves
            .iter()
            .filter_map(|&(m, v)| Some((m, v?)))
            .min_by_key(|&(_, v)| match v.pure_value() {
                Some(Value::Win(d)) => d as i32,
                Some(Value::Loss(d)) => 600 - d as i32,
                _ => 300,
            })
            .map(|(m, _)| m)
            .unwrap()
    };
    let (game, outcome) = play_out(
        &mut e,
        Game::from_position(rules, loss),
        defender,
        "depth 3",
        300,
        attack,
    );
    let moves: Vec<String> = game.moves().iter().map(Move::to_string).collect();
    assert!(
        !matches!(outcome, Some(Outcome::Win { winner, .. }) if winner != defender),
        "the engine lost a drawn position: {outcome:?} after {moves:?}"
    );
}

#[test]
fn a_missing_or_cut_file_does_not_throw_away_a_win() {
    let winning = ["d6-f6xd2", "d6-f6xb4"];
    for damage in ["delete", "truncate"] {
        let dir = copy_of(damage, &all_to_five());
        let path = dir.join(format::file_name(4, 5));
        let bytes = std::fs::read(&path).unwrap();
        match damage {
            "delete" => std::fs::remove_file(&path).unwrap(),
            _ => std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap(),
        }
        let mut e = Engine::spawn();
        let answer = e.use_tablebases(&dir);
        if damage == "truncate" {
            assert!(
                answer
                    .iter()
                    .any(|l| l.contains("mulino-4-5.tb") && l.contains("bytes")),
                "{answer:?}"
            );
        }
        e.send(&format!("position fen {TWO_WINNING_REMOVALS}"));
        let mut told = Vec::new();
        for _ in 0..2 {
            let lines = e.go("depth 8");
            let best = bestmove_of(lines.last().unwrap()).to_string();
            assert!(
                winning.contains(&best.as_str()),
                "{damage}: {best} {lines:?}"
            );
            told.extend(lines.into_iter().filter(|l| l.contains("mulino-4-5.tb")));
        }
        if damage == "delete" {
            // Told once, not at every probe.
            assert_eq!(told.len(), 1, "{told:?}");
            assert!(told[0].contains("is missing"), "{told:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_changed_slot_byte_is_caught_before_play() {
    let dir = copy_of("byte", &all_to_five());
    let rules = Rules::default();
    let pos = Position::from_fen(TWO_WINNING_REMOVALS, &rules).unwrap();
    let sub = mulino::tb::index::Subspace::new(5, 5).unwrap();
    let us = pos.side_to_move();
    let idx = sub.index(pos.pieces(us), pos.pieces(us.opponent()));
    let path = dir.join(format::file_name(5, 5));
    let mut bytes = std::fs::read(&path).unwrap();
    // A loss at distance 0, where the table says a win in 27.
    bytes[format::HEADER_LEN + idx as usize] = 1;
    std::fs::write(&path, &bytes).unwrap();
    let mut e = Engine::spawn();
    let answer = e.use_tablebases(&dir);
    assert!(
        answer
            .iter()
            .any(|l| l.starts_with("info string error: TablebasePath") && l.contains("checksum")),
        "{answer:?}"
    );
    assert!(answer.last().unwrap().ends_with("1 not used"), "{answer:?}");
    e.send(&format!("position fen {TWO_WINNING_REMOVALS}"));
    let probe = e.ask("tbprobe");
    assert_eq!(probe[0], "tbprobe value unknown", "{probe:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_changed_under_the_engine_is_dropped_not_read() {
    let dir = copy_of("changed", &[(3, 3)]);
    let mut e = Engine::spawn();
    e.use_tablebases(&dir);
    e.send(&format!("position fen {WIN_IN_ONE}"));
    assert_eq!(e.ask("tbprobe")[0], "tbprobe value win 1 removal 1");
    // Rewritten in place, as `cp` over it does: first cut to nothing.
    let path = dir.join(format::file_name(3, 3));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..format::HEADER_LEN]).unwrap();
    let answer = e.ask("tbprobe");
    assert!(
        answer.iter().any(|l| l.contains("changed on disk")),
        "{answer:?}"
    );
    assert!(
        answer.contains(&"tbprobe value unknown".to_string()),
        "{answer:?}"
    );
    let lines = e.go("depth 3");
    assert_eq!(bestmove_of(lines.last().unwrap()), "b2-a7xd5");
    assert!(e.is_alive());
    let _ = std::fs::remove_dir_all(&dir);
}

/// From database positions with long wins, the engine plays both sides
/// with the databases loaded: every move keeps the value exactly (the
/// winner's shortens the win by one ply, the loser's the loss), until the
/// winner's removal ends the game after exactly the promised plies.
#[test]
fn the_engine_keeps_the_value_move_after_move() {
    let rules = Rules::default();
    let tb_rules = TbRules::from_rules(&rules).unwrap();
    let tb = Tablebases::new(up_to_five(), tb_rules);
    let t = tb.table(3, 3).unwrap();
    let mut e = Engine::spawn();
    e.use_tablebases(up_to_five());
    // Wins of 25 (the longest), 19 and 13 plies, the first slot of each.
    for distance in [25u8, 19, 13] {
        let slot = t
            .table
            .slots()
            .iter()
            .position(|&b| b == distance + 1)
            .unwrap();
        let (own, opp) = t.sub.position(slot as u64);
        let start = tb_rules.position(own, opp).unwrap();
        let fen = start.fen(&rules);
        let mut pos = start;
        let mut moves: Vec<String> = Vec::new();
        let mut expected = Value::Win(distance);
        loop {
            assert_eq!(tb.probe(&pos), Some(expected), "{fen} moves {moves:?}");
            e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
            let lines = e.go("depth 2");
            let best = bestmove_of(lines.last().unwrap()).to_string();
            let m: Move = best.parse().unwrap();
            let next = pos.play(&rules, m).unwrap();
            moves.push(best);
            if let Some(outcome) = next.outcome(&rules) {
                // Only a win ends it, on the promised ply, by the winner.
                assert_eq!(
                    expected,
                    Value::Win(1),
                    "{fen} moves {moves:?}: {outcome:?}"
                );
                assert_eq!(moves.len(), distance as usize);
                break;
            }
            expected = match expected {
                Value::Win(d) => Value::Loss(d - 1),
                Value::Loss(d) => Value::Win(d - 1),
                Value::Draw => unreachable!(),
            };
            pos = next;
        }
    }
}

/// From database draws, the engine searches on among the moves that keep
/// the draw: its score stays in the draw band (not a flat 0, and never a
/// win or loss), and its move keeps the draw.
#[test]
fn database_draws_are_searched_within_the_draw_band() {
    let rules = Rules::default();
    let tb_rules = TbRules::from_rules(&rules).unwrap();
    let tb = Tablebases::new(up_to_five(), tb_rules);
    let t = tb.table(3, 3).unwrap();
    let mut e = Engine::spawn();
    e.use_tablebases(up_to_five());
    let mut scores = Vec::new();
    let draws: Vec<Position> = (0..t.table.slots().len() as u64)
        .map(|slot| t.sub.position(slot))
        .filter_map(|(own, opp)| tb_rules.position(own, opp))
        .filter(|pos| tb.probe(pos) == Some(Value::Draw))
        .collect();
    assert!(draws.len() >= 8, "{}", draws.len());
    for pos in draws.iter().step_by(draws.len() / 8).take(8) {
        e.send(&format!("position fen {}", pos.fen(&rules)));
        let lines = e.go("depth 5");
        let (kind, score) = last_score(&lines).unwrap();
        assert_eq!(kind, "cp", "{lines:?}");
        assert!(score.abs() <= TB_DRAW_BAND as i64, "{lines:?}");
        scores.push(score);
        let m: Move = bestmove_of(lines.last().unwrap()).parse().unwrap();
        let child = pos.play(&rules, m).unwrap();
        assert_eq!(tb.probe(&child), Some(Value::Draw), "{m}");
    }
    assert_eq!(scores.len(), 8);
    // The evaluation still speaks: not every draw scores the same.
    assert!(scores.iter().any(|&s| s != scores[0]), "{scores:?}");
}

/// White a7 and g1 against c3 and e5, one piece in each hand, White to
/// place: g7 threatens d7 and g4 at once, and after Black's last
/// placement White, flying, closes the other.
const DOUBLE_THREAT_LAST: &str = "*@***@**/********/***O***O w p p 2 1 2 1 0 0 0 0 0 0 0 0 1";

/// A leaf one placement before the moving phase is searched on into the
/// databases: a one-ply search sees the win that the evaluation alone
/// only estimates, and its move wins against every last placement.
#[test]
fn the_last_placement_is_searched_into_the_databases() {
    let rules = Rules::default();
    let tb = Tablebases::new(up_to_five(), TbRules::from_rules(&rules).unwrap());
    let pos = Position::from_fen(DOUBLE_THREAT_LAST, &rules).unwrap();
    let mut plain = Engine::spawn();
    plain.send(&format!("position fen {DOUBLE_THREAT_LAST}"));
    let lines = plain.go("depth 1");
    assert_eq!(last_score(&lines).unwrap().0, "cp", "{lines:?}");
    let mut e = Engine::spawn();
    e.use_tablebases(up_to_five());
    e.send(&format!("position fen {DOUBLE_THREAT_LAST}"));
    let lines = e.go("depth 1");
    assert_eq!(last_score(&lines).unwrap().0, "mate", "{lines:?}");
    assert!(lines.iter().any(|l| l.contains(" tbhits ")), "{lines:?}");
    let m: Move = bestmove_of(lines.last().unwrap()).parse().unwrap();
    let after = pos.play(&rules, m).unwrap();
    let mut replies = MoveList::new();
    after.legal_moves(&rules, &mut replies);
    assert!(!replies.is_empty());
    for &r in replies.iter() {
        let end = after.play_unchecked(&rules, r);
        assert!(!end.is_placing() && end.in_hand(end.side_to_move().opponent()) == 0);
        assert!(matches!(tb.probe(&end), Some(Value::Win(_))), "{m} {r}");
    }
}

#[test]
fn a_counter_in_the_fen_changes_the_value_shown() {
    let mut e = Engine::spawn();
    e.use_tablebases(up_to_five());
    e.send(&format!("position fen {WIN_IN_REACH}"));
    assert_eq!(e.ask("tbprobe")[0], "tbprobe value win 31 removal 11");
    e.send(&format!("position fen {}", with_counter(WIN_IN_REACH, 90)));
    assert_eq!(
        e.ask("tbprobe")[0],
        "tbprobe value draw pure win 31 removal 11"
    );
}

/// Up to `samples` wins and as many losses of subspace `own-opp`, drawn
/// at random (seeded), each at the counter where the N-move rule is
/// tightest: a win with exactly the plies to its next removal left (it
/// stands), a loss with one ply fewer than its winner needs (drawn). Each
/// with whether it is the win.
fn tightest(
    tb: &Tablebases,
    tb_rules: TbRules,
    own: u8,
    opp: u8,
    limit: u16,
    samples: usize,
) -> Vec<(Position, bool)> {
    let t = tb.table(own, opp).unwrap();
    let z = tb.dtz_table(own, opp).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ (own as u64 * 16 + opp as u64);
    let mut found = [0usize; 2];
    let mut out = Vec::new();
    let len = t.table.slots().len() as u64;
    for _ in 0..len.min(5_000_000) {
        if found.iter().all(|&n| n >= samples) {
            break;
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let slot = seed % len;
        let (o, p) = t.sub.position(slot);
        let Some(zz) = mulino::tb::value::dtz_decode(z.table.slots()[slot as usize]) else {
            continue;
        };
        if t.sub.index(o, p) != slot || zz == 0 {
            continue;
        }
        let Some(start) = tb_rules.position(o, p) else {
            continue;
        };
        let win = matches!(tb.probe(&start), Some(Value::Win(_)));
        if found[!win as usize] >= samples {
            continue;
        }
        found[!win as usize] += 1;
        let counter = if win {
            limit - zz as u16
        } else {
            limit + 1 - zz as u16
        };
        out.push((start.with_rule50(counter), win));
    }
    out
}

/// The measure of issue 25's play (ignored in the ordinary run; it plays
/// many games): positions sampled from the subspaces up to 5-5 (or those
/// of `MULINO_TB_DIR` up to 6-6, with `MULINO_SAMPLES` positions each;
/// `.dtz` files exact under `NMoveRule 100`), each at the
/// counter where the N-move rule is tightest: a win with exactly the
/// plies to its next removal left, played by the engine against a
/// defender that delays the removal as long as it can, must be won; a
/// loss one ply past that point, defended by the engine against an
/// attacker that plays the fastest line to the end, must be held.
/// `cargo test --release --test tb sampled -- --ignored --nocapture`
#[test]
#[ignore = "needs the databases up to 6-6 in MULINO_TB_DIR (or builds up to 5-5), and release speed"]
fn sampled_rule_wins_are_won_and_rule_draws_held() {
    let rules = Rules::default();
    let dir =
        std::env::var("MULINO_TB_DIR").map_or_else(|_| up_to_five().to_path_buf(), PathBuf::from);
    let samples: usize = std::env::var("MULINO_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let tb = tables(&dir, &rules);
    let tb_rules = TbRules::from_rules(&rules).unwrap();
    let mut e = Engine::spawn();
    e.use_tablebases(&dir);
    let limits = mulino::tb::NMoveLimits::of(&rules);
    let mut tally = [0usize; 4];
    // Every subspace of the directory, up to 6-6, largest first.
    let mut pairs: Vec<(u8, u8)> = (3..=6u8)
        .flat_map(|a| (3..=6u8).map(move |b| (a, b)))
        .filter(|&(a, b)| tb.table(a, b).is_ok() && tb.dtz_table(a, b).is_ok())
        .collect();
    pairs.sort_by_key(|&(a, b)| std::cmp::Reverse((a + b, a)));
    assert!(!pairs.is_empty(), "no tables in {}", dir.display());
    for (own, opp) in pairs {
        let limit = limits.limit(own as u32, opp as u32).unwrap();
        let positions = tightest(&tb, tb_rules, own, opp, limit, samples);
        for (start, win) in &positions {
            let v = tb.value(start).unwrap();
            assert_eq!(
                v.rule,
                Some(if *win { Wdl::Win } else { Wdl::Draw }),
                "{}",
                start.fen(&rules)
            );
            let side = start.side_to_move();
            let game = Game::from_position(rules, *start);
            let (game, outcome) = if *win {
                play_out(&mut e, game, side, "depth 2", 400, |p| {
                    delaying(&tb, &rules, p)
                })
            } else {
                let attack = |p: &Position| {
                    probe_root(&tb, &rules, p)
                        .moves
                        .iter()
                        .filter_map(|&(m, v)| Some((m, v?)))
                        .min_by_key(|&(_, v)| match v.pure_value() {
                            Some(Value::Win(d)) => d as i32,
                            Some(Value::Loss(d)) => 600 - d as i32,
                            _ => 300,
                        })
                        .map(|(m, _)| m)
                        .unwrap()
                };
                play_out(&mut e, game, side, "depth 2", 400, attack)
            };
            let won = matches!(outcome, Some(Outcome::Win { winner, .. }) if winner == side);
            let lost = matches!(outcome, Some(Outcome::Win { winner, .. }) if winner != side);
            let moves: Vec<String> = game.moves().iter().map(Move::to_string).collect();
            if *win {
                assert!(
                    won,
                    "{}: {outcome:?} after {moves:?}",
                    game.start().fen(&rules)
                );
                tally[0] += 1;
            } else {
                assert!(
                    !lost,
                    "{}: {outcome:?} after {moves:?}",
                    game.start().fen(&rules)
                );
                tally[if outcome.is_some() { 1 } else { 2 }] += 1;
            }
            tally[3] += moves.len();
        }
        let wins = positions.iter().filter(|(_, w)| *w).count();
        eprintln!(
            "{own}-{opp}: {wins} wins and {} losses played (limit {limit})",
            positions.len() - wins
        );
    }
    eprintln!(
        "rule wins won: {}; rule draws held: {} ended by a rule, {} at the ply cap; {} plies in all",
        tally[0], tally[1], tally[2], tally[3]
    );
}

/// `tb endgames` samples the endgame benchmark's positions from the files:
/// the set reads back, holds as many won and drawn positions as asked, each
/// a moving-phase position of the range asked for, whose listed moves keep
/// its value by the databases while some other move does not; the same seed
/// makes the same set.
#[test]
fn tb_endgames_samples_the_benchmark_from_the_files() {
    use mulino::bench::endgames;
    let dir = crate::fixture::up_to_five();
    let sample = |seed: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mulino"))
            .args([
                "tb", "endgames", "--pieces", "3-4", "--count", "10", "--seed", seed,
            ])
            .arg("--dir")
            .arg(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let text = sample("7");
    assert_eq!(text, sample("7"), "the same seed gives the same set");
    assert_ne!(text, sample("8"));
    let set = endgames::parse(&text).expect("the set reads");
    let wins = set.iter().filter(|e| e.value == Wdl::Win).count();
    assert_eq!((wins, set.len()), (10, 20));
    let rules = Rules::default();
    let tables = Tablebases::under(
        dir,
        TbRules::from_rules(&rules).unwrap(),
        NMoveLimits::of(&rules),
    );
    for e in &set {
        let pos = Position::from_fen(&e.fen, &rules).unwrap();
        let sides = [Color::White, Color::Black].map(|c| pos.pieces(c).count());
        assert!(sides.iter().all(|n| (3..=4).contains(n)), "{}", e.fen);
        assert_eq!(
            tables.value(&pos).and_then(|v| v.rule),
            Some(e.value),
            "{}",
            e.fen
        );
        let mut list = MoveList::new();
        pos.legal_moves(&rules, &mut list);
        let mut throws_away = 0;
        for &m in list.iter() {
            let keeps = mulino::tb::root::move_value(&tables, &rules, &pos, m).and_then(|v| v.rule)
                == Some(e.value);
            assert_eq!(keeps, e.keeping.contains(&m), "{} {m}", e.fen);
            throws_away += !keeps as usize;
        }
        assert!(throws_away > 0, "{}", e.fen);
    }
}

/// `isready` after `TablebasePath` answers once every file is checked
/// (and says that they are), so that a game started at once after it
/// plays from the files with the N-move rule in force from its first
/// move. The position is a win under the rule whose next removal is 11
/// plies away with 11 left (the counter at 89): a move that does not
/// hurry to it throws the win away, though the win without the rule
/// stays.
#[test]
fn isready_waits_for_the_files_and_the_first_move_keeps_the_win() {
    let dir = fixture::copy_all(fixture::up_to_five(), "isready");
    let mut engine = Engine::spawn();
    engine.send(&format!(
        "setoption name TablebasePath value {}",
        dir.display()
    ));
    engine.send("isready");
    let lines = engine.read_until(|l| l == "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string TablebasePath:") && l.contains("checked")),
        "readyok came before the files were checked: {lines:?}"
    );
    engine.send("position fen O@@@OO**/OO@*@***/******** w m s 5 0 5 0 0 0 0 0 0 0 0 89 1");
    let probe = engine.ask("tbprobe");
    assert_eq!(probe[0], "tbprobe value win 31 removal 11", "{probe:?}");
    let best = engine.go("movetime 200");
    let best = bestmove_of(best.last().unwrap()).to_string();
    let value = probe
        .iter()
        .find_map(|l| l.strip_prefix(&format!("tbprobe move {best} ")))
        .unwrap_or_else(|| panic!("{best} is not in {probe:?}"));
    assert!(value.starts_with("win"), "{best} gives {value}: {probe:?}");
    // Opened again, the files are not read again: the list in the folder
    // says they were checked as they are.
    assert!(dir.join(mulino::tb::trust::FILE_NAME).exists());
    let mut again = Engine::spawn();
    again.send(&format!(
        "setoption name TablebasePath value {}",
        dir.display()
    ));
    let lines = again.ask("isready");
    assert!(
        lines.iter().any(|l| l.contains("checked, all in use")),
        "{lines:?}"
    );
}
