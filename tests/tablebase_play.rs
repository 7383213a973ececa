//! Playing from the databases: the engine probes them in its search and
//! at the root (tbhits, scores beyond any evaluation, the value kept), and
//! the N-move rule decides which database wins and losses stand.

mod common;

use std::path::PathBuf;

use common::{Engine, bestmove_of, last_score};
use mulino::core::{Move, MoveList, Position, Rules, Setup};
use mulino::search::{MATE, MATE_BOUND, TB_DRAW_BAND, TB_WIN, tb_score, value_keeping_moves};
use mulino::tb::build::{self, Options};
use mulino::tb::probe::Tablebases;
use mulino::tb::{TbRules, Value};

/// 3-3 built into a fresh temporary directory.
fn three_three(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mulino-tbplay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = Options {
        dir: dir.clone(),
        threads: 1,
        memory: 1 << 30,
    };
    let rules = TbRules::from_rules(&Rules::default()).unwrap();
    build::build_pair(rules, 3, 3, &opts, &|_| {}).unwrap();
    dir
}

/// White (to move) d7, g7, b2 against d5, e4, c3: b2-a7 closes a mill and
/// leaves Black two pieces.
const WIN_IN_ONE: &str = "@*@**@**/*****O**/OO****** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";

#[test]
fn the_engine_plays_and_reports_from_the_databases() {
    let dir = three_three("engine");
    let mut e = Engine::spawn();
    let answer = e.ask(&format!(
        "setoption name TablebasePath value {}",
        dir.display()
    ));
    assert!(answer.is_empty(), "{answer:?}");
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
    // tbprobe: the value, then every legal move's, best first.
    let probe = e.ask("tbprobe");
    assert_eq!(probe[0], "tbprobe value win 1");
    assert_eq!(probe[1], "tbprobe move b2-a7xd5 win 1");
    assert_eq!(probe.len(), 1 + e.legal_moves().len());
    assert!(probe.iter().skip(1).all(|l| l.starts_with("tbprobe move ")));
    let board = e.display();
    assert!(
        board.iter().any(|l| l.starts_with("Tablebase: win 1")),
        "{board:?}"
    );
    // A directory that is not there is an error, and play goes on.
    let answer = e.ask("setoption name TablebasePath value /no/such/mulino/dir");
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
fn database_values_stand_only_within_the_n_move_rule() {
    let dir = three_three("nmove");
    let tb_rules = TbRules::from_rules(&Rules::default()).unwrap();
    let tb = Tablebases::new(&dir, tb_rules);
    // The longest win of 3-3 (25 plies).
    let t = tb.table(3, 3).unwrap();
    let slot = t.table.slots().iter().position(|&b| b == 26).unwrap();
    let (own, opp) = t.sub.position(slot as u64);
    let pos = build::position(tb_rules, own, opp).unwrap();
    assert_eq!(tb.probe(&pos), Some(Value::Win(25)));
    let with_counter = |rule50: u16| {
        let mut setup = Setup::parse(&pos.fen(&Rules::default())).unwrap();
        setup.rule50 = rule50;
        Position::from_setup(&setup, &Rules::default()).unwrap()
    };
    let rules = Rules::default();
    assert_eq!(tb_score(&tb, &rules, &pos, 0), Some(MATE - 25));
    assert_eq!(tb_score(&tb, &rules, &with_counter(74), 3), Some(MATE - 28));
    // 75 + 25 plies would reach the 100-ply limit: not a sure win, but
    // still beyond any evaluation, less the counter and the distance.
    assert_eq!(
        tb_score(&tb, &rules, &with_counter(75), 0),
        Some(TB_WIN - 100)
    );
    const { assert!(TB_WIN - 100 > TB_DRAW_BAND && TB_WIN < MATE_BOUND) };
    let no_limit = Rules {
        n_move_rule: 0,
        endgame_n_move_rule: 0,
        ..rules
    };
    assert_eq!(
        tb_score(&tb, &no_limit, &with_counter(90), 0),
        Some(MATE - 25)
    );
    // The root keeps only moves into a loss at 24 for the opponent.
    let mut list = MoveList::new();
    pos.legal_moves(&rules, &mut list);
    let moves: Vec<Move> = list.iter().copied().collect();
    let keep = value_keeping_moves(&tb, &rules, &pos, &moves).unwrap();
    assert!(!keep.is_empty() && keep.len() < moves.len());
    for m in keep {
        let child = pos.play_unchecked(&rules, m);
        assert_eq!(tb.probe(&child), Some(Value::Loss(24)), "{m}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// From database positions with long wins, the engine plays both sides
/// with the databases loaded: every move keeps the value exactly (the
/// winner's shortens the win by one ply, the loser's the loss), until the
/// winner's removal ends the game after exactly the promised plies.
#[test]
fn the_engine_keeps_the_value_move_after_move() {
    let dir = three_three("keep");
    let rules = Rules::default();
    let tb_rules = TbRules::from_rules(&rules).unwrap();
    let tb = Tablebases::new(&dir, tb_rules);
    let t = tb.table(3, 3).unwrap();
    let mut e = Engine::spawn();
    assert!(
        e.ask(&format!(
            "setoption name TablebasePath value {}",
            dir.display()
        ))
        .is_empty()
    );
    // Wins of 25 (the longest), 19 and 13 plies, the first slot of each.
    for distance in [25u8, 19, 13] {
        let slot = t
            .table
            .slots()
            .iter()
            .position(|&b| b == distance + 1)
            .unwrap();
        let (own, opp) = t.sub.position(slot as u64);
        let start = build::position(tb_rules, own, opp).unwrap();
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
    let _ = std::fs::remove_dir_all(&dir);
}

/// From database draws, the engine searches on among the moves that keep
/// the draw: its score stays in the draw band (not a flat 0, and never a
/// win or loss), and its move keeps the draw.
#[test]
fn database_draws_are_searched_within_the_draw_band() {
    let dir = three_three("draws");
    let rules = Rules::default();
    let tb_rules = TbRules::from_rules(&rules).unwrap();
    let tb = Tablebases::new(&dir, tb_rules);
    let t = tb.table(3, 3).unwrap();
    let mut e = Engine::spawn();
    e.send(&format!(
        "setoption name TablebasePath value {}",
        dir.display()
    ));
    let mut scores = Vec::new();
    let draws: Vec<Position> = (0..t.table.slots().len() as u64)
        .map(|slot| t.sub.position(slot))
        .filter_map(|(own, opp)| build::position(tb_rules, own, opp))
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
    let _ = std::fs::remove_dir_all(&dir);
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
    let dir = three_three("horizon");
    let rules = Rules::default();
    let tb = Tablebases::new(&dir, TbRules::from_rules(&rules).unwrap());
    let pos = Position::from_fen(DOUBLE_THREAT_LAST, &rules).unwrap();
    let mut plain = Engine::spawn();
    plain.send(&format!("position fen {DOUBLE_THREAT_LAST}"));
    let lines = plain.go("depth 1");
    assert_eq!(last_score(&lines).unwrap().0, "cp", "{lines:?}");
    let mut e = Engine::spawn();
    e.send(&format!(
        "setoption name TablebasePath value {}",
        dir.display()
    ));
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
    let _ = std::fs::remove_dir_all(&dir);
}
