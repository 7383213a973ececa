//! The HTTP/1.1 of `mulino gui`, spoken by hyper on a tokio runtime: this
//! module sets hyper up for one request per connection under one
//! deadline, and adds what hyper leaves to its user.
//!
//! hyper reads and checks the request's head (a head over [`MAX_HEAD`]
//! bytes or 100 header lines: 431; a malformed one: 400), frames the body (`Content-Length`
//! or chunked) and answers `Expect: 100-continue` when the body is first
//! read. Here: a body announced over its limit is refused unread (413),
//! one that has not arrived by the deadline gets 408 ([`read_body`]), and
//! so does a head that has not ([`serve`]); a client that does not take
//! its answer is dropped; and after the answer the client's unsent rest is
//! read and dropped for a moment, so that closing does not reset the
//! connection and lose the answer on its way.

use std::convert::Infallible;
use std::future::{Future, poll_fn};
use std::io::ErrorKind;
use std::pin::Pin;
use std::time::Duration;

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{CACHE_CONTROL, CONNECTION, CONTENT_TYPE, HeaderValue, X_CONTENT_TYPE_OPTIONS};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWrite;
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout_at};

/// The most bytes of request line and headers read.
pub const MAX_HEAD: usize = 16 * 1024;
/// After the answer, how long the client's unread bytes are read and
/// dropped before the connection closes (closing on unread data would
/// reset the connection and could lose the answer on its way).
const LINGER: Duration = Duration::from_secs(1);
/// The most bytes dropped that way.
const LINGER_BYTES: usize = 4 * 1024 * 1024;

/// An answer, its body whole.
pub type Answer = Response<Full<Bytes>>;

/// An answer with the headers every answer carries: no caching, no
/// guessing at the content type, and the connection closes after it.
pub fn answer(status: u16, content_type: &'static str, body: impl Into<Bytes>) -> Answer {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Why a request's body could not be read; each is answered with its
/// status.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("the request did not arrive in time")]
    TimedOut,
    #[error("the request is too large")]
    TooLarge,
    #[error("the request body could not be read: {0}")]
    Broken(String),
}

impl BodyError {
    pub fn status(&self) -> u16 {
        match self {
            BodyError::TimedOut => 408,
            BodyError::TooLarge => 413,
            BodyError::Broken(_) => 400,
        }
    }
}

/// Reads a request's whole body, at most `limit` bytes, by `deadline`. A
/// body announced longer (`Content-Length`) is refused before a byte of
/// it is read, and before `100 Continue` is sent.
pub async fn read_body(
    body: Incoming,
    limit: usize,
    deadline: Instant,
) -> Result<Bytes, BodyError> {
    if body.size_hint().lower() > limit as u64 {
        return Err(BodyError::TooLarge);
    }
    match timeout_at(deadline, Limited::new(body, limit).collect()).await {
        Err(_) => Err(BodyError::TimedOut),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<LengthLimitError>() => Err(BodyError::TooLarge),
        Ok(Err(e)) => Err(BodyError::Broken(e.to_string())),
    }
}

/// What a request's handler gives back: its answer, to come.
pub type Handled = Pin<Box<dyn Future<Output = Answer> + Send>>;

/// Serves one connection: one request, whose head and body must arrive
/// within `patience` of now, and whose answer must be taken within as
/// long again. `handler` gets the request and the deadline its body must
/// arrive by.
pub async fn serve<H>(stream: TcpStream, patience: Duration, handler: H)
where
    H: Fn(Request<Incoming>, Instant) -> Handled + Send + Unpin + 'static,
{
    // Small answers go out at once rather than wait for more.
    let _ = stream.set_nodelay(true);
    let deadline = Instant::now() + patience;
    let service = service_fn(move |request| {
        let handled = handler(request, deadline);
        Box::pin(async move { Ok::<_, Infallible>(handled.await) })
    });
    let mut connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(patience)
        .keep_alive(false)
        .max_buf_size(MAX_HEAD)
        .max_header_size(MAX_HEAD)
        .serve_connection(TokioIo::new(stream), service);
    let served = timeout_at(
        deadline + patience,
        poll_fn(|cx| connection.poll_without_shutdown(cx)),
    )
    .await;
    // A client that does not take its answer is dropped (closed) here.
    let Ok(served) = served else { return };
    let mut stream = connection.into_parts().io.into_inner();
    if served.is_err_and(|e| e.is_timeout()) {
        // The head did not arrive in time: hyper closes without a word.
        let body = "the request did not arrive in time\n";
        let head = format!(
            "HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\nCache-Control: no-store\r\n\
             X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
            body.len()
        );
        write_all(&stream, (head + body).as_bytes(), Instant::now() + LINGER).await;
    }
    linger(&mut stream).await;
}

/// Writes `bytes` unless the client has gone or `until` has passed.
async fn write_all(stream: &TcpStream, mut bytes: &[u8], until: Instant) {
    while !bytes.is_empty() {
        match timeout_at(until, stream.writable()).await {
            Ok(Ok(())) => match stream.try_write(bytes) {
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(_) => return,
            },
            _ => return,
        }
    }
}

/// Ends our side, then drops what the client still sends for a moment.
async fn linger(stream: &mut TcpStream) {
    let _ = poll_fn(|cx| Pin::new(&mut *stream).poll_shutdown(cx)).await;
    let until = Instant::now() + LINGER;
    let mut chunk = vec![0u8; 16 * 1024];
    let mut dropped = 0;
    while dropped < LINGER_BYTES {
        match timeout_at(until, stream.readable()).await {
            Ok(Ok(())) => match stream.try_read(&mut chunk) {
                Ok(0) => return,
                Ok(n) => dropped += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(_) => return,
            },
            _ => return,
        }
    }
}
