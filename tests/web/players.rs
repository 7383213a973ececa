//! What a new player tripped over on the board (issue 71), each in
//! headless Chromium on the page of `mulino gui`: a hint that is the same
//! move each time and the first of its line; a mistyped FEN kept to be
//! corrected, its error beside the box; a click off the targets that
//! deselects (Lasker); the graph kept over a restart; the level that sets
//! the time; the evaluation hidden against the engine; a word for every
//! click that does nothing; the last moves by the board on a phone and
//! the buttons in view sideways; and endgame practice, played to its end
//! against the engine with databases. Screenshots go to target/screens/.
//!
//! Ignored unless asked for, as they need Chromium: `cargo test --test
//! web -- --include-ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::chromium::{DESKTOP, GuiProcess, LARGE, PHONE, PHONE_LANDSCAPE, Page, Screen};
use serde_json::{Value, json};

fn save(page: &mut Page, name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screens");
    std::fs::create_dir_all(&dir).expect("target/screens/");
    let png = page.cdp.screenshot();
    std::fs::write(dir.join(format!("{name}.png")), png).expect("write a screenshot");
}

/// A new game of `variant`, nothing played.
fn new_game(page: &mut Page, variant: &str) {
    page.cdp
        .eval(&format!("act('new', {{ variant: '{variant}' }})"));
    page.cdp.wait_for(
        variant,
        &format!(
            "ui.pending === 0 && ui.st.variant === '{variant}' && ui.st.moves.length === 0 && !ui.st.search"
        ),
    );
}

/// The status line, as it is now.
fn status(page: &mut Page) -> String {
    page.cdp.text("#status")
}

/// Whether `selector`'s box lies inside the window.
fn in_view(page: &mut Page, selector: &str) -> bool {
    let [left, top, right, bottom] = page.rect(selector);
    let view = page.cdp.eval("[window.innerWidth, window.innerHeight]");
    let (w, h) = (
        view[0].as_f64().unwrap_or(0.0),
        view[1].as_f64().unwrap_or(0.0),
    );
    left >= 0.0 && top >= 0.0 && right <= w + 0.5 && bottom <= h + 0.5
}

/// Presses Hint and waits for its answer: the move marked on the board
/// and the line printed under it.
fn hint(page: &mut Page) -> (String, String) {
    let before = page.cdp.eval("ui.applied").as_u64().unwrap_or(0);
    page.cdp.click("#btn-hint");
    page.cdp.wait_for(
        "the hint",
        &format!(
            "ui.applied > {before} && ui.pending === 0 && !ui.st.search && !!ui.st.finished && \
             ui.st.finished.purpose === 'hint' && !!document.querySelector('[data-hint]')"
        ),
    );
    let marked = page
        .cdp
        .eval("document.querySelector('[data-hint]').dataset.hint");
    let line = page.cdp.text("#pv > div:not(#hint-text)");
    (marked.as_str().unwrap_or("").to_string(), line)
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn a_hint_is_the_same_move_each_time_and_its_line_starts_with_it() {
    let mut page = Page::open(DESKTOP);
    page.two_humans();
    for (i, m) in ["d6", "d2", "f4"].iter().enumerate() {
        page.play_by_clicks(m, i + 1);
    }
    // Whatever the thinking time says (a hint has its own budget), the
    // same hint and the same line each time.
    let mut seen = Vec::new();
    for movetime in ["250", "2000", "1000", "250"] {
        page.cdp.choose("movetime", movetime);
        let (marked, line) = hint(&mut page);
        // `+0.12(depth 9) d6 d2 ...`: the line's first move.
        let first = line
            .split(") ")
            .nth(1)
            .and_then(|pv| pv.split_whitespace().next())
            .unwrap_or("");
        assert_eq!(first, marked, "the hint {marked} and its line {line}");
        seen.push((marked, line));
    }
    assert!(
        seen.iter().all(|m| *m == seen[0]),
        "hints in one position: {seen:?}"
    );
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn a_mistyped_fen_stays_to_be_corrected_and_its_error_shows_beside_it() {
    let mut page = Page::open(PHONE);
    page.two_humans();
    let typo = "**@****@/****@*O*/O*O****O w m s 4 0 3 0 0 0 0 0 0 0 0 0 3O";
    page.cdp.type_into("#fen", typo);
    page.cdp.click("#btn-setup");
    page.cdp.wait_for(
        "the FEN's error",
        "!document.getElementById('fen-error').hidden",
    );
    assert!(
        page.cdp.text("#fen-error").contains("FEN"),
        "{}",
        page.cdp.text("#fen-error")
    );
    // Drawn again (the page renders on every state), the typed text stays.
    page.cdp.eval("render()");
    assert_eq!(
        page.cdp.eval("document.getElementById('fen').value"),
        json!(typo)
    );
    // The error is beside the box and in view, not far away under the board.
    assert!(in_view(&mut page, "#fen-error"), "the error out of view");
    let boxed = page.rect("#fen");
    let error = page.rect("#fen-error");
    assert!(
        error[1] >= boxed[3] && error[1] - boxed[3] < 40.0,
        "the box {boxed:?}, its error {error:?}"
    );
    assert_eq!(
        page.cdp.eval("document.getElementById('error').hidden"),
        json!(true)
    );
    // Corrected, it sets up; the box shows the position again.
    let fixed = typo.trim_end_matches('O');
    page.cdp.type_into("#fen", fixed);
    page.cdp.click("#btn-setup");
    page.cdp.wait_for(
        "the position",
        "ui.pending === 0 && document.querySelectorAll('[data-piece=white]').length === 4",
    );
    assert_eq!(
        page.cdp.eval("document.getElementById('fen-error').hidden"),
        json!(true)
    );
    page.cdp.eval("render()");
    assert_eq!(
        page.cdp
            .eval("document.getElementById('fen').value === ui.st.fen"),
        json!(true)
    );
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn in_lasker_a_click_off_the_picked_pieces_targets_deselects_it() {
    let mut page = Page::open(DESKTOP);
    page.two_humans();
    new_game(&mut page, "lasker");
    page.play_by_clicks("d6", 1);
    page.play_by_clicks("d2", 2);
    // Lasker: a placed piece may move while stones are still in hand.
    assert_eq!(
        page.cdp
            .eval("ui.st.legal.includes('d6-d7') && ui.st.legal.includes('a1')"),
        json!(true)
    );
    page.cdp.click_point("d6");
    assert_eq!(page.cdp.eval("ui.clicks"), json!(["d6"]));
    page.cdp.click_point("a1");
    assert_eq!(page.cdp.eval("ui.clicks"), json!([]));
    assert_eq!(page.cdp.eval("ui.pending"), json!(0), "nothing was sent");
    assert_eq!(page.cdp.eval("ui.st.moves.length"), json!(2));
    assert_eq!(page.cdp.count("[data-piece]"), 2);
    assert!(
        status(&mut page).contains("cannot go to a1"),
        "{}",
        status(&mut page)
    );
    // Then a1 again is a placement, as it should be.
    page.play_by_clicks("a1", 3);
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn a_click_that_does_nothing_says_why_and_the_count_stands_apart_from_the_stones() {
    let mut page = Page::open(DESKTOP);
    page.two_humans();
    page.play_by_clicks("d6", 1);
    page.cdp.click_point("d6");
    assert!(
        status(&mut page).contains("d6 is taken"),
        "{}",
        status(&mut page)
    );
    assert_eq!(page.cdp.eval("ui.st.moves.length"), json!(1));
    // The count of stones in hand leaves a gap after the last stone.
    let gap = page.cdp.eval(
        "(() => { const h = document.getElementById('hand-bottom'); \
         const stones = h.querySelectorAll('.stone'); \
         const last = stones[stones.length - 1].getBoundingClientRect(); \
         return h.querySelector('.stones + span').getBoundingClientRect().left - last.right; })()",
    );
    assert!(gap.as_f64().unwrap_or(0.0) >= 4.5, "gap {gap}");
    // During the engine's turn.
    page.cdp.choose("black-player", "engine");
    page.cdp.choose("level", "20");
    page.cdp.choose("movetime", "5000");
    page.cdp.wait_for(
        "the engine's search",
        "!!ui.st.search && ui.st.search.purpose === 'play'",
    );
    page.cdp.click_point("a1");
    assert!(
        status(&mut page).contains("engine is thinking"),
        "{}",
        status(&mut page)
    );
    assert_eq!(page.cdp.eval("ui.clicks"), json!([]));
    page.cdp.click("#btn-stop");
    page.wait_plies("the engine's move", 2);
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn below_hard_the_level_sets_the_time_and_says_so() {
    let mut page = Page::open(DESKTOP);
    for (level, timed) in [("2", false), ("8", false), ("20", true)] {
        page.cdp.choose("level", level);
        assert_eq!(
            page.cdp
                .eval("document.getElementById('movetime').disabled"),
            json!(!timed),
            "level {level}"
        );
        assert_eq!(
            page.cdp
                .eval("document.getElementById('movetime-note').hidden"),
            json!(timed),
            "level {level}"
        );
    }
}

/// Whether the evaluation shows: the bar, the graph and the lines.
fn eval_shown(page: &mut Page) -> bool {
    let shown = page.cdp.eval(
        "!document.getElementById('evalcol').classList.contains('off') && \
         getComputedStyle(document.getElementById('evaltext')).visibility === 'visible' && \
         getComputedStyle(document.getElementById('graph')).display !== 'none'",
    );
    shown == json!(true)
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn against_the_engine_the_evaluation_shows_only_when_asked_for() {
    let mut page = Page::open(DESKTOP);
    // The page's first game: a person against the engine.
    assert_eq!(
        page.cdp.eval("[ui.config.white, ui.config.black]"),
        json!(["human", "engine"])
    );
    page.cdp.choose("level", "20");
    page.cdp.choose("movetime", "500");
    page.play_by_clicks("d6", 1);
    // While the engine thinks, neither its evaluation nor its line shows.
    page.cdp.wait_for(
        "the engine's line",
        "!!ui.st.search && ui.st.search.lines.length > 0",
    );
    assert!(!eval_shown(&mut page));
    assert_eq!(page.cdp.count("#pv > div"), 0);
    assert_eq!(
        page.cdp
            .eval("document.getElementById('show-eval').checked"),
        json!(false)
    );
    page.wait_plies("the engine's move", 2);
    assert!(!eval_shown(&mut page));
    assert_eq!(page.cdp.count("#pv > div"), 0);
    // A hint is asked for: it shows, with its line.
    let (marked, line) = hint(&mut page);
    assert!(line.contains(&marked), "{marked} {line}");
    assert!(!eval_shown(&mut page));
    // The switch shows it, for games against the engine from now on.
    page.cdp.click("#show-eval");
    assert!(eval_shown(&mut page));
    page.cdp.click("#show-eval");
    assert!(!eval_shown(&mut page));
    // Between two people it is on by default.
    page.two_humans();
    assert!(eval_shown(&mut page));
    assert_eq!(
        page.cdp
            .eval("document.getElementById('show-eval').checked"),
        json!(true)
    );
    // And in analysis, whoever plays.
    page.cdp.choose("black-player", "engine");
    page.cdp.eval("ui.paused = true");
    assert!(!eval_shown(&mut page));
    page.cdp.click("#btn-analyse");
    page.cdp.wait_for("the analysis", "analysisRunning()");
    assert!(eval_shown(&mut page));
    page.cdp.click("#btn-analyse");
    page.cdp
        .wait_for("the analysis stopped", "!analysisOn() && ui.pending === 0");
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn the_graph_outlives_a_server_restart_and_a_reload() {
    let mut page = Page::open(DESKTOP);
    page.cdp.choose("white-player", "human");
    page.cdp.choose("black-player", "human");
    page.set_auto_eval(true);
    for (i, m) in ["d6", "d2"].iter().enumerate() {
        page.play_by_clicks(m, i + 1);
    }
    page.cdp.wait_for(
        "three evaluations",
        "ui.st.evals.filter((e) => e).length === 3 && !ui.st.search && ui.pending === 0",
    );
    let marks = page.cdp.count("#graph .mark");
    assert_eq!(marks, 3);
    let evals = page.cdp.eval("JSON.stringify(ui.st.evals)");
    page.server.gui().sessions().clear();
    page.cdp.eval("window.beforeReload = true");
    page.cdp.send("Page.reload", json!({}));
    page.cdp.wait_for(
        "the reloaded page",
        "!window.beforeReload && document.body.dataset.ready === '1'",
    );
    assert_eq!(page.cdp.eval("JSON.stringify(ui.st.evals)"), evals);
    assert_eq!(page.cdp.count("#graph .mark"), marks);
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn on_a_phone_the_last_moves_show_by_the_board_and_sideways_the_buttons_stay() {
    let mut page = Page::open(PHONE);
    page.two_humans();
    for (i, m) in ["d6", "d2", "f4", "b4"].iter().enumerate() {
        page.play_by_clicks(m, i + 1);
    }
    page.cdp.eval("window.scrollTo(0, 0)");
    assert!(in_view(&mut page, "#recent"), "the strip out of view");
    assert_eq!(page.cdp.text("#recent .mv.current"), "b4");
    assert!(page.cdp.text("#recent").contains("d2"));
    // The analysis's first line shows by the board too.
    page.cdp.click("#btn-analyse");
    page.cdp.wait_for(
        "a line by the board",
        "!document.getElementById('pv-strip').classList.contains('empty') && \
         document.getElementById('pv-strip').textContent.includes('depth')",
    );
    page.cdp.eval("window.scrollTo(0, 0)");
    assert!(in_view(&mut page, "#pv-strip"), "the line out of view");
    save(&mut page, "players-phone");
    page.cdp.click("#btn-analyse");
    page.cdp
        .wait_for("the analysis stopped", "!analysisOn() && ui.pending === 0");
    // A move in the strip goes to its position, as in the list.
    page.cdp.click("#recent .mv:not(.current)");
    page.cdp
        .wait_for("the undo", "ui.pending === 0 && ui.st.moves.length < 4");

    page.cdp.resize(PHONE_LANDSCAPE);
    page.cdp.click("#btn-redo");
    page.cdp
        .eval("document.querySelector('.panel').scrollTop = 1e6; window.scrollTo(0, 1e6); true");
    assert_eq!(
        page.cdp.eval("window.scrollY"),
        json!(0),
        "the page scrolled"
    );
    let panel = page.cdp.eval(
        "(() => { const p = document.querySelector('.panel'); return p.scrollTop > 0 && p.scrollHeight > p.clientHeight; })()",
    );
    assert_eq!(panel, json!(true), "the panel scrolls on its own");
    for what in ["#status", "#btn-undo", "#btn-go", "#recent", "#board"] {
        assert!(in_view(&mut page, what), "{what} out of view");
    }
    save(&mut page, "players-phone-landscape");
}

/// A folder of the databases of 3 pieces a side (Nine Men's Morris),
/// built once per run of the tests.
fn three_a_side() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("practice-tb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder for the databases");
        let status = Command::new(env!("CARGO_BIN_EXE_mulino"))
            .args([
                "tb",
                "build",
                "--pieces",
                "3",
                "--files",
                "wdz",
                "--threads",
                "2",
                "--dir",
            ])
            .arg(&dir)
            .status()
            .expect("run mulino tb build");
        assert!(status.success(), "tb build: {status}");
        dir
    })
}

/// The page of `mulino gui --tb` with the databases of 3 a side, once
/// they are checked (before that the engine does not use them).
fn practice_page(screen: Screen) -> Page {
    let dir = three_a_side().to_string_lossy().to_string();
    let gui = GuiProcess::start(&["--tb", &dir], Some("endgame databases checked"));
    let mut page = Page::open_process(screen, gui);
    page.cdp.wait_for(
        "the practice's kinds",
        "document.getElementById('practice-kind').options.length > 0",
    );
    page
}

/// Starts practice of `kind` and `goal` and waits for its position.
fn start_practice(page: &mut Page, kind: &str, goal: &str) {
    page.cdp.choose("practice-kind", kind);
    page.cdp.choose("practice-goal", goal);
    page.cdp.click("#btn-practice");
    page.cdp.wait_for(
        "the practice position",
        "!!ui.practice && ui.pending === 0 && ui.st.start_fen === ui.practice.fen",
    );
}

/// Waits until the player is to move or the game is over.
fn players_turn(page: &mut Page) {
    page.cdp.wait_for(
        "the player's turn",
        "ui.pending === 0 && !ui.st.search && (!!ui.st.outcome || ui.st.side === ui.practice.side)",
    );
}

/// A move of `result` for the side to move, as the databases value it:
/// the one nearest the end, or the next removal, for a win.
fn database_move(page: &mut Page, result: &str) -> Option<String> {
    let m = page.cdp.eval(&format!(
        "(() => {{ const tb = ui.st.tablebase; if (!tb) return null; \
         const far = (m) => m.plies != null ? m.plies : m.removal != null ? m.removal : 1e9; \
         const ms = tb.moves.filter((m) => m.result === '{result}').sort((a, b) => far(a) - far(b)); \
         return ms.length ? ms[0].move : null; }})()"
    ));
    m.as_str().map(str::to_string)
}

#[test]
#[ignore = "needs Chromium and builds databases: cargo test --test web -- --include-ignored"]
fn endgame_practice_is_played_to_its_end_against_the_engine_with_databases() {
    let mut page = practice_page(LARGE);
    new_game(&mut page, "nine");
    let kinds = page
        .cdp
        .eval("[...document.getElementById('practice-kind').options].map((o) => o.value)");
    for kind in ["3v3", "4v3", "5v4", "3v4", "7v4"] {
        assert!(
            kinds.as_array().is_some_and(|k| k.contains(&json!(kind))),
            "{kind} among {kinds}"
        );
    }
    start_practice(&mut page, "3v3", "win");
    let line = page.cdp.text("#practice-line");
    assert!(
        line.contains("to win") && line.contains("perfectly"),
        "{line}"
    );
    // The player, as the engine's databases say: the fastest win.
    let mut plies = 0;
    loop {
        players_turn(&mut page);
        if page.cdp.eval("!!ui.st.outcome") == json!(true) {
            break;
        }
        let m = database_move(&mut page, "win").expect("a winning move");
        plies = page.cdp.eval("ui.st.moves.length").as_u64().unwrap_or(0) as usize + 1;
        page.play_by_clicks(&m, plies);
        assert!(plies < 200, "no end");
        if plies == 3 {
            save(&mut page, "players-practice");
        }
    }
    let line = page.cdp.text("#practice-line");
    let game = page.cdp.eval("[ui.st.outcome, ui.st.moves.join(' ')]");
    assert_eq!(
        page.cdp
            .eval("document.getElementById('practice-line').dataset.verdict"),
        json!("held"),
        "{line} {game}"
    );
    assert!(line.contains("You won"), "{line}");
    assert!(plies > 0);

    // Thrown away: a move that keeps no win is named at once.
    start_practice(&mut page, "3v3", "win");
    players_turn(&mut page);
    let worse = database_move(&mut page, "draw")
        .or_else(|| database_move(&mut page, "loss"))
        .expect("a move that throws the win away");
    page.play_by_clicks(&worse, 1);
    assert_eq!(
        page.cdp
            .eval("document.getElementById('practice-line').dataset.verdict"),
        json!("thrown")
    );
    let line = page.cdp.text("#practice-line");
    assert!(
        line.contains(&format!("Move 1, {worse}, threw the win away")),
        "{line}"
    );
    // Once more from the same position: nothing thrown yet.
    let fen = page.cdp.eval("ui.practice.fen");
    page.cdp.click("#btn-practice-again");
    page.cdp.wait_for(
        "the same position again",
        "ui.pending === 0 && ui.st.moves.length === 0 && !!ui.practice && \
         document.getElementById('practice-line').dataset.verdict === 'playing'",
    );
    assert_eq!(page.cdp.eval("ui.st.start_fen"), fen);
}

/// The screenshots of issue 71's screens, to look at.
#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn screenshots_at_three_sizes() {
    let sizes: [(Screen, &str); 3] = [
        (LARGE, "players-1280x900"),
        (PHONE, "players-390x844"),
        (PHONE_LANDSCAPE, "players-844x390"),
    ];
    let mut page = Page::open(LARGE);
    page.two_humans();
    for (i, m) in ["d6", "d2", "f4", "b4", "f6"].iter().enumerate() {
        page.play_by_clicks(m, i + 1);
    }
    for (screen, name) in sizes {
        page.cdp.resize(screen);
        page.cdp.eval("window.scrollTo(0, 0); render(); true");
        let value: Value = page.cdp.eval("document.body.dataset.ready");
        assert_eq!(value, json!("1"));
        save(&mut page, name);
    }
}
