//! Bookkeeping as games finish: results per engine and colour, per
//! pairing (with its pentanomial pair counts and SPRT state), the
//! terminations, and a line per game for the JSON report.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use crate::core::Color;
use crate::matches::game::record::{Fault, GameRecord, NotCounted, Overruns, Thinking};
use crate::matches::stats::elo::{Pentanomial, Wdl};
use crate::matches::stats::sprt::{Decision, Sprt};

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
    /// Its turns and the time they took, in all games.
    pub thinking: Thinking,
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
    /// Complete pairs that each engine won once, so that one colour won
    /// both games: White, Black (the WL of the pentanomial's DD+WL).
    pub colour_decided: [u64; 2],
    /// The first engine's results in games a time forfeit decided (won
    /// on the clock, not on the board) and in all the others.
    pub on_time: Wdl,
    pub on_board: Wdl,
    /// The first engine's results by what the databases give it at the
    /// position after the opening (`--tb`): a win, a draw, a loss.
    pub by_opening: [Wdl; 3],
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
    /// The engines' turns and their time, by colour.
    pub thinking: [Thinking; 2],
    /// Turns played, book moves included.
    pub plies: usize,
    pub opening: String,
    /// What the databases give the position after the opening (`1-0`,
    /// `0-1`, `1/2-1/2`), with `--tb`.
    pub opening_value: Option<&'static str>,
    pub duration: Duration,
}

impl GameSummary {
    /// The summary of a game just played.
    pub fn from_record(game: &GameRecord) -> GameSummary {
        GameSummary {
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
            thinking: game.thinking,
            plies: game.moves.len(),
            opening: game.job.opening.line(),
            opening_value: game.opening_value,
            duration: game.duration,
        }
    }

    /// White's half points: 2 for a win, 1 for a draw, 0 for a loss.
    pub fn white_half_points(&self) -> u8 {
        white_half_points(self.result)
    }

    /// The engine index playing `side`.
    pub fn engine(&self, side: Color) -> usize {
        match side {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The side that lost on time, if the game ended so.
    pub fn time_forfeit(&self) -> Option<Color> {
        if self.termination != Fault::TimeForfeit.keyword() {
            return None;
        }
        Some(if self.white_half_points() == 0 {
            Color::White
        } else {
            Color::Black
        })
    }
}

/// White's half points in a result (`1-0`, `0-1`, `1/2-1/2`): 2, 0, 1.
fn white_half_points(result: &str) -> u8 {
    match result {
        "1-0" => 2,
        "0-1" => 0,
        _ => 1,
    }
}

/// A game left out of the counts, because an engine did not play the
/// referee's rules ([`NotCounted`]), as the reports list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uncounted {
    pub index: usize,
    pub pair: usize,
    pub white: usize,
    pub black: usize,
    pub reason: String,
}

impl Uncounted {
    pub fn from_game(n: &NotCounted) -> Uncounted {
        Uncounted {
            index: n.job.index,
            pair: n.job.pair,
            white: n.job.white,
            black: n.job.black,
            reason: n.reason.clone(),
        }
    }
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
    /// The games not counted, and why.
    pub not_counted: Vec<Uncounted>,
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
                    colour_decided: [0; 2],
                    on_time: Wdl::default(),
                    on_board: Wdl::default(),
                    by_opening: [Wdl::default(); 3],
                    open_pairs: HashMap::new(),
                    llr: None,
                    decision: None,
                })
                .collect(),
            terminations: BTreeMap::new(),
            white: Wdl::default(),
            games: Vec::new(),
            not_counted: Vec::new(),
        }
    }

    pub fn played(&self) -> usize {
        self.games.len()
    }

    /// Counts a game; returns whether it completed a pair. With `sprt`,
    /// a completed pair updates the pairing's LLR and decision.
    pub fn add(&mut self, game: GameSummary, sprt: Option<&Sprt>) -> bool {
        let white_half = game.white_half_points();
        let black_half = 2 - white_half;
        self.white.add(white_half);
        self.engines[game.white].as_white.add(white_half);
        self.engines[game.black].as_black.add(black_half);
        *self.terminations.entry(game.termination).or_default() += 1;
        for ((o, &thinking), engine) in game
            .overruns
            .iter()
            .zip(&game.thinking)
            .zip([game.white, game.black])
        {
            let e = &mut self.engines[engine];
            e.thinking += thinking;
            if o.moves > 0 {
                e.overruns.moves += o.moves;
                e.overruns.longest = e.overruns.longest.max(o.longest);
                e.overrun_games += 1;
            }
        }
        let forfeit = game.time_forfeit();
        if let Some(side) = forfeit {
            self.engines[game.engine(side)].time_forfeits += 1;
        }
        let p = &mut self.pairings[game.pairing];
        let first_half = if game.white == p.first {
            p.first_white.add(white_half);
            white_half
        } else {
            p.first_black.add(black_half);
            black_half
        };
        if let Some(value) = game.opening_value {
            // The opening's value as White's half points, then as the
            // first engine's; its place: a win (0), a draw (1), a loss (2).
            let white = white_half_points(value);
            let first = if game.white == p.first {
                white
            } else {
                2 - white
            };
            p.by_opening[usize::from(2 - first)].add(first_half);
        }
        if forfeit.is_some() {
            p.on_time.add(first_half);
        } else {
            p.on_board.add(first_half);
        }
        let completed = match p.open_pairs.remove(&game.pair) {
            Some(other) => {
                p.penta.add_pair(other, first_half);
                // A win each: the engines swapped colours, so this game's
                // winner had the colour that won the other game too.
                if other.abs_diff(first_half) == 2 {
                    p.colour_decided[usize::from(white_half == 0)] += 1;
                }
                if let Some(sprt) = sprt {
                    let llr = sprt.llr(&p.penta);
                    p.llr = Some(llr);
                    p.decision = sprt.decision(llr);
                }
                true
            }
            None => {
                p.open_pairs.insert(game.pair, first_half);
                false
            }
        };
        self.games.push(game);
        completed
    }
}
