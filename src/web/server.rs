//! The HTTP side of `mulino gui`: an accept loop hands each connection
//! to a thread of its own ([`super::http`] reads one request under a
//! deadline); `GET` serves the page's embedded files, `POST /api/<call>`
//! goes to [`super::api`]. Requests for another host name are refused,
//! so that no other site can drive the API through DNS rebinding. A
//! janitor thread stops the searches of pages that have gone away.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::api;
use super::http::{Connection, HttpError, Request, Response};
use super::sessions::Sessions;

/// The largest request body read (a long game's moves fit many times);
/// a longer one is refused from its announced length, unread.
pub const MAX_BODY: u64 = 256 * 1024;
/// How long a client may take to send its whole request. A connection
/// that stalls holds its own thread this long, and nothing else.
const PATIENCE: Duration = Duration::from_secs(15);
/// Connections served at once from one address, and from all: beyond
/// them new connections are closed unanswered, so one host on the
/// network cannot starve this computer's browser.
const PER_PEER: usize = 32;
const TOTAL: usize = 256;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const BOARD_JS: &str = include_str!("assets/board.js");
const STYLE_CSS: &str = include_str!("assets/style.css");
const JSON: &str = "application/json; charset=utf-8";

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot listen on {addr}: {reason}")]
    Bind { addr: String, reason: String },
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

/// What every connection's thread shares.
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
        let listener = TcpListener::bind(&addr).map_err(|e| bind(e.to_string()))?;
        let local = listener.local_addr().map_err(|e| bind(e.to_string()))?;
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
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    // A failed accept (the client gave up, no descriptors
                    // left) costs that connection only.
                    if let Ok(stream) = stream {
                        take_connection(&shared, stream);
                    }
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

/// Serves one connection on a thread of its own, within the limits.
fn take_connection(shared: &Arc<Shared>, stream: TcpStream) {
    let Ok(peer) = stream.peer_addr().map(|a| a.ip()) else {
        return;
    };
    {
        let mut open = shared.open.lock().unwrap_or_else(|e| e.into_inner());
        let total: usize = open.values().sum();
        let mine = open.entry(peer).or_insert(0);
        if *mine >= PER_PEER || total >= TOTAL {
            return;
        }
        *mine += 1;
    }
    let slot = Slot {
        shared: Arc::clone(shared),
        peer,
    };
    // Should no thread start, the slot is given back as the closure drops.
    let _ = std::thread::Builder::new()
        .name("gui-http".into())
        .spawn(move || {
            let slot = slot;
            serve(&slot.shared, stream);
        });
}

/// A connection's place in the count, given back when it ends, however
/// it ends.
struct Slot {
    shared: Arc<Shared>,
    peer: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.shared.open.lock().unwrap_or_else(|e| e.into_inner());
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

fn error_json(status: u16, message: &str) -> Response {
    let body = serde_json::json!({ "error": message, "code": "bad_request" });
    Response::new(status, JSON, body.to_string())
}

fn serve(shared: &Shared, stream: TcpStream) {
    let mut connection = Connection::new(stream, PATIENCE);
    let response = match connection.read_head() {
        Err(HttpError::Closed) => return,
        Err(e) => Response::new(e.status(), "text/plain; charset=utf-8", format!("{e}\n")),
        Ok(request) => match route(shared, &mut connection, &request) {
            Some(response) => response,
            None => return,
        },
    };
    connection.respond(&response);
}

/// The answer to a request; `None` when the client went away.
fn route(shared: &Shared, connection: &mut Connection, request: &Request) -> Option<Response> {
    if !request
        .header("host")
        .is_some_and(|h| shared.hosts.allows(h))
    {
        return Some(Response::new(
            403,
            "text/plain; charset=utf-8",
            "mulino gui answers only to localhost and its own address; \
             open the address it printed\n",
        ));
    }
    let page = |content_type, body: &str| Some(Response::new(200, content_type, body));
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/" | "/index.html") => page("text/html; charset=utf-8", INDEX_HTML),
        ("GET", "/app.js") => page("text/javascript; charset=utf-8", APP_JS),
        ("GET", "/board.js") => page("text/javascript; charset=utf-8", BOARD_JS),
        ("GET", "/style.css") => page("text/css; charset=utf-8", STYLE_CSS),
        ("POST", p) if p.starts_with("/api/") => api_call(shared, connection, request),
        (_, p) if p.starts_with("/api/") => Some(error_json(405, "API calls are POST requests")),
        _ => Some(Response::new(
            404,
            "text/plain; charset=utf-8",
            "not found\n",
        )),
    }
}

/// Whether the request says its body is JSON. Insisting on it makes a
/// browser ask first (CORS preflight, which this server never grants)
/// before another site's page could post to the API.
fn is_json(request: &Request) -> bool {
    request
        .header("content-type")
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"))
}

fn api_call(shared: &Shared, connection: &mut Connection, request: &Request) -> Option<Response> {
    if !is_json(request) {
        return Some(error_json(
            415,
            "API calls send JSON (Content-Type: application/json)",
        ));
    }
    // Browsers name the page that posts; only our own may.
    if let Some(origin) = request.header("origin")
        && !shared.hosts.allows_origin(origin)
    {
        return Some(error_json(403, "API calls come from mulino's own page"));
    }
    let length = match request.content_length() {
        Ok(n) if n > MAX_BODY => return Some(error_json(413, "the request is too large")),
        Ok(n) => n as usize,
        Err(e) => return Some(error_json(e.status(), &e.to_string())),
    };
    let body = match connection.read_body(request, length) {
        Ok(body) => body,
        Err(HttpError::Closed) => return None,
        Err(e) => return Some(error_json(e.status(), &e.to_string())),
    };
    let Ok(body) = String::from_utf8(body) else {
        return Some(error_json(400, "the request body is not UTF-8 text"));
    };
    let call = &request.path["/api/".len()..];
    let (status, text) = api::handle(&shared.sessions, call, &body);
    Some(Response::new(status, JSON, text))
}
