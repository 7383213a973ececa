//! The HTTP side of `mulino gui`: an accept loop on a small tokio
//! runtime hands each connection to a task of its own ([`super::http`]
//! has hyper read one request under a deadline); `GET` serves the page's
//! embedded files, `POST /api/<call>` goes to [`super::api`] on the
//! runtime's blocking pool. Requests for another host name are refused,
//! so that no other site can drive the API through DNS rebinding. A
//! janitor thread stops the searches of pages that have gone away.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use hyper::Request;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HOST, HeaderName, ORIGIN};
use tokio::time::Instant;

use super::api;
use super::http::{self, Answer, answer};
use super::sessions::Sessions;

/// The largest request body read (a long game's moves fit many times);
/// a longer one is refused from its announced length, unread.
pub const MAX_BODY: u64 = 256 * 1024;
/// How long a client may take to send its whole request. A connection
/// that stalls holds its own task this long, and nothing else.
const PATIENCE: Duration = Duration::from_secs(15);
/// Connections served at once from one address, and from all: beyond
/// them new connections are closed unanswered, so one host on the
/// network cannot starve this computer's browser.
const PER_PEER: usize = 32;
const TOTAL: usize = 256;

const INDEX_HTML: &str = include_str!("assets/index.html");
/// The page's own word for its engine: the engine in WebAssembly, as
/// the static folder (`scripts/build-web.sh`) serves it...
const ENGINE_WASM: &str = r#"<meta name="mulino-engine" content="wasm">"#;
/// ...and this server's, for the same page served here.
const ENGINE_SERVER: &str = r#"<meta name="mulino-engine" content="server">"#;
const APP_JS: &str = include_str!("assets/app.js");
const BOARD_JS: &str = include_str!("assets/board.js");
const ENGINE_JS: &str = include_str!("assets/engine.js");
const TURNS_JS: &str = include_str!("assets/turns.js");
const PANEL_JS: &str = include_str!("assets/panel.js");
const PRACTICE_JS: &str = include_str!("assets/practice.js");
const DATABASES_JS: &str = include_str!("assets/databases.js");
const STYLE_CSS: &str = include_str!("assets/style.css");
/// The endgame practice's sets (`assets/endgames/`: one per rule set with
/// databases, each line a FEN, its value and the moves that keep it), by
/// file name; the page fetches the one of its variant.
const ENDGAME_SETS: [(&str, &str); 6] = [
    ("nine.tsv", include_str!("assets/endgames/nine.tsv")),
    ("twelve.tsv", include_str!("assets/endgames/twelve.tsv")),
    ("lasker.tsv", include_str!("assets/endgames/lasker.tsv")),
    (
        "cheng-san-qi.tsv",
        include_str!("assets/endgames/cheng-san-qi.tsv"),
    ),
    (
        "da-san-qi.tsv",
        include_str!("assets/endgames/da-san-qi.tsv"),
    ),
    ("el-filja.tsv", include_str!("assets/endgames/el-filja.tsv")),
];
const JSON: &str = "application/json; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

/// The page as served here: one word changed, so that it talks to this
/// server's API.
static SERVED_INDEX: LazyLock<String> = LazyLock::new(|| {
    assert!(
        INDEX_HTML.contains(ENGINE_WASM),
        "index.html names its engine"
    );
    INDEX_HTML.replacen(ENGINE_WASM, ENGINE_SERVER, 1)
});

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot listen on {addr}: {reason}")]
    Bind { addr: String, reason: String },
    #[error("cannot start the server's runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot start a server thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// A running server: its address, its sessions and its accept loop.
pub struct Gui {
    addr: SocketAddr,
    sessions: Arc<Sessions>,
    stopping: Arc<AtomicBool>,
    /// `None` once joined.
    accept: Option<JoinHandle<()>>,
}

/// What every connection's task shares.
struct Shared {
    sessions: Arc<Sessions>,
    hosts: Hosts,
    open: Mutex<HashMap<IpAddr, usize>>,
}

impl Gui {
    /// Listens on `host:port` (port 0: any free port) and starts serving.
    pub fn start(host: &str, port: u16) -> Result<Gui, ServerError> {
        let addr = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let bind = |reason: String| ServerError::Bind {
            addr: addr.clone(),
            reason,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .thread_name("gui-api")
            .build()
            .map_err(ServerError::Runtime)?;
        let listener = std::net::TcpListener::bind(&addr).map_err(|e| bind(e.to_string()))?;
        let local = listener.local_addr().map_err(|e| bind(e.to_string()))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| bind(e.to_string()))?;
        let listener = {
            let _inside = runtime.enter();
            tokio::net::TcpListener::from_std(listener).map_err(|e| bind(e.to_string()))?
        };
        let sessions = Arc::new(Sessions::new());
        let shared = Arc::new(Shared {
            sessions: Arc::clone(&sessions),
            hosts: Hosts::new(host, local.ip()),
            open: Mutex::new(HashMap::new()),
        });
        let stopping = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&stopping);
        let accept = std::thread::Builder::new()
            .name("gui-accept".into())
            .spawn(move || {
                runtime.block_on(accept_loop(listener, &shared, &stop));
                // The port is free again; the connections being answered
                // finish on a thread of their own.
                let finish = move || runtime.block_on(drain(&shared));
                if let Err(e) = std::thread::Builder::new()
                    .name("gui-drain".into())
                    .spawn(finish)
                {
                    eprintln!("mulino gui: open connections dropped ({e})");
                }
            })?;
        let janitor = Arc::downgrade(&sessions);
        std::thread::Builder::new()
            .name("gui-janitor".into())
            .spawn(move || {
                while let Some(sessions) = janitor.upgrade() {
                    sessions.sweep();
                    drop(sessions);
                    std::thread::sleep(Duration::from_secs(2));
                }
            })?;
        Ok(Gui {
            addr: local,
            sessions,
            stopping,
            accept: Some(accept),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's address, for people.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    pub fn sessions(&self) -> &Sessions {
        &self.sessions
    }

    /// Serves until the process ends.
    pub fn wait(mut self) {
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }

    /// Stops accepting connections (those being answered finish).
    pub fn shutdown(self) {
        drop(self);
    }
}

impl Drop for Gui {
    /// Ends the accept loop, so that a dropped server (as in the tests)
    /// lets its port and its sessions go.
    fn drop(&mut self) {
        let Some(accept) = self.accept.take() else {
            return;
        };
        self.stopping.store(true, Ordering::SeqCst);
        // The accept loop notices the flag with its next connection.
        let port = self.addr.port();
        let wake = match self.addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::from((Ipv6Addr::LOCALHOST, port)),
            _ => self.addr,
        };
        if TcpStream::connect_timeout(&wake, Duration::from_secs(5)).is_ok() {
            let _ = accept.join();
        }
    }
}

/// Takes connections until `stop` is set, each to a task of its own
/// within the limits.
async fn accept_loop(listener: tokio::net::TcpListener, shared: &Arc<Shared>, stop: &AtomicBool) {
    loop {
        let accepted = listener.accept().await;
        if stop.load(Ordering::SeqCst) {
            return;
        }
        match accepted {
            Ok((stream, peer)) => {
                // Beyond the limits the connection closes unanswered.
                let Some(slot) = Slot::take(shared, peer.ip()) else {
                    continue;
                };
                let shared = Arc::clone(shared);
                tokio::spawn(async move {
                    let _slot = slot;
                    http::serve(stream, PATIENCE, move |request, deadline| {
                        Box::pin(route(Arc::clone(&shared), request, deadline))
                    })
                    .await;
                });
            }
            // A failed accept (the client gave up, no descriptors left)
            // costs that connection only; a moment's rest lets the
            // descriptors come back.
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// Waits for the connections being answered, as long as one may last.
async fn drain(shared: &Shared) {
    let until = Instant::now() + 2 * PATIENCE + Duration::from_secs(2);
    while Instant::now() < until && !shared.lock_open().is_empty() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

impl Shared {
    fn lock_open(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A connection's place in the count, given back when it ends, however
/// it ends.
struct Slot {
    shared: Arc<Shared>,
    peer: IpAddr,
}

impl Slot {
    /// A place for a connection from `peer`, if the limits allow one.
    fn take(shared: &Arc<Shared>, peer: IpAddr) -> Option<Slot> {
        let mut open = shared.lock_open();
        let total: usize = open.values().sum();
        let mine = open.entry(peer).or_insert(0);
        if *mine >= PER_PEER || total >= TOTAL {
            if *mine == 0 {
                open.remove(&peer);
            }
            return None;
        }
        *mine += 1;
        Some(Slot {
            shared: Arc::clone(shared),
            peer,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.shared.lock_open();
        if let Some(n) = open.get_mut(&self.peer) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.peer);
            }
        }
    }
}

/// The host names this server answers to: `localhost`, loopback and the
/// address it listens on (any IP address when it listens on all of
/// them), and the name it was started with. A page of another name that
/// resolves here (DNS rebinding) is refused.
struct Hosts {
    given: String,
    bound: IpAddr,
}

impl Hosts {
    fn new(given: &str, bound: IpAddr) -> Hosts {
        Hosts {
            given: given.trim_matches(['[', ']']).to_ascii_lowercase(),
            bound,
        }
    }

    /// Whether a `Host` header's value (with or without a port) is ours.
    fn allows(&self, host: &str) -> bool {
        let host = host.trim();
        let name = match host.strip_prefix('[') {
            Some(rest) => rest.split(']').next().unwrap_or(""),
            None => host.rsplit_once(':').map_or(host, |(name, _)| name),
        };
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        if name == "localhost" || (!name.is_empty() && name == self.given) {
            return true;
        }
        name.parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip == self.bound || self.bound.is_unspecified())
    }

    /// Whether an `Origin` header (`http://host:port`) names us.
    fn allows_origin(&self, origin: &str) -> bool {
        origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .is_some_and(|rest| self.allows(rest.split('/').next().unwrap_or("")))
    }
}

fn error_json(status: u16, message: &str) -> Answer {
    answer(status, JSON, api::error_body(message, "bad_request"))
}

/// A request's header as text, if it is there once and is text.
fn header(request: &Request<Incoming>, name: HeaderName) -> Option<&str> {
    let mut values = request.headers().get_all(name).iter();
    match (values.next(), values.next()) {
        (Some(value), None) => value.to_str().ok(),
        _ => None,
    }
}

/// The answer to a request, whose body must arrive by `deadline`.
async fn route(shared: Arc<Shared>, request: Request<Incoming>, deadline: Instant) -> Answer {
    // An absolute target (`GET http://name/ HTTP/1.1`) names the host too.
    let ours = header(&request, HOST).is_some_and(|h| shared.hosts.allows(h))
        && request
            .uri()
            .authority()
            .is_none_or(|a| shared.hosts.allows(a.as_str()));
    if !ours {
        return answer(
            403,
            TEXT,
            "mulino gui answers only to localhost and its own address; \
             open the address it printed\n",
        );
    }
    let page = |content_type, body: &'static str| answer(200, content_type, body);
    match (request.method().as_str(), request.uri().path()) {
        ("GET", "/" | "/index.html") => page("text/html; charset=utf-8", SERVED_INDEX.as_str()),
        ("GET", "/app.js") => page("text/javascript; charset=utf-8", APP_JS),
        ("GET", "/board.js") => page("text/javascript; charset=utf-8", BOARD_JS),
        ("GET", "/engine.js") => page("text/javascript; charset=utf-8", ENGINE_JS),
        ("GET", "/turns.js") => page("text/javascript; charset=utf-8", TURNS_JS),
        ("GET", "/panel.js") => page("text/javascript; charset=utf-8", PANEL_JS),
        ("GET", "/practice.js") => page("text/javascript; charset=utf-8", PRACTICE_JS),
        ("GET", "/databases.js") => page("text/javascript; charset=utf-8", DATABASES_JS),
        ("GET", p) if p.starts_with("/endgames/") => match endgame_set(p) {
            Some((content_type, set)) => page(content_type, set),
            None => answer(404, TEXT, "no endgame set for these rules\n"),
        },
        ("GET", "/style.css") => page("text/css; charset=utf-8", STYLE_CSS),
        ("POST", p) if p.starts_with("/api/") => api_call(&shared, request, deadline).await,
        (_, p) if p.starts_with("/api/") => error_json(405, "API calls are POST requests"),
        _ => answer(404, TEXT, "not found\n"),
    }
}

/// The endgame practice's list of the variants with a set.
const ENDGAME_INDEX: &str = include_str!("assets/endgames/index.json");

/// The endgame set at `path` (`/endgames/nine.tsv`), or their list, if
/// there is one, with its content type.
fn endgame_set(path: &str) -> Option<(&'static str, &'static str)> {
    let name = path.strip_prefix("/endgames/")?;
    if name == "index.json" {
        return Some((JSON, ENDGAME_INDEX));
    }
    ENDGAME_SETS
        .iter()
        .find(|(file, _)| *file == name)
        .map(|(_, set)| ("text/tab-separated-values; charset=utf-8", *set))
}

/// Whether the request says its body is JSON. Insisting on it makes a
/// browser ask first (CORS preflight, which this server never grants)
/// before another site's page could post to the API.
fn is_json(request: &Request<Incoming>) -> bool {
    header(request, CONTENT_TYPE)
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"))
}

async fn api_call(shared: &Shared, request: Request<Incoming>, deadline: Instant) -> Answer {
    if !is_json(&request) {
        return error_json(415, "API calls send JSON (Content-Type: application/json)");
    }
    // Browsers name the page that posts; only our own may.
    if request.headers().contains_key(ORIGIN)
        && !header(&request, ORIGIN).is_some_and(|o| shared.hosts.allows_origin(o))
    {
        return error_json(403, "API calls come from mulino's own page");
    }
    let call = request
        .uri()
        .path()
        .strip_prefix("/api/")
        .unwrap_or("")
        .to_string();
    let body = match http::read_body(request.into_body(), MAX_BODY as usize, deadline).await {
        Ok(body) => body,
        Err(e) => return error_json(e.status(), &e.to_string()),
    };
    let Ok(body) = String::from_utf8(body.into()) else {
        return error_json(400, "the request body is not UTF-8 text");
    };
    // A call may wait for a search to stop: off the connections' thread.
    let sessions = Arc::clone(&shared.sessions);
    match tokio::task::spawn_blocking(move || api::handle(&sessions, &call, &body)).await {
        Ok((status, text)) => answer(status, JSON, text),
        Err(_) => error_json(500, "the call failed inside the server"),
    }
}
