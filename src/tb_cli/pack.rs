//! `mulino tb pack` and `mulino tb compare`: a packed folder made from a
//! folder's files, and checked against them position by position.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::{CompareArgs, PackArgs, bar, on_event};
use crate::tb::pack::compare::compare_table;
use crate::tb::pack::read::FolderSource;
use crate::tb::pack::write::{PackOptions, pack};
use crate::tb::pack::{Packed, TableId};
use crate::tb::placing;

pub fn run_pack(a: PackArgs) -> Result<()> {
    let opts = PackOptions {
        src: a.dir.clone(),
        out: a.out.clone(),
        threads: a.threads.max(1),
        block_slots: a.block_slots,
    };
    let pb = bar();
    pb.set_prefix("pack");
    let report = pack(&opts, &on_event(&pb))?;
    pb.finish_and_clear();
    println!("table\tslots\tsource_bytes\tpacked_bytes\tbits/slot\thow");
    for t in &report.tables {
        println!(
            "{}\t{}\t{}\t{}\t{:.4}\t{}",
            t.name,
            t.slots,
            t.source_bytes,
            t.packed_bytes,
            t.packed_bytes as f64 * 8.0 / t.slots.max(1) as f64,
            if t.stored { "stored" } else { "derived" }
        );
    }
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    eprintln!(
        "tb pack: {} tables ({} stored) in {:.1} s: {:.1} MiB in, {:.1} MiB out, {:.2}x smaller",
        report.tables.len(),
        report.tables.iter().filter(|t| t.stored).count(),
        report.seconds,
        mib(report.bytes_in),
        mib(report.bytes_out),
        report.bytes_in as f64 / report.bytes_out.max(1) as f64
    );
    println!("manifest sha256 {}", report.manifest_sha256);
    Ok(())
}

pub fn run_compare(a: CompareArgs) -> Result<()> {
    let started = Instant::now();
    let source: Arc<dyn crate::tb::pack::PackSource> = Arc::new(FolderSource::new(&a.pack));
    let packed =
        Packed::open(source, None).with_context(|| format!("opening {}", a.pack.display()))?;
    packed.set_cache_bytes((a.cache * (1u64 << 30) as f64) as usize);
    let rules = packed.tb_rules();
    let limits = packed.limits();
    let names: Vec<String> = if a.tables.is_empty() {
        packed
            .manifest()
            .tables
            .iter()
            .map(|t| t.name.clone())
            .collect()
    } else {
        a.tables.clone()
    };
    println!("table\tpositions\tunknown\tmismatches");
    let (mut positions, mut bad) = (0u64, 0u64);
    for name in &names {
        let Some(id) = TableId::parse(name).filter(|id| packed.has(*id)) else {
            bail!("the pack has no table `{name}`");
        };
        let src = match id {
            TableId::Moving { own, opp } => {
                crate::tb::mapped::MappedTable::open_wdz(&a.dir, own, opp, rules, limits)?
            }
            TableId::Placing { k, max } => placing::open_layer(&a.dir, rules, k, max)?,
        };
        let pb = bar();
        pb.set_prefix(name.clone());
        let found = compare_table(&packed, id, &src, a.threads.max(1), &on_event(&pb))?;
        pb.finish_and_clear();
        println!(
            "{name}\t{}\t{}\t{}",
            found.positions, found.unknown, found.findings.mismatches
        );
        for f in &found.findings.first {
            println!("  {f}");
        }
        positions += found.positions;
        bad += found.unknown + found.findings.mismatches;
    }
    eprintln!(
        "tb compare: {positions} positions in {:.1} s, {bad} unknown or different",
        started.elapsed().as_secs_f64()
    );
    if bad > 0 {
        bail!(
            "{bad} positions of {} do not answer as {} does",
            a.pack.display(),
            a.dir.display()
        );
    }
    Ok(())
}
