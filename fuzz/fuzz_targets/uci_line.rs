//! Our protocol: every line of the input through the command parser, then
//! the lines, in order, through a `protocol::uci::Session` as a GUI's
//! would come (replies to a sink).
//!
//! The session is kept from long work: a `go` reaches it only with
//! `depth` 1 or 2 (and no `infinite`, `ponder` or `mate`), `perft` only to
//! depth 2, `bench` never, and no `setoption` of `Hash`, `Threads` or
//! `TablebasePath` (which would allocate, start threads or read a
//! directory). One session serves every input, its hash table 1 MB; each
//! input starts from `Variant nine` and the start position, so a run
//! reproduces (only the hash table's contents carry over, which can
//! change a search's moves, never its legality).

#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use mulino::engine::EngineOption;
use mulino::protocol::Out;
use mulino::protocol::line::{Dialect, Flow};
use mulino::protocol::uci::{Command, Session};

thread_local! {
    static SESSION: RefCell<Session> = RefCell::new({
        let mut s = Session::new(Out::new(Box::new(std::io::sink())));
        s.try_line("setoption name Hash value 1").expect("a 1 MB hash");
        s
    });
}

/// Whether the session may be given this line: short work only.
fn allowed(line: &str) -> bool {
    let line = line.trim_end_matches(['\r', '\n']);
    match line.parse::<Command>() {
        Ok(Command::Go(p)) => {
            matches!(p.depth, Some(1..=2)) && !p.infinite && !p.ponder && p.mate.is_none()
        }
        Ok(Command::Perft(depth)) => depth <= 2,
        Ok(Command::Bench(_)) => false,
        Ok(Command::SetOption { name, .. }) => !matches!(
            EngineOption::from_name(&name),
            Some(EngineOption::Hash | EngineOption::Threads | EngineOption::TablebasePath)
        ),
        _ => true,
    }
}

fuzz_target!(|data: &[u8]| {
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').take(64).collect();
    for raw in &lines {
        let _ = String::from_utf8_lossy(raw).parse::<Command>();
    }
    SESSION.with(|s| {
        let mut s = s.borrow_mut();
        for reset in [
            "stop",
            "setoption name Variant value nine",
            "position startpos",
        ] {
            s.handle_line(reset);
        }
        Dialect::finish(&mut *s);
        for raw in lines {
            if let Ok(text) = std::str::from_utf8(raw) {
                if !allowed(text) {
                    continue;
                }
            }
            if s.handle_bytes(raw) == Flow::Quit {
                break;
            }
        }
        Dialect::finish(&mut *s);
    });
});
