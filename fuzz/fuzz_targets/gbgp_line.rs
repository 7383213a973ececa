//! GBGP: every line through its command parser, every `position pos`
//! string through its position reader under every preset's rules (a
//! position it reads must pass `mulino_fuzz::check_position`), then the
//! lines through a `protocol::gbgp::Session`.
//!
//! The session gets a `go` only with `depth` 1 or 2 (a bare `go` searches
//! until `stop`), and no `newgame` (which clears the 64 MB hash table,
//! GBGP having no option to shrink it); one session serves every input,
//! each input starting from `TwelveMensMorris false` and the start
//! position.

#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use mulino::protocol::Out;
use mulino::protocol::gbgp::Session;
use mulino::protocol::gbgp::command::{Command, Start};
use mulino::protocol::gbgp::fen;
use mulino::protocol::line::{Dialect, Flow};

thread_local! {
    static SESSION: RefCell<Session> =
        RefCell::new(Session::new(Out::new(Box::new(std::io::sink()))));
}

fuzz_target!(|data: &[u8]| {
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').take(64).collect();
    let mut allowed = Vec::with_capacity(lines.len());
    for raw in &lines {
        let text = String::from_utf8_lossy(raw);
        let command = text.trim_end_matches(['\r', '\n']).parse::<Command>();
        if let Ok(Command::Position {
            start: Start::Pos(p),
            ..
        }) = &command
        {
            for (_, rules) in mulino_fuzz::variants() {
                if let Ok(pos) = fen::parse(p, &rules) {
                    mulino_fuzz::check_position(&pos, &rules);
                }
            }
        }
        allowed.push(match command {
            Ok(Command::Go(go)) => matches!(go.depth, Some(1..=2)),
            Ok(Command::NewGame) => false,
            _ => true,
        });
    }
    SESSION.with(|s| {
        let mut s = s.borrow_mut();
        for reset in [
            "stop",
            "setoption name TwelveMensMorris value false",
            "position startpos",
        ] {
            s.handle_bytes(reset.as_bytes());
        }
        Dialect::finish(&mut *s);
        for (raw, ok) in lines.into_iter().zip(allowed) {
            if !ok {
                continue;
            }
            let flow = s.handle_bytes(raw);
            // A search answers before the next line, as a GUI waits for it.
            Dialect::finish(&mut *s);
            if flow == Flow::Quit {
                break;
            }
        }
    });
});
