//! Adjudication from the endgame databases (`--tb DIR`): a game that
//! reaches a moving-phase position the databases hold ends there with the
//! value perfect play gives it, instead of being played out.
//!
//! Values are taken under the match's N-move rules from the position's
//! counter (`tb::nmove`): a win or loss is adjudicated only when the
//! winner can force it within them (the `.dtz` files say so, or, without
//! them, the `.tb` line ends before any limit can strike), and a draw
//! (a `.tb` draw, or a win or loss the rules draw) is a draw between
//! perfect players. A value the databases cannot give under the rules is
//! played on. Against an engine without databases, which may still go wrong
//! from there, adjudication takes from the side with databases the chances
//! its opponent would have given it, and never adds any: `win-loss`
//! leaves drawn positions to be played out, where those chances lie.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::core::{Color, Position, Rules};
use crate::tb::Wdl;
use crate::tb::probe::Tablebases;

/// Which database values end a game (`--tb-adjudicate`, by the names of
/// [`TbMode::name`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TbMode {
    /// Wins, losses and draws.
    #[default]
    Both,
    /// Wins and losses; drawn positions are played on.
    WinLoss,
    /// Draws only.
    Draw,
}

impl TbMode {
    pub fn name(self) -> &'static str {
        match self {
            TbMode::Both => "both",
            TbMode::WinLoss => "win-loss",
            TbMode::Draw => "draw",
        }
    }
}

/// The databases a match adjudicates from.
#[derive(Clone, Debug)]
pub struct TbAdjudication {
    pub dir: PathBuf,
    pub mode: TbMode,
    tables: Arc<Tablebases>,
}

/// Why the databases in `dir` cannot adjudicate a match.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {problem}", .dir.display())]
pub struct TbOpenError {
    pub dir: PathBuf,
    pub problem: String,
}

/// A game ended by the databases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// `None` for a draw.
    pub winner: Option<Color>,
    /// A sentence for the PGN and the report.
    pub detail: String,
}

impl TbAdjudication {
    /// Opens the databases in `dir` for `rules` and checks every file's
    /// checksum: an error if the rules have none, or if any file there is
    /// unusable (a match should not quietly lose part of its
    /// adjudication), or if there is none.
    pub fn open(dir: &Path, mode: TbMode, rules: &Rules) -> Result<TbAdjudication, TbOpenError> {
        let problem = |problem: String| TbOpenError {
            dir: dir.to_path_buf(),
            problem,
        };
        let tables = Tablebases::for_play(dir, rules, None).map_err(|e| problem(e.to_string()))?;
        let (usable, problems) = tables.check_all();
        if !problems.is_empty() {
            return Err(problem(problems.join("; ")));
        }
        if usable == 0 {
            return Err(problem("no database files".into()));
        }
        Ok(TbAdjudication {
            dir: dir.to_path_buf(),
            mode,
            tables: Arc::new(tables),
        })
    }

    /// What perfect play gives `pos` (any phase, the placing layers'
    /// included) under the N-move rules: the winner, `None` for a draw;
    /// `None` where the databases do not hold it. The match reports each
    /// game's opening so, to set apart the games whose opening was
    /// already lost.
    pub fn perfect_winner(&self, pos: &Position) -> Option<Option<Color>> {
        let mover = pos.side_to_move();
        Some(match self.tables.value(pos)?.rule? {
            Wdl::Win => Some(mover),
            Wdl::Loss => Some(mover.opponent()),
            Wdl::Draw => None,
        })
    }

    /// The verdict on `pos`, if it is a moving-phase position the
    /// databases hold and the mode and the N-move rules let its value end
    /// the game. Placing positions are played on even where the
    /// directory's placing layers hold them: the match measures the play
    /// up to the moving phase. (`_rules` are the match's, which the
    /// tables were opened for.)
    pub fn verdict(&self, _rules: &Rules, pos: &Position) -> Option<Verdict> {
        if pos.is_placing() {
            return None;
        }
        let value = self.tables.value(pos)?;
        let mover = pos.side_to_move();
        let decisive = |winner: Color| {
            let d = value
                .to_end
                .map(|d| format!(" in {d} plies"))
                .unwrap_or_default();
            let removal = value
                .to_removal
                .map(|z| format!(", the next removal within {z}"))
                .unwrap_or_default();
            (self.mode != TbMode::Draw).then(|| Verdict {
                winner: Some(winner),
                detail: format!(
                    "{winner} wins by adjudication: the databases give {mover} (to move) a {}{d}{removal}",
                    if winner == mover { "win" } else { "loss" }
                ),
            })
        };
        match value.rule? {
            Wdl::Win => decisive(mover),
            Wdl::Loss => decisive(mover.opponent()),
            Wdl::Draw => (self.mode != TbMode::WinLoss).then(|| Verdict {
                winner: None,
                detail: if value.pure == Some(Wdl::Draw) {
                    "draw by adjudication: the databases give the position a draw".into()
                } else {
                    "draw by adjudication: the databases give the position a draw under the N-move rules".into()
                },
            }),
        }
    }
}
