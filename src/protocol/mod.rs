//! The text protocols, one module per dialect over the same engine API:
//! [`uci`] (ours, UCI-style; protocol.md) and [`gbgp`] (the Nine Morris 3D
//! GUI's), side by side; neither imports the other. They share the line
//! I/O in [`line`] and the token rules in [`words`]; the first command of a
//! session chooses the dialect, here and nowhere else.

pub mod gbgp;
pub mod line;
pub mod uci;
pub mod words;

use std::io::BufRead;
use std::sync::mpsc;

pub use line::Out;
pub use uci::run_once;

use line::{Event, serve, spawn_reader};

/// The one line a person at a terminal is greeted with (a program
/// driving the engine gets nothing it did not ask for).
pub fn greeting() -> String {
    format!(
        "mulino {} by the mulino developers: a Mill engine. Type `help` for the commands.",
        env!("CARGO_PKG_VERSION")
    )
}

/// Runs a session over `input` until `quit` or end of input. The first
/// command picks the dialect: `gbgp` starts a GBGP session (answering the
/// handshake), anything else is ours and is its first line. Blank lines
/// before it count for nothing.
pub fn run(input: Box<dyn BufRead + Send>, out: Out) {
    let (tx, events) = mpsc::channel();
    spawn_reader(input, tx.clone());
    let first = loop {
        match events.recv().unwrap_or(Event::End) {
            Event::Line(l) if l.trim_ascii().is_empty() => continue,
            other => break other,
        }
    };
    match first {
        Event::Line(l) if l.trim_ascii().eq_ignore_ascii_case(b"gbgp") => {
            let mut session = gbgp::Session::new(out.clone());
            session.handshake();
            serve(&mut session, &events, &out, None);
        }
        first => {
            let mut session = uci::Session::new(out.clone());
            session.wake_with(tx);
            serve(&mut session, &events, &out, Some(first));
        }
    }
}
