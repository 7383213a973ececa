//! `mulino gui`'s HTTP layer against clients that misbehave, over raw
//! sockets: connections that announce a body and never send it, a body
//! announced over the limit, a body sent slowly, `Expect: 100-continue`,
//! requests for a `Host` other than this server (DNS rebinding) or from
//! another site's page (`Origin`), heads too large (431) or malformed
//! (400), chunked bodies, and requests that stall until their 15 s are
//! up (408; these tests take that long).
//!
//! Waits are generous (a debug build on a busy 2-core machine): a request
//! that gets no answer within [`ANSWER`] counts as stalled.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use mulino::web::Gui;
use serde_json::Value;

/// How long an answer may take before the server counts as stalled.
const ANSWER: Duration = Duration::from_secs(30);

/// Sends `request` (head and body as given) and reads the whole answer;
/// `None` when none came within [`ANSWER`].
fn raw(addr: SocketAddr, request: &str) -> Option<String> {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(ANSWER)).expect("timeout");
    stream.write_all(request.as_bytes()).expect("send");
    read_answer(&mut stream)
}

/// Reads until the server closes; `None` on a timeout before any answer.
fn read_answer(stream: &mut TcpStream) -> Option<String> {
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                if answer.is_empty() {
                    return None;
                }
                break;
            }
            // A reset after the answer (the server closed a connection
            // with unread data) still leaves the answer read.
            Err(_) => break,
        }
    }
    Some(String::from_utf8_lossy(&answer).into_owned())
}

fn status(answer: &str) -> u16 {
    answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"))
}

fn body(answer: &str) -> &str {
    answer.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

/// A GET of the page for `host`, answered or not.
fn get_page(addr: SocketAddr, host: &str) -> Option<String> {
    raw(
        addr,
        &format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
    )
}

/// A POST of an API call with `extra` header lines.
fn post(addr: SocketAddr, host: &str, call: &str, json: &str, extra: &str) -> Option<String> {
    raw(
        addr,
        &format!(
            "POST /api/{call} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n{extra}Connection: close\r\n\r\n{json}",
            json.len()
        ),
    )
}

/// Opens `n` connections that announce a 100 kB body and send none of it.
fn stalled_bodies(addr: SocketAddr, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = TcpStream::connect(addr).expect("connect");
            let head = format!(
                "POST /api/state HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
                 Content-Length: 100000\r\n\r\n"
            );
            s.write_all(head.as_bytes()).expect("send");
            s
        })
        .collect()
}

#[test]
fn connections_that_never_send_their_body_do_not_stall_the_page() {
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let addr = gui.addr();
    // More than the server ever had workers, and some that say nothing.
    let mut stalled = stalled_bodies(addr, 8);
    stalled.extend((0..4).map(|_| TcpStream::connect(addr).expect("connect")));
    // Give the server time to take them all up before asking.
    std::thread::sleep(Duration::from_millis(300));
    let page = get_page(addr, &addr.to_string())
        .expect("the page got no answer while stalled connections were open");
    assert_eq!(status(&page), 200, "{page}");
    let answer = post(addr, &addr.to_string(), "session", "{}", "")
        .expect("an API call got no answer while stalled connections were open");
    assert_eq!(status(&answer), 200, "{answer}");
    let st: Value = serde_json::from_str(body(&answer)).expect("JSON");
    assert!(st["session"].is_string(), "{st}");
    drop(stalled);
}

#[test]
fn a_body_announced_over_the_limit_is_refused_before_it_is_sent() {
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let addr = gui.addr();
    // A terabyte announced, not a byte of it sent: refused from the head.
    let answer = raw(
        addr,
        &format!(
            "POST /api/session HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: 1000000000000\r\n\r\n"
        ),
    )
    .expect("no answer to a body announced over the limit");
    assert_eq!(status(&answer), 413, "{answer}");
    assert!(body(&answer).contains("too large"), "{answer}");
    // The server still answers.
    assert_eq!(
        status(&get_page(addr, &addr.to_string()).expect("page")),
        200
    );
}

#[test]
fn a_body_sent_slowly_in_pieces_is_read_whole() {
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let addr = gui.addr();
    let json = r#"{"variant": "twelve"}"#;
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(ANSWER)).expect("timeout");
    let head = format!(
        "POST /api/session HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        json.len()
    );
    s.write_all(head.as_bytes()).expect("send");
    for piece in json.as_bytes().chunks(5) {
        std::thread::sleep(Duration::from_millis(100));
        s.write_all(piece).expect("send");
    }
    let answer = read_answer(&mut s).expect("an answer");
    assert_eq!(status(&answer), 200, "{answer}");
    let st: Value = serde_json::from_str(body(&answer)).expect("JSON");
    assert_eq!(st["variant"], "twelve");
}

#[test]
fn expect_100_continue_is_answered_before_the_body() {
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let addr = gui.addr();
    let json = "{}";
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(ANSWER)).expect("timeout");
    let head = format!(
        "POST /api/session HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
        json.len()
    );
    s.write_all(head.as_bytes()).expect("send");
    let mut first = [0u8; 25];
    s.read_exact(&mut first).expect("an interim answer");
    assert_eq!(&first, b"HTTP/1.1 100 Continue\r\n\r\n");
    s.write_all(json.as_bytes()).expect("send");
    let answer = read_answer(&mut s).expect("an answer");
    assert_eq!(status(&answer), 200, "{answer}");
}

#[test]
fn requests_for_another_host_or_from_another_site_are_refused() {
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let addr = gui.addr();
    let port = addr.port();
    for host in [
        addr.to_string(),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        format!("[::1]:{port}"),
        "127.0.0.1".to_string(),
    ] {
        let page = get_page(addr, &host).expect("an answer");
        assert_eq!(status(&page), 200, "Host: {host}: {page}");
    }
    // A page on another name that resolves here (DNS rebinding).
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("localhost.evil.example:{port}"),
        format!("192.0.2.7:{port}"),
    ] {
        let page = get_page(addr, &host).expect("an answer");
        assert_eq!(status(&page), 403, "Host: {host}: {page}");
        let api = post(addr, &host, "session", "{}", "").expect("an answer");
        assert_eq!(status(&api), 403, "Host: {host}: {api}");
    }
    let no_host = raw(addr, "GET / HTTP/1.0\r\n\r\n").expect("an answer");
    assert_eq!(status(&no_host), 403, "{no_host}");
    // Our own page posts with its own origin; another site's may not.
    let own = format!("Origin: http://{addr}\r\n");
    let answer = post(addr, &addr.to_string(), "session", "{}", &own).expect("an answer");
    assert_eq!(status(&answer), 200, "{answer}");
    for origin in ["http://evil.example", "null"] {
        let header = format!("Origin: {origin}\r\n");
        let answer = post(addr, &addr.to_string(), "session", "{}", &header).expect("answer");
        assert_eq!(status(&answer), 403, "Origin: {origin}: {answer}");
    }
}

#[test]
fn on_every_address_any_ip_is_a_host_but_no_other_name() {
    let gui = Gui::start("0.0.0.0", 0).expect("the server starts");
    let port = gui.addr().port();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    for host in [format!("192.0.2.7:{port}"), format!("localhost:{port}")] {
        let page = get_page(addr, &host).expect("an answer");
        assert_eq!(status(&page), 200, "Host: {host}: {page}");
    }
    let page = get_page(addr, &format!("evil.example:{port}")).expect("an answer");
    assert_eq!(status(&page), 403, "{page}");
}

#[test]
fn a_head_over_the_limit_gets_431() {
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let addr = gui.addr();
    // One header line larger than the most a head may hold (16 kB).
    let long = format!(
        "GET / HTTP/1.1\r\nHost: {addr}\r\nX-Long: {}\r\n\r\n",
        "a".repeat(20_000)
    );
    let answer = raw(addr, &long).expect("an answer to an oversized head");
    assert_eq!(status(&answer), 431, "{answer}");
    // A head sent without end: refused once it passes the limit.
    let mut endless = TcpStream::connect(addr).expect("connect");
    endless.set_read_timeout(Some(ANSWER)).expect("timeout");
    endless
        .write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Long: ").as_bytes())
        .expect("send");
    let chunk = [b'a'; 4096];
    for _ in 0..8 {
        // The server may close while this is still sending.
        if endless.write_all(&chunk).is_err() {
            break;
        }
    }
    let answer = read_answer(&mut endless).expect("an answer to a head without end");
    assert_eq!(status(&answer), 431, "{answer}");
    assert_eq!(
        status(&get_page(addr, &addr.to_string()).expect("page")),
        200
    );
}

#[test]
fn a_malformed_head_gets_400() {
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let addr = gui.addr();
    for bad in [
        format!("GET / HTTP/1.1\r\nHost: {addr}\r\nno colon\r\n\r\n"),
        format!("GET /\r\nHost: {addr}\r\n\r\n"),
        format!(
            "POST /api/session HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: 2\r\nContent-Length: 3\r\n\r\n{{}}"
        ),
        format!(
            "POST /api/session HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: two\r\n\r\n{{}}"
        ),
    ] {
        let answer = raw(addr, &bad).expect("an answer to a malformed head");
        assert_eq!(status(&answer), 400, "{bad:?}: {answer}");
    }
}

/// The patience the server gives a request (`PATIENCE` in server.rs).
const PATIENCE: Duration = Duration::from_secs(15);

/// Sends `request` and waits for the answer, which should come no sooner
/// than [`PATIENCE`]: the answer and how long it took.
fn stall(addr: SocketAddr, request: &str) -> (Option<String>, Duration) {
    let started = std::time::Instant::now();
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(PATIENCE + ANSWER))
        .expect("timeout");
    s.write_all(request.as_bytes()).expect("send");
    (read_answer(&mut s), started.elapsed())
}

/// A stalled request's answer: 408, not before its time.
fn assert_408(request: &str, (answer, after): (Option<String>, Duration)) {
    let answer = answer.unwrap_or_else(|| panic!("{request:?}: no answer"));
    assert_eq!(status(&answer), 408, "{request:?}: {answer}");
    assert!(body(&answer).contains("in time"), "{request:?}: {answer}");
    assert!(
        after >= PATIENCE - Duration::from_secs(1),
        "{request:?}: refused after only {after:?}"
    );
}

#[test]
fn a_chunked_body_is_read_within_the_limit_and_in_time() {
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let addr = gui.addr();
    let head = format!(
        "POST /api/session HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    let chunks = |chunks: &[&str]| {
        let mut text = String::new();
        for chunk in chunks {
            text.push_str(&format!("{:x}\r\n{chunk}\r\n", chunk.len()));
        }
        text
    };
    // A body that stops before its last chunk, waited for on its own.
    let stalled = format!("{head}{}", chunks(&["{}"]));
    let waiting = std::thread::spawn({
        let stalled = stalled.clone();
        move || stall(addr, &stalled)
    });
    let whole = format!(
        "{head}{}0\r\n\r\n",
        chunks(&[r#"{"variant""#, r#": "lasker"}"#])
    );
    let answer = raw(addr, &whole).expect("an answer to a chunked body");
    assert_eq!(status(&answer), 200, "{answer}");
    let st: Value = serde_json::from_str(body(&answer)).expect("JSON");
    assert_eq!(st["variant"], "lasker");
    // No length is announced: the body is refused once it passes the limit.
    let padding = " ".repeat(64 * 1024);
    let long = chunks(&["{}", &padding, &padding, &padding, &padding, &padding]);
    let answer = raw(addr, &format!("{head}{long}0\r\n\r\n")).expect("an answer");
    assert_eq!(status(&answer), 413, "{answer}");
    assert!(body(&answer).contains("too large"), "{answer}");
    assert_408(&stalled, waiting.join().expect("the waiting thread"));
}

#[test]
fn a_request_that_stalls_gets_408_once_its_time_is_up() {
    let gui = Gui::start("127.0.0.1", 0).expect("the server starts");
    let addr = gui.addr();
    // Nothing sent, half a head, and a head whose body never comes: each
    // waits on its own thread.
    let stalls = [
        String::new(),
        format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Half"),
        format!(
            "POST /api/session HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: 10\r\n\r\n{{}}"
        ),
    ];
    std::thread::scope(|scope| {
        let waits: Vec<_> = stalls
            .iter()
            .map(|request| scope.spawn(move || stall(addr, request)))
            .collect();
        // Meanwhile the page is served.
        std::thread::sleep(Duration::from_millis(300));
        let page = get_page(addr, &addr.to_string()).expect("the page, while others stall");
        assert_eq!(status(&page), 200, "{page}");
        for (request, wait) in stalls.iter().zip(waits) {
            assert_408(request, wait.join().expect("a waiting thread"));
        }
    });
}
