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

pub use line::Out;
pub use uci::run_once;

use line::{Read, read_line, serve};

/// Runs a session over `input` until `quit` or end of input. The first
/// command picks the dialect: `gbgp` starts a GBGP session (answering the
/// handshake), anything else is ours and is its first line. Blank lines
/// before it count for nothing.
pub fn run(input: &mut dyn BufRead, out: Out) {
    let mut buf = Vec::with_capacity(256);
    let first = loop {
        match read_line(input, &mut buf) {
            Read::Line if buf.trim_ascii().is_empty() => continue,
            other => break other,
        }
    };
    if first == Read::Line && buf.trim_ascii().eq_ignore_ascii_case(b"gbgp") {
        let mut session = gbgp::Session::new(out.clone());
        session.handshake();
        let next = read_line(input, &mut buf);
        serve(&mut session, input, &out, &mut buf, next);
    } else {
        let mut session = uci::Session::new(out.clone());
        serve(&mut session, input, &out, &mut buf, first);
    }
}
