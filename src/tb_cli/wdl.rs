//! `mulino tb wdl`: fits the map from the search's score to win, draw and
//! loss shares (`search::wdl`, `UCI_ShowWDL`) on the databases' exact
//! values. Moving-phase positions are sampled from the files (a subspace
//! at random, then a position in it), each is scored by a short search
//! without databases, and the positions are put in buckets of scores of
//! equal size; a bucket's shares are those of its positions that perfect
//! play wins, draws and loses under the N-move rules from a counter of 0.
//! Each sample also counts mirrored (the score negated, the value seen by
//! the other side), so that the map is symmetric, and the shares are made
//! monotone (pool-adjacent-violators). It prints the table as Rust.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use super::endgames::SplitMix;
use crate::bench::endgames::in_moving_phase;
use crate::core::{Bitboard, Color, Game, Variant};
use crate::engine::Engine;
use crate::search::{Limits, Score};
use crate::tb::index::Subspace;
use crate::tb::probe::Tablebases;
use crate::tb::{NMoveLimits, TbRules, Wdl, symmetry};

#[derive(Args, Debug)]
pub struct WdlArgs {
    /// The directory of the database files (`.wdz`, or `.tb` and `.dtz`).
    #[arg(long, default_value = "tb")]
    pub dir: PathBuf,
    /// The fewest and the most pieces a side (`3-7`).
    #[arg(long, default_value = "3-7", value_parser = super::endgames::piece_range)]
    pub pieces: (u8, u8),
    /// Positions to sample.
    #[arg(long, default_value_t = 20_000)]
    pub count: usize,
    /// Nodes of each position's search.
    #[arg(long, default_value_t = 10_000)]
    pub nodes: u64,
    /// Buckets of scores.
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(2..=200))]
    pub buckets: u32,
    /// The seed of the sampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// One bucket of the fit: its highest score, its positions (mirrors
/// included) and its shares per mille.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub upper: i32,
    pub count: u32,
    pub win: u16,
    pub draw: u16,
    pub loss: u16,
}

pub fn run(a: &WdlArgs) -> Result<()> {
    let variant = Variant::Nine;
    let rules = variant.rules();
    if !a.dir.is_dir() {
        bail!("{}: no such directory", a.dir.display());
    }
    let tb_rules = TbRules::from_rules(&rules)?;
    let tables = Tablebases::under(&a.dir, tb_rules, NMoveLimits::of(&rules));
    let (low, high) = a.pieces;
    let subspaces: Vec<Subspace> = (low..=high)
        .flat_map(|w| (low..=high).filter_map(move |b| Subspace::new(w, b)))
        .collect();
    let mut engine = Engine::new();
    engine.set_option("Hash", Some("16"))?;
    let mut rng = SplitMix(a.seed);
    let mut samples: Vec<(i32, Wdl)> = Vec::with_capacity(a.count);
    let (mut tries, mut mates) = (0u64, 0usize);
    while samples.len() + mates < a.count {
        tries += 1;
        if tries > 100 * a.count as u64 + 1_000_000 {
            bail!("only {} positions found in {tries} tries", samples.len());
        }
        let sub = &subspaces[rng.below(subspaces.len() as u64) as usize];
        let (own, opp) = sub.position(rng.below(sub.len()));
        let s = rng.below(symmetry::COUNT as u64) as usize;
        let (own, opp) = (symmetry::apply(s, own), symmetry::apply(s, opp));
        let mover = [Color::White, Color::Black][rng.below(2) as usize];
        if (own & opp) != Bitboard::EMPTY {
            continue;
        }
        let Some(pos) = tb_rules.position_of(&rules, mover, own, opp) else {
            continue;
        };
        if !in_moving_phase(&pos) || pos.outcome(&rules).is_some() {
            continue;
        }
        let Some(value) = tables.value(&pos).and_then(|v| v.rule) else {
            continue;
        };
        engine.new_game()?;
        engine.set_game(Game::from_position(rules, pos))?;
        let limits = Limits {
            nodes: Some(a.nodes),
            ..Limits::reproducible()
        };
        match Score::from_internal(engine.search_blocking(limits)?.score) {
            Score::Cp(cp) => samples.push((cp, value)),
            Score::Mate(_) => mates += 1,
        }
        if (samples.len() + mates) % 1000 == 0 {
            eprintln!("tb wdl: {} of {} positions", samples.len() + mates, a.count);
        }
    }
    let rows = fit(&samples, a.buckets as usize);
    print!("{}", table_text(a, &rows, samples.len(), mates));
    Ok(())
}

/// The table as Rust, with its provenance.
fn table_text(a: &WdlArgs, rows: &[Row], scored: usize, mates: usize) -> String {
    let mut out = format!(
        "// Fitted by `mulino tb wdl --dir DIR --pieces {}-{} --count {} --nodes {} --buckets {} --seed {}`\n\
         // (mulino {}): {scored} positions scored in centipieces, {mates} more scored as mates (left out);\n\
         // each counted twice, mirrored. Rows: highest score, win, draw, loss per mille (positions).\n",
        a.pieces.0,
        a.pieces.1,
        a.count,
        a.nodes,
        a.buckets,
        a.seed,
        env!("CARGO_PKG_VERSION"),
    );
    out.push_str("pub const WDL_BY_SCORE: &[(i32, u16, u16, u16)] = &[\n");
    for r in rows {
        let upper = if r.upper == i32::MAX {
            "i32::MAX".to_string()
        } else {
            r.upper.to_string()
        };
        out.push_str(&format!(
            "    ({upper}, {}, {}, {}), // {}\n",
            r.win, r.draw, r.loss, r.count
        ));
    }
    out.push_str("];\n");
    out
}

/// The buckets of `samples` (score, value for the side to move), each
/// also counted mirrored, in `buckets` buckets of about equal size, with
/// monotone shares per mille.
pub fn fit(samples: &[(i32, Wdl)], buckets: usize) -> Vec<Row> {
    let mut pooled: Vec<(i32, Wdl)> = samples
        .iter()
        .flat_map(|&(s, v)| [(s, v), (-s, v.flip())])
        .collect();
    pooled.sort_unstable_by_key(|&(s, _)| s);
    if pooled.is_empty() {
        return Vec::new();
    }
    // (upper, count, wins, losses) per bucket, the bounds at quantiles.
    let mut raw: Vec<(i32, f64, f64, f64)> = Vec::new();
    let mut start = 0;
    for j in 1..=buckets {
        let end = (j * pooled.len() / buckets).max(start);
        if end == start {
            continue;
        }
        // A bucket ends after the last sample of its highest score.
        let upper = pooled[end - 1].0;
        let end = pooled.partition_point(|&(s, _)| s <= upper);
        let part = &pooled[start..end];
        if part.is_empty() {
            continue;
        }
        let count = |w: Wdl| part.iter().filter(|&&(_, v)| v == w).count() as f64;
        raw.push((upper, part.len() as f64, count(Wdl::Win), count(Wdl::Loss)));
        start = end;
        if start == pooled.len() {
            break;
        }
    }
    if let Some(last) = raw.last_mut() {
        last.0 = i32::MAX;
    }
    let weights: Vec<f64> = raw.iter().map(|r| r.1).collect();
    let wins = monotone(&raw.iter().map(|r| r.2 / r.1).collect::<Vec<_>>(), &weights);
    let losses: Vec<f64> = monotone(
        &raw.iter().map(|r| -(r.3 / r.1)).collect::<Vec<_>>(),
        &weights,
    )
    .into_iter()
    .map(|l| -l)
    .collect();
    raw.iter()
        .zip(wins.iter().zip(&losses))
        .map(|(r, (&w, &l))| {
            let win = (w * 1000.0).round() as u16;
            let loss = ((l * 1000.0).round() as u16).min(1000 - win);
            Row {
                upper: r.0,
                count: r.1 as u32,
                win,
                draw: 1000 - win - loss,
                loss,
            }
        })
        .collect()
}

/// The weighted least-squares non-decreasing fit of `values`
/// (pool-adjacent-violators).
fn monotone(values: &[f64], weights: &[f64]) -> Vec<f64> {
    // Blocks of (mean, weight, length).
    let mut blocks: Vec<(f64, f64, usize)> = Vec::new();
    for (&v, &w) in values.iter().zip(weights) {
        blocks.push((v, w, 1));
        while blocks.len() > 1 && blocks[blocks.len() - 2].0 > blocks[blocks.len() - 1].0 {
            let (b_mean, b_weight, b_len) = blocks.pop().unwrap_or((0.0, 0.0, 0));
            let a = blocks.last_mut().expect("two blocks");
            let weight = a.1 + b_weight;
            a.0 = (a.0 * a.1 + b_mean * b_weight) / weight;
            a.1 = weight;
            a.2 += b_len;
        }
    }
    blocks
        .into_iter()
        .flat_map(|(mean, _, len)| std::iter::repeat_n(mean, len))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fit_is_symmetric_monotone_and_sums_to_1000() {
        // Higher scores win more often, with noise that breaks the order.
        let mut samples = Vec::new();
        for s in -50..50 {
            let v = match (s * 7) % 10 {
                0 | 3 if s > 0 => Wdl::Draw,
                _ if s > 10 => Wdl::Win,
                _ if s < -10 => Wdl::Loss,
                _ => Wdl::Draw,
            };
            samples.push((s * 10, v));
        }
        let rows = fit(&samples, 8);
        assert!(rows.len() >= 6, "{rows:?}");
        assert_eq!(rows.last().map(|r| r.upper), Some(i32::MAX));
        assert_eq!(rows.iter().map(|r| r.count).sum::<u32>(), 200);
        for r in &rows {
            assert_eq!(r.win + r.draw + r.loss, 1000, "{r:?}");
        }
        for pair in rows.windows(2) {
            assert!(pair[0].upper < pair[1].upper);
            assert!(
                pair[0].win <= pair[1].win && pair[0].loss >= pair[1].loss,
                "{rows:?}"
            );
        }
        let (first, last) = (rows[0], rows[rows.len() - 1]);
        assert_eq!((first.win, last.loss), (0, 0));
        assert_eq!(first.loss, last.win);
    }

    #[test]
    fn pool_adjacent_violators() {
        let fitted = monotone(&[1.0, 3.0, 2.0, 4.0], &[1.0, 1.0, 1.0, 1.0]);
        assert_eq!(fitted, [1.0, 2.5, 2.5, 4.0]);
    }
}
