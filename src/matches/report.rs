//! What the runner prints: the progress line after each game (rewritten
//! in place on a terminal, one plain line per game otherwise) and the
//! final summary table.

use std::fmt::Write as _;

use super::config::Config;
use super::stats::{Wdl, elo_estimate};
use super::tally::{GameSummary, PairingTally, Tally};

/// `5.5-6.5 [0.458]`
fn score_text(w: &Wdl) -> String {
    let other = w.games() as f64 - w.points();
    match w.score() {
        Some(s) => format!("{}-{} [{s:.3}]", w.points(), other),
        None => "0-0".to_string(),
    }
}

/// `Elo -29.0 +/- 110.2` (or `n/a` before the first complete pair).
fn elo_text(p: &PairingTally) -> String {
    match elo_estimate(&p.penta) {
        None => "Elo n/a".to_string(),
        Some(e) => match e.error {
            Some(err) => format!("Elo {:.1} +/- {err:.1}", e.elo),
            None => format!("Elo {:.1} +/- inf", e.elo),
        },
    }
}

fn sprt_text(config: &Config, p: &PairingTally) -> Option<String> {
    let sprt = config.sprt?;
    let mut s = format!(
        "LLR {:.2} ({:.2}, {:.2})",
        p.llr.unwrap_or(0.0),
        sprt.lower(),
        sprt.upper()
    );
    if let Some(d) = p.decision {
        let _ = write!(s, " {} accepted", d.name());
    }
    Some(s)
}

/// The progress line after `last` finished.
pub fn progress_line(
    config: &Config,
    names: &[String],
    tally: &Tally,
    planned: usize,
    last: &GameSummary,
) -> String {
    let mut s = format!(
        "[{}/{planned}] game {} {}-{} {} ({})",
        tally.played(),
        last.index + 1,
        names[last.white],
        names[last.black],
        last.result,
        last.termination
    );
    if let [p] = tally.pairings.as_slice() {
        let _ = write!(
            s,
            " | {} vs {} {} | {}",
            names[p.first],
            names[p.second],
            score_text(&p.first()),
            elo_text(p)
        );
        if let Some(t) = sprt_text(config, p) {
            let _ = write!(s, " | {t}");
        }
    } else {
        let first = tally.engines[0].total();
        let _ = write!(s, " | {} {}", names[0], score_text(&first));
    }
    s
}

fn wdl_short(w: &Wdl) -> String {
    format!("{}-{}-{}", w.wins, w.draws, w.losses)
}

/// The final table and statistics.
pub fn summary(
    config: &Config,
    names: &[String],
    tally: &Tally,
    planned: usize,
    elapsed_s: f64,
) -> String {
    let mut s = String::new();
    headline(&mut s, config, tally, planned, elapsed_s);
    engine_table(&mut s, config, names, tally);
    for p in &tally.pairings {
        pairing(&mut s, config, names, p);
    }
    let _ = writeln!(
        s,
        "\nBy colour: White {} wins, {} draws, Black {} wins",
        tally.white.wins, tally.white.draws, tally.white.losses
    );
    overruns(&mut s, names, tally);
    let terms: Vec<String> = tally
        .terminations
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let _ = writeln!(s, "Terminations: {}", terms.join(", "));
    if let Some(tb) = &config.tb {
        let _ = writeln!(
            s,
            "Adjudication: the databases in {} end games with their value ({})",
            tb.dir.display(),
            tb.mode.name()
        );
    }
    s
}

/// `Match: ...`: games played of those planned, the time, the variant
/// and the `--rule` overrides.
fn headline(s: &mut String, config: &Config, tally: &Tally, planned: usize, elapsed_s: f64) {
    let _ = writeln!(
        s,
        "Match: {} games of {planned} played in {elapsed_s:.1} s, variant {}{}",
        tally.played(),
        config.variant.name(),
        if config.rule_overrides.is_empty() {
            String::new()
        } else {
            let r: Vec<String> = config
                .rule_overrides
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            format!(" ({})", r.join(", "))
        }
    );
}

/// The table of engines: results, score, by colour and limits.
fn engine_table(s: &mut String, config: &Config, names: &[String], tally: &Tally) {
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        s,
        "{:<width$}  {:>5} {:>5} {:>5} {:>6} {:>7} {:>6}  {:<11} {:<11} Limits",
        "Engine", "Games", "Wins", "Draws", "Losses", "Points", "Score", "As White", "As Black"
    );
    for (i, name) in names.iter().enumerate() {
        let t = &tally.engines[i];
        let total = t.total();
        let score = total
            .score()
            .map_or("-".to_string(), |x| format!("{:.1}%", 100.0 * x));
        let _ = writeln!(
            s,
            "{name:<width$}  {:>5} {:>5} {:>5} {:>6} {:>7.1} {:>6}  {:<11} {:<11} {}",
            total.games(),
            total.wins,
            total.draws,
            total.losses,
            total.points(),
            score,
            wdl_short(&t.as_white),
            wdl_short(&t.as_black),
            config.engines[i].limits.describe()
        );
    }
}

/// One pairing's paragraph: score, Elo and LOS, the pentanomial counts,
/// the games won on time, and the SPRT.
fn pairing(s: &mut String, config: &Config, names: &[String], p: &PairingTally) {
    let (first, second) = (&names[p.first], &names[p.second]);
    let _ = write!(
        s,
        "\n{first} vs {second}: {} (W-D-L {})",
        score_text(&p.first()),
        wdl_short(&p.first())
    );
    match elo_estimate(&p.penta) {
        Some(e) => {
            let _ = write!(s, ", {}, LOS {:.1}%", elo_text(p), 100.0 * e.los);
        }
        None => s.push_str(", Elo n/a (no complete pair)"),
    }
    let _ = write!(
        s,
        "\n  pairs {}, pentanomial [LL LD DD+WL WD WW] = {:?}",
        p.penta.pairs(),
        p.penta.0
    );
    if p.on_time.games() > 0 {
        let _ = write!(
            s,
            "\n  won on time, not on the board: {} games (W-D-L {}); the rest: {} (W-D-L {})",
            p.on_time.games(),
            wdl_short(&p.on_time),
            score_text(&p.on_board),
            wdl_short(&p.on_board)
        );
    }
    if let (Some(sprt), Some(t)) = (config.sprt, sprt_text(config, p)) {
        let _ = write!(
            s,
            "\n  SPRT elo0={} elo1={} alpha={} beta={}: {t}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        );
    }
    s.push('\n');
}

/// `Overruns past movetime: ...`, for the engines with any overrun or
/// time forfeit.
fn overruns(s: &mut String, names: &[String], tally: &Tally) {
    let overruns: Vec<String> = names
        .iter()
        .zip(&tally.engines)
        .filter(|(_, t)| t.overruns.moves > 0 || t.time_forfeits > 0)
        .map(|(name, t)| {
            format!(
                "{name} {} moves in {} games (longest {:.3} s), {} time forfeits",
                t.overruns.moves,
                t.overrun_games,
                t.overruns.longest.as_secs_f64(),
                t.time_forfeits
            )
        })
        .collect();
    if !overruns.is_empty() {
        let _ = writeln!(s, "Overruns past movetime: {}", overruns.join("; "));
    }
}
