//! An engine's search limits: a time control, a movetime, a depth and a
//! node count, any of them combined (all go into `go`), and how the
//! reports write them.

/// `base+increment`, both in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base_ms: u64,
    pub inc_ms: u64,
}

impl TimeControl {
    /// The PGN `TimeControl` form: seconds, `+` increment in seconds.
    pub fn pgn(&self) -> String {
        let secs = |ms: u64| {
            let s = format!("{:.3}", ms as f64 / 1000.0);
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        if self.inc_ms == 0 {
            secs(self.base_ms)
        } else {
            format!("{}+{}", secs(self.base_ms), secs(self.inc_ms))
        }
    }
}

/// An engine's search limits; several may be combined (all go in `go`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub tc: Option<TimeControl>,
    pub movetime: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
}

impl Limits {
    pub fn is_empty(&self) -> bool {
        *self == Limits::default()
    }

    /// Short text for tables and the PGN: `10+0.1`, `depth=4`, ...
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(tc) = self.tc {
            parts.push(tc.pgn());
        }
        if let Some(ms) = self.movetime {
            parts.push(format!("movetime={ms}ms"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        parts.join(",")
    }
}
