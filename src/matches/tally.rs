//! Bookkeeping as games finish: results per engine and colour, per
//! pairing (with its pentanomial pair counts and SPRT state), the
//! terminations, and a line per game for the JSON report.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use super::record::{Fault, GameRecord, Overruns, Termination};
use super::stats::{Decision, Pentanomial, Sprt, Wdl};
use crate::core::Color;

/// One engine's results, from its own point of view.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineTally {
    pub as_white: Wdl,
    pub as_black: Wdl,
    /// Moves past their movetime that were not forfeited, in all games.
    pub overruns: Overruns,
    /// Games with at least one such move.
    pub overrun_games: u64,
    /// Games it lost on time.
    pub time_forfeits: u64,
}

impl EngineTally {
    pub fn total(&self) -> Wdl {
        self.as_white + self.as_black
    }
}

/// The first engine against one opponent.
#[derive(Clone, Debug)]
pub struct PairingTally {
    pub first: usize,
    pub second: usize,
    /// The first engine's results with White and with Black.
    pub first_white: Wdl,
    pub first_black: Wdl,
    pub penta: Pentanomial,
    /// The first engine's results in games a time forfeit decided (won
    /// on the clock, not on the board) and in all the others.
    pub on_time: Wdl,
    pub on_board: Wdl,
    /// Pairs with one game finished: the first engine's half points.
    open_pairs: HashMap<usize, u8>,
    /// The LLR after the latest complete pair, with `--sprt`.
    pub llr: Option<f64>,
    pub decision: Option<Decision>,
}

impl PairingTally {
    /// The first engine's results.
    pub fn first(&self) -> Wdl {
        self.first_white + self.first_black
    }
}

/// A finished game, as the JSON report lists it.
#[derive(Clone, Debug)]
pub struct GameSummary {
    pub index: usize,
    pub pairing: usize,
    pub pair: usize,
    pub white: usize,
    pub black: usize,
    pub result: &'static str,
    pub termination: &'static str,
    pub detail: String,
    /// Error lines the engines sent during the game.
    pub complaints: Vec<String>,
    /// Overruns by colour (`Color::index`).
    pub overruns: [Overruns; 2],
    /// Turns played, book moves included.
    pub plies: usize,
    pub opening: String,
    pub duration: Duration,
}

/// Everything counted so far.
#[derive(Clone, Debug)]
pub struct Tally {
    pub engines: Vec<EngineTally>,
    pub pairings: Vec<PairingTally>,
    pub terminations: BTreeMap<&'static str, u64>,
    /// Results by colour, from White's point of view.
    pub white: Wdl,
    pub games: Vec<GameSummary>,
}

impl Tally {
    /// Counts for `engines` engines, the first against each other one.
    pub fn new(engines: usize) -> Tally {
        Tally {
            engines: vec![EngineTally::default(); engines],
            pairings: (1..engines)
                .map(|second| PairingTally {
                    first: 0,
                    second,
                    first_white: Wdl::default(),
                    first_black: Wdl::default(),
                    penta: Pentanomial::default(),
                    on_time: Wdl::default(),
                    on_board: Wdl::default(),
                    open_pairs: HashMap::new(),
                    llr: None,
                    decision: None,
                })
                .collect(),
            terminations: BTreeMap::new(),
            white: Wdl::default(),
            games: Vec::new(),
        }
    }

    pub fn played(&self) -> usize {
        self.games.len()
    }

    /// Counts a game; returns whether it completed a pair. With `sprt`,
    /// a completed pair updates the pairing's LLR and decision.
    pub fn add(&mut self, game: &GameRecord, sprt: Option<&Sprt>) -> bool {
        let white_half = game.termination.white_half_points();
        let black_half = 2 - white_half;
        self.white.add(white_half);
        self.engines[game.job.white].as_white.add(white_half);
        self.engines[game.job.black].as_black.add(black_half);
        *self
            .terminations
            .entry(game.termination.keyword())
            .or_default() += 1;
        for side in Color::ALL {
            let o = game.overruns[side.index()];
            let e = &mut self.engines[game.job.engine(side)];
            if o.moves > 0 {
                e.overruns.moves += o.moves;
                e.overruns.longest = e.overruns.longest.max(o.longest);
                e.overrun_games += 1;
            }
        }
        let forfeit = match game.termination {
            Termination::Fault {
                side,
                fault: Fault::TimeForfeit,
            } => {
                self.engines[game.job.engine(side)].time_forfeits += 1;
                true
            }
            _ => false,
        };
        let p = &mut self.pairings[game.job.pairing];
        let first_half = if game.job.white == p.first {
            p.first_white.add(white_half);
            white_half
        } else {
            p.first_black.add(black_half);
            black_half
        };
        if forfeit {
            p.on_time.add(first_half);
        } else {
            p.on_board.add(first_half);
        }
        let completed = match p.open_pairs.remove(&game.job.pair) {
            Some(other) => {
                p.penta.add_pair(other, first_half);
                if let Some(sprt) = sprt {
                    let llr = sprt.llr(&p.penta);
                    p.llr = Some(llr);
                    p.decision = sprt.decision(llr);
                }
                true
            }
            None => {
                p.open_pairs.insert(game.job.pair, first_half);
                false
            }
        };
        self.games.push(GameSummary {
            index: game.job.index,
            pairing: game.job.pairing,
            pair: game.job.pair,
            white: game.job.white,
            black: game.job.black,
            result: game.termination.result_text(),
            termination: game.termination.keyword(),
            detail: game.detail.clone(),
            complaints: game.complaints.clone(),
            overruns: game.overruns,
            plies: game.moves.len(),
            opening: game.job.opening.line(),
            duration: game.duration,
        });
        completed
    }
}
