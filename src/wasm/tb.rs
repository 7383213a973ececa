//! The databases over HTTP: a packed folder's bytes (`tb::pack`), fetched
//! by the host with range requests. The module asks for them in one
//! batch through the host's `tb_fetch` import, which returns once the
//! host has them all (natively a folder's bytes are read from disk).
//!
//! A request is lines of `URL TAB FILE TAB OFFSET TAB LEN` (`-` for the
//! whole file). The host writes its answer where [`mulino_tb_buffer`]
//! says and returns its length: for each line in order, a status byte (0:
//! the bytes; else an error), a little-endian `u32` length, then the bytes
//! (or the error's text).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::tb::pack::PackSource;

#[link(wasm_import_module = "mulino")]
unsafe extern "C" {
    /// Fetches what the `len` bytes of the request at `request` ask for;
    /// the length of the answer the host wrote at [`mulino_tb_buffer`].
    #[link_name = "tb_fetch"]
    fn host_tb_fetch(request: *const u8, len: usize) -> usize;
}

thread_local! {
    /// Where the host writes its answer.
    static ANSWER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Where the host writes the `len` bytes of its answer to `tb_fetch`.
#[unsafe(no_mangle)]
pub extern "C" fn mulino_tb_buffer(len: usize) -> *mut u8 {
    ANSWER.with_borrow_mut(|b| {
        b.clear();
        b.resize(len, 0);
        b.as_mut_ptr()
    })
}

/// A range of a file: its name, offset and length (`None`: all of it).
type Key = (String, u64, Option<u64>);

/// A packed folder at a URL, its bytes fetched by the host.
pub struct HostSource {
    url: String,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Fetched and not yet read (a block is read once, then decoded and
    /// kept by the reader).
    have: HashMap<Key, Result<Vec<u8>, String>>,
    /// Asked for and not at hand.
    wants: Vec<Key>,
}

impl HostSource {
    pub fn new(url: &str) -> HostSource {
        let mut url = url.trim().to_string();
        if !url.ends_with('/') {
            url.push('/');
        }
        HostSource {
            url,
            state: Mutex::new(State::default()),
        }
    }

    /// The source of the packed folder at `url` (what the reader's URL
    /// hook makes).
    pub fn arc(url: &str) -> Arc<dyn PackSource> {
        Arc::new(HostSource::new(url))
    }
}

impl PackSource for HostSource {
    fn read(&self, name: &str, offset: u64, len: Option<u64>) -> Result<Option<Vec<u8>>, String> {
        let key = (name.to_string(), offset, len);
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(got) = state.have.remove(&key) {
            return got.map(Some);
        }
        if !state.wants.contains(&key) {
            state.wants.push(key);
        }
        Ok(None)
    }

    fn describe(&self) -> String {
        self.url.clone()
    }

    fn fetch_wanted(&self) -> bool {
        let wants = std::mem::take(&mut self.state.lock().unwrap_or_else(|e| e.into_inner()).wants);
        if wants.is_empty() {
            return false;
        }
        let mut request = String::new();
        for (file, offset, len) in &wants {
            let len = len.map_or("-".to_string(), |n| n.to_string());
            request.push_str(&format!("{}\t{file}\t{offset}\t{len}\n", self.url));
        }
        // SAFETY: the host reads `request`'s bytes during the call and
        // writes its answer through `mulino_tb_buffer`, whose borrow is
        // over before this reads it.
        let len = unsafe { host_tb_fetch(request.as_ptr(), request.len()) };
        let answer = ANSWER.with_borrow(|b| b[..len.min(b.len())].to_vec());
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut at = 0usize;
        for key in wants {
            let head = answer.get(at..at + 5);
            let got = match head {
                Some(h) => {
                    let n = u32::from_le_bytes([h[1], h[2], h[3], h[4]]) as usize;
                    let body = answer.get(at + 5..at + 5 + n).unwrap_or(&[]).to_vec();
                    at += 5 + n;
                    if h[0] == 0 {
                        Ok(body)
                    } else {
                        Err(format!(
                            "{}{}: {}",
                            self.url,
                            key.0,
                            String::from_utf8_lossy(&body)
                        ))
                    }
                }
                None => Err(format!("{}{}: the host gave no answer", self.url, key.0)),
            };
            state.have.insert(key, got);
        }
        true
    }
}

/// Lets `TablebasePath` (and the board's databases) be a URL.
pub fn install() {
    crate::tb::pack::read::serve_urls_with(HostSource::arc);
}
