//! The page's layout, measured in headless Chromium on a desktop, a
//! phone held upright and the same phone held sideways: the board's
//! size, its points' tap targets, the coordinates (readable, never under
//! a piece or a ring), controls that stay where they are while the engine
//! works, the Analyse button, the analysis after Undo, and the hands of
//! the 12-piece rule sets. Each test prints its figures
//! (`--nocapture`), and saves screenshots to look at in target/screens/.
//!
//! Ignored unless asked for, as they need Chromium: `cargo test --test
//! web -- --include-ignored`.

use std::path::PathBuf;

use crate::chromium::{DESKTOP, LARGE, PHONE, PHONE_LANDSCAPE, Page, Screen};
use serde_json::Value;

/// A narrower phone than `PHONE`, for the hands.
const SMALL_PHONE: Screen = Screen {
    width: 360,
    height: 740,
    mobile: true,
};

/// Eight placements on the edge points, next to the coordinates, the
/// last one (its ring the widest mark) on a4, beside the `4`.
const EDGE: [&str; 8] = ["a1", "g1", "a7", "g7", "d7", "d1", "g4", "a4"];

/// Then, in Twelve Men's Morris, `b6` and `c5` close the diagonal mill
/// a7-b6-c5: every black piece, on the edges too, is ringed to remove.
const TWELVE_MILL: [&str; 2] = ["b6", "e4"];

/// A new game of `variant` with `moves` played.
fn new_game(page: &mut Page, variant: &str, moves: &[&str]) {
    page.cdp
        .eval(&format!("act('new', {{ variant: '{variant}' }})"));
    page.cdp.wait_for(
        variant,
        &format!(
            "ui.pending === 0 && ui.st.variant === '{variant}' && ui.st.moves.length === 0 && \
             !ui.st.search"
        ),
    );
    let list = serde_json::to_string(moves).expect("JSON");
    page.cdp.eval(&format!(
        "{list}.forEach((m) => act('move', {{ move: m }}))"
    ));
    page.wait_plies("the moves", moves.len());
}

/// The boxes of the page's parts, in CSS pixels of the viewport (the
/// page scrolled to its top): `[left, top, right, bottom]`.
const BOXES: &str = "(() => {
  window.scrollTo(0, 0);
  const box = (e) => { if (!e || !e.getClientRects().length) return null;
    const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const board = document.getElementById('board');
  const scale = board.getBoundingClientRect().width / board.viewBox.baseVal.width;
  const points = [...document.querySelectorAll('[data-point]')].map((e) => {
    const r = e.getBoundingClientRect(); return Math.min(r.width, r.height); });
  const coord = document.querySelector('#board .coord');
  const out = {
    view: [window.innerWidth, window.innerHeight],
    board: box(board),
    tap: Math.min(...points),
    coord_px: parseFloat(getComputedStyle(coord).fontSize) * scale,
    buttons: {},
  };
  for (const id of ['status', 'hand-top', 'hand-bottom', 'moves', 'multipv']) out[id] = box(document.getElementById(id));
  for (const b of document.querySelectorAll('.controls button, #btn-analyse')) out.buttons[b.id] = box(b);
  return out;
})()";

/// The coordinates under a piece or a ring: each as `text under class`.
const COVERED: &str = "(() => {
  const board = document.getElementById('board');
  const scale = board.getBoundingClientRect().width / board.viewBox.baseVal.width;
  const marks = [...board.querySelectorAll('.piece, .last, .selected, .movable, .removable, .hint-dot')];
  const out = [];
  for (const c of board.querySelectorAll('.coord')) {
    const t = c.getBoundingClientRect();
    for (const m of marks) {
      const r = m.getBoundingClientRect();
      const s = (parseFloat(getComputedStyle(m).strokeWidth) || 0) * scale / 2;
      if (t.left < r.right + s && r.left - s < t.right && t.top < r.bottom + s && r.top - s < t.bottom) {
        out.push(c.textContent + ' under ' + m.getAttribute('class'));
      }
    }
  }
  return out;
})()";

fn boxes(page: &mut Page) -> Value {
    page.cdp.eval(BOXES)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn save(page: &mut Page, name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screens");
    std::fs::create_dir_all(&dir).expect("target/screens/");
    page.cdp.eval("window.scrollTo(0, 0)");
    let png = page.cdp.screenshot();
    std::fs::write(dir.join(format!("{name}.png")), png).expect("write a screenshot");
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn the_board_fills_each_screen_with_big_targets_and_readable_uncovered_coordinates() {
    let mut all = Vec::new();
    for (screen, name) in [
        (LARGE, "1280x900"),
        (PHONE, "390x844"),
        (PHONE_LANDSCAPE, "844x390"),
    ] {
        let mut page = Page::open(screen);
        page.two_humans();
        let mut problems = Vec::new();
        for variant in ["nine", "twelve"] {
            new_game(&mut page, variant, &EDGE);
            let what = format!("{name} {variant}");
            let b = boxes(&mut page);
            println!("{what}: {b}");
            save(&mut page, &format!("{name}-{variant}"));
            let (width, height) = (f(&b["view"][0]), f(&b["view"][1]));
            let board = &b["board"];
            let side = f(&board[3]) - f(&board[1]);
            // On a phone the board takes the height held sideways, the
            // width upright.
            if screen.mobile {
                let room = width.min(height);
                if side < 0.8 * room {
                    problems.push(format!("{what}: a board of {side} px in {room}"));
                }
            }
            // The board, the status, the hands and the controls are all
            // in the first screen, without scrolling.
            for part in ["board", "status", "hand-top", "hand-bottom"] {
                let r = &b[part];
                if !(f(&r[1]) >= 0.0 && f(&r[3]) <= height + 0.5 && f(&r[2]) <= width + 0.5) {
                    problems.push(format!("{what}: {part} at {r} is out of view"));
                }
            }
            for (id, r) in b["buttons"].as_object().expect("buttons") {
                // (A hidden button has no box.)
                if id != "btn-analyse" && !r.is_null() && f(&r[3]) > height + 0.5 {
                    problems.push(format!("{what}: {id} at {r} is out of view"));
                }
            }
            let tap = f(&b["tap"]);
            if tap < 40.0 {
                problems.push(format!("{what}: tap targets of {tap} px"));
            }
            let coord = f(&b["coord_px"]);
            if coord < 10.0 {
                problems.push(format!("{what}: coordinates of {coord} px"));
            }
            let covered = page.cdp.eval(COVERED);
            if covered != serde_json::json!([]) {
                problems.push(format!("{what}: covered coordinates {covered}"));
            }
        }
        // Every black piece ringed for removal, on the edges too; the
        // long status it brings moves nothing.
        new_game(&mut page, "twelve", &[&EDGE[..], &TWELVE_MILL[..]].concat());
        let before = boxes(&mut page);
        page.cdp.click_point("c5");
        page.cdp.wait_for(
            "the rings to remove",
            "!!document.querySelector('.removable')",
        );
        save(&mut page, &format!("{name}-twelve-remove"));
        let covered = page.cdp.eval(COVERED);
        if covered != serde_json::json!([]) {
            problems.push(format!("{name} twelve: covered by removal rings {covered}"));
        }
        let after = boxes(&mut page);
        if before["board"] != after["board"] {
            problems.push(format!(
                "{name}: the board moved from {} to {} when the status said to remove",
                before["board"], after["board"]
            ));
        }
        all.extend(problems);
    }
    assert!(all.is_empty(), "{}", all.join("\n"));
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn the_controls_stay_put_while_the_engine_works_and_analyse_says_what_it_does() {
    for (screen, name) in [
        (DESKTOP, "desktop"),
        (PHONE, "390x844"),
        (PHONE_LANDSCAPE, "844x390"),
    ] {
        let mut page = Page::open(screen);
        page.two_humans();
        new_game(&mut page, "nine", &["d6", "f4"]);
        let idle = boxes(&mut page);
        println!("{name} idle: {}", idle["buttons"]);
        assert_eq!(page.cdp.text("#btn-analyse"), "Analyse");

        // Analysis: Stop is there, the Analyse button says it stops it,
        // and nothing moved.
        page.cdp
            .eval("document.getElementById('btn-analyse').click()");
        page.cdp.wait_for(
            "the analysis",
            "ui.st.search && ui.st.search.lines.length > 0 && \
             !document.getElementById('btn-stop').disabled && \
             !document.getElementById('btn-stop').hidden",
        );
        let busy = boxes(&mut page);
        println!("{name} analysing: {}", busy["buttons"]);
        save(&mut page, &format!("{name}-analysing"));
        assert_eq!(
            page.cdp.text("#btn-analyse"),
            "Stop analysis",
            "{name}: the Analyse button while analysing"
        );
        for (id, r) in idle["buttons"].as_object().expect("buttons") {
            assert_eq!(
                &busy["buttons"][id], r,
                "{name}: {id} moved when the analysis started"
            );
        }
        for part in ["board", "multipv", "hand-top"] {
            assert_eq!(
                busy[part], idle[part],
                "{name}: {part} moved when the analysis started"
            );
        }
        // The analysis stopped by the Analyse button.
        page.cdp
            .eval("document.getElementById('btn-analyse').click()");
        page.cdp.wait_for(
            "the analysis to stop",
            "ui.pending === 0 && !ui.st.search && \
             document.getElementById('btn-analyse').textContent === 'Analyse'",
        );

        // The engine thinking for a while: Stop is pressed where it was.
        page.cdp.choose("movetime", "10000");
        page.cdp.click("#btn-go");
        page.cdp.wait_for(
            "the engine thinking",
            "ui.st.search && ui.st.search.purpose === 'play' && \
             !document.getElementById('btn-stop').disabled",
        );
        let thinking = boxes(&mut page);
        for (id, r) in idle["buttons"].as_object().expect("buttons") {
            assert_eq!(
                &thinking["buttons"][id], r,
                "{name}: {id} moved while the engine thinks"
            );
        }
        assert_eq!(thinking["board"], idle["board"], "{name}: the board moved");
        page.cdp.click("#btn-stop");
        page.wait_plies("the engine's move, stopped", 3);
    }
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn the_analysis_goes_on_after_undo_and_its_line_agrees_with_the_bar() {
    let mut page = Page::open(DESKTOP);
    page.two_humans();
    page.set_auto_eval(true);
    for (i, m) in ["d6", "f4"].into_iter().enumerate() {
        page.cdp.eval(&format!("act('move', {{ move: '{m}' }})"));
        page.wait_plies(m, i + 1);
        // Each position evaluated: the bar has a number for it.
        page.cdp.wait_for(
            "the evaluation",
            &format!(
                "ui.pending === 0 && !ui.st.search && !!ui.st.evals[{}]",
                i + 1
            ),
        );
    }
    let agree = |page: &mut Page, what: &str| {
        page.cdp.wait_for(
            what,
            "document.querySelector('#pv .score') !== null && \
             document.querySelector('#pv .score').textContent === \
             document.getElementById('evaltext').textContent",
        );
    };
    page.cdp
        .eval("document.getElementById('btn-analyse').click()");
    page.cdp.wait_for(
        "the analysis",
        "ui.st.search && ui.st.search.movetime == null && ui.st.search.lines.length > 0",
    );
    agree(&mut page, "the analysis line and the bar");
    page.cdp.click("#btn-undo");
    page.wait_plies("the undo", 1);
    // The analysis goes on in the position after the undo: its line is
    // shown, the bar's number is its own.
    agree(&mut page, "the analysis line after the undo");
    page.cdp.wait_for(
        "the analysis, still on",
        "ui.st.search && ui.st.search.movetime == null && \
         document.getElementById('btn-analyse').textContent === 'Stop analysis'",
    );
    let pv = page.cdp.text("#pv");
    println!("after the undo: {pv} / bar {}", page.cdp.text("#evaltext"));
    // Analysis off, then back by Redo and Undo: the line known for each
    // position is shown with the bar's number.
    page.cdp
        .eval("document.getElementById('btn-analyse').click()");
    page.cdp
        .wait_for("the analysis to stop", "ui.pending === 0 && !ui.st.search");
    page.cdp.click("#btn-redo");
    page.wait_plies("the redo", 2);
    agree(&mut page, "the line after the redo");
    page.cdp.click("#btn-undo");
    page.wait_plies("the undo", 1);
    agree(&mut page, "the line after the second undo");
}

#[test]
#[ignore = "needs Chromium: cargo test --test web -- --include-ignored"]
fn the_hands_of_twelve_pieces_keep_to_one_row_on_a_phone() {
    for (screen, name) in [
        (PHONE, "390x844"),
        (SMALL_PHONE, "360x740"),
        (PHONE_LANDSCAPE, "844x390"),
    ] {
        let mut page = Page::open(screen);
        page.two_humans();
        new_game(&mut page, "nine", &[]);
        let nine = boxes(&mut page);
        for variant in ["twelve", "morabaraba"] {
            new_game(&mut page, variant, &[]);
            assert_eq!(page.cdp.count("#hand-top .stone"), 12);
            let twelve = boxes(&mut page);
            println!(
                "{name} {variant}: hands {} {}, board {} (nine: {} {}, {})",
                twelve["hand-top"],
                twelve["hand-bottom"],
                twelve["board"],
                nine["hand-top"],
                nine["hand-bottom"],
                nine["board"]
            );
            if variant == "twelve" {
                save(&mut page, &format!("{name}-twelve-start"));
            }
            for part in ["hand-top", "hand-bottom"] {
                let height = |b: &Value| f(&b[part][3]) - f(&b[part][1]);
                assert!(
                    height(&twelve) <= height(&nine) + 0.5,
                    "{name} {variant}: {part} is {} px high, {} in nine",
                    height(&twelve),
                    height(&nine)
                );
            }
            assert_eq!(
                twelve["board"], nine["board"],
                "{name} {variant}: the board moved"
            );
        }
    }
}
