//! `mulino book`: opening books that neither colour wins, for matches
//! (`mulino match --openings`). The format and the shipped books are in
//! docs/books.md; the generator in [`generate`].

pub mod generate;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;

use crate::core::{Position, Variant};
use crate::tb::probe::Tablebases;
use crate::tb::{NMoveLimits, TbRules};
pub use generate::{BookSpec, Check, Entry, Method, Progress, generate};

/// The search threshold when none is given, in centipawns (a piece is
/// 100): docs/books.md says why.
pub const DEFAULT_THRESHOLD: i32 = 40;

/// `mulino book`'s options.
#[derive(Args, Debug)]
#[command(
    after_help = "Example:\n  mulino book --variant twelve --plies 6 --count 300 --seed 1 --depth 8 --out books/twelve.book"
)]
pub struct BookArgs {
    /// The rule set: nine, twelve, morabaraba, russian, lasker,
    /// cheng-san-qi, dooz, da-san-qi, zhi-qi, el-filja, experimental.
    #[arg(long, default_value = "nine", value_name = "NAME")]
    pub variant: Variant,
    /// Whole turns from the start position in every opening.
    #[arg(long, value_name = "N")]
    pub plies: u32,
    /// Openings in the book.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub count: u32,
    /// Seed of the random openings: the same seed gives the same book.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// Value each opening by a search of this depth (from both sides), 1
    /// to 64.
    #[arg(long, value_name = "D", conflicts_with = "tb",
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: Option<u32>,
    /// Keep openings whose search scores lie within this many
    /// centipawns of 0 (with --depth).
    #[arg(long, default_value_t = DEFAULT_THRESHOLD, value_name = "CP")]
    pub threshold: i32,
    /// Value each opening by the whole-game databases in DIR (Nine Men's
    /// Morris rules): every move is drawn among those that keep the draw.
    #[arg(long, value_name = "DIR")]
    pub tb: Option<PathBuf>,
    /// Also play self-play games from each opening that passed, the
    /// engine against itself from N nodes a move, and keep it only when
    /// as many are won by White as by Black.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub check_nodes: Option<u64>,
    /// The self-play games of --check-nodes (game i at N*(i+2)/2 nodes),
    /// 1 to 100.
    #[arg(long, default_value_t = 2, value_name = "G", requires = "check_nodes",
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub check_games: u32,
    /// Start from this FEN instead of the start position.
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,
    /// Candidates drawn before giving up [default: 200 per opening].
    #[arg(long, value_name = "N")]
    pub max_tries: Option<u64>,
    /// The book file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
}

/// Runs `mulino book`.
pub fn run(args: BookArgs) -> anyhow::Result<()> {
    let (spec, by) = spec_of(&args)?;
    let began = Instant::now();
    let mut last_report = Instant::now();
    let quiet = args.quiet;
    let mut report = |p: &Progress| {
        if !quiet && last_report.elapsed().as_secs_f64() >= 2.0 {
            last_report = Instant::now();
            eprintln!("book: {p}, {:.0} s", began.elapsed().as_secs_f64());
        }
    };
    let mut final_progress = Progress::default();
    let book = generate(&spec, &mut |p| {
        final_progress = *p;
        report(p);
    })?;
    if !quiet {
        eprintln!(
            "book: {final_progress}, {:.0} s",
            began.elapsed().as_secs_f64()
        );
    }
    if book.is_empty() {
        bail!("no opening kept after {} tries", final_progress.tried);
    }
    if book.len() < spec.count {
        eprintln!(
            "book: only {} of {} openings after {} tries (--max-tries)",
            book.len(),
            spec.count,
            final_progress.tried
        );
    }
    write_book(&args, &by, &book)
}

/// The book the arguments ask for, and the sentence that says how its
/// openings were chosen.
fn spec_of(args: &BookArgs) -> anyhow::Result<(BookSpec, String)> {
    let rules = args.variant.rules();
    let start = match &args.fen {
        None => Position::startpos(&rules),
        Some(f) => Position::from_fen(f, &rules).with_context(|| format!("--fen `{f}`"))?,
    };
    let method = match (&args.tb, args.depth) {
        (Some(dir), _) => {
            let tb_rules = TbRules::from_rules(&rules)?;
            if !dir.is_dir() {
                bail!("--tb {}: no such directory", dir.display());
            }
            // Read without the checksum gate of play, as `tb endgames`
            // does: the builder's output is trusted here.
            let tables = Tablebases::under(dir, tb_rules, NMoveLimits::of(&rules));
            Method::Tablebases(Arc::new(tables))
        }
        (None, Some(depth)) => Method::Search {
            depth,
            threshold: args.threshold,
        },
        (None, None) => bail!("give --depth D (search) or --tb DIR (databases)"),
    };
    let check = args.check_nodes.map(|nodes| Check {
        nodes,
        games: args.check_games,
    });
    let by = method_sentence(&method, check);
    let count = args.count as usize;
    let spec = BookSpec {
        variant: args.variant,
        start,
        start_fen: (start != Position::startpos(&rules)).then(|| start.fen(&rules)),
        plies: args.plies,
        count,
        seed: args.seed,
        max_tries: args.max_tries.unwrap_or((count as u64).saturating_mul(200)),
        method,
        check,
    };
    Ok((spec, by))
}

/// How the openings are chosen, as the book's first line says it.
fn method_sentence(method: &Method, check: Option<Check>) -> String {
    let by = match method {
        Method::Search { depth, threshold } => format!(
            "a search of depth {depth} scores each within {threshold} centipawns of 0 from both sides"
        ),
        Method::Tablebases(_) => "the databases value each a draw".to_string(),
    };
    match check {
        None => by,
        Some(c) => format!(
            "{by}, and {} self-play games from {} nodes a move end level",
            c.games, c.nodes
        ),
    }
}

/// Writes the book to `--out`: a header that says what it is and the
/// command that makes it again, then a line an opening.
fn write_book(args: &BookArgs, by: &str, book: &[Entry]) -> anyhow::Result<()> {
    let mut text = String::new();
    text.push_str(&format!(
        "# mulino book: {}, {} openings of {} plies; {by}.\n",
        args.variant.name(),
        book.len(),
        args.plies
    ));
    text.push_str(&format!("# made by: {}\n", command_line(args)));
    text.push_str("# format: docs/books.md (opening; fen; value; by)\n");
    for e in book {
        text.push_str(&e.line());
        text.push('\n');
    }
    let mut file = std::fs::File::create(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    Ok(())
}

/// The command that makes the same book (the databases' folder and the
/// output as given).
fn command_line(a: &BookArgs) -> String {
    let mut s = format!(
        "mulino book --variant {} --plies {} --count {} --seed {}",
        a.variant, a.plies, a.count, a.seed
    );
    match (&a.tb, a.depth) {
        (Some(dir), _) => s.push_str(&format!(" --tb {}", dir.display())),
        (None, Some(d)) => s.push_str(&format!(" --depth {d} --threshold {}", a.threshold)),
        _ => {}
    }
    if let Some(n) = a.check_nodes {
        s.push_str(&format!(
            " --check-nodes {n} --check-games {}",
            a.check_games
        ));
    }
    if let Some(f) = &a.fen {
        s.push_str(&format!(" --fen '{f}'"));
    }
    if let Some(n) = a.max_tries {
        s.push_str(&format!(" --max-tries {n}"));
    }
    s.push_str(&format!(" --out {}", a.out.display()));
    s
}
