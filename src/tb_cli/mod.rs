//! `mulino tb`: build, verify and count the databases, the moving phase
//! and the placing layers (the work is in `crate::tb`; this is the
//! command line, progress bars and summaries).

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};

mod args;
mod endgames;
mod pack;
mod placing;
mod plan;
mod progress;
mod wdl;

pub use args::{
    BuildArgs, CommonArgs, CompareArgs, Files, NmoveArgs, PackArgs, PlanArgs, StatsArgs, TbArgs,
    TbCommand, VerifyArgs,
};

use crate::core::Variant;
use crate::tb::NMoveLimits;
use crate::tb::format::Kind;
use crate::tb::index::{MAX_PIECES, MIN_PIECES, Subspace, plan};
use crate::tb::mapped::MappedTable;
use crate::tb::moving::build::{self, Options};
use crate::tb::moving::{self, verify};
use crate::tb::probe::Tablebases;
use crate::tb::work::Event;
use crate::tb::{TbError, TbRules};

pub fn run(args: TbArgs) -> Result<()> {
    match args.command {
        TbCommand::Build(a) => run_build(a),
        TbCommand::Plan(p) => plan::run_plan(&p.build, p.format, p.check),
        TbCommand::Verify(a) => run_verify(a),
        TbCommand::Stats(a) => run_stats(a),
        TbCommand::Endgames(a) => endgames::run(&a),
        TbCommand::Wdl(a) => wdl::run(&a),
        TbCommand::Nmove(a) => run_nmove(a),
        TbCommand::Pack(a) => pack::run_pack(a),
        TbCommand::Compare(a) => pack::run_compare(a),
    }
}

fn tb_rules(variant: Variant) -> Result<TbRules> {
    Ok(TbRules::from_rules(&variant.rules())?)
}

fn all_subspaces(max: u8) -> Vec<(u8, u8)> {
    let mut v = Vec::new();
    for a in MIN_PIECES..=max {
        for b in MIN_PIECES..=max {
            v.push((a, b));
        }
    }
    v
}

/// The subspaces with files in `dir`, smallest first.
fn existing(dir: &Path) -> Vec<(u8, u8)> {
    let mut v: Vec<(u8, u8)> = all_subspaces(MAX_PIECES)
        .into_iter()
        .filter(|&(a, b)| {
            dir.join(crate::tb::format::file_name(a, b)).exists()
                || !limits_present(dir, a, b, "wdz").is_empty()
        })
        .collect();
    v.sort_by_key(|&(a, b)| (a + b, a.max(b), a, b));
    v
}

fn selected(common: &CommonArgs) -> Result<Vec<(u8, u8)>> {
    // A folder that is not there holds nothing to check or count: say so,
    // as a failure, rather than report on nothing.
    if !common.dir.is_dir() {
        bail!("{}: no such directory", common.dir.display());
    }
    if common.subspaces.is_empty() {
        return Ok(existing(&common.dir));
    }
    Ok(common.subspaces.clone())
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub(crate) fn bar() -> ProgressBar {
    let pb = ProgressBar::new(0);
    pb.set_style(style(true));
    pb
}

/// A bar with positions done, rate and ETA, or (when the total is not
/// known in advance) a counter with the rate and the time so far.
fn style(with_total: bool) -> ProgressStyle {
    let template = if with_total {
        "{prefix:>6} {msg:<14} [{bar:30}] {human_pos}/{human_len} {rate} ETA {eta}"
    } else {
        "{prefix:>6} {msg:<14} {spinner} {human_pos} positions resolved, {rate}, {elapsed}"
    };
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}/s", state.per_sec());
            },
        )
        .progress_chars("=> ")
}

/// Shows a build's events on `pb`; where stderr is not a terminal (a
/// build run in the background with its output in a log), where the bar
/// is hidden, also a line at most once a minute.
pub(crate) fn on_event(pb: &ProgressBar) -> impl Fn(Event) + Sync + '_ {
    use std::io::IsTerminal;
    let logged = (!std::io::stderr().is_terminal()).then(|| Mutex::new(Instant::now()));
    move |e| {
        match e {
            Event::Phase { label, total } => {
                pb.set_style(style(total > 0));
                pb.set_message(label.to_string());
                pb.set_length(total);
                pb.set_position(0);
                pb.reset_eta();
            }
            Event::Level(k) => pb.set_message(format!("retrograde {k}")),
            Event::Advance(n) => pb.inc(n),
        }
        if let Some(last) = &logged {
            let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed().as_secs() >= 60 {
                *last = Instant::now();
                eprintln!("{}", progress_line(pb));
            }
        }
    }
}

/// One line of a bar's state, for a log.
fn progress_line(pb: &ProgressBar) -> String {
    let done = match pb.length() {
        Some(total) if total > 0 => format!(
            "{}/{} ({:.1}%)",
            pb.position(),
            total,
            100.0 * pb.position() as f64 / total as f64
        ),
        _ => format!("{} positions resolved", pb.position()),
    };
    format!(
        "{} {}: {done}, {:.0}/s, {} s",
        pb.prefix().trim(),
        pb.message(),
        pb.per_sec(),
        pb.elapsed().as_secs()
    )
}

impl BuildArgs {
    /// `--memory` in bytes.
    pub(crate) fn memory_bytes(&self) -> u64 {
        (self.memory * (1u64 << 30) as f64) as u64
    }

    /// The N-move limits the files are built for.
    pub(crate) fn limits(&self) -> NMoveLimits {
        NMoveLimits {
            n_move: self.n_move,
            endgame: self.endgame_n_move.unwrap_or(self.n_move),
        }
    }
}

/// The limits pair `x-y`'s `.dtz` files are built under: none where every
/// subspace below is clean under `limits` (those files serve every such
/// limit), else `limits`.
fn dtz_limits(dir: &Path, rules: TbRules, limits: NMoveLimits, x: u8, y: u8) -> NMoveLimits {
    if build::clean_below(dir, rules, limits, x, y) {
        NMoveLimits::NONE
    } else {
        limits
    }
}

fn run_build(a: BuildArgs) -> Result<()> {
    let rules = tb_rules(a.common.variant)?;
    // One job of the plan: its inputs must be there (the pairs below it
    // are then found, not built); a placing layer alone.
    let job = match &a.job {
        Some(id) => Some(plan::job_to_build(&a, id)?),
        None => None,
    };
    let layer_only = job
        .as_ref()
        .filter(|(_, pair)| pair.is_none())
        .and_then(|(j, _)| {
            j.id.strip_prefix("place-")
                .and_then(|k| k.parse::<u8>().ok())
        });
    let targets = match (&job, a.pieces) {
        (Some((_, Some(pair))), _) => vec![*pair],
        (Some((_, None)), _) => Vec::new(),
        (None, p) => match p {
            Some(n) => all_subspaces(n),
            None if a.placing && a.common.subspaces.is_empty() => Vec::new(),
            None if a.common.subspaces.is_empty() => {
                bail!("say --pieces N, --subspaces W-B,... or --placing")
            }
            // The folder a build makes: the subspaces asked for, as named.
            None => a.common.subspaces.clone(),
        },
    };
    let opts = Options {
        dir: a.common.dir.clone(),
        threads: a.common.threads.max(1),
        memory: a.memory_bytes(),
    };
    std::fs::create_dir_all(&opts.dir)
        .with_context(|| format!("creating {}", opts.dir.display()))?;
    let kinds = a.files.kinds();
    let pairs = plan(&targets);
    let pair_slots = |x: u8, y: u8| {
        let len = |a, b| Subspace::new(a, b).map_or(0, |s| s.len());
        len(x, y) + if x == y { 0 } else { len(y, x) }
    };
    let mut total: u64 =
        pairs.iter().map(|&(x, y)| pair_slots(x, y)).sum::<u64>() * kinds.len() as u64;
    // A layer's job counts its own layer alone; a pair's job none.
    if a.placing && (job.is_none() || layer_only.is_some()) {
        total += placing::slots(&a, layer_only);
    }
    let mut whole = progress::Whole::new(&opts.dir, total);
    println!(
        "file\tslots\tclasses\tseconds\tpositions/s\tpeak_MiB\twins\tlosses\tdraws\tmax_win\tmax_loss"
    );
    let limits = a.limits();
    for (x, y) in pairs {
        for &kind in kinds {
            let file_limits = match kind {
                Kind::ToRemoval => dtz_limits(&opts.dir, rules, limits, x, y),
                Kind::UnderRule => limits,
                _ => NMoveLimits::NONE,
            };
            if build::pair_state_under(&opts.dir, kind, rules, file_limits, x, y)? {
                whole.found(pair_slots(x, y));
                continue;
            }
            let pb = bar();
            pb.set_prefix(format!("{x}-{y}"));
            let reports =
                match kind {
                    Kind::ToRemoval => build::PairBuild::dtz(rules, file_limits, x, y, &opts)
                        .run(&on_event(&pb))?,
                    Kind::UnderRule => build::PairBuild::wdz(rules, file_limits, x, y, &opts)
                        .run(&on_event(&pb))?,
                    _ => build::PairBuild::of_kind(kind, rules, x, y, &opts).run(&on_event(&pb))?,
                };
            pb.finish_and_clear();
            print_reports(kind, &opts, rules, &reports)?;
            let peak = reports.iter().map(|r| r.peak_bytes).max().unwrap_or(0);
            whole.built(&format!("{x}-{y}"), pair_slots(x, y), peak);
        }
    }
    if a.placing && (job.is_none() || layer_only.is_some()) {
        placing::build(&a, rules, &mut whole, layer_only)?;
    }
    whole.summary();
    Ok(())
}

/// One line per table built: its size, time, rate, memory and counts (a
/// `.dtz` table's counts and longest distances to the next removal split
/// by the signs of its `.tb` table).
fn print_reports(
    kind: Kind,
    opts: &Options,
    rules: TbRules,
    reports: &[build::Report],
) -> Result<()> {
    let slots: u64 = reports.iter().map(|r| r.slots).sum();
    for r in reports {
        let h = match kind {
            Kind::ToEnd | Kind::Placing | Kind::UnderRule => r.header.clone(),
            Kind::ToRemoval => {
                let tbs = Tablebases::new(&opts.dir, rules);
                let tb = tbs
                    .table(r.own, r.opp)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                let limits = r.header.limits;
                let dtz = MappedTable::open_dtz(&opts.dir, r.own, r.opp, rules, limits)?;
                moving::summarise_dtz(&tb.sub, tb.table.slots(), dtz.slots(), rules)
            }
        };
        let name = match kind {
            Kind::ToRemoval => crate::tb::format::dtz_file_name(r.own, r.opp, r.header.limits),
            Kind::UnderRule => crate::tb::format::wdz_file_name(r.own, r.opp, r.header.limits),
            _ => crate::tb::format::file_name_of(kind, r.own, r.opp),
        };
        let classes = h.wins + h.losses + h.draws;
        println!(
            "{}\t{}\t{}\t{:.2}\t{:.0}\t{}\t{}\t{}\t{}\t{}\t{}",
            name,
            r.slots,
            classes,
            r.seconds,
            slots as f64 / r.seconds.max(1e-9),
            r.peak_bytes >> 20,
            h.wins,
            h.losses,
            h.draws,
            h.max_win,
            h.max_loss
        );
    }
    if let Some(r) = reports.first() {
        let names = ["open", "scan", "retrograde", "write"];
        let steps: Vec<String> = names
            .iter()
            .zip(r.steps)
            .map(|(name, s)| format!("{name} {:.1} s (CPU {:.1} s)", s.wall, s.cpu))
            .collect();
        eprintln!(
            "tb build: {}-{}: {}",
            r.own.max(r.opp),
            r.own.min(r.opp),
            steps.join(", ")
        );
    }
    Ok(())
}

/// `tb verify --stamp`: the note beside a file that it passed (or none).
pub(crate) fn note_verified(path: &std::path::Path, passed: bool, secs: f64) -> Result<()> {
    crate::tb::trust::mark_verified(path, passed, secs)
        .with_context(|| format!("the note that {} was verified", path.display()))
}

/// A file that could not be checked keeps no note that it passed.
pub(crate) fn forget_note(stamp: bool, path: &std::path::Path) {
    if stamp {
        crate::tb::trust::forget_verified(path);
    }
}

fn run_verify(v: VerifyArgs) -> Result<()> {
    let a = v.common;
    let rules = tb_rules(a.variant)?;
    let (list, layers) = match (a.subspaces.is_empty(), v.layers.is_empty()) {
        (true, true) => (selected(&a)?, placing::layers_present(&a.dir)),
        (false, true) => (selected(&a)?, Vec::new()),
        (true, false) => (Vec::new(), placing::layers_sorted(&v.layers)),
        (false, false) => (selected(&a)?, placing::layers_sorted(&v.layers)),
    };
    if list.is_empty() && layers.is_empty() {
        bail!("no databases in {}", a.dir.display());
    }
    let mut bad = placing::verify(&a, rules, &layers, v.stamp)?;
    for (x, y) in list {
        // The .tb file, then each .dtz file: the one without N-move rules
        // and those built for limits, each checked under its limits; then
        // the .wdz files.
        let mut files = Vec::new();
        let wdz = limits_present(&a.dir, x, y, "wdz");
        if wdz.is_empty() || a.dir.join(crate::tb::format::file_name(x, y)).exists() {
            files.push((Kind::ToEnd, NMoveLimits::NONE));
        }
        let free = crate::tb::format::dtz_file_name(x, y, NMoveLimits::NONE);
        if a.dir.join(&free).exists() {
            files.push((Kind::ToRemoval, NMoveLimits::NONE));
        }
        files.extend(
            limits_present(&a.dir, x, y, "dtz")
                .into_iter()
                .map(|l| (Kind::ToRemoval, l)),
        );
        files.extend(wdz.into_iter().map(|l| (Kind::UnderRule, l)));
        if let Some(only) = v.files {
            files.retain(|(kind, _)| only.kinds().contains(kind));
            if files.is_empty() {
                bail!(
                    "{x}-{y}: no file of the kinds asked for (--files) in {}",
                    a.dir.display()
                );
            }
        }
        for (kind, limits) in files {
            let name = match kind {
                Kind::ToRemoval => crate::tb::format::dtz_file_name(x, y, limits),
                Kind::UnderRule => crate::tb::format::wdz_file_name(x, y, limits),
                _ => crate::tb::format::file_name_of(kind, x, y),
            };
            let under = Tablebases::under(&a.dir, rules, limits);
            let pb = bar();
            pb.set_prefix(format!("{x}-{y}"));
            let started = Instant::now();
            let f = verify::verify_kind(&under, kind, x, y, a.threads, &on_event(&pb))
                .inspect_err(|_| forget_note(v.stamp, &a.dir.join(&name)))?;
            pb.finish_and_clear();
            let secs = started.elapsed().as_secs_f64();
            if v.stamp {
                note_verified(&a.dir.join(&name), f.mismatches == 0, secs)?;
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
    }
    if bad > 0 {
        bail!("{bad} mismatches");
    }
    Ok(())
}

/// The N-move limits of the files of subspace `x-y` with extension
/// `ext` built for limits in `dir` (`mulino-x-y-nA-B.dtz`, `.wdz`).
fn limits_present(dir: &Path, x: u8, y: u8, ext: &str) -> Vec<NMoveLimits> {
    let prefix = format!("mulino-{x}-{y}-n");
    let mut found: Vec<NMoveLimits> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let rest = name
                .strip_prefix(&prefix)?
                .strip_suffix(ext)?
                .strip_suffix('.')?;
            let (n, e) = rest.split_once('-')?;
            Some(NMoveLimits {
                n_move: n.parse().ok()?,
                endgame: e.parse().ok()?,
            })
        })
        .collect();
    found.sort_by_key(|l| (l.n_move, l.endgame));
    found
}

fn run_stats(a: StatsArgs) -> Result<()> {
    let rules = tb_rules(a.common.variant)?;
    let tbs = Tablebases::new(&a.common.dir, rules);
    let list = selected(&a.common)?;
    let published = match &a.compare {
        Some(p) => Some(read_tsv(p)?),
        None => None,
    };
    println!("# subspace\twins\tlosses\tdraws\tmax_win\tmax_loss");
    let mut differ = 0;
    for (x, y) in list {
        let t = match tbs.table(x, y) {
            Ok(t) => t,
            Err(TbError::Missing(_)) if !limits_present(&a.common.dir, x, y, "wdz").is_empty() => {
                wdz_stats(&a.common.dir, rules, x, y)?;
                continue;
            }
            Err(e) => bail!("{e}"),
        };
        let h = moving::summarise(&t.sub, t.table.slots(), rules);
        let row = format!(
            "{x}-{y}\t{}\t{}\t{}\t{}\t{}",
            h.wins, h.losses, h.draws, h.max_win, h.max_loss
        );
        let mut note = String::new();
        if let Some(p) = &published {
            match p.iter().find(|(k, _)| *k == format!("{x}-{y}")) {
                Some((_, want)) if *want == row => note.push_str("\t= published"),
                Some((_, want)) => {
                    differ += 1;
                    note = format!("\tDIFFERS from published: {want}");
                }
                None => note.push_str("\t(not in the published table)"),
            }
        }
        println!("{row}{note}");
    }
    nmove_stats(&a.common.dir, &tbs, rules, &selected(&a.common)?, &a.limits);
    placing::stats(&a.common.dir, rules)?;
    if differ > 0 {
        bail!("{differ} subspaces differ from the published values");
    }
    Ok(())
}

/// `tb stats` rows of subspace `x-y`'s `.wdz` files (where it has no
/// `.tb` file): its values under each file's limits from a counter of 0,
/// the distances to the next removal.
fn wdz_stats(dir: &Path, rules: TbRules, x: u8, y: u8) -> Result<()> {
    for limits in limits_present(dir, x, y, "wdz") {
        let t = MappedTable::open_wdz(dir, x, y, rules, limits)?;
        let sub = crate::tb::index::Subspace::new(x, y).context("a subspace of 3 to 9 pieces")?;
        let h = moving::summarise_wdz(&sub, t.slots(), rules);
        println!(
            "{x}-{y}\t{}\t{}\t{}\t{}\t{}\t(under NMoveRule {} and EndgameNMoveRule {} from a counter of 0; distances to the next removal)",
            h.wins, h.losses, h.draws, h.max_win, h.max_loss, limits.n_move, limits.endgame
        );
    }
    Ok(())
}

/// Rows of a published.tsv: (subspace, the whole row).
fn read_tsv(path: &Path) -> Result<Vec<(String, String)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let key = l.split('\t').next()?.to_string();
            Some((key, l.trim_end().to_string()))
        })
        .collect())
}

fn run_nmove(a: NmoveArgs) -> Result<()> {
    let v = a.common.variant;
    let targets = selected(&a.common)?;
    if targets.is_empty() {
        bail!("no databases in {}", a.common.dir.display());
    }
    println!(
        "limit\tsubspace\tclasses\tcompared\tlongest\twins_drawn\tlosses_drawn\twin_counters_drawn\tmismatches\tunknown\tseconds"
    );
    let mut bad = 0;
    for &n in &a.limits {
        let rules = crate::core::Rules {
            n_move_rule: n,
            endgame_n_move_rule: n,
            ..v.rules()
        };
        let tables = Tablebases::for_play(&a.common.dir, &rules, None)?;
        let (_, problems) = tables.check_all();
        if !problems.is_empty() {
            bail!("{}", problems.join("; "));
        }
        let mut started = Instant::now();
        moving::nmove_check::check(&tables, &rules, &targets, a.common.threads, |r| {
            println!(
                "{n}\t{}-{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.1}",
                r.own,
                r.opp,
                r.classes,
                r.compared,
                r.longest,
                r.wins_drawn,
                r.losses_drawn,
                r.win_counters_drawn,
                r.mismatches,
                r.unknown,
                started.elapsed().as_secs_f64()
            );
            for f in &r.first {
                println!("  {f}");
            }
            bad += r.mismatches + r.unknown;
            started = Instant::now();
        });
    }
    if bad > 0 {
        bail!("{bad} mismatches");
    }
    Ok(())
}

/// For each subspace with a `.dtz` file and each limit: the longest
/// distance to the next removal, the wins and losses the rule draws from
/// a counter of 0, and the (position, counter) pairs of wins it draws,
/// from the file the engine uses under the limit (the one built for it,
/// or the one without N-move rules); `exact` says whether that file's
/// values stand under the limit (else the counts take them as if they
/// did).
fn nmove_stats(dir: &Path, tbs: &Tablebases, rules: TbRules, list: &[(u8, u8)], limits: &[u16]) {
    let rows: Vec<(u8, u8)> = list
        .iter()
        .copied()
        .filter(|&(x, y)| tbs.table(x, y).is_ok())
        .collect();
    let mut lines = Vec::new();
    // Longest distances first, to tell for each limit which subspaces
    // are drawn from 0 somewhere.
    let longest = |x: u8, y: u8| {
        tbs.dtz_table(x, y)
            .map(|t| t.table.header.max_win.max(t.table.header.max_loss))
            .unwrap_or(u8::MAX)
    };
    for &n in limits {
        let game = crate::core::Rules {
            n_move_rule: n,
            endgame_n_move_rule: n,
            ..crate::core::Rules::default()
        };
        let lim = crate::tb::NMoveLimits::of(&game);
        let under = Tablebases::under(dir, rules, lim);
        for &(x, y) in &rows {
            let (Ok(tb), Ok(dtz)) = (tbs.table(x, y), under.dtz_table(x, y)) else {
                continue;
            };
            let built_for_it = dtz.table.header.limits == lim;
            let limit = lim.limit(x as u32, y as u32).unwrap_or(u16::MAX);
            let (mut wins, mut losses, mut pairs) = (0u64, 0u64, 0u64);
            for (t, z) in tb.table.slots().iter().zip(dtz.table.slots()) {
                let (win, z) = match (
                    crate::tb::Value::decode(*t),
                    crate::tb::value::dtz_decode(*z),
                ) {
                    (crate::tb::Value::Draw, _) => continue,
                    (v, z) => (
                        matches!(v, crate::tb::Value::Win(_)),
                        // None: a file built for the limit left it a
                        // draw at every counter.
                        z.map_or(u16::MAX, u16::from),
                    ),
                };
                if z > limit {
                    if win { wins += 1 } else { losses += 1 }
                }
                if win {
                    pairs += if z > limit {
                        limit as u64
                    } else {
                        z.saturating_sub(1) as u64
                    };
                }
            }
            let exact = built_for_it
                || plan(&[(x, y)])
                    .iter()
                    .filter(|&&p| p != (x.max(y), x.min(y)))
                    .all(|&(a, b)| {
                        [(a, b), (b, a)].iter().all(|&(p, q)| {
                            (longest(p, q) as u16)
                                <= lim.limit(p as u32, q as u32).unwrap_or(u16::MAX)
                        })
                    });
            lines.push(format!(
                "{n}\t{x}-{y}\t{}\t{wins}\t{losses}\t{pairs}\t{}",
                dtz.table.header.max_win.max(dtz.table.header.max_loss),
                if exact { "yes" } else { "no" }
            ));
        }
    }
    if !lines.is_empty() {
        println!(
            "# N-move rule\tsubspace\tlongest_to_removal\twins_drawn_at_0\tlosses_drawn_at_0\twin_counters_drawn\texact"
        );
        println!("{}", lines.join("\n"));
    }
    let _ = rules;
}
