//! What the match runner reads from the engines it runs: each line as a
//! reply (`Dialect::read_reply`) in every dialect, for either side to
//! move, and a Sanmill engine's `sanmill_state {json}` as the referee
//! reads it, compared (`sanmill::options::disagreement`) with the start
//! position of every preset.
//!
//! A score is given from White's side in GBGP and Sanmill and turned to
//! the mover's: the same line read for White and for Black must give
//! scores of opposite signs. Every score read is written as the PGN's
//! comments write it (`EngineScore::text`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mulino::core::{Color, Position};
use mulino::matches::engine::dialect::gbgp::Gbgp;
use mulino::matches::engine::dialect::mulino::Mulino;
use mulino::matches::engine::dialect::sanmill::{Sanmill, options};
use mulino::matches::engine::dialect::{Dialect, EngineScore, Reply};

/// The score a reply gives, as a number; its text as the PGN writes it.
fn score(r: &Reply) -> Option<i32> {
    let s = match r {
        Reply::Info { score, .. } | Reply::Best { score, .. } => score.as_ref()?,
        Reply::Other => return None,
    };
    let _ = s.text();
    Some(match *s {
        EngineScore::Cp(v) => v,
        EngineScore::Mate(v) => v,
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n').take(64) {
        let dialects: [&dyn Dialect; 3] = [&Mulino, &Gbgp, &Sanmill];
        for dialect in dialects {
            let white = dialect.read_reply(line, Color::White);
            let black = dialect.read_reply(line, Color::Black);
            let (w, b) = (score(&white), score(&black));
            if dialect.wording().white_scores {
                if let (Some(w), Some(b)) = (w, b) {
                    assert_eq!(w.signum(), -b.signum(), "{dialect:?} {line:?}: {w} and {b}");
                }
            }
        }
        if let Some((_, json)) = line.split_once("sanmill_state ") {
            let state: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
            for (_, rules) in mulino_fuzz::variants() {
                let _ = options::disagreement(&rules, &Position::startpos(&rules), &state);
            }
        }
    }
});
