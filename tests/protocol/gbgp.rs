//! GBGP mode through the built binary: the Nine Morris 3D GUI's recorded
//! session replayed, a whole game between two mulino processes, game over
//! on each terminal kind and one ply before it, and bad input.

use std::time::{Duration, Instant};

use crate::common::{Engine, bestmove_of};
use mulino::core::{Game, Move, Outcome, Rules, StartRepetition, Variant};

/// The game a `position` line describes, by mulino's own rules core.
fn game_of(rules: Rules, position_line: &str) -> Game {
    let words: Vec<&str> = position_line.split_whitespace().collect();
    assert_eq!(words[0], "position");
    let (start, rest) = match words[1] {
        "startpos" => (mulino::core::Position::startpos(&rules), &words[2..]),
        "pos" => (
            mulino::protocol::gbgp::fen::parse(words[2], &rules).expect("a valid position"),
            &words[3..],
        ),
        other => panic!("unexpected `{other}`"),
    };
    let moves = match rest.first() {
        Some(&"moves") => &rest[1..],
        None => &[][..],
        Some(other) => panic!("unexpected `{other}`"),
    };
    Game::from_moves_with(
        rules,
        start,
        StartRepetition::Ignored,
        moves.iter().copied(),
    )
    .expect("legal moves")
}

/// A GBGP engine past its handshake.
fn gbgp_engine() -> Engine {
    let mut engine = Engine::spawn();
    engine.send("gbgp");
    let lines = engine.read_until(|l| l == "gbgpok");
    assert_eq!(
        lines,
        [
            format!("id name mulino {}", env!("CARGO_PKG_VERSION")),
            "id author the mulino developers".to_string(),
            "option name TwelveMensMorris type check default false".to_string(),
            "gbgpok".to_string(),
        ]
    );
    engine
}

/// Checks one `info` line against GBGP's format and the game: depth,
/// time, nodes, a score, then a principal variation of legal moves.
fn check_info(line: &str, game: &Game) {
    let w: Vec<&str> = line.split_whitespace().collect();
    let number = |i: usize| -> i64 {
        w.get(i)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("word {i} of `{line}` is not a number"))
    };
    assert_eq!(
        (w[0], w[1], w[3], w[5], w[7]),
        ("info", "depth", "time", "nodes", "score"),
        "{line}"
    );
    assert!(number(2) >= 1 && number(4) >= 0 && number(6) >= 0, "{line}");
    assert!(matches!(w[8], "eval" | "win"), "{line}");
    number(9);
    assert_eq!(w[10], "pv", "{line}");
    let mut pos = *game.position();
    let rules = *game.rules();
    for text in &w[11..] {
        let m: Move = text
            .parse()
            .unwrap_or_else(|e| panic!("`{text}` in {line}: {e}"));
        pos = pos
            .play(&rules, m)
            .unwrap_or_else(|e| panic!("`{text}` in {line}: {e}"));
    }
}

/// Sends `go ...` and returns (the info lines, the best move, the time).
fn go(engine: &mut Engine, line: &str) -> (Vec<String>, String, Duration) {
    let sent = Instant::now();
    engine.send(line);
    let mut lines = engine.read_until(|l| l.starts_with("bestmove "));
    let took = sent.elapsed();
    let best = bestmove_of(&lines.pop().unwrap()).to_string();
    (lines, best, took)
}

/// The GUI's recorded session, its clocks divided by 100 (the GUI gave
/// ten minutes a side; the engine plans about a tenth of its clock for an
/// early placement, too long for a test). Every reply: the right lines
/// for the handshake and `isready`, nothing for the rest, and for each
/// `go` well-formed info lines and a legal move well inside the clock.
#[test]
fn the_recorded_gui_session_replays() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gbgp/gui-to-engine.txt"
    ))
    .expect("the recorded session");
    let rules = Variant::Nine.rules();
    let mut engine = Engine::spawn();
    let mut game = Game::new(rules);
    let mut searches = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[0] {
            "gbgp" => {
                engine.send(line);
                let reply = engine.read_until(|l| l == "gbgpok");
                assert_eq!(reply.len(), 4, "{reply:?}");
            }
            "isready" => {
                engine.send(line);
                let reply = engine.read_until(|l| l == "readyok");
                assert_eq!(reply, ["readyok"]);
            }
            "go" => {
                let scaled: Vec<String> = words[1..]
                    .chunks(2)
                    .map(|kv| format!("{} {}", kv[0], kv[1].parse::<u64>().unwrap() / 100))
                    .collect();
                let clock_ms = words[1..]
                    .chunks(2)
                    .find(|kv| kv[0] == ["wtime", "btime"][game.position().side_to_move().index()])
                    .map(|kv| kv[1].parse::<u64>().unwrap() / 100)
                    .expect("the side to move's clock");
                let (infos, best, took) = go(&mut engine, &format!("go {}", scaled.join(" ")));
                assert!(!infos.is_empty());
                for info in &infos {
                    check_info(info, &game);
                }
                let m: Move = best.parse().unwrap();
                assert!(game.position().find_legal(&rules, m).is_some(), "{best}");
                // The engine takes at most 30% of its clock; allow a second
                // for a slow, busy machine.
                assert!(
                    took < Duration::from_millis(clock_ms * 3 / 10 + 1000),
                    "{line}: took {took:?} of a {clock_ms} ms clock"
                );
                searches += 1;
            }
            _ => {
                assert_eq!(engine.ask(line), Vec::<String>::new(), "{line}");
                if words[0] == "position" {
                    game = game_of(rules, line);
                }
            }
        }
    }
    assert_eq!(searches, 17, "every `go` of the recording");
    engine.send("quit");
    assert!(engine.wait_exit(Duration::from_secs(10)).is_some());
}

/// Two mulino processes play a whole game in GBGP mode, refereed by the
/// rules core: every move legal, `bestmove none` from both exactly when
/// the game is over.
#[test]
fn two_mulinos_play_a_game_in_gbgp() {
    let rules = Variant::Nine.rules();
    let mut engines = [gbgp_engine(), gbgp_engine()];
    for e in &mut engines {
        e.send("newgame");
        assert!(
            e.ask("setoption name TwelveMensMorris value false")
                .is_empty()
        );
    }
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..400 {
        let position = format!("position pos w:w:b:1 moves {}", moves.join(" "));
        let game = game_of(rules, &position);
        let engine = &mut engines[ply % 2];
        engine.send(&position);
        let (_, best, _) = go(engine, "go movetime 20");
        if best == "none" {
            assert!(game.outcome().is_some(), "none at ply {ply}: {position}");
            let other = &mut engines[(ply + 1) % 2];
            other.send(&position);
            assert_eq!(go(other, "go movetime 100").1, "none");
            return;
        }
        assert!(
            game.outcome().is_none(),
            "a move in a finished game: {position}"
        );
        let m: Move = best.parse().unwrap();
        assert!(
            game.position().find_legal(&rules, m).is_some(),
            "{best} at {position}"
        );
        moves.push(best);
    }
    // 400 plies without an end: the rules core agrees the game goes on.
    let game = game_of(
        rules,
        &format!("position pos w:w:b:1 moves {}", moves.join(" ")),
    );
    assert!(game.outcome().is_none());
}

/// `go movetime 100` on `position` must answer `none` exactly when
/// `over`, and the rules core must agree.
fn assert_over(engine: &mut Engine, position: &str, over: bool) {
    let game = game_of(Variant::Nine.rules(), position);
    assert_eq!(
        game.outcome().is_some(),
        over,
        "the rules core on {position}"
    );
    engine.send(position);
    let (_, best, _) = go(engine, "go movetime 100");
    assert_eq!(best == "none", over, "{position}: bestmove {best}");
}

#[test]
fn game_over_agrees_on_every_terminal_kind() {
    let mut engine = gbgp_engine();
    // Fewer than three pieces: White's mill takes Black's third piece.
    let before = "position pos w:wa7,d7,g4:bb2,f2,c5:10";
    assert_over(&mut engine, before, false);
    assert_over(&mut engine, &format!("{before} moves g4-g7xc5"), true);
    // No legal move: White's last slide blocks Black's four pieces.
    let before = "position pos w:wd1,b4,g4,d6:ba1,a4,a7,d7:10";
    assert_over(&mut engine, before, false);
    assert_over(&mut engine, &format!("{before} moves g4-g7"), true);
    // Threefold repetition, not counting the set-up position (as the GUI
    // does): the position after the first move occurs a third time at
    // ply 9.
    let start = "position pos w:wa7,g1,b4,f6:ba1,g7,d3,e5:10 moves";
    let cycle = ["b4-b2", "d3-d2", "b2-b4", "d2-d3"];
    let plies = |n: usize| {
        cycle
            .iter()
            .cycle()
            .take(n)
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_over(&mut engine, &format!("{start} {}", plies(8)), false);
    assert_over(&mut engine, &format!("{start} {}", plies(9)), true);
    // 100 plies without a placement or a removal.
    let walk = quiet_walk(100);
    assert_over(
        &mut engine,
        &format!("{start} {}", walk[..99].join(" ")),
        false,
    );
    assert_over(&mut engine, &format!("{start} {}", walk.join(" ")), true);
}

/// `n` plies from the repetition test's set-up position that neither
/// remove a piece nor repeat a position three times (a fixed pseudo-random
/// walk, checked by the rules core).
fn quiet_walk(n: usize) -> Vec<String> {
    let rules = Variant::Nine.rules();
    let mut game = game_of(rules, "position pos w:wa7,g1,b4,f6:ba1,g7,d3,e5:10");
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut walk = Vec::new();
    while walk.len() < n {
        let mut list = mulino::core::MoveList::new();
        game.position().legal_moves(&rules, &mut list);
        // Nothing may end the game before the N-move rule does.
        let candidates: Vec<Move> = list
            .iter()
            .copied()
            .filter(|m| !m.has_removal())
            .filter(|&m| {
                let mut next = game.clone();
                next.play(m).is_ok()
                    && matches!(
                        next.outcome(),
                        None | Some(Outcome::Draw(mulino::core::DrawReason::NMoveRule))
                    )
            })
            .collect();
        assert!(!candidates.is_empty(), "the walk is stuck after {walk:?}");
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let m = candidates[(state >> 33) as usize % candidates.len()];
        game.play(m).unwrap();
        walk.push(m.to_string());
    }
    walk
}

#[test]
fn bad_input_gets_one_error_and_changes_nothing() {
    let mut engine = gbgp_engine();
    let position = "position pos w:wa7,g1,b4,f6:ba1,g7,d3,e5:10 moves b4-b2";
    assert!(engine.ask(position).is_empty());
    for line in [
        "xyzzy",
        "uci",
        "position",
        "position pos",
        "position pos w:w:b",
        "position pos w:wz9:b:1",
        "position pos w:wa1,a4:b:2",
        "position pos w:w:b:1 moves d6 d6",
        "position pos w:w:b:1 moves a1-a4",
        "position startpos d6",
        "go infinite",
        "go wtime -1",
        "go depth 0",
        "go depth 3 depth 3",
        "setoption name Hash value 16",
        "setoption name TwelveMensMorris value maybe",
        "debug sometimes",
    ] {
        let reply = engine.ask(line);
        assert_eq!(reply.len(), 1, "`{line}`: {reply:?}");
        assert!(
            reply[0].starts_with("info string error: "),
            "`{line}`: {reply:?}"
        );
    }
    // Still the same position: Black to move after b4-b2.
    let game = game_of(Variant::Nine.rules(), position);
    let (_, best, _) = go(&mut engine, "go depth 2");
    let m: Move = best.parse().unwrap();
    assert!(
        game.position().find_legal(game.rules(), m).is_some(),
        "{best}"
    );
}

#[test]
fn twelve_mens_morris_and_a_bare_go() {
    let mut engine = gbgp_engine();
    assert!(
        engine
            .ask("setoption name TwelveMensMorris value true")
            .is_empty()
    );
    // Twelve pieces each: after 18 plies both still place (the first
    // placements that close no mill).
    let twelve = Variant::Twelve.rules();
    let mut game = Game::new(twelve);
    for _ in 0..18 {
        let mut list = mulino::core::MoveList::new();
        game.position().legal_moves(&twelve, &mut list);
        let m = *list.iter().find(|m| !m.has_removal()).unwrap();
        game.play(m).unwrap();
    }
    let moves: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
    engine.send(&format!("position startpos moves {}", moves.join(" ")));
    let (_, best, _) = go(&mut engine, "go depth 2");
    assert!(game.position().is_placing());
    let m: Move = best.parse().unwrap();
    assert!(m.is_placement(), "{best}");
    assert!(game.position().find_legal(&twelve, m).is_some(), "{best}");
    // A bare `go` thinks until `stop`, then answers once.
    engine.send("go");
    engine.send("isready");
    let before_stop = engine.read_until(|l| l == "readyok");
    assert!(
        before_stop.iter().all(|l| !l.starts_with("bestmove")),
        "a bare go answered before stop: {before_stop:?}"
    );
    engine.send("stop");
    let lines = engine.read_until(|l| l.starts_with("bestmove "));
    let m: Move = bestmove_of(lines.last().unwrap()).parse().unwrap();
    assert!(game.position().find_legal(&twelve, m).is_some());
    assert!(engine.sync().is_empty(), "one bestmove only");
    engine.close_stdin();
    assert!(engine.wait_exit(Duration::from_secs(10)).is_some());
}
