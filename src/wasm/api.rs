//! The web board's JSON API inside the module: the page served as static
//! files (`target/web/`, protocol.md §13) talks to the engine's worker
//! with the calls `mulino gui` answers over HTTP, and the same code
//! answers them ([`crate::web::api`] over [`crate::web::sessions`]).
//!
//! The host calls [`mulino_api_init`] once instead of `mulino_init`, then
//! hands in the requests as they come, in pieces of any size
//! ([`super::mulino_buffer`], then [`mulino_api_input`]). A request is a
//! line: `ID CALL BODY`, `ID` a token of the page's (digits, say), `CALL`
//! the API call's name and `BODY` its JSON object (may be left out). Its
//! answer is a line on stdout: `ID STATUS JSON`, the HTTP status and the
//! JSON text that `mulino gui` would send.
//!
//! A search does not run inside the call that starts it (`go`): the call
//! is answered first, the search runs next, below the host's call into
//! the module, and its stop checks hand in what came meanwhile through
//! the host's `poll` (as [`super`] does for protocol lines). While it
//! runs, `state` (the page polls it) and `session` are answered at once;
//! any other call stops the search and is answered when it has ended,
//! as the call would be natively: it waits for the search thread to stop
//! ([`crate::web::api::handle_after_search`]). So a module runs one
//! search at a time; a page's worker holds one page's game.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::io::Write;

use crate::engine::Running;
use crate::web::api;
use crate::web::sessions::{Sessions, lock_session};

/// The longest request line read: `mulino gui`'s largest body and room
/// for the id and the call; a longer one is answered 413, unread.
const MAX_REQUEST: usize = 256 * 1024 + 256;

/// A request, read from its line.
struct Request {
    id: String,
    call: String,
    body: String,
}

/// Everything between two calls from the host.
#[derive(Default)]
struct Driver {
    sessions: Sessions,
    /// Input handed in and not yet read.
    unread: Vec<u8>,
    /// The start of a line beyond [`MAX_REQUEST`], skipped to its end
    /// (its id is answered).
    too_long: Option<Vec<u8>>,
    /// The search the last call started, and its session, to run before
    /// the next line is read.
    job: Option<(String, Running)>,
    /// Calls that came while a search ran, to answer once it has ended.
    waiting: VecDeque<Request>,
}

thread_local! {
    static DRIVER: RefCell<Driver> = RefCell::new(Driver::default());
    /// A search runs below the host's current call.
    static IN_JOB: Cell<bool> = const { Cell::new(false) };
    /// The session whose search that is.
    static RUNNING: RefCell<Option<String>> = const { RefCell::new(None) };
}

impl Driver {
    /// Reads the whole lines handed in, until one starts a search (the
    /// rest is read while it runs).
    fn read(&mut self) {
        loop {
            if self.job.is_some() && !IN_JOB.get() {
                return;
            }
            let Some(newline) = self.unread.iter().position(|&b| b == b'\n') else {
                if self.too_long.is_none() && self.unread.len() > MAX_REQUEST {
                    self.too_long = Some(self.unread[..64].to_vec());
                }
                if self.too_long.is_some() {
                    self.unread.clear();
                }
                return;
            };
            let line: Vec<u8> = self.unread.drain(..=newline).collect();
            match self.too_long.take() {
                Some(start) => self.refuse_too_long(&start),
                None if line.len() > MAX_REQUEST => self.refuse_too_long(&line),
                None => self.line(&line),
            }
        }
    }

    fn refuse_too_long(&self, start: &[u8]) {
        let start = String::from_utf8_lossy(start);
        let id = start.split_ascii_whitespace().next().unwrap_or("0");
        let body = api::error_body("the request is too large", "bad_request");
        reply(id, 413, &body);
    }

    /// One request line: answered now, or after the search.
    fn line(&mut self, line: &[u8]) {
        let line = String::from_utf8_lossy(line);
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let (id, rest) = line.split_once(' ').unwrap_or((line, ""));
        let (call, body) = rest.trim_start().split_once(' ').unwrap_or((rest, ""));
        let request = Request {
            id: id.to_string(),
            call: call.to_string(),
            body: body.to_string(),
        };
        if IN_JOB.get() && !matches!(call, "state" | "session") {
            // Natively the call would stop the search and wait for it.
            if let Some(running) = RUNNING.with_borrow(Clone::clone) {
                self.stop(&running);
            }
            self.waiting.push_back(request);
            return;
        }
        self.answer(request, false);
    }

    /// Asks the search of session `id` to stop.
    fn stop(&self, id: &str) {
        if let Some(s) = self.sessions.get(id) {
            lock_session(&s).engine().stop();
        }
    }

    /// Answers a call, and keeps the search it starts.
    fn answer(&mut self, r: Request, after_search: bool) {
        let (status, text) = if after_search {
            api::handle_after_search(&self.sessions, &r.call, &r.body)
        } else {
            api::handle(&self.sessions, &r.call, &r.body)
        };
        reply(&r.id, status, &text);
        if let Some(job) = self.sessions.take_job() {
            self.job = Some(job);
        }
    }

    /// After a search: the calls that waited for it, in order, until one
    /// starts another; then the input after them.
    fn after_job(&mut self) {
        while self.job.is_none() {
            let Some(request) = self.waiting.pop_front() else {
                break;
            };
            self.answer(request, true);
        }
        self.read();
    }
}

/// One answer line on stdout.
fn reply(id: &str, status: u16, json: &str) {
    let mut out = std::io::stdout().lock();
    // Nobody is left to tell when stdout fails.
    let _ = writeln!(out, "{id} {status} {json}");
    let _ = out.flush();
}

/// Runs the searches the calls start, one after the other, and reads the
/// input between them; unless a search runs already below this call
/// (then what was handed in is read at once, and that search goes on).
fn run() {
    DRIVER.with_borrow_mut(Driver::read);
    if IN_JOB.get() {
        return;
    }
    while let Some((id, job)) = DRIVER.with_borrow_mut(|d| d.job.take()) {
        // Calls that waited for the last search wait for this one too,
        // and would stop it natively.
        DRIVER.with_borrow(|d| {
            if !d.waiting.is_empty() {
                d.stop(&id);
            }
        });
        RUNNING.set(Some(id));
        IN_JOB.set(true);
        job();
        IN_JOB.set(false);
        RUNNING.set(None);
        DRIVER.with_borrow_mut(Driver::after_job);
    }
}

/// What the stop checks call: the whole lines not yet read, then what the
/// host has for the module.
fn poll(wait_ms: u32) {
    if !IN_JOB.get() {
        return;
    }
    let wait_ms = DRIVER.with(|d| match d.try_borrow_mut() {
        Ok(mut d) => {
            let had = d.unread.contains(&b'\n');
            d.read();
            Some(if had { 0 } else { wait_ms })
        }
        Err(_) => None,
    });
    if let Some(wait_ms) = wait_ms {
        // SAFETY: the host's `poll` takes a number; what it hands in
        // comes through the exports, whose borrows are checked.
        unsafe { super::host_poll(wait_ms) }
    }
}

/// Starts the module as the web board's engine: the stop checks' hook.
#[unsafe(no_mangle)]
pub extern "C" fn mulino_api_init() {
    crate::host::set_poll_hook(poll);
    super::tb::install();
}

/// Takes the `len` bytes of requests the host wrote at
/// [`super::mulino_buffer`]: whole lines are answered, the rest kept for
/// the next call.
#[unsafe(no_mangle)]
pub extern "C" fn mulino_api_input(len: usize) {
    let bytes = super::BUFFER.with_borrow(|b| b[..len.min(b.len())].to_vec());
    DRIVER.with_borrow_mut(|d| d.unread.extend(bytes));
    run();
}
