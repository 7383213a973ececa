//! `mulino gui` in a real browser: headless Chromium, driven over its
//! DevTools protocol (CDP) on a websocket, plays a short game by mouse
//! clicks on the page served in-process, and checks the board, the move
//! list, a hint, an undo, a drag by touch, a removal, an error, the
//! game's end, Copy game, the engine's reply, a reload and a forgotten
//! session. It saves a screenshot to target/gui.png (and to docs/gui.png,
//! the README's picture, when MULINO_UPDATE_SCREENSHOT is set).
//!
//! `.ci/run` installs Chromium when it is missing, so in CI the test runs.
//! Only where no Chromium is found does it say so loudly and pass, and
//! MULINO_REQUIRE_BROWSER turns that into a failure. MULINO_CHROMIUM
//! names the browser to use.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mulino::web::Gui;
use serde_json::{Value, json};
use tungstenite::{Message, WebSocket};

/// A slide before the end: `g4-g7` closes a mill, and any removal
/// leaves Black with two pieces.
const NEAR_END: &str = "**@****@/****@*O*/O*O****O w m s 4 0 3 0 0 0 0 0 0 0 0 0 30";
/// How long any one condition may take to come true.
const WAIT: Duration = Duration::from_secs(20);

/// The browser process, killed and its profile removed when dropped.
struct Browser {
    child: Child,
    profile: PathBuf,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Chromium's helper processes may still write for a moment.
        for _ in 0..20 {
            if std::fs::remove_dir_all(&self.profile).is_ok() || !self.profile.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn find_chromium() -> Option<String> {
    if let Ok(path) = std::env::var("MULINO_CHROMIUM") {
        return Some(path);
    }
    ["chromium", "chromium-browser", "google-chrome", "chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .map(str::to_string)
}

/// Starts headless Chromium and returns it with its DevTools address.
fn launch(program: &str) -> (Browser, String) {
    let profile = std::env::temp_dir().join(format!("mulino-gui-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    let mut child = Command::new(program)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--remote-debugging-port=0",
            "--window-size=1100,760",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
    let stderr = child.stderr.take().expect("stderr");
    let browser = Browser { child, profile };
    // Chromium prints its websocket address on stderr; the rest of its
    // chatter is drained so that it never blocks on a full pipe.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("DevTools listening on ") {
                let _ = tx.send(url.trim().to_string());
            }
        }
    });
    let url = rx
        .recv_timeout(WAIT)
        .unwrap_or_else(|_| panic!("{program} did not print its DevTools address"));
    (browser, url)
}

/// A CDP connection, attached to one page.
struct Cdp {
    ws: WebSocket<TcpStream>,
    next_id: u64,
    session: Option<String>,
}

impl Cdp {
    fn connect(url: &str) -> Cdp {
        let host = url
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .expect("a ws:// address");
        let stream = TcpStream::connect(host).expect("connect to DevTools");
        stream
            .set_read_timeout(Some(WAIT))
            .expect("set a read timeout");
        let (ws, _) = tungstenite::client(url, stream).expect("the websocket handshake");
        Cdp {
            ws,
            next_id: 0,
            session: None,
        }
    }

    /// Sends a command and waits for its answer (events are skipped).
    fn send(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = &self.session {
            message["sessionId"] = json!(s);
        }
        self.ws
            .send(Message::text(message.to_string()))
            .expect("send to DevTools");
        loop {
            let reply = self.ws.read().expect("read from DevTools");
            let Message::Text(text) = reply else { continue };
            let value: Value = serde_json::from_str(text.as_str()).expect("CDP sends JSON");
            if value["id"] != json!(id) {
                continue;
            }
            if let Some(error) = value.get("error") {
                panic!("{method}: {error}");
            }
            return value["result"].clone();
        }
    }

    /// Evaluates JavaScript in the page and returns its value.
    fn eval(&mut self, expression: &str) -> Value {
        let result = self.send(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        if let Some(e) = result.get("exceptionDetails") {
            panic!("`{expression}` threw: {e}");
        }
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is true in the page.
    fn wait_for(&mut self, what: &str, expression: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            // The page may still be loading: an exception is a no.
            let guarded = format!(
                "(() => {{ try {{ return {expression}; }} catch (_) {{ return false; }} }})()"
            );
            if self.eval(&guarded) == json!(true) {
                return;
            }
            if Instant::now() > deadline {
                let status = self.eval("document.getElementById('status').textContent");
                let error = self.eval("document.getElementById('error').textContent");
                let page = self.eval(
                    "JSON.stringify({ pending: ui.pending, clicks: ui.clicks, paused: ui.paused, \
                     moves: ui.st && ui.st.moves, search: ui.st && ui.st.search })",
                );
                panic!(
                    "timed out waiting for {what} (`{expression}`); status {status}, error {error}, page {page}"
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Clicks the middle of the element `selector` with the mouse.
    fn click(&mut self, selector: &str) {
        let at = self.eval(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        let (Some(x), Some(y)) = (at[0].as_f64(), at[1].as_f64()) else {
            panic!("no element `{selector}` to click");
        };
        for kind in ["mousePressed", "mouseReleased"] {
            self.send(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1 }),
            );
        }
    }

    /// The middle of the element `selector`, scrolled into view.
    fn centre(&mut self, selector: &str) -> (f64, f64) {
        let at = self.eval(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        match (at[0].as_f64(), at[1].as_f64()) {
            (Some(x), Some(y)) => (x, y),
            _ => panic!("no element `{selector}`"),
        }
    }

    /// Drags with a finger from one point of the board to another.
    fn touch_drag(&mut self, from: &str, to: &str) {
        let (x1, y1) = self.centre(&format!("[data-point=\"{from}\"]"));
        let (x2, y2) = self.centre(&format!("[data-point=\"{to}\"]"));
        let touch = |x: f64, y: f64| json!([{ "x": x, "y": y }]);
        self.send(
            "Input.dispatchTouchEvent",
            json!({ "type": "touchStart", "touchPoints": touch(x1, y1) }),
        );
        for i in 1..=4 {
            let f = f64::from(i) / 4.0;
            let (x, y) = (x1 + (x2 - x1) * f, y1 + (y2 - y1) * f);
            self.send(
                "Input.dispatchTouchEvent",
                json!({ "type": "touchMove", "touchPoints": touch(x, y) }),
            );
        }
        self.send(
            "Input.dispatchTouchEvent",
            json!({ "type": "touchEnd", "touchPoints": [] }),
        );
    }

    fn click_point(&mut self, point: &str) {
        self.click(&format!("[data-point=\"{point}\"]"));
    }

    fn text(&mut self, selector: &str) -> String {
        self.eval(&format!(
            "(document.querySelector({selector:?}) || {{}}).textContent || ''"
        ))
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    fn count(&mut self, selector: &str) -> u64 {
        self.eval(&format!("document.querySelectorAll({selector:?}).length"))
            .as_u64()
            .unwrap_or(0)
    }

    /// Replaces a text field's content as typed by the keyboard.
    fn type_into(&mut self, selector: &str, text: &str) {
        self.click(selector);
        self.eval(&format!("document.querySelector({selector:?}).select()"));
        self.send("Input.insertText", json!({ "text": text }));
    }

    /// Chooses an option of a `<select>` as a person would (a change event).
    fn choose(&mut self, id: &str, value: &str) {
        self.eval(&format!(
            "(() => {{ const e = document.getElementById({id:?}); e.value = {value:?}; \
             e.dispatchEvent(new Event('change')); return true; }})()"
        ));
    }

    fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.send("Page.captureScreenshot", json!({ "format": "png" }));
        let data = shot["data"].as_str().expect("screenshot data");
        data_encoding::BASE64
            .decode(data.as_bytes())
            .expect("base64 PNG")
    }
}

#[test]
fn a_short_game_by_clicks_in_headless_chromium() {
    let started = Instant::now();
    let Some(program) = find_chromium() else {
        let required = std::env::var_os("MULINO_REQUIRE_BROWSER").is_some();
        let message = "no Chromium found (apt-get install chromium, or set MULINO_CHROMIUM)";
        assert!(!required, "{message}, and MULINO_REQUIRE_BROWSER is set");
        // Straight to stderr: the test harness would swallow eprintln!'s
        // output of a passing test.
        let _ = writeln!(
            std::io::stderr(),
            "\n!!!!! SKIPPED the browser test of `mulino gui`: {message} !!!!!\n"
        );
        return;
    };
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let (_browser, devtools) = launch(&program);
    let mut cdp = Cdp::connect(&devtools);
    let target = cdp.send("Target.createTarget", json!({ "url": "about:blank" }));
    let attached = cdp.send(
        "Target.attachToTarget",
        json!({ "targetId": target["targetId"], "flatten": true }),
    );
    cdp.session = attached["sessionId"].as_str().map(str::to_string);
    cdp.send(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1100, "height": 760, "deviceScaleFactor": 1, "mobile": false }),
    );
    cdp.send("Page.enable", json!({}));
    cdp.send("Page.navigate", json!({ "url": gui.url() }));
    cdp.wait_for("the page", "document.body.dataset.ready === '1'");

    // The board: 24 points, 16 lines, no pieces, nine in each hand.
    assert_eq!(cdp.count("[data-point]"), 24);
    assert_eq!(cdp.count("#board .line"), 16);
    assert_eq!(cdp.count("[data-piece]"), 0);
    assert_eq!(cdp.count("#hand-top .stone.black"), 9);
    assert!(cdp.text("#status").contains("White to move"));
    // Two humans, no evaluation searches: only clicks change the game.
    cdp.choose("black-player", "human");
    cdp.eval("(() => { const e = document.getElementById('auto-eval'); e.checked = false; e.dispatchEvent(new Event('change')); return true; })()");

    // A placement by a click, then a bad FEN: refused, the game kept.
    cdp.click_point("d6");
    cdp.wait_for(
        "d6 in the move list",
        "document.querySelector('#moves .mv.current')?.textContent === 'd6'",
    );
    assert_eq!(cdp.count("[data-piece=white]"), 1);
    cdp.type_into("#fen", "this is no FEN");
    cdp.click("#btn-setup");
    cdp.wait_for("the FEN error", "!document.getElementById('error').hidden");
    assert!(cdp.text("#error").contains("FEN"), "{}", cdp.text("#error"));
    assert_eq!(cdp.count("#moves .mv"), 1, "the game is unchanged");

    // A position near the end.
    cdp.type_into("#fen", NEAR_END);
    cdp.click("#btn-setup");
    cdp.wait_for(
        "the set-up position",
        "document.querySelectorAll('[data-piece=white]').length === 4",
    );
    assert_eq!(cdp.count("[data-piece=black]"), 3);
    assert_eq!(cdp.count("#moves .mv"), 0);
    assert!(cdp.text("#status").contains("White to move (moving)"));

    // A hint, drawn on the board.
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

    // The mill, dragged with a finger, its removal, and the end.
    cdp.touch_drag("g4", "g7");
    assert!(
        cdp.text("#status").contains("remove"),
        "{}",
        cdp.text("#status")
    );
    assert_eq!(cdp.count(".removable"), 3);
    cdp.click_point("e4");
    cdp.wait_for(
        "the game's end",
        "document.getElementById('status').textContent.includes('Game over')",
    );
    let status = cdp.text("#status");
    assert!(
        status.contains("white wins") && status.contains("1-0"),
        "{status}"
    );
    assert_eq!(cdp.text("#moves .mv.current"), "g4-g7xe4");
    assert_eq!(cdp.count("[data-piece=black]"), 2);
    assert_eq!(
        cdp.count("#moves .mv.future"),
        0,
        "a new move forgets the redo"
    );

    // Copy game: the clipboard gets the set-up position and the moves.
    cdp.send(
        "Browser.setPermission",
        json!({ "permission": { "name": "clipboard-read" }, "setting": "granted", "origin": gui.url().trim_end_matches('/') }),
    );
    cdp.click("#btn-copy-game");
    cdp.wait_for(
        "the copy notice",
        "document.getElementById('notice').textContent.includes('copied')",
    );
    let copied = cdp.eval("navigator.clipboard.readText()");
    let copied = copied.as_str().unwrap_or("");
    assert!(
        copied.contains(&format!("[FEN \"{NEAR_END}\"]")),
        "{copied}"
    );
    assert!(copied.contains("g4-g7xe4 1-0"), "{copied}");

    // Against the engine: it answers a placement by itself.
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

    // A reload loses nothing.
    cdp.eval("window.beforeReload = true");
    cdp.send("Page.reload", json!({}));
    cdp.wait_for("the reloaded page", "!window.beforeReload && document.body.dataset.ready === '1' && document.querySelectorAll('#moves .mv').length === 2");
    assert_eq!(cdp.count("[data-piece]"), 2);
    assert_eq!(
        cdp.eval("document.getElementById('black-player').value"),
        "engine"
    );

    // A restarted server has forgotten the session (here the sessions
    // are dropped; keep-alive connections make a real in-process restart
    // hang the browser's next request): the page rebuilds it from the
    // game it holds, and play goes on.
    gui.sessions().clear();
    assert!(gui.sessions().is_empty());
    // Any marked target will do (the engine's reply took some point).
    let target = cdp.eval("document.querySelector('[data-target]').dataset.target");
    let target = target.as_str().expect("a marked target").to_string();
    cdp.click_point(&target);
    cdp.wait_for(
        "play after the restart",
        "document.querySelectorAll('#moves .mv').length === 4",
    );
    assert_eq!(gui.sessions().len(), 1);
    assert_eq!(cdp.count("[data-piece]"), 4);

    let target_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target_dir).expect("target/");
    std::fs::write(target_dir.join("gui.png"), &png).expect("write target/gui.png");
    if std::env::var_os("MULINO_UPDATE_SCREENSHOT").is_some() {
        let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs");
        std::fs::create_dir_all(&docs).expect("docs/");
        std::fs::write(docs.join("gui.png"), &png).expect("write docs/gui.png");
    }
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(60),
        "the browser test took {took:?}"
    );
}
