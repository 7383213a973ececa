//! Engine processes: spawning with piped stdin/stdout, a writer thread and
//! a reader thread per engine (so neither a full pipe nor a silent engine
//! can block the runner, and reads time out), and a registry of every
//! child the runner started, which kills what is left when it is dropped.
//!
//! Children stay in the runner's process group (no `process_group(0)`), so
//! a Ctrl-C at the terminal, which signals the whole foreground group,
//! stops the engines together with the runner. A child whose runner died
//! otherwise sees its stdin close, which protocol engines take as `quit`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest line kept from an engine; the rest of a longer line is dropped.
pub const MAX_LINE: usize = 16 * 1024;

/// How many error lines are kept between two `take_errors`.
const MAX_ERRORS: usize = 20;

/// How long a process gets to exit after `quit` before it is killed.
const QUIT_WAIT: Duration = Duration::from_millis(200);

/// Every child process the runner started and has not yet reaped.
#[derive(Default)]
pub struct Registry {
    children: Mutex<HashMap<u64, Child>>,
    next: AtomicU64,
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Child>> {
        self.children.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn insert(&self, child: Child) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(id, child);
        id
    }

    /// How many children are still registered.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Kills and reaps one child.
    pub fn kill(&self, id: u64) {
        if let Some(mut child) = self.lock().remove(&id) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Waits up to `wait` for a child to exit by itself; kills it after.
    pub fn reap(&self, id: u64, wait: Duration) {
        let end = Instant::now() + wait;
        loop {
            let exited = match self.lock().get_mut(&id) {
                None => return,
                Some(child) => !matches!(child.try_wait(), Ok(None)),
            };
            if exited || Instant::now() >= end {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        self.kill(id);
    }

    /// The exit status, waiting up to `wait` for it; `None` if running.
    pub fn exit_status(&self, id: u64, wait: Duration) -> Option<ExitStatus> {
        let end = Instant::now() + wait;
        loop {
            if let Some(child) = self.lock().get_mut(&id) {
                if let Ok(Some(status)) = child.try_wait() {
                    return Some(status);
                }
            } else {
                return None;
            }
            if Instant::now() >= end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Kills every child still registered.
    pub fn kill_all(&self) {
        let children: Vec<Child> = self.lock().drain().map(|(_, c)| c).collect();
        for mut child in children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.kill_all();
    }
}

/// What came from an engine's stdout.
#[derive(Debug)]
enum Event {
    /// A line (lossy UTF-8, without the line end) and when it arrived.
    Line(String, Instant),
    /// Stdout closed: the engine exited or hung up.
    Eof,
}

/// Why talking to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// It is gone (exited or closed its output); the text says how.
    Gone(String),
    /// Nothing suitable arrived before the deadline.
    Timeout,
}

/// A running engine.
pub struct EngineProcess {
    id: u64,
    registry: Arc<Registry>,
    /// Lines for the writer thread; dropping it closes the engine's stdin.
    input: Option<Sender<String>>,
    events: Receiver<Event>,
    gone: bool,
    pid: u32,
    /// Error lines not yet taken by [`EngineProcess::take_errors`].
    errors: Vec<String>,
    /// `id name` from the handshake.
    pub id_name: Option<String>,
    /// Option names the engine listed in answer to `uci`.
    pub advertised: Vec<String>,
}

impl EngineProcess {
    /// Starts the program `cmd` with `args` in `dir` (no handshake yet).
    pub fn spawn(
        cmd: &Path,
        args: &[String],
        dir: Option<&Path>,
        registry: &Arc<Registry>,
    ) -> std::io::Result<EngineProcess> {
        let mut command = Command::new(cmd);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let mut child = command.spawn()?;
        let pid = child.id();
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(std::io::Error::other("no pipes to the engine"));
            }
        };
        let id = registry.insert(child);
        let (input, lines) = mpsc::channel();
        let (events_tx, events) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("engine-writer".into())
            .spawn(move || write_lines(stdin, lines))
            .and_then(|_| {
                std::thread::Builder::new()
                    .name("engine-reader".into())
                    .spawn(move || read_lines(stdout, events_tx))
            });
        if let Err(e) = spawned {
            registry.kill(id);
            return Err(e);
        }
        Ok(EngineProcess {
            id,
            registry: Arc::clone(registry),
            input: Some(input),
            events,
            gone: false,
            pid,
            errors: Vec::new(),
            id_name: None,
            advertised: Vec::new(),
        })
    }

    /// The operating system's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Queues a line for the engine (never blocks).
    pub fn send(&mut self, line: &str) {
        if let Some(input) = &self.input {
            let _ = input.send(format!("{line}\n"));
        }
    }

    /// The next line before `deadline`, with its arrival time.
    pub fn recv(&mut self, deadline: Instant) -> Result<(String, Instant), Failure> {
        if self.gone {
            return Err(Failure::Gone(self.how_gone()));
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.events.recv_timeout(wait) {
            Ok(Event::Line(line, at)) => {
                self.note(&line);
                Ok((line, at))
            }
            Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.gone = true;
                Err(Failure::Gone(self.how_gone()))
            }
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout),
        }
    }

    /// Throws away lines already received (left over from a previous
    /// command); fails if the engine has gone meanwhile.
    pub fn drain(&mut self) -> Result<(), Failure> {
        loop {
            match self.events.try_recv() {
                Ok(Event::Line(line, _)) => self.note(&line),
                Ok(Event::Eof) | Err(mpsc::TryRecvError::Disconnected) => {
                    self.gone = true;
                    return Err(Failure::Gone(self.how_gone()));
                }
                Err(mpsc::TryRecvError::Empty) => return Ok(()),
            }
        }
    }

    /// Keeps an `info string error ...` line: an engine that refuses a
    /// command says so this way (and may then play from a position it was
    /// not given), which is worth recording even when nothing else fails.
    /// Sanmill refuses an option with `info string unsupported setoption`.
    fn note(&mut self, line: &str) {
        let refused = line.starts_with("info string error")
            || line.starts_with("info string unsupported setoption");
        if refused && self.errors.len() < MAX_ERRORS {
            let mut text: String = line.chars().take(160).collect();
            if text.len() < line.len() {
                text.push('…');
            }
            self.errors.push(text);
        }
    }

    /// The error lines noted since the last call.
    pub fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }

    /// Reads lines until one whose first word is `word`, or the deadline.
    pub fn wait_for(&mut self, word: &str, deadline: Instant) -> Result<String, Failure> {
        loop {
            let (line, _) = self.recv(deadline)?;
            if line.split_whitespace().next() == Some(word) {
                return Ok(line);
            }
        }
    }

    /// `hello` ... `done` (`uci` ... `uciok`, GBGP's `gbgp` ... `gbgpok`),
    /// noting `id name` and the listed options.
    pub fn handshake(
        &mut self,
        timeout: Duration,
        (hello, done): (&str, &str),
    ) -> Result<(), Failure> {
        let deadline = Instant::now() + timeout;
        self.send(hello);
        loop {
            let (line, _) = self.recv(deadline)?;
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some(w), _) if w == done => return Ok(()),
                (Some("id"), Some("name")) => {
                    let name = words.collect::<Vec<_>>().join(" ");
                    if !name.is_empty() {
                        self.id_name = Some(name);
                    }
                }
                (Some("option"), Some("name")) => {
                    let rest: Vec<&str> = words.take_while(|w| *w != "type").collect();
                    self.advertised.push(rest.join(" "));
                }
                _ => {}
            }
        }
    }

    /// `isready` ... `readyok`.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), Failure> {
        self.send("isready");
        self.wait_for("readyok", Instant::now() + timeout)
            .map(|_| ())
    }

    /// How the engine went: its exit status if it has one.
    fn how_gone(&self) -> String {
        match self
            .registry
            .exit_status(self.id, Duration::from_millis(200))
        {
            Some(status) => format!("the engine exited ({status})"),
            None => "the engine closed its output".to_string(),
        }
    }

    /// Kills the process now (after a fault: its state is unknown).
    pub fn kill(mut self) {
        self.input = None;
        self.registry.kill(self.id);
        self.gone = true;
    }
}

impl Drop for EngineProcess {
    /// A healthy engine is asked to `quit` and given a moment; anything
    /// still running is then killed and reaped.
    fn drop(&mut self) {
        if self.gone {
            self.registry.kill(self.id);
            return;
        }
        self.send("quit");
        self.input = None;
        self.registry.reap(self.id, QUIT_WAIT);
    }
}

fn write_lines(mut stdin: ChildStdin, lines: Receiver<String>) {
    for line in lines {
        if stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.flush())
            .is_err()
        {
            return;
        }
    }
}

fn read_lines(stdout: impl Read, events: Sender<Event>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut buf = Vec::with_capacity(256);
    loop {
        match read_capped_line(&mut reader, &mut buf) {
            Ok(true) => {
                let at = Instant::now();
                let text = String::from_utf8_lossy(&buf);
                let line = text.trim_end_matches(['\r', '\n']).to_string();
                if events.send(Event::Line(line, at)).is_err() {
                    return;
                }
            }
            Ok(false) | Err(_) => {
                let _ = events.send(Event::Eof);
                return;
            }
        }
    }
}

/// Reads one line into `buf`, keeping at most [`MAX_LINE`] bytes of it;
/// `Ok(false)` at end of input.
fn read_capped_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    buf.clear();
    let mut any = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(any);
        }
        any = true;
        let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = MAX_LINE.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        reader.consume(take);
        if end {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    fn running(pid: u32) -> bool {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    }

    /// `sleep` reads no input and ignores `quit`: only a kill ends it.
    #[cfg(target_os = "linux")]
    fn sleeper(registry: &Arc<Registry>) -> EngineProcess {
        EngineProcess::spawn(Path::new("sleep"), &["30".into()], None, registry)
            .expect("sleep starts")
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn every_child_is_killed() {
        let registry = Arc::new(Registry::new());
        let dropped = sleeper(&registry);
        let pid = dropped.pid();
        assert!(running(pid));
        drop(dropped);
        assert!(!running(pid), "dropping the engine kills it");

        let kept = sleeper(&registry);
        let mut timed_out = sleeper(&registry);
        assert_eq!(
            timed_out.recv(Instant::now() + Duration::from_millis(20)),
            Err(Failure::Timeout)
        );
        let pids = [kept.pid(), timed_out.pid()];
        assert_eq!(registry.len(), 2);
        registry.kill_all();
        assert!(registry.is_empty());
        assert!(
            pids.iter().all(|&p| !running(p)),
            "the registry kills the rest"
        );
    }

    #[test]
    fn long_lines_are_capped_and_split_at_newlines() {
        let mut data = vec![b'x'; MAX_LINE * 3];
        data.extend_from_slice(b"\nbestmove d6\r\nlast");
        let mut reader = BufReader::with_capacity(1000, &data[..]);
        let mut buf = Vec::new();
        assert!(read_capped_line(&mut reader, &mut buf).expect("read"));
        assert_eq!(buf.len(), MAX_LINE);
        assert!(read_capped_line(&mut reader, &mut buf).expect("read"));
        assert_eq!(buf, b"bestmove d6\r\n");
        assert!(read_capped_line(&mut reader, &mut buf).expect("read"));
        assert_eq!(buf, b"last");
        assert!(!read_capped_line(&mut reader, &mut buf).expect("read"));
    }
}
