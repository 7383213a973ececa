//! `mulino tb build --placing`: the placing layers, 17 down to 0, each
//! kept once finished (a layer's file gets its name only when complete,
//! and a build resumes at the first layer missing), with one line each.

use anyhow::{Result, bail};

use std::path::Path;
use std::time::Instant;

use super::{BuildArgs, CommonArgs, bar, on_event};
use crate::tb::TbRules;
use crate::tb::format::TbError;
use crate::tb::placing::build::{PlacingOptions, build_layer, open_any_layer, open_layer};
use crate::tb::placing::verify::verify_layer;
use crate::tb::placing::{LAYERS, PIECES, file_name};

/// Builds every placing layer not yet in `--dir`, last layer first.
pub fn build(a: &BuildArgs, rules: TbRules) -> Result<()> {
    if !(3..=PIECES).contains(&a.placing_max) {
        bail!("--placing-max {}: must be 3..={PIECES}", a.placing_max);
    }
    let opts = PlacingOptions {
        dir: a.common.dir.clone(),
        threads: a.common.threads.max(1),
        max: a.placing_max,
    };
    println!("layer\tslots\tseconds\tpositions/s\tpeak_MiB\tbytes\twins\tdraws\tlosses");
    for k in (0..LAYERS).rev() {
        match open_layer(&opts.dir, rules, k, opts.max) {
            Ok(t) => {
                t.verify_checksum()?;
                continue;
            }
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

/// Verifies the placing layers `layers` (the later one of each pair must
/// be there too); the number of mismatches.
pub fn verify(a: &CommonArgs, rules: TbRules, layers: &[u8]) -> Result<u64> {
    let mut bad = 0;
    for &k in layers {
        let max = open_any_layer(&a.dir, rules, k)?.header.max;
        let pb = bar();
        pb.set_prefix(format!("p{k}"));
        let started = Instant::now();
        let f = verify_layer(&a.dir, rules, k, max, a.threads, &on_event(&pb))?;
        pb.finish_and_clear();
        let secs = started.elapsed().as_secs_f64();
        let name = file_name(k);
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
