//! `mulino gui`'s HTTP API, driven over real sockets: the server runs
//! in-process on an ephemeral port, and a minimal HTTP/1.1 client posts
//! JSON to it. The page and its files, each API call and its refusals,
//! sessions driven from several threads at once, the request-body limit
//! (413), the eviction of the least recently used session past the most
//! sessions, and the rule by which the janitor stops abandoned searches.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mulino::web::Gui;
use mulino::web::sessions::{ABANDONED, MAX_SESSIONS, lock_session};
use serde_json::{Value, json};

/// A position a slide before the end: `g4-g7` closes a mill, and any
/// removal leaves Black with two pieces.
const NEAR_END: &str = "**@****@/****@*O*/O*O****O w m s 4 0 3 0 0 0 0 0 0 0 0 0 30";

struct Client {
    addr: SocketAddr,
}

/// One HTTP exchange: the status and the body.
fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    exchange(addr, method, "application/json", path, body)
}

/// A POST with another content type.
fn http_as(addr: SocketAddr, content_type: &str, path: &str, body: &str) -> (u16, String) {
    exchange(addr, "POST", content_type, path, body)
}

fn exchange(
    addr: SocketAddr,
    method: &str,
    content_type: &str,
    path: &str,
    body: &str,
) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a header block");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    (status, body.to_string())
}

impl Client {
    fn start() -> (Gui, Client) {
        let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
        let addr = gui.addr();
        (gui, Client { addr })
    }

    /// Posts an API call; returns the status and the JSON answer.
    fn call(&self, call: &str, body: Value) -> (u16, Value) {
        let (status, text) = http(
            self.addr,
            "POST",
            &format!("/api/{call}"),
            &body.to_string(),
        );
        let value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{call}: not JSON ({e}): {text}"));
        (status, value)
    }

    /// An API call that must succeed.
    fn ok(&self, call: &str, body: Value) -> Value {
        let (status, value) = self.call(call, body.clone());
        assert_eq!(status, 200, "{call} {body}: {value}");
        value
    }

    /// An API call that must be refused: its error message.
    fn refused(&self, call: &str, body: Value) -> (u16, String) {
        let (status, value) = self.call(call, body.clone());
        assert!(status >= 400, "{call} {body} should fail: {value}");
        let error = value["error"].as_str().expect("an error message");
        assert!(!error.is_empty());
        (status, error.to_string())
    }

    fn new_session(&self) -> String {
        let st = self.ok("session", json!({}));
        st["session"].as_str().expect("a session id").to_string()
    }

    fn state(&self, id: &str) -> Value {
        self.ok("state", json!({ "session": id }))
    }

    /// Polls until the session's search has ended.
    fn wait_idle(&self, id: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let st = self.state(id);
            if st["search"].is_null() {
                return st;
            }
            assert!(Instant::now() < deadline, "the search never ended: {st}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Sets its flag when dropped (also when a thread panics).
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

#[test]
fn the_page_and_its_files_are_served() {
    let (_gui, c) = Client::start();
    let (status, page) = http(c.addr, "GET", "/", "");
    assert_eq!(status, 200);
    assert!(
        page.contains("<svg") && page.contains("app.js") && page.contains("board.js"),
        "{page}"
    );
    // The page talks to this server, not to the engine in WebAssembly
    // that the same page runs from the static folder.
    assert!(
        page.contains(r#"<meta name="mulino-engine" content="server">"#),
        "{page}"
    );
    // Every script the page loads, and its style sheet.
    let scripts: Vec<String> = page
        .split(r#"<script src=""#)
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(|s| format!("/{s}"))
        .collect();
    assert_eq!(
        scripts,
        [
            "/board.js",
            "/engine.js",
            "/turns.js",
            "/panel.js",
            "/practice.js",
            "/databases.js",
            "/app.js"
        ]
    );
    for file in scripts.iter().map(String::as_str).chain(["/style.css"]) {
        let (status, body) = http(c.addr, "GET", file, "");
        assert_eq!(status, 200, "{file}");
        assert!(!body.is_empty(), "{file}");
        // Everything works offline: nothing is fetched from elsewhere
        // (the SVG namespace is a name, not a download).
        let rest = body.replace("http://www.w3.org/2000/svg", "");
        assert!(
            !rest.contains("http:") && !rest.contains("https:"),
            "{file}"
        );
    }
    // The endgame practice's sets: each variant the list names has one.
    let (status, index) = http(c.addr, "GET", "/endgames/index.json", "");
    assert_eq!(status, 200);
    let names: Vec<String> = serde_json::from_str(&index).expect("a list of names");
    assert!(names.contains(&"nine".to_string()), "{names:?}");
    for name in &names {
        let (status, set) = http(c.addr, "GET", &format!("/endgames/{name}.tsv"), "");
        assert_eq!(status, 200, "{name}");
        assert!(
            set.lines().filter(|l| !l.starts_with('#')).count() >= 100,
            "{name}"
        );
    }
    assert_eq!(http(c.addr, "GET", "/endgames/dooz.tsv", "").0, 404);
    assert_eq!(http(c.addr, "GET", "/nothing-here", "").0, 404);
    assert_eq!(http(c.addr, "GET", "/api/state", "").0, 405);
}

#[test]
fn a_new_game_takes_a_legal_move() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    let st = c.state(&id);
    assert_eq!(st["variant"], "nine");
    assert_eq!(st["side"], "white");
    assert_eq!(st["phase"], "placing");
    assert_eq!(st["in_hand"], json!([9, 9]));
    assert_eq!(strings(&st["legal"]).len(), 24);
    assert_eq!(st["lines"].as_array().map(Vec::len), Some(16));
    let st = c.ok("move", json!({ "session": id, "move": "d6" }));
    assert_eq!(strings(&st["moves"]), ["d6"]);
    assert_eq!(strings(&st["white"]), ["d6"]);
    assert_eq!(st["side"], "black");
    assert_eq!(st["in_hand"], json!([8, 9]));
    assert!(st["outcome"].is_null());
}

#[test]
fn an_illegal_or_malformed_move_is_refused_and_changes_nothing() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    c.ok("move", json!({ "session": id, "move": "d6" }));
    let before = c.state(&id);
    for bad in ["d6", "d6-d5", "zz9", "", "xd6"] {
        let (status, error) = c.refused("move", json!({ "session": id, "move": bad }));
        assert_eq!(status, 422, "{bad}: {error}");
        assert_eq!(c.state(&id), before, "{bad} changed the game");
    }
    let (_, error) = c.refused("move", json!({ "session": id, "move": "d6" }));
    assert!(error.contains("not empty"), "{error}");
    let (status, _) = c.refused("move", json!({ "session": id }));
    assert_eq!(status, 400);
    let (status, _) = c.refused("move", json!({ "session": id, "move": 7 }));
    assert_eq!(status, 400);
    assert_eq!(c.state(&id), before);
}

#[test]
fn undo_and_redo_take_back_and_replay_whole_turns() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    for m in ["d6", "a1", "d5"] {
        c.ok("move", json!({ "session": id, "move": m }));
    }
    let st = c.ok("undo", json!({ "session": id }));
    assert_eq!(strings(&st["moves"]), ["d6", "a1"]);
    assert_eq!(strings(&st["redo"]), ["d5"]);
    assert_eq!(st["side"], "white");
    let st = c.ok("undo", json!({ "session": id, "count": 2 }));
    assert!(strings(&st["moves"]).is_empty());
    assert_eq!(st["in_hand"], json!([9, 9]));
    let st = c.ok("redo", json!({ "session": id, "count": 2 }));
    assert_eq!(strings(&st["moves"]), ["d6", "a1"]);
    // Playing the move that was undone keeps the rest of the redo list;
    // another move forgets it.
    let st = c.ok("move", json!({ "session": id, "move": "d5" }));
    assert!(strings(&st["redo"]).is_empty());
    let st = c.ok("undo", json!({ "session": id, "count": 3 }));
    assert_eq!(strings(&st["redo"]), ["d5", "a1", "d6"]);
    let st = c.ok("move", json!({ "session": id, "move": "d6" }));
    assert_eq!(strings(&st["redo"]), ["d5", "a1"]);
    let st = c.ok("move", json!({ "session": id, "move": "g7" }));
    assert!(strings(&st["redo"]).is_empty());
    // Undo at the start is harmless.
    let st = c.ok("undo", json!({ "session": id, "count": 10 }));
    assert!(strings(&st["moves"]).is_empty());
    let st = c.ok("undo", json!({ "session": id }));
    assert!(strings(&st["moves"]).is_empty());
}

/// Da San Qi: three pieces a side and one in hand, a7 marked by a mill.
const DA_SAN_QI: &str = "O*O**O**/@*@**@**/*******X w p p 3 1 3 1 0 0 0 0 0 0 0 0 10";

#[test]
fn the_state_shows_marked_points_and_who_plays_each_turn() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    c.ok("new", json!({ "session": id, "variant": "da-san-qi" }));
    let st = c.ok("fen", json!({ "session": id, "fen": DA_SAN_QI }));
    assert_eq!(strings(&st["marked"]), ["a7"]);
    assert!(!strings(&st["legal"]).contains(&"a7".to_string()));
    assert_eq!(
        (&st["side"], &st["fullmove"]),
        (&json!("white"), &json!(10))
    );
    // The last placements, then Black moves first: two black turns in a
    // row, the second numbered 11, as the rules core counts.
    for m in ["g1", "g7", "g7-g4"] {
        c.ok("move", json!({ "session": id, "move": m }));
    }
    let st = c.ok("undo", json!({ "session": id }));
    assert!(strings(&st["marked"]).is_empty(), "placing has ended: {st}");
    assert_eq!(
        (&st["side"], &st["fullmove"]),
        (&json!("black"), &json!(11))
    );
    let turn = |side: &str, fullmove: u64| json!({ "side": side, "fullmove": fullmove });
    // The undone move keeps its place, after the moves played.
    assert_eq!(strings(&st["redo"]), ["g7-g4"]);
    assert_eq!(
        st["turns"],
        json!([turn("white", 10), turn("black", 10), turn("black", 11)])
    );
    let st = c.ok("redo", json!({ "session": id }));
    assert_eq!(
        (&st["side"], &st["fullmove"]),
        (&json!("white"), &json!(12))
    );
}

#[test]
fn a_hint_names_the_winning_move_and_plays_nothing() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    c.ok("fen", json!({ "session": id, "fen": NEAR_END }));
    let st = c.ok(
        "go",
        json!({ "session": id, "purpose": "hint", "movetime": 300 }),
    );
    assert!(!st["search"].is_null() || !st["finished"].is_null());
    let st = c.wait_idle(&id);
    assert!(strings(&st["moves"]).is_empty(), "a hint plays nothing");
    let best = st["finished"]["best"].as_str().expect("a hint").to_string();
    assert!(best.starts_with("g4-g7x"), "{best}");
    assert!(strings(&st["legal"]).contains(&best));
    assert_eq!(st["finished"]["purpose"], "hint");
    assert_eq!(st["evals"][0]["mate"], 1, "{}", st["evals"]);
}

/// A hint is the engine's best move within a fixed budget, not a
/// clock: the same move each time in the same position (whatever
/// `movetime` says), and the first move of the line it shows.
#[test]
fn a_hint_is_the_same_each_time_and_its_line_starts_with_its_move() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    for m in ["d6", "d2", "f4"] {
        c.ok("move", json!({ "session": id, "move": m }));
    }
    let mut hints = Vec::new();
    for movetime in [50, 2000, 50] {
        c.ok(
            "go",
            json!({ "session": id, "purpose": "hint", "movetime": movetime }),
        );
        let st = c.wait_idle(&id);
        let f = &st["finished"];
        let best = f["best"].as_str().expect("a hint").to_string();
        assert_eq!(f["lines"][0]["pv"][0], json!(best), "{f}");
        assert!(st["search"].is_null());
        hints.push((best, f["lines"][0]["depth"].clone()));
    }
    assert!(hints.iter().all(|h| *h == hints[0]), "{hints:?}");
}

/// The evaluations of a saved game come back with it (the graph after a
/// reload or a restart), one per position at most.
#[test]
fn a_restored_game_keeps_its_evaluations() {
    let (_gui, c) = Client::start();
    let evals = json!([{ "cp": 12 }, null, { "mate": -3 }, { "cp": 5 }]);
    let st = c.ok("session", json!({ "moves": ["d6", "d2"], "evals": evals }));
    assert_eq!(st["evals"], json!([{ "cp": 12 }, null, { "mate": -3 }]));
    let (status, _) = c.call(
        "session",
        json!({ "moves": ["d6"], "evals": [{ "cp": "twelve" }] }),
    );
    assert_eq!(status, 400);
}

#[test]
fn the_engine_plays_a_move_at_a_level() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    c.ok("move", json!({ "session": id, "move": "d6" }));
    c.ok(
        "go",
        json!({ "session": id, "purpose": "play", "level": 2, "movetime": 100 }),
    );
    let st = c.wait_idle(&id);
    let moves = strings(&st["moves"]);
    assert_eq!(moves.len(), 2, "{moves:?}");
    assert_eq!(st["side"], "white");
    let (_, error) = c.refused(
        "go",
        json!({ "session": id, "purpose": "dance", "movetime": 100 }),
    );
    assert!(error.contains("purpose"), "{error}");
    c.refused(
        "go",
        json!({ "session": id, "purpose": "play", "level": 21 }),
    );
}

#[test]
fn analysis_runs_until_stopped_with_multipv_lines() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    let st = c.ok(
        "go",
        json!({ "session": id, "purpose": "analyse", "multipv": 3 }),
    );
    assert_eq!(st["search"]["purpose"], "analyse");
    std::thread::sleep(Duration::from_millis(300));
    let st = c.state(&id);
    assert!(!st["search"].is_null(), "an analysis runs until stopped");
    let st = c.ok("stop", json!({ "session": id }));
    assert!(st["search"].is_null());
    let lines = st["finished"]["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 3, "{lines:?}");
    // Each line's score also as White's win, the draw and Black's win.
    for line in lines {
        let wdl: Vec<u64> = line["wdl"]
            .as_array()
            .expect("wdl")
            .iter()
            .filter_map(|x| x.as_u64())
            .collect();
        assert_eq!((wdl.len(), wdl.iter().sum::<u64>()), (3, 1000), "{line}");
    }
    assert!(strings(&st["moves"]).is_empty(), "analysis plays nothing");
    assert!(!st["evals"][0].is_null());
    // A move made while the engine analyses stops it first.
    c.ok("go", json!({ "session": id, "purpose": "analyse" }));
    let st = c.ok("move", json!({ "session": id, "move": "d6" }));
    assert!(st["search"].is_null());
    assert_eq!(strings(&st["moves"]), ["d6"]);
}

#[test]
fn fen_set_up_checks_the_fen_and_plays_to_the_end() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    c.ok("move", json!({ "session": id, "move": "d6" }));
    let before = c.state(&id);
    for bad in ["", "nonsense", "**@****@/****@*O*/O*O****O w m s 4 0 3 0"] {
        let (status, error) = c.refused("fen", json!({ "session": id, "fen": bad }));
        assert_eq!(status, 422, "{error}");
        assert!(error.contains("FEN"), "{error}");
        assert_eq!(c.state(&id), before);
    }
    let st = c.ok("fen", json!({ "session": id, "fen": NEAR_END }));
    assert_eq!(st["fen"], NEAR_END);
    assert_eq!(st["start_fen"], NEAR_END);
    assert_eq!(st["phase"], "moving");
    assert!(strings(&st["moves"]).is_empty());
    assert_eq!(strings(&st["legal"]).len(), 12);
    // The slide alone is not a whole turn: it owes a removal.
    let (_, error) = c.refused("move", json!({ "session": id, "move": "g4-g7" }));
    assert!(error.contains("removal"), "{error}");
    let st = c.ok("move", json!({ "session": id, "move": "g4-g7xd2" }));
    assert_eq!(st["outcome"]["result"], "1-0");
    let reason = st["outcome"]["reason"].as_str().unwrap_or("");
    assert!(reason.contains("fewer than three"), "{reason}");
    assert!(strings(&st["legal"]).is_empty());
    let (_, error) = c.refused("move", json!({ "session": id, "move": "e4-e5" }));
    assert!(error.contains("over"), "{error}");
    c.refused("go", json!({ "session": id, "purpose": "hint" }));
    // Undo reaches back into the set-up position.
    let st = c.ok("undo", json!({ "session": id }));
    assert_eq!(st["fen"], NEAR_END);
    assert!(st["outcome"].is_null());
}

#[test]
fn every_variant_can_be_chosen_and_an_unknown_one_is_refused() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    let st = c.state(&id);
    let names: Vec<String> = st["variants"]
        .as_array()
        .expect("variants")
        .iter()
        .map(|v| v["name"].as_str().unwrap_or("").to_string())
        .collect();
    let expected: Vec<String> = mulino::core::Variant::ALL
        .iter()
        .map(|v| v.name().to_string())
        .collect();
    assert_eq!(names, expected);
    for name in &names {
        let st = c.ok("new", json!({ "session": id, "variant": name }));
        assert_eq!(&st["variant"], name);
        let rules = name
            .parse::<mulino::core::Variant>()
            .expect("a preset")
            .rules();
        assert_eq!(st["pieces"], rules.pieces);
        let lines = if rules.diagonals { 20 } else { 16 };
        assert_eq!(st["lines"].as_array().map(Vec::len), Some(lines), "{name}");
    }
    c.ok("new", json!({ "session": id, "variant": "morabaraba" }));
    c.ok("move", json!({ "session": id, "move": "d6" }));
    let before = c.state(&id);
    let (_, error) = c.refused("new", json!({ "session": id, "variant": "chess" }));
    assert!(error.contains("unknown variant"), "{error}");
    assert_eq!(c.state(&id), before);
    // Without a variant, a new game keeps the current one.
    let st = c.ok("new", json!({ "session": id }));
    assert_eq!(st["variant"], "morabaraba");
    assert!(strings(&st["moves"]).is_empty());
}

/// Sessions played at once, each by its own thread, with a second thread
/// per session reading its state all the while: every answer is that
/// session's own (its variant, a prefix of its own moves), and at the end
/// each holds its variant, its moves and its hands, and only the one set
/// to analyse is searching.
#[test]
fn sessions_driven_at_once_from_several_threads_keep_their_own_games() {
    // Variant, its pieces per side, and four placements (two a side: no
    // mill, so each is a whole turn).
    let plans: [(&str, u64, [&str; 4]); 4] = [
        ("nine", 9, ["d6", "a1", "d5", "a4"]),
        ("twelve", 12, ["a1", "d6", "g7", "b4"]),
        ("morabaraba", 12, ["g4", "c3", "e5", "d2"]),
        ("lasker", 10, ["b2", "f6", "d7", "e3"]),
    ];
    const ROUNDS: usize = 3;
    let analysing = 1;
    let (gui, c) = Client::start();
    let ids: Vec<String> = plans.iter().map(|_| c.new_session()).collect();
    let mut distinct = ids.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), ids.len(), "session ids repeat: {ids:?}");
    let start = Barrier::new(2 * plans.len());
    let done: Vec<AtomicBool> = plans.iter().map(|_| AtomicBool::new(false)).collect();
    std::thread::scope(|scope| {
        for (((variant, _, moves), id), done) in plans.iter().zip(&ids).zip(&done) {
            let (c, start) = (&c, &start);
            scope.spawn(move || {
                // Set even if an assertion fails, so that the reader ends.
                let _done = SetOnDrop(done);
                start.wait();
                c.ok("new", json!({ "session": id, "variant": variant }));
                for round in 0..ROUNDS {
                    for (n, m) in moves.iter().enumerate() {
                        let st = c.ok("move", json!({ "session": id, "move": m }));
                        assert_eq!(
                            strings(&st["moves"]),
                            moves[..=n],
                            "{variant} round {round}"
                        );
                        assert_eq!(st["variant"], *variant);
                    }
                    if round + 1 < ROUNDS {
                        let st = c.ok("undo", json!({ "session": id, "count": moves.len() }));
                        assert!(strings(&st["moves"]).is_empty(), "{variant}: {st}");
                    }
                }
            });
            scope.spawn(move || {
                start.wait();
                // Until the writer's `new`, the session is a fresh `nine`.
                let mut seen_variant = false;
                let mut reads = 0;
                while reads == 0 || !done.load(Ordering::SeqCst) {
                    let st = c.state(id);
                    seen_variant |= st["variant"] == *variant;
                    let expected = if seen_variant { variant } else { "nine" };
                    assert_eq!(st["variant"], expected, "{id}: {st}");
                    let played = strings(&st["moves"]);
                    assert!(
                        played.len() <= moves.len() && played == moves[..played.len()],
                        "{variant}: {played:?} is not a prefix of its own moves {moves:?}"
                    );
                    reads += 1;
                }
            });
        }
    });
    c.ok(
        "go",
        json!({ "session": ids[analysing], "purpose": "analyse" }),
    );
    for (i, ((variant, pieces, moves), id)) in plans.iter().zip(&ids).enumerate() {
        let st = c.state(id);
        assert_eq!(st["variant"], *variant);
        assert_eq!(st["pieces"], *pieces);
        assert_eq!(strings(&st["moves"]), moves, "{variant}");
        assert_eq!(st["in_hand"], json!([pieces - 2, pieces - 2]), "{variant}");
        assert_eq!(st["side"], "white", "{variant}");
        if i == analysing {
            assert!(!st["search"].is_null(), "{variant}: no analysis running");
        } else {
            assert!(st["search"].is_null(), "{variant}: a search runs: {st}");
        }
    }
    c.ok("stop", json!({ "session": ids[analysing] }));
    assert_eq!(gui.sessions().len(), plans.len());
}

#[test]
fn a_saved_game_is_restored_and_bad_requests_are_named() {
    let (_gui, c) = Client::start();
    let st = c.ok(
        "session",
        json!({ "variant": "nine", "fen": NEAR_END, "moves": ["b4-a4"], "redo": ["e4-e5"] }),
    );
    assert_eq!(st["start_fen"], NEAR_END);
    assert_eq!(strings(&st["moves"]), ["b4-a4"]);
    assert_eq!(strings(&st["redo"]), ["e4-e5"]);
    // Saved moves come back as the rules core writes them.
    let st = c.ok("session", json!({ "moves": ["D6", "a1"] }));
    assert_eq!(strings(&st["moves"]), ["d6", "a1"]);
    // A redo list that no longer replays is dropped, not an error.
    let st = c.ok("session", json!({ "moves": ["d6"], "redo": ["d6"] }));
    assert!(strings(&st["redo"]).is_empty());
    let (_, error) = c.refused("session", json!({ "moves": ["d6", "d6"] }));
    assert!(error.contains("restore"), "{error}");
    c.refused("session", json!({ "variant": "chess" }));

    let (status, value) = c.call("state", json!({ "session": "no-such-session" }));
    assert_eq!(status, 404);
    assert_eq!(value["code"], "unknown_session");
    let (status, value) = c.call("frobnicate", json!({}));
    assert_eq!(status, 404);
    assert_eq!(value["code"], "unknown_call");
    let (status, body) = http(c.addr, "POST", "/api/state", "{not json");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("JSON"), "{body}");
    let (status, _) = http(c.addr, "POST", "/api/state", "[1, 2]");
    assert_eq!(status, 400);
    // Only JSON is taken, so another site's page cannot post without the
    // browser asking first.
    let (status, body) = http_as(c.addr, "text/plain", "/api/session", "{}");
    assert_eq!(status, 415, "{body}");
}

#[test]
fn a_set_up_position_owing_a_removal_takes_a_removal_only_turn() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    let fen = "**@****@/****@*O*/O*OO***O w m r 5 0 3 0 1 0 0 0 0 0 0 0 30";
    let st = c.ok("fen", json!({ "session": id, "fen": fen }));
    assert_eq!(st["phase"], "removing");
    assert_eq!(st["pending_removals"], 1);
    let mut legal = strings(&st["legal"]);
    legal.sort();
    assert_eq!(legal, ["xc5", "xd2", "xe4"]);
    c.refused("move", json!({ "session": id, "move": "b4-a4" }));
    let st = c.ok("move", json!({ "session": id, "move": "xc5" }));
    assert_eq!(strings(&st["moves"]), ["xc5"]);
    assert_eq!(st["outcome"]["result"], "1-0");
}

/// The largest request body the server reads.
const MAX_BODY: usize = mulino::web::server::MAX_BODY as usize;

/// A JSON object's text, padded with spaces to exactly `len` bytes.
fn padded(body: &Value, len: usize) -> String {
    let mut text = body.to_string();
    assert!(text.len() <= len, "{text}");
    text.push_str(&" ".repeat(len - text.len()));
    text
}

#[test]
fn a_body_one_byte_over_the_limit_gets_413_and_changes_nothing() {
    let (_gui, c) = Client::start();
    let id = c.new_session();
    let before = c.state(&id);
    let call = json!({ "session": id, "move": "d6" });
    let (status, body) = http(c.addr, "POST", "/api/move", &padded(&call, MAX_BODY + 1));
    assert_eq!(status, 413, "{body}");
    let value: Value = serde_json::from_str(&body).expect("a JSON answer");
    assert_eq!(value["code"], "bad_request", "{value}");
    let error = value["error"].as_str().expect("an error message");
    assert!(error.contains("too large"), "{error}");
    assert_eq!(c.state(&id), before, "a refused request played its move");
    // At the limit itself the same call is read and played.
    let (status, body) = http(c.addr, "POST", "/api/move", &padded(&call, MAX_BODY));
    assert_eq!(status, 200, "{body}");
    let st: Value = serde_json::from_str(&body).expect("a JSON answer");
    assert_eq!(strings(&st["moves"]), ["d6"]);
}

/// A session's state, asked of the server: `None` when it is unknown.
fn state_if_kept(c: &Client, id: &str) -> Option<Value> {
    let (status, value) = c.call("state", json!({ "session": id }));
    match status {
        200 => Some(value),
        404 => {
            assert_eq!(value["code"], "unknown_session", "{value}");
            None
        }
        _ => panic!("state of {id}: {status} {value}"),
    }
}

#[test]
fn past_the_most_sessions_the_least_recently_used_goes_and_its_search_stops() {
    // Sessions created apart enough that their last uses are ordered.
    let pause = || std::thread::sleep(Duration::from_millis(5));
    let (gui, c) = Client::start();
    let mut ids = vec![c.new_session()];
    // The first session analyses until it is dropped.
    c.ok("go", json!({ "session": ids[0], "purpose": "analyse" }));
    // Held here (not asked through the API, which would count as a use).
    let first = gui.sessions().get(&ids[0]).expect("the first session");
    pause();
    while ids.len() < MAX_SESSIONS {
        ids.push(c.new_session());
        pause();
    }
    assert_eq!(gui.sessions().len(), MAX_SESSIONS);
    // The second is used again: the third becomes the second oldest.
    c.ok("move", json!({ "session": ids[1], "move": "d6" }));
    pause();
    assert!(
        lock_session(&first).running().is_some(),
        "the first session's analysis ended before it was dropped"
    );

    let newest = c.new_session();
    assert_eq!(gui.sessions().len(), MAX_SESSIONS);
    assert!(
        state_if_kept(&c, &ids[0]).is_none(),
        "the least recently used session is still there"
    );
    {
        let s = lock_session(&first);
        assert!(s.running().is_none(), "a dropped session still searches");
        assert!(
            !s.engine().is_searching(),
            "a dropped session's engine runs"
        );
    }
    c.new_session();
    assert_eq!(gui.sessions().len(), MAX_SESSIONS);
    assert!(
        state_if_kept(&c, &ids[2]).is_none(),
        "the third session, now the least recently used, is still there"
    );
    let second = state_if_kept(&c, &ids[1]).expect("the second session, used again, was dropped");
    assert_eq!(strings(&second["moves"]), ["d6"]);
    for id in ids[3..].iter().chain([&newest]) {
        assert!(state_if_kept(&c, id).is_some(), "{id} was dropped");
    }
}

/// The janitor (a thread of `Gui::start`) sweeps every 2 s and stops the
/// search of a session nothing has asked about for [`ABANDONED`] (90 s,
/// a constant): too long to wait for in a test. So this checks the rule
/// it applies, [`Session::stop_if_abandoned`](mulino::web::sessions::Session::stop_if_abandoned),
/// with the clock moved on, and that a sweep now leaves a search that was
/// just asked about alone.
#[test]
fn a_search_unasked_for_longer_than_abandoned_is_stopped_and_plays_nothing() {
    let (gui, c) = Client::start();
    let id = c.new_session();
    c.ok("move", json!({ "session": id, "move": "d6" }));
    let shared = gui.sessions().get(&id).expect("the session");
    for purpose in ["analyse", "play"] {
        // Without `movetime`, both search until stopped.
        c.ok("go", json!({ "session": id, "purpose": purpose }));
        gui.sessions().sweep();
        {
            let mut s = lock_session(&shared);
            assert!(
                s.running().is_some(),
                "{purpose}: a sweep stopped a fresh search"
            );
            let seen = s.last_seen();
            s.stop_if_abandoned(seen + ABANDONED);
            assert!(
                s.running().is_some(),
                "{purpose}: stopped at exactly ABANDONED"
            );
            s.stop_if_abandoned(seen + ABANDONED + Duration::from_millis(1));
            assert!(
                s.running().is_none(),
                "{purpose}: not stopped past ABANDONED"
            );
            assert!(
                !s.engine().is_searching(),
                "{purpose}: the engine still runs"
            );
        }
        let st = c.state(&id);
        assert!(st["search"].is_null(), "{purpose}: {st}");
        assert_eq!(
            strings(&st["moves"]),
            ["d6"],
            "{purpose}: a move was played"
        );
    }
    // Without a search, nothing changes.
    let before = c.state(&id);
    let seen = lock_session(&shared).last_seen();
    lock_session(&shared).stop_if_abandoned(seen + 10 * ABANDONED);
    assert_eq!(c.state(&id), before);
}
