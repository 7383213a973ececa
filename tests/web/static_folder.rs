//! The web board as static files: `scripts/build-web.sh`'s `target/web/`
//! served by a plain static server (`StaticServer` in chromium.rs: the
//! files, typed by extension, and no header of its own: no COOP, no
//! COEP), in headless Chromium, against the engine in WebAssembly in a
//! worker. The page makes itself cross-origin isolated through its
//! service worker (one reload on the first visit); then every variant is
//! there, a set-up position gets its hint, a game of Nine Men's Morris
//! against the engine and to its end by clicks (a hint and an undo on
//! the way, the evaluation of each position drawn on the graph); in
//! Twelve Men's Morris the engine's reply and its undo, then a game to
//! its end by clicks (a hint, an undo, an analysis of two lines,
//! stopped), Copy FEN and Copy game, a reload that keeps the game and
//! the settings (localStorage), the time from loading the page to the engine's first answer
//! (printed: docs/performance.md), screenshots at 1280x900 and 390x844
//! (target/static-1280x900.png, target/static-390x844.png), no error on
//! the console; and, the server gone, the page still loads and plays.
//!
//! It needs the folder built by `scripts/build-web.sh` (`target/web/`,
//! or the folder `MULINO_WEB_DIR` names), and Chromium; asked for, it
//! fails without them, and when the folder's page is older than
//! `src/web/assets/` (built before the page changed):
//!
//! ```sh
//! scripts/build-web.sh
//! cargo test --test web static_folder -- --include-ignored --nocapture
//! ```

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::chromium::{LARGE, PHONE, Page, Server};
use serde_json::json;

/// The page's files, the same in the folder as in the sources.
const PAGE: [&str; 10] = [
    "index.html",
    "board.js",
    "engine.js",
    "turns.js",
    "panel.js",
    "practice.js",
    "databases.js",
    "app.js",
    "style.css",
    "sw.js",
];

/// The folder to serve: `MULINO_WEB_DIR`, else `target/web`, as
/// `scripts/build-web.sh` left it.
fn folder() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join(std::env::var_os("MULINO_WEB_DIR").unwrap_or_else(|| "target/web".into()));
    for file in PAGE
        .iter()
        .chain(&["mulino-engine.mjs", "mulino-worker.mjs", "mulino.wasm"])
    {
        assert!(
            dir.join(file).is_file(),
            "{} has no {file}: run scripts/build-web.sh",
            dir.display()
        );
    }
    for file in PAGE {
        let built = std::fs::read(dir.join(file)).expect("the folder's file");
        let source = std::fs::read(root.join("src/web/assets").join(file)).expect("the source");
        assert!(
            built == source,
            "{}/{file} differs from src/web/assets/{file}: run scripts/build-web.sh again",
            dir.display()
        );
    }
    dir
}

/// A slide before the end: `g4-g7` closes a mill, and any removal
/// leaves Black with two pieces (as in browser.rs).
const NEAR_END: &str = "**@****@/****@*O*/O*O****O w m s 4 0 3 0 0 0 0 0 0 0 0 0 30";

/// A game of 28 plies that Black wins (as in browser.rs).
const NINE: &str = "d7 f2 d1 d5 d6 e5 g7 c5xg7 d3 a1 d2xa1 f4 e3 f6xd7 c3xf4 f4xd6 c4 b6 \
                    d2-b2 d5-d6xd1 e3-e4 d6-d5xd3 b2-b4 d5-d6xe4 c3-a4xe5 d6-d7 b4-e5 d7-d6xa4";

/// A game of Twelve Men's Morris of 37 plies that White wins (the engine
/// at level 20 against itself at level 0, 60 ms a move).
const TWELVE: &str = "f6 e3 f2 f4 b6 e5 b2 e4xb6 b6 g4xb2 b2 d6 c5 c3 b4xc3 c3 a7xc3 c3 d2xc3 \
                      a1 c4 g7 g1 a4 b2-c3xa4 a1-b2 a7-a4xb2 e3-d3 b4-b2xd3 e5-d5 b2-b4xd6 \
                      e4-e3 b4-b2xe3 g7-d7 a4-a1xd5 f4-e5 c4-b4xe5";

#[test]
#[ignore = "needs Chromium and scripts/build-web.sh's target/web: cargo test --test web -- --include-ignored"]
fn the_static_folder_plays_against_the_engine_in_webassembly() {
    let mut page = Page::open_static(LARGE, &folder());
    isolated_with_every_variant(&mut page);
    a_set_up_position_and_its_hint(&mut page);
    nine_mens_morris_against_the_engine_and_to_its_end(&mut page);
    let large = twelve_mens_morris_to_its_end(&mut page);
    the_game_outlives_a_reload(&mut page);
    load_times(&mut page);
    let phone = on_a_phone(&mut page);
    let errors = page.cdp.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).expect("target/");
    std::fs::write(target.join("static-1280x900.png"), large).expect("a screenshot");
    std::fs::write(target.join("static-390x844.png"), phone).expect("a screenshot");
    offline(&mut page);
}

/// The page runs the engine in WebAssembly, cross-origin isolated by its
/// service worker, and has every variant; no databases are shown.
fn isolated_with_every_variant(page: &mut Page) {
    let cdp = &mut page.cdp;
    assert_eq!(cdp.eval("ENGINE"), "wasm");
    assert_eq!(cdp.eval("window.crossOriginIsolated"), true);
    assert_eq!(cdp.eval("!!navigator.serviceWorker.controller"), true);
    assert!(cdp.text("#status").contains("White to move"));
    assert_eq!(cdp.count("#variant option"), 11);
    let names = cdp.eval("ui.st.variants.map((v) => v.name)");
    for name in names.as_array().expect("the variants") {
        let name = name.as_str().expect("a name");
        cdp.eval(&format!("act('new', {{ variant: '{name}' }})"));
        cdp.wait_for(
            name,
            &format!(
                "ui.pending === 0 && ui.st.variant === '{name}' && ui.st.legal.length > 0 && \
                 document.querySelectorAll('[data-point]').length >= 24"
            ),
        );
    }
    cdp.eval("act('new', { variant: 'nine' })");
    cdp.wait_for(
        "Nine Men's Morris",
        "ui.pending === 0 && ui.st.variant === 'nine'",
    );
    assert_eq!(
        cdp.eval("document.getElementById('tablebase').hidden"),
        true
    );
}

/// A position set up from its FEN, and the hint the engine gives there.
fn a_set_up_position_and_its_hint(page: &mut Page) {
    page.two_humans();
    let cdp = &mut page.cdp;
    cdp.type_into("#fen", NEAR_END);
    cdp.click("#btn-setup");
    cdp.wait_for(
        "the set-up position",
        "document.querySelectorAll('[data-piece=white]').length === 4",
    );
    cdp.click("#btn-hint");
    cdp.wait_for("the hint", "!!document.querySelector('[data-hint]')");
    let hint = cdp.eval("document.querySelector('[data-hint]').dataset.hint");
    assert!(
        hint.as_str().is_some_and(|h| h.starts_with("g4-g7x")),
        "hint {hint}"
    );
}

/// Plays the whole turns of `line` by clicks from the `from`-th, checking
/// the count of moves after each.
fn play_line(page: &mut Page, line: &[&str], from: usize, to: usize) {
    for (i, turn) in line.iter().enumerate().take(to).skip(from) {
        page.play_by_clicks(turn, i + 1);
    }
}

/// The engine answers a move at level Easy; Undo takes both back. Then
/// two people play a game to its end by clicks, each position evaluated
/// for the graph, with a hint and an undo on the way.
fn nine_mens_morris_against_the_engine_and_to_its_end(page: &mut Page) {
    let cdp = &mut page.cdp;
    cdp.choose("black-player", "engine");
    cdp.choose("level", "2");
    cdp.choose("movetime", "250");
    cdp.click("#btn-new");
    cdp.wait_for("a new game", "ui.pending === 0 && ui.st.moves.length === 0");
    cdp.click_point("d6");
    page.wait_plies("the engine's reply", 2);
    let cdp = &mut page.cdp;
    assert_eq!(cdp.count("[data-piece=black]"), 1);
    cdp.click("#btn-undo");
    page.wait_plies("the undo of both", 0);
    assert_eq!(page.cdp.count("#moves .mv.future"), 2);

    page.cdp.choose("black-player", "human");
    page.set_auto_eval(true);
    page.cdp.click("#btn-new");
    page.cdp
        .wait_for("a new game", "ui.pending === 0 && ui.st.moves.length === 0");
    let line: Vec<&str> = NINE.split_whitespace().collect();
    play_line(page, &line, 0, 10);
    // A hint, drawn on the board and named beside it.
    page.cdp.click("#btn-hint");
    page.cdp
        .wait_for("the hint", "!!document.querySelector('[data-hint]')");
    assert!(page.cdp.text("#pv").contains("Hint: "));
    // A move, its undo, and the same move again (it replays the redo).
    play_line(page, &line, 10, 11);
    page.cdp.click("#btn-undo");
    page.wait_plies("the undo", 10);
    assert_eq!(page.cdp.count("#moves .mv.future"), 1);
    play_line(page, &line, 10, line.len());
    let status = page.game_over_status();
    assert!(status.contains("0-1"), "{status}");
    let cdp = &mut page.cdp;
    assert_eq!(cdp.text("#moves .result"), "0-1");
    assert_eq!(cdp.text("#evaltext"), "0-1");
    // The evaluations of the positions on the way, on the graph.
    cdp.wait_for(
        "the graph",
        "ui.pending === 0 && !ui.st.search && ui.st.evals.filter((e) => e).length >= 20",
    );
    assert!(cdp.count("#graph .mark") >= 20);
    assert_eq!(cdp.count("#graph .curve"), 1);
}

/// Twelve Men's Morris to its end by clicks, with a hint, an undo and an
/// analysis of two lines (the screenshot at 1280x900, returned); Copy FEN
/// and Copy game.
fn twelve_mens_morris_to_its_end(page: &mut Page) -> Vec<u8> {
    page.cdp.click("#btn-new");
    page.cdp.wait_for("a new game", "ui.st.moves.length === 0");
    page.cdp.choose("black-player", "engine");
    page.cdp.choose("variant", "twelve");
    page.cdp.wait_for(
        "Twelve Men's Morris",
        "ui.pending === 0 && ui.st.variant === 'twelve' && \
         document.querySelectorAll('#hand-top .stone.black').length === 12",
    );
    // The engine answers a placement, and Undo takes both back.
    page.cdp.click_point("d6");
    page.wait_plies("the engine's reply in Twelve Men's Morris", 2);
    assert_eq!(page.cdp.count("[data-piece=black]"), 1);
    assert_eq!(page.cdp.count("#hand-top .stone.black"), 11);
    page.cdp.click("#btn-undo");
    page.wait_plies("the undo of both", 0);
    page.two_humans();
    let line: Vec<&str> = TWELVE.split_whitespace().collect();
    play_line(page, &line, 0, 20);
    page.cdp.click("#btn-undo");
    page.wait_plies("the undo", 19);
    play_line(page, &line, 19, 24);
    page.cdp.click("#btn-hint");
    page.cdp
        .wait_for("the hint", "!!document.querySelector('[data-hint]')");
    play_line(page, &line, 24, 30);
    // The analysis: two lines, until stopped.
    page.cdp.choose("multipv", "2");
    page.cdp.click("#btn-analyse");
    page.cdp.wait_for(
        "two lines of analysis",
        "document.querySelectorAll('#pv > div:not(#hint-text)').length === 2 && \
         ui.st.search && ui.st.search.lines.length === 2 && ui.st.search.lines[1].depth >= 4",
    );
    assert_eq!(page.cdp.text("#btn-analyse"), "Stop analysis");
    page.cdp.eval("window.scrollTo(0, 0)");
    let png = page.cdp.screenshot();
    page.cdp.click("#btn-analyse");
    page.cdp.wait_for(
        "the analysis stopped",
        "ui.pending === 0 && !ui.st.search && !ui.analysing",
    );
    play_line(page, &line, 30, line.len());
    let status = page.game_over_status();
    assert!(
        status.contains("white wins") && status.contains("1-0"),
        "{status}"
    );
    page.allow_clipboard();
    let fen = page.copied_by("#btn-copy-fen");
    assert_eq!(page.cdp.eval("ui.st.fen").as_str(), Some(fen.as_str()));
    let game = page.copied_game();
    assert!(game.contains("[Variant \"Twelve Men's Morris\"]"), "{game}");
    assert!(game.contains("17. b4-b2xe3 g7-d7"), "{game}");
    assert!(game.trim_end().ends_with("19. c4-b4xe5 1-0"), "{game}");
    png
}

/// A reload brings the game back from the browser's storage.
fn the_game_outlives_a_reload(page: &mut Page) {
    let cdp = &mut page.cdp;
    let fen = cdp.eval("ui.st.fen");
    cdp.eval("window.beforeReload = true");
    cdp.send("Page.reload", json!({}));
    cdp.wait_for(
        "the reloaded game",
        "!window.beforeReload && document.body.dataset.ready === '1' && ui.st.moves.length === 37",
    );
    assert_eq!(cdp.eval("ui.st.fen"), fen);
    assert_eq!(cdp.eval("ui.st.variant"), "twelve");
    assert!(cdp.text("#status").contains("Game over"));
    // The settings too, kept in localStorage (not the browser's own
    // restoring of a reloaded form).
    let saved = "JSON.parse(localStorage.getItem('mulino.gui.config.v1'))";
    for (key, value) in [
        ("white", "human"),
        ("black", "human"),
        ("level", "2"),
        ("movetime", "250"),
        ("multipv", "2"),
    ] {
        assert_eq!(cdp.eval(&format!("{saved}.{key}")), value, "{key} saved");
        assert_eq!(cdp.eval(&format!("ui.config.{key}")), value, "{key} read");
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// From navigation to the engine's first answer, and to the page drawn
/// from it, over 9 reloads (the game of 37 moves restored each time);
/// the engine's own `readyok` from a worker started in the page; and a
/// first visit (no service worker yet: registered, then one reload).
fn load_times(page: &mut Page) {
    let cdp = &mut page.cdp;
    let mut ready = Vec::new();
    for _ in 0..9 {
        cdp.eval("window.beforeReload = true");
        cdp.send("Page.reload", json!({}));
        cdp.wait_for(
            "the reloaded page",
            "!window.beforeReload && document.body.dataset.ready === '1' && \
             performance.getEntriesByName('mulino-engine-ready').length === 1",
        );
        let t = cdp.eval("performance.getEntriesByName('mulino-engine-ready')[0].startTime");
        ready.push(t.as_f64().expect("a time"));
    }
    let readyok = (0..9)
        .map(|_| {
            let ms = cdp.eval(
                "(async () => { const m = await import('./mulino-engine.mjs'); \
                 const t0 = performance.now(); let done; const got = new Promise((r) => { done = r; }); \
                 const e = await m.startEngine({ onLine: (l) => { if (l === 'readyok') done(performance.now() - t0); } }); \
                 e.postMessage('isready'); const ms = await got; e.terminate(); return ms; })()",
            );
            ms.as_f64().expect("a time")
        })
        .collect::<Vec<f64>>();
    let url = page.server.url();
    let origin = url.trim_end_matches('/');
    let mut first = Vec::new();
    for _ in 0..3 {
        let cdp = &mut page.cdp;
        cdp.send(
            "Storage.clearDataForOrigin",
            json!({ "origin": origin, "storageTypes": "service_workers,cache_storage" }),
        );
        cdp.send("Page.navigate", json!({ "url": "about:blank" }));
        cdp.wait_for("a blank page", "location.href === 'about:blank'");
        let start = Instant::now();
        cdp.send("Page.navigate", json!({ "url": url }));
        cdp.wait_for(
            "the first visit",
            "window.crossOriginIsolated && document.body.dataset.ready === '1' && \
             performance.getEntriesByName('mulino-engine-ready').length === 1",
        );
        first.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "static folder: navigation to the engine's first answer, 9 reloads (ms): {ready:.0?}, \
         median {:.0}",
        median(ready.clone())
    );
    println!(
        "static folder: a worker started in the page to its readyok, 9 runs (ms): {readyok:.0?}, \
         median {:.0}",
        median(readyok.clone())
    );
    println!(
        "static folder: first visit (the service worker registered, one reload), navigation to \
         the engine's first answer, 3 runs, wall clock (ms): {first:.0?}"
    );
    // A generous bound: CI machines are slow and busy (the aim is 300 ms).
    assert!(median(ready) < 3000.0);
}

/// The same page on a phone: the screenshot at 390x844.
fn on_a_phone(page: &mut Page) -> Vec<u8> {
    let cdp = &mut page.cdp;
    cdp.resize(PHONE);
    cdp.eval("window.beforeReload = true");
    cdp.send("Page.reload", json!({}));
    cdp.wait_for(
        "the page on a phone",
        "!window.beforeReload && document.body.dataset.ready === '1' && ui.st.moves.length === 37",
    );
    cdp.eval("window.scrollTo(0, 0)");
    // The move list scrolled to its end, drawn.
    std::thread::sleep(Duration::from_millis(200));
    cdp.screenshot()
}

/// The static server gone: the page loads from the service worker's
/// copies, with its game, and the engine plays.
fn offline(page: &mut Page) {
    match &mut page.server {
        Server::Static(server) => server.stop(),
        Server::Gui(_) | Server::Process(_) => unreachable!("a static folder"),
    }
    let cdp = &mut page.cdp;
    cdp.eval("window.beforeReload = true");
    cdp.send("Page.reload", json!({}));
    cdp.wait_for(
        "the page offline",
        "!window.beforeReload && document.body.dataset.ready === '1' && ui.st.moves.length === 37",
    );
    cdp.click("#btn-new");
    cdp.wait_for("a new game", "ui.pending === 0 && ui.st.moves.length === 0");
    cdp.click("#btn-hint");
    cdp.wait_for("a hint offline", "!!document.querySelector('[data-hint]')");
    page.play_by_clicks("d6", 1);
}

/// A reload during the engine's turn: the worker that searched is gone
/// with the page, and the new page's engine plays its turn by itself.
/// Then endgame practice with no databases at hand: the engine plays by
/// search, and the set's moves that keep the value judge the first move.
#[test]
#[ignore = "needs Chromium and scripts/build-web.sh's target/web: cargo test --test web -- --include-ignored"]
fn after_a_reload_the_engine_goes_on_and_practice_judges_without_databases() {
    let dir = folder();
    assert!(
        dir.join("endgames/nine.tsv").is_file(),
        "{} has no endgames/: run scripts/build-web.sh",
        dir.display()
    );
    let mut page = Page::open_static(LARGE, &dir);
    let cdp = &mut page.cdp;
    cdp.choose("white-player", "human");
    cdp.choose("black-player", "engine");
    cdp.choose("level", "20");
    cdp.choose("movetime", "5000");
    page.play_by_clicks("d6", 1);
    let cdp = &mut page.cdp;
    cdp.wait_for(
        "the engine's search",
        "!!ui.st.search && ui.st.search.purpose === 'play'",
    );
    cdp.eval("window.beforeReload = true");
    cdp.send("Page.reload", json!({}));
    cdp.wait_for(
        "the reloaded page",
        "!window.beforeReload && document.body.dataset.ready === '1'",
    );
    assert!(
        !cdp.text("#status").contains("press \"Engine move\""),
        "{}",
        cdp.text("#status")
    );
    // Nobody presses anything: the engine moves (5 s and some).
    cdp.wait_for(
        "the engine's move after the reload",
        "ui.st.moves.length === 2 && ui.pending === 0",
    );

    // Practice: a won 5 v 4 position, and a first move outside the set's
    // list of those that keep the win.
    cdp.choose("movetime", "250");
    cdp.wait_for(
        "the practice's kinds",
        "document.getElementById('practice-kind').options.length > 0",
    );
    cdp.choose("practice-kind", "5v4");
    cdp.choose("practice-goal", "win");
    cdp.click("#btn-practice");
    cdp.wait_for(
        "the practice position",
        "!!ui.practice && ui.pending === 0 && ui.st.start_fen === ui.practice.fen",
    );
    let line = cdp.text("#practice-line");
    assert!(
        line.contains("5 v 4") && line.contains("by search"),
        "{line}"
    );
    let worse = cdp.eval("ui.st.legal.find((m) => !ui.practice.keep.includes(m))");
    let worse = worse
        .as_str()
        .expect("a move that keeps no win")
        .to_string();
    page.play_by_clicks(&worse, 1);
    let cdp = &mut page.cdp;
    assert_eq!(
        cdp.eval("document.getElementById('practice-line').dataset.verdict"),
        json!("thrown")
    );
    let line = cdp.text("#practice-line");
    assert!(
        line.contains(&format!("Move 1, {worse}, threw the win away")) && line.contains("kept it"),
        "{line}"
    );
    let errors = cdp.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}
