//! The line I/O both dialects share: a reader that bounds the length of a
//! line, a line-atomic writer that the search thread shares, and the loop
//! that feeds a dialect's session one line at a time.
//!
//! Input is read on a thread of its own, so that the loop hears of a line
//! and of the engine going idle alike ([`Event`]): a session can hold a
//! command until the search before it has ended, and still answer
//! `isready` or take `stop` meanwhile.

use std::io::{BufRead, Write};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

/// Longest accepted input line; longer ones are refused whole.
pub const MAX_LINE: usize = 1 << 20;

/// A line-atomic, flushed writer shared with the search thread.
#[derive(Clone)]
pub struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    pub fn new(w: Box<dyn Write + Send>) -> Out {
        Out(Arc::new(Mutex::new(w)))
    }

    pub fn stdout() -> Out {
        Out::new(Box::new(std::io::stdout()))
    }

    pub fn line(&self, text: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A closed pipe leaves nobody to tell; carry on quietly.
        let _ = writeln!(w, "{text}");
        let _ = w.flush();
    }

    pub fn error(&self, what: &dyn std::fmt::Display) {
        self.line(&format!("info string error: {what}"));
    }
}

/// What the loop should do after a line.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// One line read by [`read_line`].
#[derive(Debug, PartialEq, Eq)]
pub enum Read {
    /// A line (its bytes are in the buffer, newline included).
    Line,
    /// A line longer than [`MAX_LINE`], consumed whole: its length.
    TooLong(usize),
    /// End of input (or an error reading it).
    End,
}

/// Reads one line of at most `MAX_LINE` bytes into `buf`; a longer line is
/// consumed and reported as [`Read::TooLong`].
pub fn read_line(input: &mut dyn BufRead, buf: &mut Vec<u8>) -> Read {
    buf.clear();
    let mut too_long = 0usize;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(_) => return Read::End,
        };
        if chunk.is_empty() {
            return if buf.is_empty() && too_long == 0 {
                Read::End
            } else if too_long > 0 {
                Read::TooLong(too_long)
            } else {
                Read::Line
            };
        }
        let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if too_long == 0 && buf.len() + take <= MAX_LINE {
            buf.extend_from_slice(&chunk[..take]);
        } else {
            too_long = too_long.max(buf.len()) + take;
            buf.clear();
        }
        input.consume(take);
        if end {
            return if too_long > 0 {
                Read::TooLong(too_long)
            } else {
                Read::Line
            };
        }
    }
}

/// What the loop hears of.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// A line of input, its newline included.
    Line(Vec<u8>),
    /// A line longer than [`MAX_LINE`], consumed whole: its length.
    TooLong(usize),
    /// End of input (or an error reading it).
    End,
    /// The engine finished a search or perft and is idle.
    Idle,
}

/// Where the engine's callbacks say that it went idle.
pub type Wake = Sender<Event>;

/// A dialect's session, as the loop drives it.
pub trait Dialect {
    /// Handles one input line (raw bytes: any encoding, any content); an
    /// error is printed by the session itself.
    fn handle_bytes(&mut self, raw: &[u8]) -> Flow;
    /// The engine went idle: carry out the commands that waited for it.
    fn resume(&mut self) -> Flow {
        Flow::Continue
    }
    /// End of input: a search with a natural end finishes, an open-ended
    /// one is stopped.
    fn finish(&mut self);
    /// End of input while the running job is out of the caller's reach
    /// (WebAssembly, where it runs below the caller on the only thread):
    /// stop it if only `stop` could end it, as [`Dialect::finish`] does
    /// first; `finish` follows once it has ended.
    fn stop_open_ended(&mut self);
    /// `quit`: stop any search at once.
    fn quit(&mut self);
}

/// Reads `input` on a thread of its own into `events`, line by line, until
/// its end (or until nobody listens).
pub fn spawn_reader(mut input: Box<dyn BufRead + Send>, events: Sender<Event>) {
    let fallback = events.clone();
    let reader = move || {
        let mut buf = Vec::with_capacity(256);
        loop {
            let event = match read_line(input.as_mut(), &mut buf) {
                Read::Line => Event::Line(std::mem::take(&mut buf)),
                Read::TooLong(len) => Event::TooLong(len),
                Read::End => Event::End,
            };
            let end = event == Event::End;
            if events.send(event).is_err() || end {
                return;
            }
        }
    };
    // Without a thread there is no reading: say so, and that input ended.
    if let Err(e) = std::thread::Builder::new()
        .name("input".into())
        .spawn(reader)
    {
        eprintln!("mulino: cannot start the input thread: {e}");
        let _ = fallback.send(Event::End);
    }
}

/// Feeds `session` every event until `quit` or end of input, starting
/// with `first` (a line already read, if any).
pub fn serve(session: &mut dyn Dialect, events: &Receiver<Event>, out: &Out, first: Option<Event>) {
    let mut next = first;
    loop {
        let event = match next.take() {
            Some(e) => e,
            // Every sender gone: the input thread ended without a word.
            None => events.recv().unwrap_or(Event::End),
        };
        let flow = match event {
            Event::End => {
                session.finish();
                return;
            }
            Event::TooLong(len) => {
                out.error(&format!(
                    "line of {len} bytes is too long (limit {MAX_LINE})"
                ));
                Flow::Continue
            }
            Event::Line(bytes) => session.handle_bytes(&bytes),
            Event::Idle => session.resume(),
        };
        if flow == Flow::Quit {
            session.quit();
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded_and_end_of_input_is_reported() {
        let long = vec![b'x'; MAX_LINE + 5];
        let mut text = b"isready\n".to_vec();
        text.extend_from_slice(&long);
        text.extend_from_slice(b"\nlast");
        let mut input = std::io::Cursor::new(text);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut input, &mut buf), Read::Line);
        assert_eq!(buf, b"isready\n");
        assert_eq!(read_line(&mut input, &mut buf), Read::TooLong(MAX_LINE + 6));
        assert_eq!(read_line(&mut input, &mut buf), Read::Line);
        assert_eq!(buf, b"last");
        assert_eq!(read_line(&mut input, &mut buf), Read::End);
    }
}
