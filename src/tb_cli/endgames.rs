//! `mulino tb endgames`: samples the endgame benchmark's positions
//! (`crate::bench::endgames`) from the databases: moving-phase positions
//! of a range of pieces a side, won or drawn for the side to move under
//! the rules' N-move limits from a counter of 0, where some legal move
//! throws the value away, with every move that keeps it.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::bench::endgames::{format_line, in_moving_phase};
use crate::core::{Bitboard, Color, Variant};
use crate::tb::index::Subspace;
use crate::tb::probe::Tablebases;
use crate::tb::root::probe_root;
use crate::tb::{NMoveLimits, TbRules, Wdl, symmetry};

#[derive(Args, Debug)]
pub struct EndgamesArgs {
    /// The directory of the database files (`.wdz`, or `.tb` and `.dtz`,
    /// for the N-move rule of the variant's rules).
    #[arg(long, default_value = "tb")]
    pub dir: PathBuf,
    /// The rules (a variant name).
    #[arg(long, default_value = "nine")]
    pub variant: Variant,
    /// The fewest and the most pieces a side (`3-5`).
    #[arg(long, default_value = "3-5", value_parser = piece_range)]
    pub pieces: (u8, u8),
    /// How many won positions to sample, and as many drawn ones.
    #[arg(long, default_value_t = 150)]
    pub count: usize,
    /// The seed of the sampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write the set (default: stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// SplitMix64: a small generator whose sequence for a seed never changes
/// with a dependency's version, so that a set can be made again.
pub(super) struct SplitMix(pub(super) u64);

impl SplitMix {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (n > 0).
    pub(super) fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

/// The range `a-b` of pieces a side.
pub(super) fn piece_range(text: &str) -> Result<(u8, u8), String> {
    let parsed = text
        .split_once('-')
        .and_then(|(a, b)| Some((a.parse::<u8>().ok()?, b.parse::<u8>().ok()?)));
    match parsed {
        Some((a, b)) if 3 <= a && a <= b && b <= 9 => Ok((a, b)),
        _ => Err(format!(
            "--pieces {text}: expected `MIN-MAX` with 3 <= MIN <= MAX <= 9"
        )),
    }
}

pub fn run(a: &EndgamesArgs) -> Result<()> {
    let variant = a.variant;
    let rules = variant.rules();
    let (low, high) = a.pieces;
    if !a.dir.is_dir() {
        bail!("{}: no such directory", a.dir.display());
    }
    let tb_rules = TbRules::from_rules(&rules)?;
    let tables = Tablebases::under(&a.dir, tb_rules, NMoveLimits::of(&rules));
    let subspaces: Vec<Subspace> = (low..=high)
        .flat_map(|w| (low..=high).filter_map(move |b| Subspace::new(w, b)))
        .collect();
    let mut rng = SplitMix(a.seed);
    let mut seen = HashSet::new();
    let (mut wins, mut draws) = (Vec::new(), Vec::new());
    let mut tries = 0u64;
    while wins.len() < a.count || draws.len() < a.count {
        tries += 1;
        if tries > 10_000_000 {
            bail!(
                "only {} won and {} drawn positions found in {tries} tries (are the files for pieces {low}-{high} there?)",
                wins.len(),
                draws.len(),
            );
        }
        let sub = &subspaces[rng.below(subspaces.len() as u64) as usize];
        let (own, opp) = sub.position(rng.below(sub.len()));
        let s = rng.below(symmetry::COUNT as u64) as usize;
        let (own, opp) = (symmetry::apply(s, own), symmetry::apply(s, opp));
        if (own & opp) != Bitboard::EMPTY {
            continue;
        }
        let mover = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let Some(pos) = tb_rules.position_of(&rules, mover, own, opp) else {
            continue;
        };
        if !in_moving_phase(&pos) || !seen.insert(pos.key()) {
            continue;
        }
        let probe = probe_root(&tables, &rules, &pos);
        let Some(root) = probe.value.and_then(|v| v.rule) else {
            continue;
        };
        let list = match root {
            Wdl::Win if wins.len() < a.count => &mut wins,
            Wdl::Draw if draws.len() < a.count => &mut draws,
            _ => continue,
        };
        if probe.moves.is_empty() || !probe.complete() {
            continue;
        }
        let keeping: Vec<_> = probe
            .moves
            .iter()
            .filter(|(_, v)| v.and_then(|v| v.rule) == Some(root))
            .map(|&(m, _)| m)
            .collect();
        if keeping.is_empty() || keeping.len() == probe.moves.len() {
            continue;
        }
        list.push(format_line(&pos.fen(&rules), root, &keeping));
        let done = wins.len() + draws.len();
        if done % 50 == 0 {
            eprintln!("tb endgames: {done} of {} positions", 2 * a.count);
        }
    }
    let mut text = format!(
        "# The endgame benchmark's positions (src/bench/endgames.rs): {} won and {} drawn\n\
         # positions of {low}-{high} pieces a side in {}, under its N-move limits from a counter\n\
         # of 0, each with a move that throws the value away; each line: FEN, value,\n\
         # the moves that keep it. Sampled from mulino's own databases with\n\
         # `mulino tb endgames --variant {} --pieces {low}-{high} --count {} --seed {}` (mulino {}).\n",
        a.count,
        a.count,
        variant.name(),
        variant.name(),
        a.count,
        a.seed,
        env!("CARGO_PKG_VERSION")
    );
    for line in wins.iter().chain(&draws) {
        text.push_str(line);
        text.push('\n');
    }
    match &a.out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().write_all(text.as_bytes())?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_ranges_and_the_generator() {
        assert_eq!(piece_range("3-5").unwrap(), (3, 5));
        for bad in ["2-5", "5-3", "3-10", "x", "3"] {
            let error = piece_range(bad).expect_err(bad);
            assert!(
                error.starts_with(&format!("--pieces {bad}: expected")),
                "{error}"
            );
        }
        // The sequence of seed 1 never changes (sets are made again from it).
        let mut r = SplitMix(1);
        assert_eq!(r.next(), 0x910A_2DEC_8902_5CC1);
        assert!((0..1000).all(|_| r.below(7) < 7));
    }
}
