//! Drives the built `mulino` binary over its stdin and stdout for the
//! protocol, search and database tests (the test binaries `protocol`,
//! `search` and `tb`, each with `#[path = "../common/mod.rs"] mod
//! common;`): send lines, read lines until one matches, with timeouts
//! generous enough for a slow, busy machine; and the protocol tests'
//! shared checks (a refused line changes nothing, the engine is still
//! healthy).
//!
//! With `MULINO_ENGINE` set (a command line, split at spaces: `node
//! target/web/mulino.mjs`), the engine run is that command instead of the
//! built binary: the protocol tests then check the WebAssembly engine,
//! and those that need what only the binary has skip themselves
//! ([`native_only`]).

// Each test binary uses a different part of this helper.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long any one reply may take. Generous: a debug build on a loaded
/// 2-core machine can stall for seconds.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The path of the binary Cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_mulino");

/// The engine's command line from `MULINO_ENGINE`, if set (not empty).
pub fn engine_override() -> Option<String> {
    std::env::var("MULINO_ENGINE")
        .ok()
        .filter(|c| !c.trim().is_empty())
}

/// The command that runs the engine: [`BIN`], or `MULINO_ENGINE`'s.
pub fn engine_command() -> Command {
    match engine_override() {
        None => Command::new(BIN),
        Some(line) => {
            let mut words = line.split_whitespace();
            let mut command = Command::new(words.next().expect("a command"));
            command.args(words);
            command
        }
    }
}

/// Whether the engine is `MULINO_ENGINE`'s rather than the binary: a test
/// of what only the binary has calls this first and returns if it says
/// so, after saying why on stderr.
pub fn native_only(why: &str) -> bool {
    let skip = engine_override().is_some();
    if skip {
        eprintln!("skipped under MULINO_ENGINE: {why}");
    }
    skip
}

/// A running engine. Dropping it kills the process if it is still alive.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line read so far, for failure messages.
    seen: Vec<String>,
}

impl Engine {
    /// Starts the engine in protocol mode.
    pub fn spawn() -> Engine {
        Engine::spawn_command(engine_command())
    }

    /// Starts the engine by `command` (one that ends by running [`BIN`],
    /// as a shell that sets a limit first), its input and output piped.
    pub fn spawn_command(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf)
                            .trim_end_matches(['\r', '\n'])
                            .to_string();
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Sends one line (a newline is added).
    pub fn send(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_raw(&bytes);
    }

    /// Sends bytes exactly as given.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to the engine: {e}; it said {:?}", self.seen));
    }

    /// Closes the engine's input (end of file).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` if none came within `timeout` or the
    /// engine closed its output.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.seen.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Lines up to and including the first one that satisfies `done`,
    /// waiting at most `timeout` in all; panics otherwise.
    pub fn read_until_within(
        &mut self,
        timeout: Duration,
        done: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let stop = done(&line);
                    got.push(line);
                    if stop {
                        return got;
                    }
                }
                None => panic!(
                    "no expected line within {timeout:?} (or the engine closed its output); \
                     lines since the request: {got:?}"
                ),
            }
        }
    }

    /// [`Engine::read_until_within`] with the generous default timeout.
    pub fn read_until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.read_until_within(TIMEOUT, done)
    }

    /// Sends `isready` and returns the lines that came before `readyok`:
    /// everything the engine said in answer to what was sent before.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.read_until(|l| l == "readyok");
        lines.pop();
        lines
    }

    /// Sends `line` and returns all it answered (up to the next `isready`).
    pub fn ask(&mut self, line: &str) -> Vec<String> {
        self.send(line);
        self.sync()
    }

    /// Points the engine at the databases in `dir` and waits until it has
    /// checked them: every line it said, the last one the notice that the
    /// check is over (or the error that none could be used).
    pub fn use_tablebases(&mut self, dir: &std::path::Path) -> Vec<String> {
        self.send(&format!(
            "setoption name TablebasePath value {}",
            dir.display()
        ));
        self.read_until(|l| {
            let none_used = [
                "no such directory",
                "no database files",
                "have no databases",
            ]
            .iter()
            .any(|why| l.contains(why));
            l.contains("files checked")
                || l.contains("tables packed at")
                || (l.contains("error: TablebasePath") && none_used)
        })
    }

    /// The `d` command's whole answer.
    pub fn display(&mut self) -> Vec<String> {
        self.send("d");
        self.read_until(|l| l.starts_with("Legal moves: "))
    }

    /// The current FEN, from `d`.
    pub fn fen(&mut self) -> String {
        let lines = self.display();
        lines
            .iter()
            .find_map(|l| l.strip_prefix("Fen: "))
            .unwrap_or_else(|| panic!("no Fen line in {lines:?}"))
            .to_string()
    }

    /// The legal moves, from `moves`.
    pub fn legal_moves(&mut self) -> Vec<String> {
        let lines = self.ask("moves");
        assert_eq!(lines.len(), 1, "`moves` answers one line: {lines:?}");
        lines[0].split_whitespace().map(str::to_string).collect()
    }

    /// Sends `go <params>` and returns the lines up to and including
    /// `bestmove`.
    pub fn go(&mut self, params: &str) -> Vec<String> {
        self.send(&format!("go {params}"));
        self.read_until(|l| l.starts_with("bestmove"))
    }

    /// Waits up to `timeout` for the process to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Whether the process is still running.
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stdin = None;
        if self.is_alive() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove` line (`(none)` included).
pub fn bestmove_of(line: &str) -> &str {
    let mut words = line.split_whitespace();
    assert_eq!(
        words.next(),
        Some("bestmove"),
        "not a bestmove line: {line}"
    );
    words
        .next()
        .unwrap_or_else(|| panic!("bestmove line without a move: {line}"))
}

/// The last `info ... score` line's score: `("mate", n)` or `("cp", n)`.
pub fn last_score(lines: &[String]) -> Option<(String, i64)> {
    lines
        .iter()
        .rev()
        .filter(|l| l.starts_with("info "))
        .find_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "score")?;
            let kind = words.get(at + 1)?.to_string();
            let value = words.get(at + 2)?.parse().ok()?;
            Some((kind, value))
        })
}

/// Runs `mulino <args>` to the end (input closed), at most `timeout`;
/// returns the exit status and the output.
pub fn run_args(args: &[&str], timeout: Duration) -> (ExitStatus, String) {
    let (status, out, _) = run_args_with_stderr(args, timeout);
    (status, out)
}

/// [`run_args`], with what the program wrote on stderr too.
pub fn run_args_with_stderr(args: &[&str], timeout: Duration) -> (ExitStatus, String, String) {
    let mut child = engine_command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the engine: {e}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`mulino {}` did not finish within {timeout:?}",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = stdout.join().expect("stdout reader");
    let stderr = stderr.join().expect("stderr reader");
    (status, stdout, stderr)
}

// ---------------------------------------------------------------------
// Shared by the protocol tests
// ---------------------------------------------------------------------

/// The standard game's start position.
pub const START_FEN: &str = "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1";

/// Asserts that `input` (raw bytes, newline included) is answered with
/// exactly one `info string error:` line and leaves the position alone.
pub fn assert_refused(engine: &mut Engine, input: &[u8], fen_before: &str) {
    engine.send_raw(input);
    let reply = engine.sync();
    let shown = String::from_utf8_lossy(&input[..input.len().min(80)]).into_owned();
    assert_eq!(
        reply.len(),
        1,
        "`{shown}` should get exactly one reply line: {reply:?}"
    );
    assert!(
        reply[0].starts_with("info string error:"),
        "`{shown}` should be refused with `info string error:`, got {reply:?}"
    );
    assert_eq!(engine.fen(), fen_before, "`{shown}` changed the position");
}

/// [`assert_refused`] for a line of text.
pub fn assert_line_refused(engine: &mut Engine, line: &str, fen_before: &str) {
    assert_refused(engine, format!("{line}\n").as_bytes(), fen_before);
}

/// An engine in a position other than the start, and that position's FEN.
pub fn engine_in_play() -> (Engine, String) {
    put_in_play(Engine::spawn())
}

/// [`engine_in_play`] for an engine already started.
pub fn put_in_play(mut engine: Engine) -> (Engine, String) {
    assert!(engine.ask("position startpos moves d6 a1 d5").is_empty());
    let fen = engine.fen();
    assert_ne!(fen, START_FEN);
    (engine, fen)
}

/// After a test's garbage: the engine still answers and still runs.
pub fn assert_still_healthy(engine: &mut Engine) {
    assert!(engine.sync().is_empty(), "unexpected output before readyok");
    assert!(engine.is_alive(), "the engine died");
    // And it can still search.
    let lines = engine.go("depth 1");
    assert!(
        lines.iter().all(|l| !l.contains("error")),
        "go depth 1 failed: {lines:?}"
    );
}
