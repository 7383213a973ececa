//! The HTTP side of `mulino gui`, on tiny_http: a few worker threads take
//! requests from one listening socket; `GET` serves the page's embedded
//! files, `POST /api/<call>` goes to [`super::api`]. A janitor thread
//! stops the searches of pages that have gone away.

use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use tiny_http::{Header, Method, Request, Response};

use super::api;
use super::sessions::Sessions;

/// Threads answering requests: a search never runs on them, so a few
/// serve any number of tabs.
const WORKERS: usize = 4;
/// The largest request body read (a long game's moves fit many times).
const MAX_BODY: u64 = 256 * 1024;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot listen on {addr}: {reason}")]
    Bind { addr: String, reason: String },
    #[error("cannot start a server thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// A running server: its address, its sessions and its threads.
pub struct Gui {
    addr: SocketAddr,
    server: Arc<tiny_http::Server>,
    sessions: Arc<Sessions>,
    workers: Vec<JoinHandle<()>>,
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
        let server = tiny_http::Server::http(&addr).map_err(|e| bind(e.to_string()))?;
        let local = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| bind("not an IP socket".into()))?;
        let server = Arc::new(server);
        let sessions = Arc::new(Sessions::new());
        let mut workers = Vec::new();
        for i in 0..WORKERS {
            let server = Arc::clone(&server);
            let sessions = Arc::clone(&sessions);
            workers.push(
                std::thread::Builder::new()
                    .name(format!("gui-http-{i}"))
                    .spawn(move || {
                        while let Ok(request) = server.recv() {
                            answer(&sessions, request);
                        }
                    })?,
            );
        }
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
            server,
            sessions,
            workers,
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
    pub fn wait(self) {
        for w in self.workers {
            let _ = w.join();
        }
    }

    /// Stops accepting requests and ends the worker threads.
    pub fn shutdown(self) {
        for _ in 0..self.workers.len() {
            self.server.unblock();
        }
        for w in self.workers {
            let _ = w.join();
        }
    }
}

fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

fn respond(request: Request, status: u16, content_type: &str, body: String) {
    let mut response = Response::from_string(body).with_status_code(status);
    for h in [
        header("Content-Type", content_type),
        header("Cache-Control", "no-store"),
        header("X-Content-Type-Options", "nosniff"),
    ]
    .into_iter()
    .flatten()
    {
        response.add_header(h);
    }
    // The page has gone away: nothing to do.
    let _ = request.respond(response);
}

/// Whether the request says its body is JSON. Insisting on it makes a
/// browser ask first (CORS preflight, which this server never grants)
/// before another site's page could post to the API.
fn is_json(request: &Request) -> bool {
    request.headers().iter().any(|h| {
        h.field.equiv("Content-Type")
            && h.value
                .as_str()
                .trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
    })
}

fn answer(sessions: &Sessions, mut request: Request) {
    let url = request.url().to_string();
    let path = url.split('?').next().unwrap_or("");
    let json = "application/json; charset=utf-8";
    match (request.method(), path) {
        (Method::Get, "/" | "/index.html") => {
            respond(request, 200, "text/html; charset=utf-8", INDEX_HTML.into())
        }
        (Method::Get, "/app.js") => respond(
            request,
            200,
            "text/javascript; charset=utf-8",
            APP_JS.into(),
        ),
        (Method::Get, "/style.css") => {
            respond(request, 200, "text/css; charset=utf-8", STYLE_CSS.into())
        }
        (Method::Post, p) if p.starts_with("/api/") && !is_json(&request) => respond(
            request,
            415,
            json,
            r#"{"error":"API calls send JSON (Content-Type: application/json)","code":"bad_request"}"#
                .into(),
        ),
        (Method::Post, p) if p.starts_with("/api/") => {
            let call = p["/api/".len()..].to_string();
            let mut body = String::new();
            let read = request
                .as_reader()
                .take(MAX_BODY + 1)
                .read_to_string(&mut body);
            let (status, text) = match read {
                Err(_) => (
                    400,
                    r#"{"error":"the request body is not UTF-8 text","code":"bad_request"}"#.into(),
                ),
                Ok(n) if n as u64 > MAX_BODY => (
                    413,
                    r#"{"error":"the request is too large","code":"bad_request"}"#.into(),
                ),
                Ok(_) => api::handle(sessions, &call, &body),
            };
            respond(request, status, json, text);
        }
        (_, p) if p.starts_with("/api/") => respond(
            request,
            405,
            json,
            r#"{"error":"API calls are POST requests","code":"bad_request"}"#.into(),
        ),
        _ => respond(
            request,
            404,
            "text/plain; charset=utf-8",
            "not found\n".into(),
        ),
    }
}
