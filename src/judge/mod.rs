//! `mulino judge`: games judged move by move by perfect play. Every move
//! of every game (PGN, as `mulino match --pgn` writes it) is valued by the
//! databases before and after, for the side that played it, under the
//! game's rules as played (its N-move counter, its repetitions); a move
//! that turns a win into a draw or a loss, or a draw into a loss, is an
//! error. Book moves and moves the databases cannot value are counted
//! apart. The sums are per player, per phase of the mover and per game
//! ([`report`]); each game is replayed and judged in [`replay`].

pub mod replay;
pub mod report;

use std::path::{Path, PathBuf};

use clap::Args;

use crate::core::Rules;
use crate::core::pgn;
use crate::tb::probe::Tablebases;
use crate::tb::{NMoveLimits, TbRules};
pub use replay::{GameProblem, Phase, Ply, judge_game};
pub use report::{GameInfo, Report};

/// `mulino judge`'s options.
#[derive(Args, Debug)]
#[command(
    after_help = "Example:\n  mulino judge --tb tb games.pgn\n  mulino judge --tb tb --json s1.pgn s2.pgn > judged.json"
)]
pub struct JudgeArgs {
    /// The databases: a folder of database files or a packed folder (the
    /// whole game's, for the games' rules).
    #[arg(long, value_name = "DIR")]
    pub tb: PathBuf,
    /// The PGN files, read in order.
    #[arg(required = true, value_name = "GAMES.pgn")]
    pub files: Vec<PathBuf>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Why the judge stopped.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("cannot read {}: {error}", .path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: no games in it", .path.display())]
    NoGames { path: PathBuf },
    #[error("{}, game {game}: {problem}", .path.display())]
    Game {
        path: PathBuf,
        game: usize,
        problem: GameProblem,
    },
    #[error("{}: {problem}", .dir.display())]
    Tables { dir: PathBuf, problem: String },
}

/// The databases in one folder, opened once for each set of rules (their
/// moving-phase rules and N-move limits) the games were played under.
pub struct Judge {
    dir: PathBuf,
    opened: Vec<((TbRules, NMoveLimits), Tablebases)>,
    report: Report,
}

impl Judge {
    pub fn new(dir: &Path) -> Judge {
        Judge {
            dir: dir.to_path_buf(),
            opened: Vec::new(),
            report: Report::default(),
        }
    }

    /// The tables for `rules`, opened and every file checked on first use
    /// (as `mulino match --tb` does: a damaged file is an error, not a
    /// quiet gap in the judgement).
    fn tables(&mut self, rules: &Rules) -> Result<&Tablebases, GameProblem> {
        let tb_rules =
            TbRules::from_rules(rules).map_err(|e| GameProblem::NoTables(e.to_string()))?;
        let key = (tb_rules, NMoveLimits::of(rules));
        if let Some(i) = self.opened.iter().position(|(k, _)| *k == key) {
            return Ok(&self.opened[i].1);
        }
        let tables = Tablebases::for_play(&self.dir, rules, None)
            .map_err(|e| GameProblem::NoTables(e.to_string()))?;
        let (usable, problems) = tables.check_all();
        if !problems.is_empty() {
            return Err(GameProblem::NoTables(problems.join("; ")));
        }
        if usable == 0 {
            return Err(GameProblem::NoTables("no database files".into()));
        }
        self.opened.push((key, tables));
        Ok(&self.opened[self.opened.len() - 1].1)
    }

    /// Judges every game of PGN text `text` (from `path`).
    pub fn judge_text(&mut self, path: &Path, text: &str) -> Result<(), JudgeError> {
        let games = pgn::read(text);
        if games.is_empty() {
            return Err(JudgeError::NoGames {
                path: path.to_path_buf(),
            });
        }
        let file = path.display().to_string();
        for (i, game) in games.iter().enumerate() {
            let at = |problem| JudgeError::Game {
                path: path.to_path_buf(),
                game: i + 1,
                problem,
            };
            let rules = replay::rules_of(game).map_err(at)?;
            let tables = self.tables(&rules).map_err(at)?;
            let plies = judge_game(game, &rules, tables).map_err(at)?;
            let info = GameInfo {
                file: &file,
                game: i + 1,
                white: game.tag("White").unwrap_or("White"),
                black: game.tag("Black").unwrap_or("Black"),
                result: game.tag("Result").unwrap_or("*"),
            };
            self.report.add(&info, &plies);
        }
        Ok(())
    }

    /// Judges every game of the PGN file at `path`.
    pub fn judge_file(&mut self, path: &Path) -> Result<(), JudgeError> {
        let text = std::fs::read_to_string(path).map_err(|error| JudgeError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        self.judge_text(path, &text)
    }

    pub fn report(&self) -> &Report {
        &self.report
    }
}

/// Runs `mulino judge`.
pub fn run(args: JudgeArgs) -> anyhow::Result<()> {
    if !args.tb.exists() {
        return Err(JudgeError::Tables {
            dir: args.tb,
            problem: "no such folder".into(),
        }
        .into());
    }
    let mut judge = Judge::new(&args.tb);
    for path in &args.files {
        judge.judge_file(path)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(judge.report())?);
    } else {
        print!("{}", judge.report().text());
    }
    Ok(())
}
