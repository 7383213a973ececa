//! The search's side of the endgame databases: the score of a database
//! value at a node, the band that drawn positions are searched in, and the
//! root's moves that keep the value (from the databases' one root probe,
//! `tb::root`). The search knows no file formats.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use crate::core::{Move, Position, Rules};
use crate::search::{Info, Limits, MATE, Reporter, Score, SearchResult, SearchShared};
use crate::tb::probe::Tablebases;
use crate::tb::root::probe_root;
use crate::tb::{NMoveLimits, TbValue, Wdl};

/// Database wins that are not proven mates score `TB_WIN` less the plies
/// to the next removal (and a loss likewise below `-TB_WIN`): beyond any
/// evaluation, short of a proven mate.
pub const TB_WIN: i32 = 20_000;

/// A database draw searched on scores its evaluation scaled down by this
/// factor and kept within `TB_DRAW_BAND` of 0: among drawn positions the
/// search still prefers the one with chances, and a drawn position never
/// outranks a won one or falls below a lost one.
pub const TB_DRAW_SCALE: i32 = 4;
pub const TB_DRAW_BAND: i32 = 75;

/// The score of a database value `ply` plies from the root, at a position
/// with N-move counter `counter`, under `limits`; 0 for a draw (which the
/// caller searches on).
///
/// - A win or loss whose `.tb` line ends before any N-move limit can
///   strike scores as a mate in that many plies: played that way, the
///   game ends then.
/// - A win or loss that the rules let stand (`.dtz`) but whose `.tb` line
///   is too long scores `TB_WIN` less the ply and the plies to the next
///   removal, so the search hurries to it.
/// - A win or loss that the rules may draw, where no `.dtz` file says,
///   scores `TB_WIN` less the counter and the distance to the end (the
///   search hurries to the end and to removals, which reset the counter).
/// - Under the rules, a draw (a `.tb` draw, or a win or loss the rules
///   draw) scores 0.
pub fn tb_value_score(v: TbValue, limits: NMoveLimits, counter: u16, ply: usize) -> i32 {
    let ply = ply as i32;
    let sign = match v.pure {
        None | Some(Wdl::Draw) => return 0,
        Some(Wdl::Win) => 1,
        Some(Wdl::Loss) => -1,
    };
    let score = match (v.rule, v.to_end) {
        (Some(Wdl::Draw), _) => return 0,
        (Some(_), Some(d)) if limits.ends_in_time(counter, d) => MATE - ply - d as i32,
        (Some(_), Some(d)) => TB_WIN - ply - i32::from(v.to_removal.unwrap_or(d)),
        // A `.wdz` value: the plies to the next removal; the placing
        // phase: a win, with no distance but the plies to it.
        (Some(_), None) => TB_WIN - ply - i32::from(v.to_removal.unwrap_or(255)),
        (None, d) => TB_WIN - (counter as i32 + d.map_or(255, i32::from)).min(5_000),
    };
    sign * score
}

/// The score of `pos` from the databases (see [`tb_value_score`]), if they
/// hold it.
pub fn tb_score(tb: &Tablebases, pos: &Position, ply: usize) -> Option<i32> {
    tb.value(pos)
        .map(|v| tb_value_score(v, tb.limits(), pos.rule50(), ply))
}

/// Whether a database value is searched on as a draw.
#[inline]
pub fn is_draw(v: &TbValue) -> bool {
    v.rule == Some(Wdl::Draw)
}

/// The window to search a database draw in, for the window `alpha..beta`
/// of its scaled score: `Err(score)` when the scaled score's bounds
/// already settle it.
#[inline]
pub fn draw_window(alpha: i32, beta: i32) -> Result<(i32, i32), i32> {
    if alpha >= TB_DRAW_BAND {
        Err(TB_DRAW_BAND)
    } else if beta <= -TB_DRAW_BAND {
        Err(-TB_DRAW_BAND)
    } else {
        Ok((
            alpha * TB_DRAW_SCALE + TB_DRAW_SCALE - 1,
            beta * TB_DRAW_SCALE,
        ))
    }
}

/// A database draw's score from its searched score.
#[inline]
pub fn draw_scaled(s: i32) -> i32 {
    let band = TB_DRAW_BAND * TB_DRAW_SCALE;
    s.clamp(-band, band).div_euclid(TB_DRAW_SCALE)
}

/// The root moves (of `moves`) that keep the root's database value
/// ([`crate::tb::root::RootProbe::keeping_moves`]), or `None` when the
/// databases cannot say which those are: then the search chooses among
/// all moves.
pub fn value_keeping_moves(
    tb: &Tablebases,
    rules: &Rules,
    root: &Position,
    moves: &[Move],
) -> Option<Vec<Move>> {
    // Every block the root and its moves need, fetched first where a host
    // fetches them (a pack over HTTP).
    let probe = tb.fetching(|| probe_root(tb, rules, root));
    probe.value?;
    let keep = probe.keeping_moves()?;
    let kept: Vec<Move> = moves.iter().copied().filter(|m| keep.contains(m)).collect();
    (!kept.is_empty()).then_some(kept)
}

/// The answer at once to a search of a root the databases decide (a win
/// or a loss under the N-move rules), where the search has nothing to add:
/// the first of the moves that keep the value, with one info line. `None`
/// for a draw (the search chooses among the drawing moves, for the
/// chances they leave), for a search that waits (`infinite`, pondering),
/// or for a `go` with a depth, node or mate limit of its own (it gets the
/// search it asked for).
pub fn decided_at_once(
    tb: &Tablebases,
    root: &Position,
    keep: &[Move],
    limits: &Limits,
    shared: &SearchShared,
    reporter: &dyn Reporter,
    started: Instant,
) -> Option<SearchResult> {
    let value = tb.value(root)?;
    if !matches!(value.rule, Some(Wdl::Win | Wdl::Loss)) {
        return None;
    }
    let asked_for_a_search =
        limits.depth.is_some() || limits.nodes.is_some() || limits.mate.is_some();
    if limits.infinite || shared.is_pondering() || asked_for_a_search || limits.skill < 20 {
        return None;
    }
    let best = *keep.first()?;
    let score = tb_value_score(value, tb.limits(), root.rule50(), 0);
    shared.tbhits.fetch_add(1, Relaxed);
    let ms = started.elapsed().as_millis() as u64;
    reporter.info(&Info {
        depth: 1,
        seldepth: 1,
        multipv: 1,
        score: Score::from_internal(score),
        bound: None,
        nodes: 0,
        nps: 0,
        hashfull: shared.tt.hashfull(),
        tbhits: Some(shared.tbhits.load(Relaxed)),
        time_ms: ms,
        pv: vec![best],
    });
    Some(SearchResult {
        best: Some(best),
        ponder: None,
        score,
        depth: 1,
        nodes: 0,
        lines: vec![(best, score)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::INFINITY;

    /// The scaled search of a database draw answers its window as a plain
    /// fail-soft search would: an answer at or below alpha is an upper
    /// bound on the scaled value, one at or above beta a lower bound, one
    /// between exact; checked for every true value `t` consistent with
    /// what the inner search returned.
    #[test]
    fn draw_windows_keep_the_bounds_of_the_scaled_score() {
        let values = [
            -INFINITY,
            -MATE + 3,
            -900,
            -301,
            -300,
            -299,
            -5,
            -4,
            -1,
            0,
            1,
        ];
        let values: Vec<i32> = values
            .iter()
            .chain(&[3, 4, 299, 300, 301, 900, MATE - 3, INFINITY])
            .copied()
            .collect();
        // Whether answer `r` in `alpha..beta` is right for scaled value `t`.
        let honest = |r: i32, t: i32, alpha: i32, beta: i32| {
            if r <= alpha {
                t <= r
            } else if r >= beta {
                t >= r
            } else {
                t == r
            }
        };
        for alpha in -120..120 {
            for beta in alpha + 1..alpha + 40 {
                match draw_window(alpha, beta) {
                    Err(r) => {
                        assert_eq!(r.abs(), TB_DRAW_BAND);
                        for &t in &values {
                            assert!(honest(r, draw_scaled(t), alpha, beta));
                        }
                    }
                    Ok((a, b)) => {
                        assert!(a < b, "{alpha} {beta}");
                        for &s in &values {
                            let r = draw_scaled(s);
                            assert!(r.abs() <= TB_DRAW_BAND);
                            for &t in &values {
                                let consistent = if s <= a {
                                    t <= s
                                } else if s >= b {
                                    t >= s
                                } else {
                                    t == s
                                };
                                if consistent {
                                    assert!(
                                        honest(r, draw_scaled(t), alpha, beta),
                                        "inner {s} true {t} window {alpha} {beta}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
