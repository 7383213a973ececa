//! `mulino gui` in a real browser: headless Chromium plays on the page
//! served in-process, by mouse clicks and finger drags (the harness is in
//! `chromium.rs`). A short game checks the board, the move list, a hint,
//! an undo, a drag, a removal, an error, the game's end, Copy game, the
//! engine's reply, a reload and a forgotten session, and saves a
//! screenshot to target/gui.png (and to docs/gui.png, the README's
//! picture, when MULINO_UPDATE_SCREENSHOT is set). Other tests play Da
//! San Qi (marked points, a double turn, undo against the engine), a
//! game on a phone-sized screen, and a game to its end.
//!
//! They need Chromium, so they are ignored unless asked for: `cargo test
//! --test web -- --include-ignored` (`.ci/run` installs Chromium and runs
//! them so).

use std::path::PathBuf;

use crate::chromium::{DESKTOP, PHONE, Page};
use serde_json::json;

/// A slide before the end: `g4-g7` closes a mill, and any removal
/// leaves Black with two pieces.
const NEAR_END: &str = "**@****@/****@*O*/O*O****O w m s 4 0 3 0 0 0 0 0 0 0 0 0 30";

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn a_short_game_by_clicks_in_headless_chromium() {
    let mut page = Page::open(DESKTOP);
    let cdp = &mut page.cdp;
    // The board: 24 points, 16 lines, no pieces, nine in each hand.
    assert_eq!(cdp.count("[data-point]"), 24);
    assert_eq!(cdp.count("#board .line"), 16);
    assert_eq!(cdp.count("[data-piece]"), 0);
    assert_eq!(cdp.count("#hand-top .stone.black"), 9);
    assert!(cdp.text("#status").contains("White to move"));
    page.two_humans();
    a_placement_then_a_bad_fen(&mut page);
    let png = a_set_up_position_a_hint_and_a_slide(&mut page);
    the_mill_by_a_drag_its_removal_and_the_end(&mut page);
    against_the_engine_a_reload_and_a_restart(&mut page);
    let target_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target_dir).expect("target/");
    std::fs::write(target_dir.join("gui.png"), &png).expect("write target/gui.png");
    if std::env::var_os("MULINO_UPDATE_SCREENSHOT").is_some() {
        let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs");
        std::fs::create_dir_all(&docs).expect("docs/");
        std::fs::write(docs.join("gui.png"), &png).expect("write docs/gui.png");
    }
}

/// A placement by a click, then a bad FEN: refused, the game kept.
fn a_placement_then_a_bad_fen(page: &mut Page) {
    let cdp = &mut page.cdp;
    cdp.click_point("d6");
    cdp.wait_for(
        "d6 in the move list",
        "document.querySelector('#moves .mv.current')?.textContent === 'd6'",
    );
    assert_eq!(cdp.count("[data-piece=white]"), 1);
    cdp.type_into("#fen", "this is no FEN");
    cdp.click("#btn-setup");
    cdp.wait_for(
        "the FEN error",
        "!document.getElementById('fen-error').hidden",
    );
    assert!(
        cdp.text("#fen-error").contains("FEN"),
        "{}",
        cdp.text("#fen-error")
    );
    assert_eq!(cdp.count("#moves .mv"), 1, "the game is unchanged");
}

/// A position near the end, a hint drawn on the board (the screenshot,
/// returned), the pieces that can move marked, a slide and its undo.
fn a_set_up_position_a_hint_and_a_slide(page: &mut Page) -> Vec<u8> {
    let cdp = &mut page.cdp;
    cdp.type_into("#fen", NEAR_END);
    cdp.click("#btn-setup");
    cdp.wait_for(
        "the set-up position",
        "document.querySelectorAll('[data-piece=white]').length === 4",
    );
    assert_eq!(cdp.count("[data-piece=black]"), 3);
    assert_eq!(cdp.count("#moves .mv"), 0);
    assert!(cdp.text("#status").contains("White to move (moving)"));
    // Before any click, every piece that can move is marked.
    let movable = cdp.eval(
        "new Set(ui.st.legal.filter((m) => m.includes('-')).map((m) => m.split('-')[0])).size",
    );
    assert_eq!(json!(cdp.count("[data-movable]")), movable);
    assert!(cdp.count("[data-movable]") > 0);

    cdp.click("#btn-hint");
    cdp.wait_for("the hint", "!!document.querySelector('[data-hint]')");
    let hint = cdp.eval("document.querySelector('[data-hint]').dataset.hint");
    let hint = hint.as_str().unwrap_or("").to_string();
    assert!(hint.starts_with("g4-g7x"), "hint {hint}");
    assert!(cdp.text("#pv").contains(&hint));
    cdp.eval("window.scrollTo(0, 0)");
    let png = cdp.screenshot();

    // A quiet slide by two clicks: the targets are marked, then played.
    cdp.click_point("b4");
    assert_eq!(cdp.count("[data-target]"), 4, "b4 goes to a4, b2, b6 or c4");
    cdp.click_point("a4");
    cdp.wait_for(
        "b4-a4",
        "document.querySelector('#moves .mv.current')?.textContent === 'b4-a4'",
    );
    assert!(cdp.text("#status").contains("Black to move"));
    // Undo takes it back (it stays in the list, to redo).
    cdp.click("#btn-undo");
    cdp.wait_for(
        "the undo",
        "document.querySelectorAll('#moves .mv.current').length === 0",
    );
    assert_eq!(cdp.count("#moves .mv.future"), 1);
    assert!(cdp.text("#status").contains("White to move"));
    png
}

/// The mill, dragged with a finger, its removal, the end, Copy game.
fn the_mill_by_a_drag_its_removal_and_the_end(page: &mut Page) {
    let cdp = &mut page.cdp;
    cdp.touch_drag("g4", "g7");
    assert!(
        cdp.text("#status").contains("remove"),
        "{}",
        cdp.text("#status")
    );
    assert_eq!(cdp.count(".removable"), 3);
    cdp.click_point("e4");
    let status = page.game_over_status();
    assert!(
        status.contains("white wins") && status.contains("1-0"),
        "{status}"
    );
    let cdp = &mut page.cdp;
    assert_eq!(cdp.text("#moves .mv.current"), "g4-g7xe4");
    assert_eq!(cdp.count("[data-piece=black]"), 2);
    assert_eq!(
        cdp.count("#moves .mv.future"),
        0,
        "a new move forgets the redo"
    );
    // The bar shows the result, not an even blank.
    assert_eq!(cdp.text("#evaltext"), "1-0");
    assert_eq!(
        cdp.eval("document.getElementById('evalfill').style.height"),
        "100%"
    );
    page.allow_clipboard();
    let copied = page.copied_game();
    assert!(
        copied.contains(&format!("[FEN \"{NEAR_END}\"]")),
        "{copied}"
    );
    assert!(copied.contains("30. g4-g7xe4 1-0"), "{copied}");
}

/// Against the engine: it answers a placement by itself; a reload loses
/// nothing; a session the server forgot is rebuilt.
fn against_the_engine_a_reload_and_a_restart(page: &mut Page) {
    let cdp = &mut page.cdp;
    cdp.choose("black-player", "engine");
    cdp.choose("level", "2");
    cdp.choose("movetime", "250");
    cdp.click("#btn-new");
    cdp.wait_for(
        "a new game",
        "document.querySelectorAll('[data-piece]').length === 0",
    );
    cdp.click_point("d6");
    cdp.wait_for(
        "the engine's reply",
        "document.querySelectorAll('#moves .mv').length === 2",
    );
    assert_eq!(cdp.count("[data-piece=black]"), 1);
    assert!(cdp.text("#status").contains("White to move"));

    cdp.eval("window.beforeReload = true");
    cdp.send("Page.reload", json!({}));
    cdp.wait_for("the reloaded page", "!window.beforeReload && document.body.dataset.ready === '1' && document.querySelectorAll('#moves .mv').length === 2");
    assert_eq!(cdp.count("[data-piece]"), 2);
    assert_eq!(
        cdp.eval("document.getElementById('black-player').value"),
        "engine"
    );

    // A restarted server has forgotten the session (here the sessions
    // are dropped): the page rebuilds it from the game it holds, and
    // play goes on.
    page.server.gui().sessions().clear();
    assert!(page.server.gui().sessions().is_empty());
    // Any marked target will do (the engine's reply took some point).
    let target = cdp.eval("document.querySelector('[data-target]').dataset.target");
    let target = target.as_str().expect("a marked target").to_string();
    cdp.click_point(&target);
    cdp.wait_for(
        "play after the restart",
        "document.querySelectorAll('#moves .mv').length === 4",
    );
    assert_eq!(page.server.gui().sessions().len(), 1);
    assert_eq!(cdp.count("[data-piece]"), 4);
}

/// Da San Qi: three pieces a side and one in hand, a7 marked by a mill.
/// White places last, then Black places and moves first: two black
/// turns in a row.
const DA_SAN_QI: &str = "O*O**O**/@*@**@**/*******X w p p 3 1 3 1 0 0 0 0 0 0 0 0 10";

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn da_san_qi_shows_its_marks_and_keeps_the_columns_and_undo_after_a_double_turn() {
    let mut page = Page::open(DESKTOP);
    page.set_auto_eval(false);
    let cdp = &mut page.cdp;
    cdp.choose("level", "2");
    cdp.choose("movetime", "250");
    // A variant chosen in the list is played at once.
    cdp.choose("variant", "da-san-qi");
    cdp.wait_for(
        "a game of Da San Qi",
        "document.querySelectorAll('#hand-top .stone.black').length === 12",
    );
    cdp.type_into("#fen", DA_SAN_QI);
    cdp.click("#btn-setup");
    cdp.wait_for(
        "the set-up position",
        "ui.st.moves.length === 0 && ui.st.in_hand[0] === 1",
    );
    assert_eq!(cdp.count("[data-marked]"), 1, "a7's mark is drawn");
    assert_eq!(cdp.count("[data-marked=\"a7\"]"), 1);
    assert_eq!(cdp.count("[data-target=\"a7\"]"), 0, "no placing on a7");

    // White's last placement; the engine places and moves for Black.
    cdp.click_point("g1");
    page.wait_plies("the engine's two turns", 3);
    let cdp = &mut page.cdp;
    assert!(cdp.text("#status").contains("White to move"));
    assert_eq!(
        cdp.count("[data-marked]"),
        0,
        "marks clear when placing ends"
    );
    let left = |page: &mut Page, ply: u32| page.rect(&format!("#moves .mv[data-ply=\"{ply}\"]"))[0];
    let (white, black, again) = (left(&mut page, 1), left(&mut page, 2), left(&mut page, 3));
    assert!(black > white, "Black's column is right of White's");
    assert_eq!(again, black, "Black's second turn is in Black's column");

    page.allow_clipboard();
    let copied = page.copied_game();
    let moves: Vec<String> = (0..3)
        .map(|i| {
            let m = page.cdp.eval(&format!("ui.st.moves[{i}]"));
            m.as_str().expect("a move").to_string()
        })
        .collect();
    let numbered = format!("10. {} {} 11... {} *", moves[0], moves[1], moves[2]);
    assert!(copied.contains(&numbered), "{copied}");

    // Undo against the engine goes back to White's turn, all three.
    page.cdp.click("#btn-undo");
    page.wait_plies("the undo", 0);
    let cdp = &mut page.cdp;
    let status = cdp.text("#status");
    assert!(
        status.contains("White to move") && !status.contains("waits"),
        "{status}"
    );
    assert_eq!(cdp.count("#moves .mv.future"), 3);
    assert_eq!(cdp.count("[data-marked=\"a7\"]"), 1, "the mark is back");
    // Redo replays them, to White's turn again.
    cdp.click("#btn-redo");
    page.wait_plies("the redo", 3);
    assert!(page.cdp.text("#status").contains("White to move"));
    // Back to Black's second turn in a row, which the status names.
    page.cdp.click("#moves .mv[data-ply=\"2\"]");
    page.wait_plies("the jump to ply 2", 2);
    let status = page.cdp.text("#status");
    assert!(status.contains("Black to move again (moving)"), "{status}");
}

/// Twenty plies of Nine Men's Morris without a mill: 18 placements and
/// two slides.
const TWENTY_PLIES: [&str; 20] = [
    "f4", "d3", "b4", "a7", "e5", "e3", "a4", "c5", "f2", "g7", "d5", "g1", "d2", "e4", "c3", "b2",
    "g4", "c4", "f4-f6", "e4-f4",
];

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn on_a_phone_the_board_stays_in_view_while_the_moves_go_on() {
    let mut page = Page::open(PHONE);
    page.two_humans();
    let view = |page: &mut Page| {
        let height = page
            .cdp
            .eval("window.innerHeight")
            .as_f64()
            .expect("a height");
        for what in ["#status", "#hand-top", "#board", "#hand-bottom"] {
            let [_, top, _, bottom] = page.rect(what);
            assert!(
                top >= 0.0 && bottom <= height,
                "{what} at {top}..{bottom} of {height}"
            );
        }
    };
    view(&mut page);
    for (i, turn) in TWENTY_PLIES.iter().enumerate() {
        if i == 18 {
            // The moving phase: the pieces that can move are marked.
            let movable = page.cdp.count("[data-movable]");
            assert!(movable > 0, "no movable piece marked");
        }
        page.play_by_clicks(turn, i + 1);
        view(&mut page);
    }
    assert_eq!(
        page.cdp.eval("window.scrollY"),
        json!(0),
        "the page scrolled"
    );
    // The newest move is in view inside the list.
    let list = page.rect("#moves");
    let current = page.rect("#moves .mv.current");
    assert!(
        current[1] >= list[1] && current[3] <= list[3] + 0.5,
        "{current:?} {list:?}"
    );
}

/// A game of 28 plies that Black wins (more rows than the list shows).
const BLACK_WINS: &str = "d7 f2 d1 d5 d6 e5 g7 c5xg7 d3 a1 d2xa1 f4 e3 f6xd7 c3xf4 f4xd6 c4 b6 \
                          d2-b2 d5-d6xd1 e3-e4 d6-d5xd3 b2-b4 d5-d6xe4 c3-a4xe5 d6-d7 b4-e5 d7-d6xa4";

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn a_finished_game_shows_its_result_in_the_list_and_on_the_bar() {
    let mut page = Page::open(DESKTOP);
    page.two_humans();
    let moves: Vec<&str> = BLACK_WINS.split_whitespace().collect();
    let list = serde_json::to_string(&moves).expect("JSON");
    page.cdp.eval(&format!(
        "{list}.forEach((m) => act('move', {{ move: m }}))"
    ));
    page.wait_plies("the whole game", moves.len());
    let cdp = &mut page.cdp;
    assert!(
        cdp.text("#status").contains("Game over"),
        "{}",
        cdp.text("#status")
    );
    // The result is inside the list's visible part.
    let list = page.rect("#moves");
    let result = page.rect("#moves .result");
    assert_eq!(page.cdp.text("#moves .result"), "0-1");
    assert!(
        result[1] >= list[1] && result[3] <= list[3] + 0.5,
        "{result:?} {list:?}"
    );
    // The bar: the result, in a readable, level, dark number.
    let cdp = &mut page.cdp;
    assert_eq!(cdp.text("#evaltext"), "0-1");
    assert_eq!(
        cdp.eval("document.getElementById('evalfill').style.height"),
        "0%"
    );
    let style = cdp.eval(
        "(() => { const s = getComputedStyle(document.getElementById('evaltext')); \
         return [parseFloat(s.fontSize), s.transform, s.color]; })()",
    );
    assert!(style[0].as_f64().is_some_and(|px| px >= 12.0), "{style}");
    assert_eq!(style[1], "none", "{style}");
    assert_eq!(style[2], "rgb(43, 37, 32)", "{style}");
}
