//! `mulino tune`: the evaluation's weights fitted to the databases'
//! values (Texel tuning). The positions come from games (PGN files, as
//! `mulino match` writes them); each is labelled with its exact value
//! from the databases (moving phase, and placing layers where built) or,
//! in rule sets without databases, with the result of its game, and each
//! phase's weights (`search::params`) are fitted to predict it. Every
//! fifth game is held out to show whether the fit carries over.
//!
//! It prints the fit and the weights; a change to `search::params` is
//! kept only if it then wins in matches (docs/evaluation.md).

pub mod games;
mod texel;

use std::collections::HashSet;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::core::{Color, Position, Rules, Variant};
use crate::search::eval;
use crate::search::params::Phase;
use crate::search::params::{self, EvalWeights};
use crate::search::patterns;
use crate::tb::probe::Tablebases;
use crate::tb::{NMoveLimits, TbRules, Wdl};
use texel::Sample;

/// `mulino tune`'s arguments.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// PGN files of games in the rule set (`mulino match --pgn`).
    #[arg(required_unless_present = "scores")]
    pub pgn: Vec<PathBuf>,
    /// Positions labelled by a deeper search instead of a game's result
    /// or a database: a file of lines `FEN<TAB>cp|mate<TAB>N`, the score
    /// for the side to move as `info ... score` gives it (more fields
    /// after a tab are ignored). Every fifth line is held out.
    #[arg(long)]
    pub scores: Option<PathBuf>,
    /// The scale that turns a `--scores` score into a label,
    /// `1 / (1 + exp(-k * cp / 100))` (a mate is 1 or 0).
    #[arg(long, default_value_t = 0.5)]
    pub score_k: f64,
    /// The database directory that labels the positions; without it,
    /// each position is labelled with its game's result (a game without
    /// one is left out).
    #[arg(long)]
    pub tb: Option<PathBuf>,
    /// The rule set (a variant name); games of other rules are left out.
    #[arg(long, default_value = "nine")]
    pub variant: Variant,
    /// Leave out each game's first plies (random openings).
    #[arg(long, default_value_t = 0)]
    pub skip_plies: usize,
    /// Full passes of gradient descent per phase.
    #[arg(long, default_value_t = 2000)]
    pub iterations: usize,
    /// Turns of fitting the weights, then the scale.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// The phases to fit (placing, moving, flying); default all three.
    #[arg(long, value_delimiter = ',', value_parser = parse_phase)]
    pub phases: Vec<Phase>,
    /// Weights to leave as they are (names as printed, comma-separated):
    /// `in_hand` while placing, for example, which only tells who moves
    /// (both hands empty at the same pace).
    #[arg(long, value_delimiter = ',', value_parser = parse_weight)]
    pub freeze: Vec<usize>,
}

/// The labelled positions of one phase, for fitting and held out.
#[derive(Default)]
struct Set {
    train: Vec<Sample>,
    held: Vec<Sample>,
}

impl Set {
    /// `pos` labelled `target`, held out or fitted.
    fn add(&mut self, pos: &Position, rules: &Rules, target: f64, held: bool) {
        let (terms, fixed) = eval::terms(pos, rules).linear();
        let sample = Sample {
            terms,
            fixed,
            target,
        };
        if held {
            self.held.push(sample);
        } else {
            self.train.push(sample);
        }
    }
}

/// What reading the games found, besides the samples.
#[derive(Default)]
struct Counts {
    games: usize,
    skipped: usize,
    unlabelled: usize,
    repeated: usize,
}

pub fn run(args: TuneArgs) -> Result<()> {
    let variant = args.variant;
    let rules = variant.rules();
    let phases = chosen_phases(&args.phases);
    let frozen = frozen_weights(&args.freeze);
    let tables = match &args.tb {
        Some(dir) => Some(Tablebases::under(
            dir,
            TbRules::from_rules(&rules)?,
            NMoveLimits::of(&rules),
        )),
        None => None,
    };
    let (mut sets, counts) = samples(&args, variant, &phases, tables.as_ref())?;
    if let Some(path) = &args.scores {
        let n = scored_samples(path, args.score_k, variant, &phases, &mut sets)?;
        println!("positions scored by search in {}: {n}", path.display());
    }
    let labelled: usize = sets.iter().map(|s| s.train.len() + s.held.len()).sum();
    println!(
        "games {} (left out {}); positions labelled {labelled}, \
         without a database value {}, repeated {}",
        counts.games, counts.skipped, counts.unlabelled, counts.repeated
    );
    if labelled == 0 {
        bail!("no position has a label (is --tb the right directory? do the games have results?)");
    }
    fit(&args, variant, &phases, &sets, frozen);
    Ok(())
}

/// A phase `--phases` names.
fn parse_phase(name: &str) -> std::result::Result<Phase, String> {
    Phase::ALL
        .into_iter()
        .find(|ph| ph.name().eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("no phase {name:?} (placing, moving, flying)"))
}

/// A weight `--freeze` names: its place in `EvalWeights::NAMES`.
fn parse_weight(name: &str) -> std::result::Result<usize, String> {
    EvalWeights::NAMES
        .iter()
        .position(|n| *n == name)
        .ok_or_else(|| format!("no weight {name:?} ({})", EvalWeights::NAMES.join(", ")))
}

/// The phases to fit (all three when none is named).
fn chosen_phases(named: &[Phase]) -> Vec<Phase> {
    if named.is_empty() {
        Phase::ALL.to_vec()
    } else {
        named.to_vec()
    }
}

/// The weights `--freeze` names, as a mask over `EvalWeights::NAMES`.
fn frozen_weights(named: &[usize]) -> [bool; EvalWeights::COUNT] {
    let mut frozen = [false; EvalWeights::COUNT];
    for &i in named {
        frozen[i] = true;
    }
    frozen
}

/// The labelled positions of the games, by phase (`Phase as usize`),
/// every fifth game held out; each position once.
fn samples(
    args: &TuneArgs,
    variant: Variant,
    phases: &[Phase],
    tables: Option<&Tablebases>,
) -> Result<(Vec<Set>, Counts)> {
    let rules = variant.rules();
    let mut sets: Vec<Set> = Phase::ALL.iter().map(|_| Set::default()).collect();
    let mut seen = HashSet::new();
    let mut counts = Counts::default();
    for path in &args.pgn {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        for game in crate::core::pgn::read(&text) {
            let positions = match games::positions(&game, variant, &rules) {
                Ok(p) => p,
                Err(e) => {
                    if counts.skipped < 5 {
                        eprintln!("info: a game of {} left out: {e}", path.display());
                    }
                    counts.skipped += 1;
                    continue;
                }
            };
            // White's score, where the game's result labels.
            let white_score = game.white_score();
            if tables.is_none() && white_score.is_none() {
                counts.skipped += 1;
                continue;
            }
            let held = counts.games % 5 == 4;
            counts.games += 1;
            for pos in positions.iter().skip(args.skip_plies) {
                if !seen.insert(pos.key()) {
                    counts.repeated += 1;
                    continue;
                }
                let phase = Phase::of(pos, &rules);
                if !phases.contains(&phase) {
                    continue;
                }
                let target = match (tables, white_score) {
                    (Some(tables), _) => match tables.value(pos).and_then(|v| v.rule.or(v.pure)) {
                        Some(Wdl::Win) => 1.0,
                        Some(Wdl::Draw) => 0.5,
                        Some(Wdl::Loss) => 0.0,
                        None => {
                            counts.unlabelled += 1;
                            continue;
                        }
                    },
                    (None, Some(w)) if pos.side_to_move() == Color::White => w,
                    (None, Some(w)) => 1.0 - w,
                    (None, None) => continue,
                };
                sets[phase as usize].add(pos, &rules, target, held);
            }
        }
    }
    Ok((sets, counts))
}

/// Adds the positions of a `--scores` file to `sets`, each labelled with
/// its search score through the logistic of scale `k`; how many.
fn scored_samples(
    path: &std::path::Path,
    k: f64,
    variant: Variant,
    phases: &[Phase],
    sets: &mut [Set],
) -> Result<usize> {
    let rules = variant.rules();
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        let bad = || {
            format!(
                "{}:{}: expected FEN<TAB>cp|mate<TAB>N",
                path.display(),
                i + 1
            )
        };
        let mut fields = line.split('\t');
        let (Some(fen), Some(kind), Some(value)) = (fields.next(), fields.next(), fields.next())
        else {
            bail!(bad());
        };
        let value: f64 = value.trim().parse().with_context(bad)?;
        let target = match kind {
            "cp" => texel::expected(k, value),
            "mate" if value > 0.0 => 1.0,
            "mate" => 0.0,
            _ => bail!(bad()),
        };
        let pos = Position::from_fen(fen, &rules).map_err(|e| anyhow::anyhow!("{}: {e}", bad()))?;
        let phase = Phase::of(&pos, &rules);
        if !phases.contains(&phase) {
            continue;
        }
        sets[phase as usize].add(&pos, &rules, target, i % 5 == 4);
        n += 1;
    }
    Ok(n)
}

/// Fits the weights of each phase with enough positions, and the scale,
/// in turns; prints the fit and the weights.
fn fit(
    args: &TuneArgs,
    variant: Variant,
    phases: &[Phase],
    sets: &[Set],
    frozen: [bool; EvalWeights::COUNT],
) {
    let rules = variant.rules();
    // The scale is fitted with the weights, in turns: the piece is fixed
    // at 100, so the scale is what sets the other weights against it.
    const MIN_SAMPLES: usize = 100;
    let fitting: Vec<Phase> = phases
        .iter()
        .copied()
        .filter(|&p| sets[p as usize].train.len() >= MIN_SAMPLES)
        .collect();
    for p in phases.iter().filter(|p| !fitting.contains(p)) {
        let n = sets[*p as usize].train.len();
        println!("{}: {n} positions, too few to fit", p.name());
    }
    if fitting.is_empty() {
        return;
    }
    let old: Vec<[f64; EvalWeights::COUNT]> = fitting
        .iter()
        .map(|p| p.weights(&rules).to_array().map(f64::from))
        .collect();
    let groups = |w: &[[f64; EvalWeights::COUNT]]| -> Vec<(&[Sample], [f64; EvalWeights::COUNT])> {
        fitting
            .iter()
            .zip(w)
            .map(|(&p, w)| (sets[p as usize].train.as_slice(), *w))
            .collect()
    };
    println!(
        "weights in use: search::params, set {:?}",
        params::WeightSet::of(&rules)
    );
    let k_old = texel::fit_k(&groups(&old));
    let (mut k, mut new) = (k_old, old.clone());
    for _ in 0..args.rounds {
        for (w, &p) in new.iter_mut().zip(&fitting) {
            *w = texel::fit_weights(&sets[p as usize].train, k, *w, frozen, args.iterations, 1.0);
        }
        k = texel::fit_k(&groups(&new));
    }
    let new: Vec<_> = new.iter().map(|w| w.map(f64::round)).collect();
    println!(
        "scale k (expected result 1 / (1 + exp(-k * cp / 100))): {k_old:.4} with the weights in use, {k:.4} with the fitted ones"
    );
    for ((&phase, old), new) in fitting.iter().zip(&old).zip(&new) {
        let set = &sets[phase as usize];
        println!(
            "{}: {} positions ({} held out); error {:.6} -> {:.6}, held out {:.6} -> {:.6}",
            phase.name(),
            set.train.len(),
            set.held.len(),
            texel::error(&set.train, k_old, old),
            texel::error(&set.train, k, new),
            texel::error(&set.held, k_old, old),
            texel::error(&set.held, k, new),
        );
        for ((name, o), n) in EvalWeights::NAMES.iter().zip(old).zip(new) {
            let mark = if o != n { " *" } else { "" };
            println!("  {name:<20} {o:>6} -> {n:>6}{mark}");
        }
        if patterns::score_phase(phase, &rules) {
            println!(
                "  (the engine scores this phase of this rule set with the patterns of \
                 src/search/patterns.rs, which scripts/*_patterns.py fit, not with these weights)"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `lines` in the temporary directory, removed when dropped.
    struct Scores(PathBuf);

    impl Scores {
        fn new(name: &str, lines: &[&str]) -> Scores {
            let path = std::env::temp_dir().join(format!("mulino-{}-{name}", std::process::id()));
            std::fs::write(&path, lines.join("\n")).expect("temporary file");
            Scores(path)
        }
    }

    impl Drop for Scores {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    const MOVING: &str = "@**O****/O*@O@***/**@O***@ w m s 4 0 5 0 0 0 0 0 0 0 0 96 77";
    const OTHER: &str = "*@*O****/O*@O@***/@@**O*** w m s 4 0 5 0 0 0 0 0 0 0 0 90 74";
    const PLACING: &str = "********/********/***O**** b p p 1 8 0 9 0 0 0 0 0 0 0 0 1";

    #[test]
    fn search_scores_become_labels_and_every_fifth_line_is_held_out() {
        let lines = [
            format!("{MOVING}\tcp\t0\t15\tgames.pgn"),
            format!("{OTHER}\tcp\t100"),
            format!("{MOVING}\tmate\t3"),
            format!("{OTHER}\tmate\t-2"),
            format!("{MOVING}\tcp\t-100"),
            format!("{PLACING}\tcp\t40"),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let file = Scores::new("scores", &lines);
        let mut sets: Vec<Set> = Phase::ALL.iter().map(|_| Set::default()).collect();
        let n = scored_samples(&file.0, 0.5, Variant::Russian, &[Phase::Moving], &mut sets)
            .expect("a well-formed file");
        assert_eq!(n, 5, "the placing position is not asked for");
        let moving = &sets[Phase::Moving as usize];
        let targets: Vec<f64> = moving.train.iter().map(|s| s.target).collect();
        assert_eq!(targets[0], 0.5);
        assert!((targets[1] - texel::expected(0.5, 100.0)).abs() < 1e-12);
        assert_eq!(&targets[2..], &[1.0, 0.0]);
        assert_eq!(moving.held.len(), 1);
        assert!((moving.held[0].target - texel::expected(0.5, -100.0)).abs() < 1e-12);
        assert!(sets[Phase::Placing as usize].train.is_empty());
    }

    #[test]
    fn a_malformed_scores_line_is_an_error_that_names_it() {
        for (bad, line) in [
            ("short", format!("{MOVING}\tcp")),
            ("kind", format!("{MOVING}\twdl\t1")),
            ("number", format!("{MOVING}\tcp\tten")),
            ("fen", "not a fen\tcp\t0".to_string()),
        ] {
            let file = Scores::new(bad, &[&format!("{OTHER}\tcp\t0"), &line]);
            let mut sets: Vec<Set> = Phase::ALL.iter().map(|_| Set::default()).collect();
            let err = scored_samples(&file.0, 0.5, Variant::Russian, &Phase::ALL, &mut sets)
                .expect_err(bad)
                .to_string();
            assert!(err.contains(":2:"), "{bad}: {err}");
        }
    }
}
