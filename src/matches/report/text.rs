//! What the runner prints: the progress line after each game (rewritten
//! in place on a terminal, one plain line per game otherwise) and the
//! final summary table.

use std::fmt::Write as _;

use super::info::MatchInfo;
use super::tally::{GameSummary, PairingTally, Tally};
use crate::matches::stats::elo::{Wdl, elo_estimate};
use crate::matches::stats::sprt::Sprt;

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

fn sprt_text(sprt: Option<Sprt>, p: &PairingTally) -> Option<String> {
    let sprt = sprt?;
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
    sprt: Option<Sprt>,
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
        if let Some(t) = sprt_text(sprt, p) {
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
pub fn summary(info: &MatchInfo, tally: &Tally, planned: usize, elapsed_s: f64) -> String {
    let names: Vec<String> = info.engines.iter().map(|e| e.name.clone()).collect();
    let mut s = String::new();
    headline(&mut s, info, tally, planned, elapsed_s);
    engine_table(&mut s, info, &names, tally);
    for p in &tally.pairings {
        pairing(&mut s, info, &names, p);
    }
    let _ = writeln!(
        s,
        "\nBy colour: White {} wins, {} draws, Black {} wins",
        tally.white.wins, tally.white.draws, tally.white.losses
    );
    thinking(&mut s, &names, tally);
    overruns(&mut s, &names, tally);
    let terms: Vec<String> = tally
        .terminations
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let terms = if terms.is_empty() {
        "none".to_string()
    } else {
        terms.join(", ")
    };
    let _ = writeln!(s, "Terminations: {terms}");
    not_counted(&mut s, &names, tally);
    if let Some((dir, mode)) = &info.tb {
        let _ = writeln!(
            s,
            "Adjudication: the databases in {dir} end games with their value ({mode})"
        );
    }
    slices(&mut s, info);
    s
}

/// `Not counted: ...`: the games in which an engine did not play the
/// referee's rules, the first few with the reason.
fn not_counted(s: &mut String, names: &[String], tally: &Tally) {
    const SHOWN: usize = 5;
    let mut games: Vec<_> = tally.not_counted.iter().collect();
    if games.is_empty() {
        return;
    }
    games.sort_by_key(|u| u.index);
    let _ = writeln!(
        s,
        "Not counted: {} games, in which an engine did not play the referee's rules:",
        games.len()
    );
    for u in games.iter().take(SHOWN) {
        let (white, black) = (&names[u.white], &names[u.black]);
        let _ = writeln!(s, "  game {} ({white}-{black}): {}", u.index + 1, u.reason);
    }
    if games.len() > SHOWN {
        let _ = writeln!(
            s,
            "  and {} more (the JSON report lists them all)",
            games.len() - SHOWN
        );
    }
}

/// The slice a run played, or the slices a merged report combines, and
/// what that means for the SPRT.
fn slices(s: &mut String, info: &MatchInfo) {
    if let Some(shard) = info.shard {
        let _ = writeln!(
            s,
            "Shard {shard}: the match's pair {} and every {} pairs after it, with their game \
             numbers; `mulino match merge` combines the shards' JSON reports{}",
            shard.index,
            shard.count,
            if info.sprt.is_some() {
                " (the SPRT above counts this shard's games and stops nothing)"
            } else {
                ""
            }
        );
    }
    if let Some(merged) = &info.merged {
        let list = |ks: &[u64]| {
            ks.iter()
                .map(|k| format!("{k}/{}", merged.count))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if merged.count == 1 {
            let _ = writeln!(s, "Merged: one report of the whole match");
        } else if merged.missing.is_empty() {
            let _ = writeln!(s, "Merged: all {} shards", merged.count);
        } else {
            let _ = writeln!(
                s,
                "PARTIAL RESULT: merged shards {}; missing {}",
                list(&merged.present),
                list(&merged.missing)
            );
        }
    }
}

/// `Match: ...`: games played of those planned, the time, the variant
/// and the `--rule` overrides.
fn headline(s: &mut String, info: &MatchInfo, tally: &Tally, planned: usize, elapsed_s: f64) {
    let time = match &info.merged {
        None => format!("in {elapsed_s:.1} s"),
        Some(_) => format!("in {elapsed_s:.1} s of the shards' time added up"),
    };
    let _ = writeln!(
        s,
        "Match: {} games of {planned} played {time}, variant {}{}",
        tally.played(),
        info.variant,
        if info.rule_overrides.is_empty() {
            String::new()
        } else {
            let r: Vec<String> = info
                .rule_overrides
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            format!(" ({})", r.join(", "))
        }
    );
}

/// The table of engines: results, score, by colour and limits.
fn engine_table(s: &mut String, info: &MatchInfo, names: &[String], tally: &Tally) {
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
            info.engines[i].limits
        );
    }
}

/// One pairing's paragraph: score, Elo and LOS, the pentanomial counts,
/// the games won on time, and the SPRT.
fn pairing(s: &mut String, info: &MatchInfo, names: &[String], p: &PairingTally) {
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
    // Pairs first: a game lost in a pair that the colour decided (the
    // first engine won the other game) says more of the opening than of
    // the engine; a pair lost (LL or LD) does not.
    let pairs = p.penta.pairs();
    let lost = p.penta.0[0] + p.penta.0[1];
    let games = p.first().games();
    let percent = |n: u64, of: u64| 100.0 * n as f64 / of.max(1) as f64;
    let _ = write!(
        s,
        "\n  pairs lost {lost} of {pairs} ({:.1}%: LL {} + LD {}), games lost {} of {games} ({:.1}%)",
        percent(lost, pairs),
        p.penta.0[0],
        p.penta.0[1],
        p.first().losses,
        percent(p.first().losses, games),
    );
    let _ = write!(
        s,
        "\n  pairs {pairs}, pentanomial [LL LD DD+WL WD WW] = {:?}",
        p.penta.0
    );
    let [white, black] = p.colour_decided;
    if white + black > 0 {
        let _ = write!(
            s,
            "; the colour decided {} of them (White won both: {white}, Black won both: {black})",
            white + black
        );
    }
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
    if p.by_opening.iter().any(|w| w.games() > 0) {
        let [win, draw, loss] = p
            .by_opening
            .map(|w| format!("{} (W-D-L {})", w.games(), wdl_short(&w)));
        let _ = write!(
            s,
            "\n  by the databases' value of the opening for {first}: a win {win}, a draw {draw}, a loss {loss}"
        );
    }
    if let (Some(sprt), Some(t)) = (info.sprt, sprt_text(info.sprt, p)) {
        let _ = write!(
            s,
            "\n  SPRT elo0={} elo1={} alpha={} beta={}: {t}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        );
    }
    s.push('\n');
}

/// `Time per turn (mean): ...`, each engine's mean time from `go` to its
/// answer, whatever it was told: engines that overrun their movetime
/// play at more time than the table's limits say.
fn thinking(s: &mut String, names: &[String], tally: &Tally) {
    let first = tally.engines.first().and_then(|t| t.thinking.mean());
    let means: Vec<String> = names
        .iter()
        .zip(&tally.engines)
        .enumerate()
        .filter_map(|(i, (name, t))| {
            let mean = t.thinking.mean()?;
            let mut text = format!(
                "{name} {:.3} s over {} turns",
                mean.as_secs_f64(),
                t.thinking.turns
            );
            // The others beside the first engine: whether they played at
            // its time.
            if let Some(first) = first.filter(|f| i > 0 && !f.is_zero()) {
                let ratio = mean.as_secs_f64() / first.as_secs_f64();
                let _ = write!(text, " ({ratio:.2} x {})", names[0]);
            }
            Some(text)
        })
        .collect();
    if !means.is_empty() {
        let _ = writeln!(s, "Time per turn (mean): {}", means.join("; "));
    }
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
