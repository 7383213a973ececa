//! `mulino tb build --placing`: the placing layers, 17 down to 0, each
//! kept once finished (a layer's file gets its name only when complete,
//! and a build resumes at the first layer missing), with one line each.

use anyhow::{Result, bail};

use std::path::Path;
use std::time::Instant;

use super::progress::Whole;
use super::{BuildArgs, CommonArgs, bar, on_event};
use crate::tb::TbError;
use crate::tb::TbRules;
use crate::tb::Wdl;
use crate::tb::placing::build::{PlacingOptions, build_layer};
use crate::tb::placing::verify::verify_layer;
use crate::tb::placing::{LAYERS, Layer, PIECES, file_name};
use crate::tb::placing::{PlacingLoaded, get, wdl};
use crate::tb::placing::{open_any_layer, open_layer};

/// The slots of every placing layer a build makes (or of layer `only`).
pub fn slots(a: &BuildArgs, only: Option<u8>) -> u64 {
    (0..LAYERS)
        .filter(|&k| only.is_none_or(|o| o == k))
        .map(|k| {
            Layer {
                k,
                max: a.placing_max,
            }
            .slots()
        })
        .sum()
}

/// Builds every placing layer not yet in `--dir` (or only layer `only`),
/// last layer first.
pub fn build(a: &BuildArgs, rules: TbRules, whole: &mut Whole, only: Option<u8>) -> Result<()> {
    if !(3..=PIECES).contains(&a.placing_max) {
        bail!("--placing-max {}: must be 3..={PIECES}", a.placing_max);
    }
    let opts = PlacingOptions {
        dir: a.common.dir.clone(),
        threads: a.common.threads.max(1),
        max: a.placing_max,
        limits: a.limits(),
        memory: a.memory_bytes(),
    };
    println!("layer\tslots\tseconds\tpositions/s\tpeak_MiB\tbytes\twins\tdraws\tlosses");
    for k in (0..LAYERS).rev().filter(|&k| only.is_none_or(|o| o == k)) {
        match open_layer(&opts.dir, rules, k, opts.max) {
            Ok(t) if t.header.limits == opts.limits => {
                t.verify_checksum()?;
                whole.found(Layer { k, max: opts.max }.slots());
                continue;
            }
            Ok(t) => bail!(
                "{} was built for {:?}, not {:?} (a build never replaces it: move it away first)",
                t.path.display(),
                t.header.limits,
                opts.limits
            ),
            Err(TbError::Missing(_)) => {}
            Err(e) => bail!("{e} (a build never replaces it: move it away first)"),
        }
        let pb = bar();
        pb.set_prefix(format!("p{k}"));
        let report = build_layer(rules, k, &opts, &on_event(&pb))?;
        pb.finish_and_clear();
        println!(
            "{}\t{}\t{:.1}\t{:.0}\t{}\t{}\t{}\t{}\t{}",
            file_name(report.layer),
            report.slots,
            report.seconds,
            report.slots as f64 / report.seconds.max(1e-9),
            report.peak_bytes >> 20,
            report.file_bytes,
            report.wins,
            report.draws,
            report.losses
        );
        whole.built(
            &format!("placing layer {k}"),
            report.slots,
            report.peak_bytes,
        );
    }
    Ok(())
}

/// The placing layers with a file in `dir`, last layer first.
pub fn layers_present(dir: &Path) -> Vec<u8> {
    (0..LAYERS)
        .rev()
        .filter(|&k| dir.join(file_name(k)).exists())
        .collect()
}

/// The placing layers asked for, last layer first, once each.
pub fn layers_sorted(layers: &[u8]) -> Vec<u8> {
    let mut out = layers.to_vec();
    out.sort_unstable_by(|a, b| b.cmp(a));
    out.dedup();
    out
}

/// Verifies the placing layers `layers` (the later one of each pair must
/// be there too); the number of mismatches.
pub fn verify(a: &CommonArgs, rules: TbRules, layers: &[u8], stamp: bool) -> Result<u64> {
    let mut bad = 0;
    for &k in layers {
        let name = file_name(k);
        let forget = |_: &_| super::forget_note(stamp, &a.dir.join(&name));
        let max = open_any_layer(&a.dir, rules, k)
            .inspect_err(forget)?
            .header
            .max;
        let pb = bar();
        pb.set_prefix(format!("p{k}"));
        let started = Instant::now();
        let f =
            verify_layer(&a.dir, rules, k, max, a.threads, &on_event(&pb)).inspect_err(forget)?;
        pb.finish_and_clear();
        let secs = started.elapsed().as_secs_f64();
        if stamp {
            super::note_verified(&a.dir.join(&name), f.mismatches == 0, secs)?;
        }
        if f.mismatches == 0 {
            println!("{name}\tok\t{secs:.2} s");
        } else {
            println!("{name}\t{} mismatches\t{secs:.2} s", f.mismatches);
            for line in &f.first {
                println!("  {line}");
            }
            bad += f.mismatches;
        }
    }
    Ok(bad)
}

/// `tb stats` for the placing layers in `dir`: per layer and sector the
/// wins, draws and losses (by symmetry class), then the value of the
/// start position and of each kind of first placement (the 24 points
/// fall into four kinds under the 16 symmetries).
pub fn stats(dir: &Path, rules: TbRules) -> Result<()> {
    let layers = layers_present(dir);
    if layers.is_empty() {
        return Ok(());
    }
    // A sector's counts are of its symmetry classes (positions up to the
    // board's 16 symmetries); a sector no game reaches is listed apart
    // and left out of the layer's total.
    println!(
        "# placing layer\tsector (to move-other, on board)\twins\tdraws\tlosses\t(symmetry classes; `unreachable`: no game gets there, not in the total)"
    );
    for &k in &layers {
        let t = PlacingLoaded::open(dir, rules, k)?;
        let mut total = [0u64; 3];
        let mut unreachable = 0u64;
        for s in &t.sectors {
            let mut counts = [0u64; 3];
            for class in 0..s.sub.major_classes() {
                s.sub.for_each_in_class(class, |idx, opp| {
                    if s.sub.is_canonical(class, opp) {
                        counts[get(t.table.slots(), s.first + idx) as usize] += 1;
                    }
                });
            }
            let reached = t.layer.reachable(s.own, s.opp);
            let [draws, wins, losses] = counts;
            let note = if reached { "" } else { "\tunreachable" };
            println!("{k}\t{}-{}\t{wins}\t{draws}\t{losses}{note}", s.own, s.opp);
            if reached {
                total.iter_mut().zip(counts).for_each(|(t, c)| *t += c);
            } else {
                unreachable += counts.iter().sum::<u64>();
            }
        }
        let [draws, wins, losses] = total;
        println!(
            "{k}\tall reached\t{wins}\t{draws}\t{losses}\t({unreachable} classes in sectors no game reaches)"
        );
    }
    first_moves(dir, rules)
}

/// The start position's value and each kind of first placement's, from
/// layers 0 and 1 (when both are there, built for every sector).
fn first_moves(dir: &Path, rules: TbRules) -> Result<()> {
    let (Ok(start), Ok(after)) = (
        PlacingLoaded::open(dir, rules, 0),
        PlacingLoaded::open(dir, rules, 1),
    ) else {
        return Ok(());
    };
    if start.layer.max != PIECES || after.layer.max != PIECES {
        return Ok(());
    }
    let empty = crate::core::Bitboard::EMPTY;
    let value = start.code(empty, empty).map(wdl);
    println!("# the start position (White to place): {}", name(value));
    println!("# first placement\tpoints of its kind\tvalue for White");
    let mut seen: Vec<u64> = Vec::new();
    for p in crate::core::Point::ALL {
        // Black to move against White's one piece.
        let white = empty.with(p);
        let slot = after.sectors.iter().find(|s| (s.own, s.opp) == (0, 1));
        let Some(s) = slot else { continue };
        let idx = s.sub.index(empty, white);
        if seen.contains(&idx) {
            continue;
        }
        seen.push(idx);
        let kind: Vec<String> = crate::core::Point::ALL
            .iter()
            .filter(|&&q| s.sub.index(empty, empty.with(q)) == idx)
            .map(|q| q.to_string())
            .collect();
        let v = wdl(get(after.table.slots(), s.first + idx)).flip();
        println!("{p}\t{}\t{}", kind.join(" "), name(Some(v)));
    }
    Ok(())
}

fn name(v: Option<Wdl>) -> &'static str {
    v.map_or("unknown", Wdl::name)
}
