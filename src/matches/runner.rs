//! The match itself: starts each engine once to check it (fatal errors
//! stop here), schedules the game pairs, plays them on `--concurrency`
//! worker threads (each with its own engine processes), and counts,
//! prints and writes the results as they come in, stopping early when
//! the SPRT decides.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, IsTerminal, StdoutLock, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Instant;

use anyhow::Context;

use super::config::Config;
use super::engine::process::Registry;
use super::engine::slot::Slot;
use super::game::record::{GameJob, NotCounted, Played};
use super::game::referee::Referee;
use super::openings::Opening;
use super::openings::pairs::{digest, for_pairs};
use super::report::pgn;
use super::report::tally::{GameSummary, Tally, Uncounted};
use super::report::text;

/// The outcome of a match.
pub struct MatchSummary {
    pub names: Vec<String>,
    pub tally: Tally,
    /// The games this run was to play (its slice's, with `--shard`).
    pub planned: usize,
    pub elapsed_s: f64,
    /// [`digest`] of the whole match's openings.
    pub openings_digest: u64,
}

/// The schedule: for each pair, for each pairing, a game with the first
/// engine as White and one with colours reversed, over the same opening.
pub fn schedule(config: &Config, openings: &[Arc<Opening>]) -> Vec<GameJob> {
    let games = config.games as usize;
    let mut jobs = Vec::with_capacity(games * (config.engines.len() - 1));
    for (pair, opening) in openings.iter().enumerate() {
        for pairing in 0..config.engines.len() - 1 {
            for g in 0..2 {
                if 2 * pair + g >= games {
                    break;
                }
                let (white, black) = if g == 0 {
                    (0, pairing + 1)
                } else {
                    (pairing + 1, 0)
                };
                jobs.push(GameJob {
                    index: jobs.len(),
                    pairing,
                    pair,
                    white,
                    black,
                    opening: Arc::clone(opening),
                });
            }
        }
    }
    jobs
}

/// Display names: `name=`, else the engine's `id name`, else the command;
/// repeated names get ` #2`, ` #3`, ...
fn names(config: &Config, id_names: &[Option<String>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (spec, id) in config.engines.iter().zip(id_names) {
        let base = spec
            .name
            .clone()
            .or_else(|| id.clone())
            .unwrap_or_else(|| spec.cmd.display().to_string());
        let mut name = base.clone();
        let mut n = 2;
        while out.contains(&name) {
            name = format!("{base} #{n}");
            n += 1;
        }
        out.push(name);
    }
    out
}

/// Writes PGN records in game order, holding back early finishers.
struct PgnSink {
    file: Option<BufWriter<File>>,
    waiting: BTreeMap<usize, Option<String>>,
    next: usize,
}

impl PgnSink {
    /// The sink for `--pgn`: the file created (an error if it cannot
    /// be), or one that writes nothing.
    fn create(path: Option<&Path>) -> anyhow::Result<PgnSink> {
        let file = match path {
            None => None,
            Some(path) => {
                Some(BufWriter::new(File::create(path).with_context(|| {
                    format!("cannot create PGN file {}", path.display())
                })?))
            }
        };
        Ok(PgnSink {
            file,
            waiting: BTreeMap::new(),
            next: 0,
        })
    }

    /// Queues game `index` (`None`: abandoned) and writes what is due.
    fn push(&mut self, index: usize, text: Option<String>) -> std::io::Result<()> {
        let Some(file) = &mut self.file else {
            return Ok(());
        };
        self.waiting.insert(index, text);
        while let Some(entry) = self.waiting.remove(&self.next) {
            if let Some(text) = entry {
                file.write_all(text.as_bytes())?;
            }
            self.next += 1;
        }
        file.flush()
    }

    /// Writes everything still held back (the games after an abandoned
    /// or never-played one).
    fn finish(&mut self) -> std::io::Result<()> {
        let Some(file) = &mut self.file else {
            return Ok(());
        };
        for text in std::mem::take(&mut self.waiting).into_values().flatten() {
            file.write_all(text.as_bytes())?;
        }
        file.flush()
    }
}

/// Plays the match; errors are fatal setup problems (an engine that does
/// not start, a bad openings file, an unwritable PGN file).
pub fn run_match(config: &Config) -> anyhow::Result<MatchSummary> {
    let started = Instant::now();
    let registry = Arc::new(Registry::new());
    let (first_slot, names) = start_engines(config, &registry)?;
    let (jobs, openings_digest) = plan_games(config)?;
    let planned = jobs.len();
    let pgn = PgnSink::create(config.pgn.as_deref())?;
    let mut results = Results::new(config, &names, planned, pgn);
    let started_workers = play_games(config, &names, &registry, &jobs, first_slot, &mut results);
    if started_workers == 0 {
        anyhow::bail!("cannot start any worker thread");
    }
    let tally = results.finish()?;
    drop(registry);
    Ok(MatchSummary {
        names,
        tally,
        planned,
        elapsed_s: started.elapsed().as_secs_f64(),
        openings_digest,
    })
}

/// Starts each engine once, so that a wrong path or an engine that does
/// not speak the protocol stops the match before any game, and warns of
/// the options it does not list and the errors it reports. These
/// processes then serve the first worker; the names are the engines'
/// display names.
fn start_engines<'a>(
    config: &'a Config,
    registry: &'a Arc<Registry>,
) -> anyhow::Result<(Slot<'a>, Vec<String>)> {
    let mut first_slot = config.slot(registry);
    let mut id_names = Vec::new();
    for (i, spec) in config.engines.iter().enumerate() {
        let process = first_slot
            .start(i)
            .with_context(|| format!("engine {} (`{}`)", i + 1, spec.cmd.display()))?;
        for line in spec.setup_lines(&config.rule_set) {
            let name = line
                .trim_start_matches("setoption name ")
                .split(" value ")
                .next()
                .unwrap_or("");
            if !process
                .advertised
                .iter()
                .any(|a| a.eq_ignore_ascii_case(name))
            {
                eprintln!(
                    "warning: engine {} (`{}`) does not list option `{name}`",
                    i + 1,
                    spec.cmd.display()
                );
            }
        }
        for error in process.take_errors() {
            eprintln!(
                "warning: engine {} (`{}`): {error}",
                i + 1,
                spec.cmd.display()
            );
        }
        id_names.push(process.id_name.clone());
    }
    Ok((first_slot, names(config, &id_names)))
}

/// The openings, one per pair of games, and the games scheduled over
/// them (those of its slice, with `--shard`), with the openings' digest;
/// an error for an opening an engine's protocol cannot be sent.
fn plan_games(config: &Config) -> anyhow::Result<(Vec<GameJob>, u64)> {
    let pairs = config.games.div_ceil(2) as usize;
    let openings = for_pairs(&config.openings, &config.rule_set.rules, config.seed, pairs)?;
    for spec in &config.engines {
        if let Some(problem) = openings.iter().find_map(|o| spec.dialect.refuses(o)) {
            let (name, proto) = (spec.label(), spec.dialect.name());
            anyhow::bail!("engine `{name}` speaks {proto}, {problem}");
        }
    }
    let mut jobs = schedule(config, &openings);
    if let Some(shard) = config.shard {
        // Game numbers stay those of the whole match.
        jobs.retain(|job| shard.holds(job.pair));
    }
    Ok((jobs, digest(&openings)))
}

/// Plays `jobs` on `--concurrency` worker threads (the first with
/// `first_slot`'s processes), handing each finished game to `results`
/// on this thread; returns how many workers started.
fn play_games(
    config: &Config,
    names: &[String],
    registry: &Arc<Registry>,
    jobs: &[GameJob],
    first_slot: Slot,
    results: &mut Results,
) -> usize {
    let stop = AtomicBool::new(false);
    let next_job = AtomicUsize::new(0);
    let workers = config.concurrency.clamp(1, jobs.len().max(1));
    let referee = Referee {
        config,
        names,
        stop: &stop,
    };
    let mut started_workers = 0;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Option<Played>)>();
        let mut first_slot = Some(first_slot);
        for w in 0..workers {
            let tx = tx.clone();
            let mut slot = first_slot.take().unwrap_or_else(|| config.slot(registry));
            let (referee, stop, next_job) = (&referee, &stop, &next_job);
            let spawned = std::thread::Builder::new()
                .name(format!("match-slot-{w}"))
                .spawn_scoped(scope, move || {
                    while !stop.load(Ordering::Relaxed) {
                        let i = next_job.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break };
                        let record = referee.play(job, &mut slot);
                        if tx.send((i, record)).is_err() {
                            break;
                        }
                    }
                });
            match spawned {
                Ok(_) => started_workers += 1,
                Err(e) => eprintln!("warning: cannot start worker thread {w}: {e}"),
            }
        }
        drop(tx);
        for (index, record) in rx {
            results.add(index, record, &stop);
        }
    });
    started_workers
}

/// What the main thread does with the finished games as they come in:
/// counts them, writes them to the PGN file in game order and prints the
/// progress line.
struct Results<'a> {
    config: &'a Config,
    names: &'a [String],
    planned: usize,
    tally: Tally,
    pgn: PgnSink,
    /// The first failure to write the PGN file.
    write_error: Option<std::io::Error>,
    /// Progress is rewritten in place on a terminal.
    terminal: bool,
    stdout: StdoutLock<'static>,
}

impl<'a> Results<'a> {
    fn new(config: &'a Config, names: &'a [String], planned: usize, pgn: PgnSink) -> Results<'a> {
        Results {
            config,
            names,
            planned,
            tally: Tally::new(config.engines.len()),
            pgn,
            write_error: None,
            terminal: std::io::stdout().is_terminal(),
            stdout: std::io::stdout().lock(),
        }
    }

    /// Takes game `index` (`None`: abandoned), and sets `stop` when the
    /// match is over: the SPRT decided, or the PGN file cannot be written.
    fn add(&mut self, index: usize, played: Option<Played>, stop: &AtomicBool) {
        let record = match played {
            Some(Played::Game(record)) => record,
            other => {
                if let Some(Played::NotCounted(n)) = other {
                    self.not_counted(&n);
                }
                if let Err(e) = self.pgn.push(index, None) {
                    self.write_error.get_or_insert(e);
                }
                return;
            }
        };
        let config = self.config;
        // A slice plays all its games: the test is decided over the
        // merged slices, which is the whole match.
        if self
            .tally
            .add(GameSummary::from_record(&record), config.sprt.as_ref())
            && self.tally.pairings.iter().any(|p| p.decision.is_some())
            && config.shard.is_none()
        {
            stop.store(true, Ordering::Relaxed);
        }
        let text = self
            .pgn
            .file
            .is_some()
            .then(|| pgn::format_game(&record, config, self.names));
        if let Err(e) = self.pgn.push(index, text) {
            self.write_error.get_or_insert(e);
            stop.store(true, Ordering::Relaxed);
        }
        if !config.quiet {
            self.progress();
        }
    }

    /// Keeps a game that was not counted, and says so at once (on stderr:
    /// every one of them means the engines' rules need a look).
    fn not_counted(&mut self, n: &NotCounted) {
        let job = &n.job;
        eprintln!(
            "game {} {}-{} not counted: {}",
            job.index + 1,
            self.names[job.white],
            self.names[job.black],
            n.reason
        );
        self.tally.not_counted.push(Uncounted::from_game(n));
    }

    /// Prints the progress line after the game just added.
    fn progress(&mut self) {
        let last = self.tally.games.last().expect("just added");
        let line = text::progress_line(
            self.config.sprt,
            self.names,
            &self.tally,
            self.planned,
            last,
        );
        // A closed stdout is no reason to stop the match.
        let _ = if self.terminal {
            write!(self.stdout, "\r\x1b[2K{line}")
        } else {
            writeln!(self.stdout, "{line}")
        };
        let _ = self.stdout.flush();
    }

    /// Ends the progress output and writes the PGN records still held
    /// back; the tally, or the first error writing the PGN file.
    fn finish(mut self) -> anyhow::Result<Tally> {
        if self.terminal && !self.config.quiet && self.tally.played() > 0 {
            let _ = writeln!(self.stdout);
        }
        let finished = self.pgn.finish();
        if let Some(e) = self.write_error {
            return Err(e).context("cannot write the PGN file");
        }
        finished.context("cannot write the PGN file")?;
        Ok(self.tally)
    }
}
