//! The judge's sums: per player and phase of the mover, per game, and the
//! list of errors, as text for people and as JSON for programs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::replay::{Phase, Ply};
use crate::core::Color;
use crate::tb::Wdl;

/// The moves of one player in one phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PhaseTally {
    /// Moves with a value before and after (book moves not counted).
    pub judged: u32,
    /// Judged moves that kept the mover's value.
    pub kept: u32,
    /// Judged moves that turned a win into a draw or a loss.
    pub threw_win: u32,
    /// Judged moves that turned a draw into a loss.
    pub threw_draw: u32,
    /// Moves out of the book the databases could not value.
    pub unvalued: u32,
}

impl PhaseTally {
    pub fn errors(&self) -> u32 {
        self.threw_win + self.threw_draw
    }

    fn add(&mut self, ply: &Ply) {
        match (ply.before, ply.after) {
            (Some(b), Some(a)) => {
                self.judged += 1;
                match (b, a < b) {
                    (_, false) => self.kept += 1,
                    (Wdl::Win, true) => self.threw_win += 1,
                    (_, true) => self.threw_draw += 1,
                }
            }
            _ => self.unvalued += 1,
        }
    }

    fn plus(self, other: PhaseTally) -> PhaseTally {
        PhaseTally {
            judged: self.judged + other.judged,
            kept: self.kept + other.kept,
            threw_win: self.threw_win + other.threw_win,
            threw_draw: self.threw_draw + other.threw_draw,
            unvalued: self.unvalued + other.unvalued,
        }
    }
}

/// The moves of one player (or one side of a game), by the mover's phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    /// Games played (for a player).
    pub games: u32,
    /// Book moves, not judged.
    pub book: u32,
    pub placing: PhaseTally,
    pub moving: PhaseTally,
    pub flying: PhaseTally,
}

impl Tally {
    fn add(&mut self, ply: &Ply) {
        if ply.book {
            self.book += 1;
            return;
        }
        let phase = match ply.phase {
            Phase::Placing => &mut self.placing,
            Phase::Moving => &mut self.moving,
            Phase::Flying => &mut self.flying,
        };
        phase.add(ply);
    }

    pub fn phase(&self, phase: Phase) -> PhaseTally {
        match phase {
            Phase::Placing => self.placing,
            Phase::Moving => self.moving,
            Phase::Flying => self.flying,
        }
    }

    /// Every phase together.
    pub fn all(&self) -> PhaseTally {
        self.placing.plus(self.moving).plus(self.flying)
    }

    fn plus(self, other: Tally) -> Tally {
        Tally {
            games: self.games + other.games,
            book: self.book + other.book,
            placing: self.placing.plus(other.placing),
            moving: self.moving.plus(other.moving),
            flying: self.flying.plus(other.flying),
        }
    }
}

/// A move that threw a value away.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MoveError {
    pub file: String,
    /// The game's number in its file, from 1.
    pub game: usize,
    pub ply: usize,
    pub player: String,
    pub color: &'static str,
    pub phase: Phase,
    /// In the World Mill Federation's notation (`d6-d5xb4`).
    #[serde(rename = "move")]
    pub mv: String,
    pub before: &'static str,
    pub after: &'static str,
    /// The moves that would have kept the value, best first.
    pub keeping: Vec<String>,
}

/// One game's sums.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GameSummary {
    pub file: String,
    pub game: usize,
    pub white: String,
    pub black: String,
    pub result: String,
    pub plies: usize,
    /// The mover's value at the first move out of the book, for White.
    pub opening: Option<&'static str>,
    pub white_moves: Tally,
    pub black_moves: Tally,
}

/// Everything the judge found.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub games: Vec<GameSummary>,
    /// By player name.
    pub players: BTreeMap<String, Tally>,
    pub errors: Vec<MoveError>,
}

/// Where a game came from, and who played it.
pub struct GameInfo<'a> {
    pub file: &'a str,
    pub game: usize,
    pub white: &'a str,
    pub black: &'a str,
    pub result: &'a str,
}

impl Report {
    /// Adds one judged game.
    pub fn add(&mut self, info: &GameInfo, plies: &[Ply]) {
        let mut sides = [Tally::default(), Tally::default()];
        let name = |c: Color| match c {
            Color::White => info.white,
            Color::Black => info.black,
        };
        for ply in plies {
            sides[ply.color as usize].add(ply);
            if ply.is_error() {
                self.errors.push(move_error(info, name(ply.color), ply));
            }
        }
        for (color, side) in Color::ALL.into_iter().zip(&mut sides) {
            side.games = 1;
            let player = self.players.entry(name(color).to_string()).or_default();
            *player = player.plus(*side);
        }
        let opening = plies.iter().find(|p| !p.book).and_then(|p| {
            let v = p.before?;
            Some(if p.color == Color::White { v } else { v.flip() }.name())
        });
        self.games.push(GameSummary {
            file: info.file.to_string(),
            game: info.game,
            white: info.white.to_string(),
            black: info.black.to_string(),
            result: info.result.to_string(),
            plies: plies.len(),
            opening,
            white_moves: sides[0],
            black_moves: sides[1],
        });
    }

    /// The report for people: each game in a line, each error in a line,
    /// then a table per player and phase.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for g in &self.games {
            let (w, b) = (g.white_moves, g.black_moves);
            let _ = writeln!(
                out,
                "{} game {}: {} - {} {}, {} plies ({} book, {} without a value), opening {} for White; errors: {} {}, {} {}",
                g.file,
                g.game,
                g.white,
                g.black,
                g.result,
                g.plies,
                w.book + b.book,
                w.all().unvalued + b.all().unvalued,
                g.opening.unwrap_or("unknown"),
                g.white,
                w.all().errors(),
                g.black,
                b.all().errors(),
            );
        }
        if !self.errors.is_empty() {
            out.push_str("\nerrors:\n");
        }
        for e in &self.errors {
            let _ = writeln!(
                out,
                "  {} game {} ply {} {} ({}, {}): {} {} -> {}; kept by {}",
                e.file,
                e.game,
                e.ply,
                e.player,
                e.color,
                e.phase.name(),
                e.mv,
                e.before,
                e.after,
                if e.keeping.is_empty() {
                    "(none)".to_string()
                } else {
                    e.keeping.join(" ")
                },
            );
        }
        out.push_str(&self.players_table());
        out
    }

    fn players_table(&self) -> String {
        let mut out = String::from(
            "\nplayer                 phase    judged   kept  threw a win  threw a draw  no value  book  errors/100 games\n",
        );
        for (name, t) in &self.players {
            let rows = Phase::ALL
                .into_iter()
                .map(|p| (p.name(), t.phase(p)))
                .chain([("all", t.all())]);
            for (phase, p) in rows {
                let (book, per_100) = if phase == "all" {
                    let per = 100.0 * f64::from(p.errors()) / f64::from(t.games.max(1));
                    (t.book.to_string(), format!("{per:.1}"))
                } else {
                    (String::new(), String::new())
                };
                let row = format!(
                    "{name:<22} {phase:<8} {:>6} {:>6} {:>12} {:>13} {:>9} {book:>5} {per_100:>17}",
                    p.judged, p.kept, p.threw_win, p.threw_draw, p.unvalued,
                );
                let _ = writeln!(out, "{}", row.trim_end());
            }
        }
        let _ = writeln!(out, "games: {}", self.games.len());
        out
    }
}

fn move_error(info: &GameInfo, player: &str, ply: &Ply) -> MoveError {
    let name = |v: Option<Wdl>| v.map_or("unknown", Wdl::name);
    MoveError {
        file: info.file.to_string(),
        game: info.game,
        ply: ply.ply,
        player: player.to_string(),
        color: ply.color.name(),
        phase: ply.phase,
        mv: ply.mv.to_string(),
        before: name(ply.before),
        after: name(ply.after),
        keeping: ply.keeping.iter().map(|m| m.to_string()).collect(),
    }
}
