//! The WebAssembly module's entry points: the protocol, exactly as the
//! binary speaks it, over input that the JavaScript host hands in
//! (`target/web/mulino-worker.mjs`; protocol.md, §13).
//!
//! The host calls [`mulino_init`] once, then hands in the input as it
//! comes, in pieces of any size ([`mulino_buffer`], then
//! [`mulino_input`]), and says when it ended ([`mulino_end`]). Output goes
//! to stdout (WASI `fd_write`), a line at a time.
//!
//! There is one thread. A search or perft is not run by the command that
//! asks for it: the engine keeps it ([`Engine::take_job`]) and the driver
//! here runs it as soon as that command is done, before it reads the next
//! line, as the native search thread starts while its loop reads on.
//! While it runs, every stop check calls [`crate::host::poll`]: the
//! driver reads the rest of the input it had, then the host's `poll`
//! import hands in what came meanwhile (through [`mulino_input`] again).
//! The session takes those lines as the native loop does while its search
//! thread runs: `isready` answered, `stop` and `ponderhit` taken, the
//! rest carried out or waiting in its queue.
//!
//! [`Engine::take_job`]: crate::engine::Engine::take_job

use std::cell::{Cell, RefCell};
use std::sync::mpsc::{Receiver, channel};

mod api;
mod tb;

use crate::engine::{Engine, Running};
use crate::protocol::line::{Dialect, Event, Flow, MAX_LINE, Out};
use crate::protocol::{gbgp, uci};

#[link(wasm_import_module = "mulino")]
unsafe extern "C" {
    /// Hands in (through [`mulino_input`] or [`mulino_end`]) what came
    /// since the last call, waiting at most `wait_ms` for something when
    /// nothing has.
    #[link_name = "poll"]
    fn host_poll(wait_ms: u32);
}

/// The session, once the first line has chosen its dialect.
enum Active {
    Uci(uci::Session, Receiver<Event>),
    Gbgp(gbgp::Session),
}

impl Active {
    fn dialect(&mut self) -> &mut dyn Dialect {
        match self {
            Active::Uci(s, _) => s,
            Active::Gbgp(s) => s,
        }
    }

    fn engine(&self) -> &Engine {
        match self {
            Active::Uci(s, _) => s.engine(),
            Active::Gbgp(s) => s.engine(),
        }
    }
}

/// Everything between two calls from the host.
#[derive(Default)]
struct Driver {
    active: Option<Active>,
    /// Input handed in and not yet read.
    unread: std::collections::VecDeque<u8>,
    /// The line read so far.
    line: Vec<u8>,
    /// The length so far of a line beyond [`MAX_LINE`] (0: none).
    too_long: usize,
    /// The job the last line started, to run before the next is read.
    job: Option<Running>,
    /// End of input has come (it is read after the input before it).
    ended: bool,
    /// The session is over (`quit`, or the end of input carried out): the
    /// host may exit.
    over: bool,
}

thread_local! {
    static DRIVER: RefCell<Driver> = RefCell::new(Driver::default());
    /// A job runs below the host's current call: the input handed in now
    /// is read at once, and the job goes on afterwards.
    static IN_JOB: Cell<bool> = const { Cell::new(false) };
    /// Where the host writes input for [`mulino_input`].
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl Driver {
    /// One event, as the native loop (`protocol::line::serve`) handles it.
    fn event(&mut self, event: Event) {
        if self.over {
            return;
        }
        let out = Out::stdout();
        let active = match &mut self.active {
            Some(active) => active,
            // The first line that is not blank chooses the dialect
            // (`protocol::run`).
            None => match &event {
                Event::Line(l) if l.trim_ascii().is_empty() => return,
                Event::Line(l) if l.trim_ascii().eq_ignore_ascii_case(b"gbgp") => {
                    let session = gbgp::Session::new(out);
                    session.handshake();
                    self.active = Some(Active::Gbgp(session));
                    return;
                }
                _ => {
                    let (tx, rx) = channel();
                    let mut session = uci::Session::new(out.clone());
                    session.wake_with(tx);
                    self.active.insert(Active::Uci(session, rx))
                }
            },
        };
        let flow = match event {
            Event::End if IN_JOB.get() => {
                // The job below must end before `finish`, which comes
                // when it has.
                active.dialect().stop_open_ended();
                Flow::Continue
            }
            Event::End => {
                active.dialect().finish();
                self.over = true;
                Flow::Continue
            }
            Event::TooLong(len) => {
                out.error(&format!(
                    "line of {len} bytes is too long (limit {MAX_LINE})"
                ));
                Flow::Continue
            }
            Event::Line(bytes) => active.dialect().handle_bytes(&bytes),
            Event::Idle => active.dialect().resume(),
        };
        if flow == Flow::Quit {
            active.dialect().quit();
            self.over = true;
        }
        // A search or perft started: it runs before the next line is read,
        // as the native one starts while its loop reads on.
        if let Some(job) = self.active.as_ref().and_then(|a| a.engine().take_job()) {
            self.job = Some(job);
        }
    }

    /// Reads the input, a line at a time as `protocol::line::read_line`
    /// splits it, until a line starts a job; then the end of input.
    fn read(&mut self) {
        while !self.over && self.job.is_none() {
            let Some(newline) = self.unread.iter().position(|&b| b == b'\n') else {
                let rest: Vec<u8> = self.unread.drain(..).collect();
                self.take(&rest);
                if self.ended {
                    if !self.line.is_empty() || self.too_long > 0 {
                        self.end_line();
                        continue;
                    }
                    self.event(Event::End);
                }
                return;
            };
            let line: Vec<u8> = self.unread.drain(..=newline).collect();
            self.take(&line);
            self.end_line();
        }
    }

    /// Bytes of the line being read, a line beyond [`MAX_LINE`] counted.
    fn take(&mut self, bytes: &[u8]) {
        if self.too_long == 0 && self.line.len() + bytes.len() <= MAX_LINE {
            self.line.extend_from_slice(bytes);
        } else {
            self.too_long = self.too_long.max(self.line.len()) + bytes.len();
            self.line.clear();
        }
    }

    /// The line read so far, as an event.
    fn end_line(&mut self) {
        let event = if self.too_long > 0 {
            Event::TooLong(std::mem::take(&mut self.too_long))
        } else {
            Event::Line(std::mem::take(&mut self.line))
        };
        self.event(event);
    }

    /// After a job: the lines that waited for it, then the input after.
    fn after_job(&mut self) {
        if let Some(Active::Uci(_, idle)) = &self.active {
            let events: Vec<Event> = idle.try_iter().collect();
            for event in events {
                self.event(event);
            }
        }
        self.read();
    }
}

/// Runs the jobs the lines start, one after the other, and reads the
/// input between them; unless a job runs already below this call (then
/// what was handed in is read at once, and that job goes on).
fn run() {
    if IN_JOB.get() {
        DRIVER.with_borrow_mut(Driver::read);
        return;
    }
    DRIVER.with_borrow_mut(Driver::read);
    while let Some(job) = DRIVER.with_borrow_mut(|d| d.job.take()) {
        IN_JOB.set(true);
        job();
        IN_JOB.set(false);
        DRIVER.with_borrow_mut(Driver::after_job);
    }
}

/// What the stop checks call: the input not yet read, then what the host
/// has for it; unless the session is busy below (`bench`, or a job that a
/// command runs to its end, as after `quit`): natively its loop would not
/// read either.
fn poll(wait_ms: u32) {
    if !IN_JOB.get() {
        return;
    }
    let ask = DRIVER.with(|d| match d.try_borrow_mut() {
        Ok(mut d) if !d.over => {
            let had = d.unread.len();
            d.read();
            // Having read, it does not wait: `stop` may be among it.
            (!d.over && !d.ended).then_some(if had > 0 { 0 } else { wait_ms })
        }
        _ => None,
    });
    if let Some(wait_ms) = ask {
        // SAFETY: the host's `poll` takes a number; what it hands in
        // comes through the exports below, whose borrows are checked.
        unsafe { host_poll(wait_ms) }
    }
}

/// Whether the session is over (1) or goes on (0).
fn over() -> u32 {
    DRIVER.with_borrow(|d| d.over as u32)
}

/// Starts the module: the stop checks' hook, and the greeting when a
/// person types at a terminal (`terminal` not 0), as the binary's.
#[unsafe(no_mangle)]
pub extern "C" fn mulino_init(terminal: u32) {
    crate::host::set_poll_hook(poll);
    tb::install();
    if terminal != 0 {
        println!("{}", crate::protocol::greeting());
    }
}

/// Where the host writes the next `len` bytes of input, valid until the
/// next call into the module.
#[unsafe(no_mangle)]
pub extern "C" fn mulino_buffer(len: usize) -> *mut u8 {
    BUFFER.with_borrow_mut(|b| {
        b.clear();
        b.resize(len, 0);
        b.as_mut_ptr()
    })
}

/// Takes the `len` bytes of input the host wrote at [`mulino_buffer`]:
/// whole lines are carried out, the rest kept for the next call. Returns
/// 1 once the session is over (`quit`), else 0.
#[unsafe(no_mangle)]
pub extern "C" fn mulino_input(len: usize) -> u32 {
    let bytes = BUFFER.with_borrow(|b| b[..len.min(b.len())].to_vec());
    DRIVER.with_borrow_mut(|d| d.unread.extend(bytes));
    run();
    over()
}

/// End of input: a line without its newline is carried out, a search
/// that only `stop` ends is stopped, the rest finishes. Returns 1 once
/// the session is over (at once, unless a job runs below this call).
#[unsafe(no_mangle)]
pub extern "C" fn mulino_end() -> u32 {
    DRIVER.with_borrow_mut(|d| d.ended = true);
    run();
    over()
}

/// One protocol command given on the command line (`mulino perft 4`), in
/// the `len` bytes at [`mulino_buffer`]: carried out to its end, as the
/// binary does. Returns the exit status: 1 if refused (the error on
/// stderr), else 0.
#[unsafe(no_mangle)]
pub extern "C" fn mulino_once(len: usize) -> u32 {
    let bytes = BUFFER.with_borrow(|b| b[..len.min(b.len())].to_vec());
    let line = String::from_utf8_lossy(&bytes);
    match crate::protocol::run_once(&line, Out::stdout()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("mulino: {e}");
            1
        }
    }
}
