//! The browser tests' harness: headless Chromium started with a profile
//! of its own, driven over its DevTools protocol (CDP) on a websocket,
//! on a page of `mulino gui` served in-process, or on the static folder
//! (`scripts/build-web.sh`'s `target/web/`) served by a plain static
//! server ([`StaticServer`]). Mouse clicks, finger drags, typing and
//! choosing go through the browser's input, as a person's would.
//!
//! Only one browser runs at a time (the tests share a busy machine). The
//! tests that need it are ignored unless asked for (`cargo test --test
//! web -- --include-ignored`, as CI does); asked for, a missing browser
//! fails them. `MULINO_CHROMIUM` names the browser to use.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mulino::web::Gui;
use serde_json::{Value, json};
use tungstenite::{Message, WebSocket};

/// How long any one condition may take to come true.
pub const WAIT: Duration = Duration::from_secs(30);

/// A desktop window and a phone's (CSS pixels; the phone is mobile).
pub const DESKTOP: Screen = Screen {
    width: 1100,
    height: 760,
    mobile: false,
};
pub const PHONE: Screen = Screen {
    width: 390,
    height: 844,
    mobile: true,
};
/// The same phone held sideways.
pub const PHONE_LANDSCAPE: Screen = Screen {
    width: 844,
    height: 390,
    mobile: true,
};
/// A larger desktop window, for the screenshots to look at.
pub const LARGE: Screen = Screen {
    width: 1280,
    height: 900,
    mobile: false,
};

#[derive(Clone, Copy, Debug)]
pub struct Screen {
    pub width: u32,
    pub height: u32,
    pub mobile: bool,
}

/// One browser at a time.
static ONE_BROWSER: Mutex<()> = Mutex::new(());

/// The browser process, killed and its profile removed when dropped.
pub struct Browser {
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

pub fn find_chromium() -> Option<String> {
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
pub fn launch(program: &str) -> (Browser, String) {
    static LAUNCHED: AtomicUsize = AtomicUsize::new(0);
    let n = LAUNCHED.fetch_add(1, Ordering::SeqCst);
    let profile = std::env::temp_dir().join(format!("mulino-gui-test-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    let mut child = Command::new(program)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            // This machine's network is closed: Chromium's own calls out
            // only fail, many at a time.
            "--disable-quic",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
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
pub struct Cdp {
    ws: WebSocket<TcpStream>,
    next_id: u64,
    pub session: Option<String>,
    /// The events that came while waiting for answers, oldest first.
    pub events: Vec<Value>,
}

impl Cdp {
    pub fn connect(url: &str) -> Cdp {
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
            events: Vec::new(),
        }
    }

    /// Sends a command and waits for its answer (events are kept in
    /// `events`).
    pub fn send(&mut self, method: &str, params: Value) -> Value {
        match self.try_send(method, params) {
            Ok(result) => result,
            Err(error) => panic!("{method}: {error}"),
        }
    }

    /// Sends a command and waits for its answer or its error.
    pub fn try_send(&mut self, method: &str, params: Value) -> Result<Value, Value> {
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
            if value.get("method").is_some() {
                self.events.push(value);
                continue;
            }
            if value["id"] != json!(id) {
                continue;
            }
            if let Some(error) = value.get("error") {
                return Err(error.clone());
            }
            return Ok(value["result"].clone());
        }
    }

    /// What the page has reported as errors since `Runtime` and `Log`
    /// were enabled: exceptions not caught, `console.error` and
    /// `console.assert`, and the browser's own error entries (a file
    /// that failed to load, a blocked request). The static board's look
    /// for a `tb/` folder beside it (databases.js), answered 404 where
    /// there is none, is no error.
    pub fn console_errors(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| {
                let p = &e["params"];
                match e["method"].as_str()? {
                    "Runtime.exceptionThrown" => Some(p["exceptionDetails"].to_string()),
                    "Runtime.consoleAPICalled"
                        if matches!(p["type"].as_str(), Some("error" | "assert")) =>
                    {
                        Some(p["args"].to_string())
                    }
                    "Log.entryAdded"
                        if p["entry"]["level"] == "error"
                            && !p["entry"]["url"]
                                .as_str()
                                .is_some_and(|u| u.ends_with("/tb/manifest.json")) =>
                    {
                        Some(p["entry"].to_string())
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// Evaluates JavaScript in the page and returns its value.
    pub fn eval(&mut self, expression: &str) -> Value {
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
    pub fn wait_for(&mut self, what: &str, expression: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            // The page may still be loading: an exception is a no, and so
            // is an answer from a page on its way out.
            let guarded = format!(
                "(() => {{ try {{ return {expression}; }} catch (_) {{ return false; }} }})()"
            );
            let answer = self.try_send(
                "Runtime.evaluate",
                json!({ "expression": guarded, "returnByValue": true, "awaitPromise": true }),
            );
            if answer.is_ok_and(|a| a["result"]["value"] == json!(true)) {
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
    pub fn click(&mut self, selector: &str) {
        let at = self.eval(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
             e.scrollIntoView({{block: 'nearest'}}); const r = e.getBoundingClientRect(); \
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
    pub fn centre(&mut self, selector: &str) -> (f64, f64) {
        let at = self.eval(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
             e.scrollIntoView({{block: 'nearest'}}); const r = e.getBoundingClientRect(); \
             return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        match (at[0].as_f64(), at[1].as_f64()) {
            (Some(x), Some(y)) => (x, y),
            _ => panic!("no element `{selector}`"),
        }
    }

    /// Drags with a finger from one point of the board to another.
    pub fn touch_drag(&mut self, from: &str, to: &str) {
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

    pub fn click_point(&mut self, point: &str) {
        self.click(&format!("[data-point=\"{point}\"]"));
    }

    pub fn text(&mut self, selector: &str) -> String {
        self.eval(&format!(
            "(document.querySelector({selector:?}) || {{}}).textContent || ''"
        ))
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    pub fn count(&mut self, selector: &str) -> u64 {
        self.eval(&format!("document.querySelectorAll({selector:?}).length"))
            .as_u64()
            .unwrap_or(0)
    }

    /// Replaces a text field's content as typed by the keyboard.
    pub fn type_into(&mut self, selector: &str, text: &str) {
        self.click(selector);
        self.eval(&format!("document.querySelector({selector:?}).select()"));
        self.send("Input.insertText", json!({ "text": text }));
    }

    /// Chooses an option of a `<select>` as a person would (a change event).
    pub fn choose(&mut self, id: &str, value: &str) {
        self.eval(&format!(
            "(() => {{ const e = document.getElementById({id:?}); e.value = {value:?}; \
             e.dispatchEvent(new Event('change')); return true; }})()"
        ));
    }

    /// Sets the page's screen (CSS pixels; a phone's has twice as many
    /// device pixels, and touch).
    pub fn resize(&mut self, screen: Screen) {
        self.send(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": screen.width, "height": screen.height,
                    "deviceScaleFactor": if screen.mobile { 2 } else { 1 }, "mobile": screen.mobile }),
        );
    }

    pub fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.send("Page.captureScreenshot", json!({ "format": "png" }));
        let data = shot["data"].as_str().expect("screenshot data");
        data_encoding::BASE64
            .decode(data.as_bytes())
            .expect("base64 PNG")
    }
}

/// What serves the page: `mulino gui` in-process, the `mulino` binary's
/// `gui` in a process of its own (with databases, which are the whole
/// process's), or a static server of the folder.
pub enum Server {
    Gui(Gui),
    Static(StaticServer),
    Process(GuiProcess),
}

/// `mulino gui --port 0 ARGS...` in a process of its own, killed when
/// dropped.
pub struct GuiProcess {
    child: Child,
    url: String,
}

impl GuiProcess {
    /// Starts it and waits until it serves, and until every stdout line
    /// in `ready` has come (`None`: serving is enough).
    pub fn start(args: &[&str], ready: Option<&str>) -> GuiProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mulino"))
            .args(["gui", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start mulino gui");
        let stdout = child.stdout.take().expect("its stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut url = None;
        let mut waiting = ready.is_some();
        let deadline = Instant::now() + WAIT * 4;
        while url.is_none() || waiting {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("mulino gui {args:?} did not get ready"));
            if let Some(rest) = line.strip_prefix("mulino gui: serving ") {
                url = rest.split_whitespace().next().map(str::to_string);
            }
            if ready.is_some_and(|r| line.contains(r)) {
                waiting = false;
            }
        }
        GuiProcess {
            child,
            url: url.expect("an address"),
        }
    }
}

impl Drop for GuiProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    pub fn url(&self) -> String {
        match self {
            Server::Gui(gui) => gui.url(),
            Server::Static(folder) => folder.url(),
            Server::Process(process) => process.url.clone(),
        }
    }

    /// The `mulino gui` serving the page.
    pub fn gui(&self) -> &Gui {
        match self {
            Server::Gui(gui) => gui,
            Server::Static(_) => panic!("the page is served as static files"),
            Server::Process(_) => panic!("the page is served by another process"),
        }
    }
}

/// A page of a fresh server in a fresh browser, for one test.
pub struct Page {
    pub cdp: Cdp,
    pub server: Server,
    _browser: Browser,
    _one: MutexGuard<'static, ()>,
}

impl Page {
    /// Opens the page of `mulino gui` on `screen` in headless Chromium (a
    /// test that needs it fails where none is found).
    pub fn open(screen: Screen) -> Page {
        let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
        Page::open_at(screen, Server::Gui(gui))
    }

    /// Opens the page of `mulino gui` run as a process of its own.
    pub fn open_process(screen: Screen, process: GuiProcess) -> Page {
        Page::open_at(screen, Server::Process(process))
    }

    /// Opens the page served as static files from `folder`.
    pub fn open_static(screen: Screen, folder: &Path) -> Page {
        Page::open_at(screen, Server::Static(StaticServer::start(folder)))
    }

    fn open_at(screen: Screen, server: Server) -> Page {
        let one = ONE_BROWSER.lock().unwrap_or_else(|e| e.into_inner());
        let Some(program) = find_chromium() else {
            panic!(
                "no Chromium found (apt-get install chromium, or set MULINO_CHROMIUM): \
                 the browser tests need one"
            );
        };
        let (browser, devtools) = launch(&program);
        let mut cdp = Cdp::connect(&devtools);
        let target = cdp.send("Target.createTarget", json!({ "url": "about:blank" }));
        let attached = cdp.send(
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        cdp.session = attached["sessionId"].as_str().map(str::to_string);
        cdp.resize(screen);
        cdp.send("Page.enable", json!({}));
        cdp.send("Runtime.enable", json!({}));
        cdp.send("Log.enable", json!({}));
        cdp.send("Page.navigate", json!({ "url": server.url() }));
        cdp.wait_for("the page", "document.body.dataset.ready === '1'");
        Page {
            cdp,
            server,
            _browser: browser,
            _one: one,
        }
    }

    /// Two people at the board, and no evaluation searches: only clicks
    /// change the game.
    pub fn two_humans(&mut self) {
        self.cdp.choose("white-player", "human");
        self.cdp.choose("black-player", "human");
        self.set_auto_eval(false);
    }

    pub fn set_auto_eval(&mut self, on: bool) {
        self.cdp.eval(&format!(
            "(() => {{ const e = document.getElementById('auto-eval'); e.checked = {on}; \
             e.dispatchEvent(new Event('change')); return true; }})()"
        ));
    }

    /// Plays a whole turn by clicking its points (from, to, removals) and
    /// waits until the move list has `plies` moves.
    pub fn play_by_clicks(&mut self, turn: &str, plies: usize) {
        let points = turn.split(['-', 'x']).filter(|p| !p.is_empty());
        for p in points {
            self.cdp.click_point(p);
        }
        self.wait_plies(turn, plies);
    }

    /// Waits until the list shows `plies` moves played and nothing is on
    /// its way to the server.
    pub fn wait_plies(&mut self, what: &str, plies: usize) {
        self.cdp.wait_for(
            what,
            &format!(
                "ui.pending === 0 && ui.st.moves.length === {plies} && \
                 document.querySelectorAll('#moves .mv:not(.future)').length === {plies}"
            ),
        );
    }

    /// The page's bounding box of `selector`: left, top, right, bottom.
    pub fn rect(&mut self, selector: &str) -> [f64; 4] {
        let r = self.cdp.eval(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
             const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }})()"
        ));
        let v = |i: usize| {
            r[i].as_f64()
                .unwrap_or_else(|| panic!("no element `{selector}`"))
        };
        [v(0), v(1), v(2), v(3)]
    }

    /// Lets the clipboard be read back.
    pub fn allow_clipboard(&mut self) {
        let origin = self.server.url().trim_end_matches('/').to_string();
        self.cdp.send(
            "Browser.setPermission",
            json!({ "permission": { "name": "clipboard-read" }, "setting": "granted", "origin": origin }),
        );
    }

    /// Clicks Copy game and returns what the clipboard got.
    pub fn copied_game(&mut self) -> String {
        self.copied_by("#btn-copy-game")
    }

    /// Clicks the copy button `selector` (Copy game, Copy FEN), waits for
    /// its notice and returns what the clipboard got.
    pub fn copied_by(&mut self, selector: &str) -> String {
        self.cdp
            .eval("document.getElementById('notice').textContent = ''");
        self.cdp.click(selector);
        self.cdp.wait_for(
            "the copy notice",
            "document.getElementById('notice').textContent.includes('copied')",
        );
        let copied = self.cdp.eval("navigator.clipboard.readText()");
        copied.as_str().unwrap_or("").to_string()
    }

    /// Waits for the game's end and returns the status line.
    pub fn game_over_status(&mut self) -> String {
        self.cdp.wait_for(
            "the game's end",
            "document.getElementById('status').textContent.includes('Game over')",
        );
        self.cdp.text("#status")
    }
}

/// A plain static server of one folder, as any static host: its files by
/// `GET`, typed by their extension, and no header of its own (no
/// cross-origin isolation: the page's service worker adds that). One
/// thread per connection, each closed after its answer.
pub struct StaticServer {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl StaticServer {
    pub fn start(folder: &Path) -> StaticServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port for the static server");
        let addr = listener.local_addr().expect("its address");
        let stopping = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&stopping);
        let folder = folder.to_path_buf();
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let folder = folder.clone();
                std::thread::spawn(move || serve_file(stream, &folder));
            }
        });
        StaticServer {
            addr,
            stopping,
            accept: Some(accept),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Stops serving: the port refuses connections from now on, as a host
    /// gone offline.
    pub fn stop(&mut self) {
        if let Some(accept) = self.accept.take() {
            self.stopping.store(true, Ordering::SeqCst);
            let _ = TcpStream::connect(self.addr);
            let _ = accept.join();
        }
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Answers one request of a static server.
fn serve_file(stream: TcpStream, folder: &Path) {
    let _ = stream.set_read_timeout(Some(WAIT));
    let mut reader = BufReader::new(&stream);
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => return,
            Ok(_) if header.trim().is_empty() => break,
            Ok(_) => {}
        }
    }
    let mut parts = first.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let name = match path.trim_start_matches('/') {
        "" => "index.html",
        name => name,
    };
    let file = (!name.split('/').any(|p| p == ".." || p.is_empty()))
        .then(|| std::fs::read(folder.join(name)).ok())
        .flatten();
    let mut out = &stream;
    let (status, kind, body) = match (method, file) {
        ("GET" | "HEAD", Some(body)) => {
            let kind = match name.rsplit('.').next() {
                Some("html") => "text/html; charset=utf-8",
                Some("js" | "mjs") => "text/javascript; charset=utf-8",
                Some("css") => "text/css; charset=utf-8",
                Some("wasm") => "application/wasm",
                Some("png") => "image/png",
                _ => "application/octet-stream",
            };
            ("200 OK", kind, body)
        }
        ("GET" | "HEAD", None) => ("404 Not Found", "text/plain", b"not found\n".to_vec()),
        _ => (
            "405 Method Not Allowed",
            "text/plain",
            b"GET only\n".to_vec(),
        ),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = out.write_all(head.as_bytes());
    if method != "HEAD" {
        let _ = out.write_all(&body);
    }
    let _ = out.flush();
}
