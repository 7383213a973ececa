//! The little HTTP/1.1 that `mulino gui` needs, on std's sockets: one
//! request per connection (every answer says `Connection: close`), read
//! under one deadline, with the head's size and the announced body's
//! length checked before the body is read. A client that stalls holds
//! only its own connection, and only until the deadline.
//!
//! Not supported, and refused with a status that says so: chunked bodies
//! (501), HTTP/2 and later (505). Browsers and curl send neither to a
//! plain `http://` address.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// The most bytes of request line and headers read.
pub const MAX_HEAD: usize = 16 * 1024;
/// After a refusal, how long the client's unread bytes are read and
/// dropped before the connection closes (closing on unread data would
/// reset the connection and could lose the answer on its way).
const LINGER: Duration = Duration::from_secs(1);
/// The most bytes dropped that way.
const LINGER_BYTES: usize = 4 * 1024 * 1024;

/// Why no request could be read. Each but [`HttpError::Closed`] is
/// answered with its status.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("the client closed the connection")]
    Closed,
    #[error("the request did not arrive in time")]
    TimedOut,
    #[error("the request's head is larger than {MAX_HEAD} bytes")]
    HeadTooLarge,
    #[error("the request is malformed: {0}")]
    Malformed(&'static str),
    #[error("{0} is not supported")]
    Unsupported(&'static str),
    #[error("only HTTP/1.0 and HTTP/1.1 are spoken here")]
    Version,
}

impl HttpError {
    pub fn status(&self) -> u16 {
        match self {
            HttpError::Closed | HttpError::Malformed(_) => 400,
            HttpError::TimedOut => 408,
            HttpError::HeadTooLarge => 431,
            HttpError::Unsupported(_) => 501,
            HttpError::Version => 505,
        }
    }
}

/// A request's head; the body is read on demand ([`Connection::read_body`]).
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The target without its query.
    pub path: String,
    /// Names in lower case, values trimmed, in the order sent.
    headers: Vec<(String, String)>,
}

impl Request {
    /// The first header of this name (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body's length as announced: 0 without `Content-Length`.
    pub fn content_length(&self) -> Result<u64, HttpError> {
        if self.header("transfer-encoding").is_some() {
            return Err(HttpError::Unsupported("a chunked request body"));
        }
        let mut lengths = self
            .headers
            .iter()
            .filter(|(n, _)| n == "content-length")
            .map(|(_, v)| v.parse::<u64>());
        let first = match lengths.next() {
            None => return Ok(0),
            Some(Ok(n)) => n,
            Some(Err(_)) => return Err(HttpError::Malformed("a bad Content-Length")),
        };
        if lengths.any(|l| l.ok() != Some(first)) {
            return Err(HttpError::Malformed("Content-Length given twice"));
        }
        Ok(first)
    }

    fn expects_continue(&self) -> bool {
        self.header("expect")
            .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    }
}

/// An answer: status, content type and body.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl Response {
    pub fn new(status: u16, content_type: &'static str, body: impl Into<String>) -> Response {
        Response {
            status,
            content_type,
            body: body.into(),
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

/// One client's connection, for one request.
pub struct Connection {
    stream: TcpStream,
    /// Bytes read past the head (the body's first part).
    buffer: Vec<u8>,
    deadline: Instant,
}

impl Connection {
    /// Takes a connection whose request must arrive within `patience`.
    pub fn new(stream: TcpStream, patience: Duration) -> Connection {
        // Small answers go out at once rather than wait for more.
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(patience));
        Connection {
            stream,
            buffer: Vec::new(),
            deadline: Instant::now() + patience,
        }
    }

    /// Reads into `buf`, waiting no later than the deadline.
    fn read_some(&mut self, buf: &mut [u8]) -> Result<usize, HttpError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(HttpError::TimedOut);
        }
        let _ = self.stream.set_read_timeout(Some(left));
        match self.stream.read(buf) {
            Ok(n) => Ok(n),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err(HttpError::TimedOut)
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(self.read_some(buf)?),
            Err(_) => Err(HttpError::Closed),
        }
    }

    /// Reads the request line and the headers.
    pub fn read_head(&mut self) -> Result<Request, HttpError> {
        let mut chunk = [0u8; 4096];
        let end = loop {
            if let Some(i) = find(&self.buffer, b"\r\n\r\n") {
                break i;
            }
            if self.buffer.len() > MAX_HEAD {
                return Err(HttpError::HeadTooLarge);
            }
            match self.read_some(&mut chunk)? {
                0 if self.buffer.is_empty() => return Err(HttpError::Closed),
                0 => return Err(HttpError::Malformed("the head ends early")),
                n => self.buffer.extend_from_slice(&chunk[..n]),
            }
        };
        if end > MAX_HEAD {
            return Err(HttpError::HeadTooLarge);
        }
        let head = std::str::from_utf8(&self.buffer[..end])
            .map_err(|_| HttpError::Malformed("the head is not text"))?;
        let request = parse_head(head)?;
        self.buffer.drain(..end + 4);
        Ok(request)
    }

    /// Reads exactly `len` bytes of body (the caller checked the limit).
    pub fn read_body(&mut self, request: &Request, len: usize) -> Result<Vec<u8>, HttpError> {
        if request.expects_continue() && self.buffer.len() < len {
            self.write(b"HTTP/1.1 100 Continue\r\n\r\n");
        }
        let mut body = std::mem::take(&mut self.buffer);
        let mut chunk = [0u8; 16 * 1024];
        while body.len() < len {
            let want = (len - body.len()).min(chunk.len());
            match self.read_some(&mut chunk[..want])? {
                0 => return Err(HttpError::Closed),
                n => body.extend_from_slice(&chunk[..n]),
            }
        }
        // Bytes past the announced length are no part of it.
        self.buffer = body.split_off(len);
        Ok(body)
    }

    fn write(&mut self, bytes: &[u8]) {
        // The client has gone away: nothing to do.
        let _ = self
            .stream
            .write_all(bytes)
            .and_then(|()| self.stream.flush());
    }

    /// Sends the answer, then closes the connection.
    pub fn respond(mut self, response: &Response) {
        let head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
             Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
             Connection: close\r\n\r\n",
            response.status,
            reason(response.status),
            response.content_type,
            response.body.len()
        );
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(response.body.as_bytes());
        self.write(&bytes);
        self.close();
    }

    /// Ends our side, then drops what the client still sends for a
    /// moment, so that the answer is not lost to a reset.
    fn close(mut self) {
        let _ = self.stream.shutdown(Shutdown::Write);
        self.deadline = Instant::now() + LINGER;
        let mut chunk = [0u8; 16 * 1024];
        let mut dropped = 0;
        while dropped < LINGER_BYTES {
            match self.read_some(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => dropped += n,
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `METHOD target HTTP/1.x` and `Name: value` lines.
fn parse_head(head: &str) -> Result<Request, HttpError> {
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or("");
    let mut words = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(HttpError::Malformed("a bad request line"));
    };
    match version {
        "HTTP/1.0" | "HTTP/1.1" => {}
        v if v.starts_with("HTTP/") => return Err(HttpError::Version),
        _ => return Err(HttpError::Malformed("a bad request line")),
    }
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(HttpError::Malformed("a bad method"));
    }
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(HttpError::Malformed("a header line without `:`"));
        };
        if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace()) {
            return Err(HttpError::Malformed("a bad header name"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    Ok(Request {
        method: method.to_string(),
        path: target.split('?').next().unwrap_or("").to_string(),
        headers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_is_parsed_into_method_path_and_headers() {
        let r = parse_head("POST /api/move?x=1 HTTP/1.1\r\nHost: a:1\r\nContent-Length:  12 ")
            .expect("a head");
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/api/move"));
        assert_eq!(r.header("HOST"), Some("a:1"));
        assert_eq!(r.content_length().ok(), Some(12));
    }

    #[test]
    fn bad_heads_are_named() {
        let status = |head: &str| parse_head(head).map_or_else(|e| e.status(), |_| 200);
        assert_eq!(status("GET / HTTP/2.0"), 505);
        assert_eq!(status("GET /"), 400);
        assert_eq!(status("get / HTTP/1.1"), 400);
        assert_eq!(status("GET / HTTP/1.1\r\nno colon"), 400);
        assert_eq!(status("GET / HTTP/1.1\r\nBad Name: x"), 400);
        let length = |headers: &str| {
            let r = parse_head(&format!("POST / HTTP/1.1{headers}")).expect("a head");
            r.content_length().map_err(|e| e.status())
        };
        assert_eq!(length(""), Ok(0));
        assert_eq!(length("\r\nContent-Length: x"), Err(400));
        assert_eq!(
            length("\r\nContent-Length: 1\r\nContent-Length: 2"),
            Err(400)
        );
        assert_eq!(length("\r\nContent-Length: 2\r\nContent-Length: 2"), Ok(2));
        assert_eq!(length("\r\nTransfer-Encoding: chunked"), Err(501));
    }
}
