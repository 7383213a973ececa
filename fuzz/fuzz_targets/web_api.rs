//! The web board's JSON API (`mulino gui`'s `POST /api/CALL`), as
//! `web::api::handle` answers it: each line of the input is one call, its
//! name, a space, and its body, with `$S` standing for the session id
//! (which the fuzzer cannot guess). A `session` call that makes a session
//! makes its id the one `$S` stands for from then on.
//!
//! Every call must answer a JSON object: 200 with the whole state (its
//! `session`, `fen` and `legal` moves), or a 4xx with `error` and `code`;
//! nothing else. A `go` runs on the session's own thread while later
//! calls come; every search is stopped before the next input.
//!
//! One session serves every input, set back to a new Nine Men's Morris
//! game first (its 16 MB hash table is made once: only its contents carry
//! over); the sessions an input makes are forgotten after it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mulino::web::api;
use mulino::web::sessions::{Session, Sessions};
use serde_json::Value;

thread_local! {
    static SESSIONS: Sessions = Sessions::new();
}

thread_local! {
    static BASE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The session every input starts from, stopped and set to a new game.
fn base(sessions: &Sessions) -> String {
    BASE.with(|b| {
        let mut id = b.borrow_mut();
        if sessions.len() != 1 || sessions.get(&id).is_none() {
            sessions.clear();
            *id = sessions.insert(Session::new().expect("a session"));
        }
        let on = format!(r#"{{"session":"{id}"}}"#);
        assert_eq!(api::handle(sessions, "stop", &on).0, 200);
        let new = format!(r#"{{"session":"{id}","variant":"nine"}}"#);
        assert_eq!(api::handle(sessions, "new", &new).0, 200);
        id.clone()
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    SESSIONS.with(|sessions| {
        let mut ids = vec![base(sessions)];
        for line in text.split('\n').take(32) {
            let (call, body) = line.split_once(' ').unwrap_or((line, ""));
            let body = body.replace("$S", ids.last().expect("a session"));
            let (status, answer) = api::handle(sessions, call, &body);
            let json: Value = serde_json::from_str(&answer).unwrap_or_else(|e| {
                panic!("{call} {body:?}: the answer {answer:?} is not JSON: {e}")
            });
            match status {
                200 => {
                    let id = json["session"].as_str().expect("a state names its session");
                    assert!(!id.is_empty(), "{call}: a state with no session");
                    assert!(json["fen"].is_string() && json["legal"].is_array());
                    if call == "session" {
                        ids.push(id.to_string());
                    }
                }
                400..=499 => {
                    assert!(
                        json["error"].is_string() && json["code"].is_string(),
                        "{call} {body:?}: {status} {answer}"
                    );
                }
                _ => panic!("{call} {body:?}: status {status}, {answer}"),
            }
        }
        for id in &ids {
            api::handle(sessions, "stop", &format!(r#"{{"session":"{id}"}}"#));
        }
    });
});
