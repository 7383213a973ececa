//! The web board's HTTP requests: the input, as raw bytes, sent to a
//! `mulino gui` server on a loopback port (one server for every input),
//! our side of the connection then closed for writing. Whatever the bytes,
//! the server must answer with an HTTP status line (1.1, or 1.0 to a 1.0
//! request) or close without a word (hyper's way with a head that never
//! ended), and never stall: an answer within 5 s. What is behind it (the
//! `Host` and `Origin` checks, the routes, the body's limits and its JSON)
//! runs in the server's threads, whose panics end the process as the
//! fuzzer's own would (libfuzzer-sys' panic hook aborts).

#![no_main]

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use mulino::web::Gui;

/// How long an answer may take before the server counts as stalled.
const ANSWER: Duration = Duration::from_secs(5);

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let gui = Gui::start("127.0.0.1", 0).expect("a server on a loopback port");
        let addr = gui.addr();
        // It serves until the process ends.
        std::mem::forget(gui);
        addr
    })
}

fuzz_target!(|data: &[u8]| {
    let started = Instant::now();
    let mut stream = TcpStream::connect(server()).expect("connect");
    stream.set_read_timeout(Some(ANSWER)).expect("timeout");
    // The server may close (and answer) before it has read everything.
    let _ = stream.write_all(data);
    let _ = stream.shutdown(Shutdown::Write);
    let mut answer = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!(
                    "no end to the answer within {ANSWER:?} ({} bytes)",
                    answer.len()
                )
            }
            // A reset after the answer (unread data at the close).
            Err(_) => break,
        }
    }
    assert!(
        started.elapsed() < ANSWER,
        "the answer took {:?}",
        started.elapsed()
    );
    if !answer.is_empty() {
        let head = String::from_utf8_lossy(&answer[..answer.len().min(64)]).into_owned();
        let status = head
            .strip_prefix("HTTP/1.1 ")
            .or_else(|| head.strip_prefix("HTTP/1.0 "))
            .and_then(|s| s.get(..3))
            .and_then(|s| s.parse::<u16>().ok());
        assert!(
            status.is_some_and(|s| (100..600).contains(&s)),
            "not an HTTP answer: {head:?}"
        );
    }
});
