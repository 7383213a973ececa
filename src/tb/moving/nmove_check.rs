//! An exhaustive check of the databases' values under the N-move rules
//! (`tb::rule`, from the `.tb` and `.dtz` files) against a rule-aware
//! minimax written apart from the builder: no un-moves, no `.dtz` file,
//! only the rules core's own move generation.
//!
//! For every position `P` of a subspace and every number `r` of plies left
//! before the N-move rule draws, the minimax computes `V(P, r)` layer by
//! layer: `V(P, 0)` is a loss for a side with no legal move and a draw
//! otherwise; `V(P, r)` is the best of the moves, where a move that removes
//! nothing leads to `V(P', r - 1)` and one that removes leads to the
//! smaller subspace's position at a counter of 0, `V(P'', limit)` (its own
//! limit), which the same minimax gave before. A position decided at `r`
//! stays decided for every larger `r` (more room only helps the side that
//! can force a removal), so each position has one threshold, the least `r`
//! at which it is decided, and the layers stop when one decides nothing,
//! or at the limit (no counter leaves more plies than that: a threshold
//! past it is a draw at every counter, and is not looked for).
//! The `.tb` values serve only to skip the draws without N-move rules,
//! which no rule can turn into wins (`tb verify` checks those values
//! against the same move generation). The moves of each remaining
//! position are generated once: the removals' values are fixed (their
//! subspace is done), and the successors that remove nothing are kept as
//! slots, which each layer reads.
//!
//! The engine's value at counter `c` is then compared with `V(P, limit -
//! c)` at every counter where either could change: 0, the last one before
//! the limit, and both sides of the minimax's threshold (both are
//! monotone in the counter, so agreeing there is agreeing at all).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering::Relaxed};

use crate::core::{MoveList, Outcome, Position, Rules};
use crate::tb::index::{Subspace, plan};
use crate::tb::nmove::NMoveLimits;
use crate::tb::probe::Tablebases;
use crate::tb::root::probe_root;
use crate::tb::value::{Value, Wdl};

/// What the check found in one subspace.
#[derive(Clone, Debug, Default)]
pub struct SubspaceCheck {
    pub own: u8,
    pub opp: u8,
    /// Classes of the subspace.
    pub classes: u64,
    /// (position, counter) pairs compared with the engine's value.
    pub compared: u64,
    /// Wins and losses without N-move rules that the rules draw from a
    /// counter of 0.
    pub wins_drawn: u64,
    pub losses_drawn: u64,
    /// (position, counter) pairs of such wins that the rules draw.
    pub win_counters_drawn: u64,
    /// The largest threshold of the subspace, up to its limit (past it
    /// the layers are not looked for).
    pub longest: u16,
    /// Values the engine gives that the minimax does not (the first few
    /// of these and the next, as text).
    pub mismatches: u64,
    /// Values the engine cannot give where the minimax can (its `.dtz`
    /// values are not exact under these limits).
    pub unknown: u64,
    pub first: Vec<String>,
}

/// A threshold: 0 undecided (a draw for every `r`), else `1 + 2 t + win`.
type Code = u16;

#[inline]
fn decided_by(c: Code, r: u32) -> Option<Wdl> {
    if c == 0 || ((c - 1) >> 1) as u32 > r {
        return None;
    }
    Some(if c & 1 == 0 { Wdl::Win } else { Wdl::Loss })
}

/// Checks every subspace of `targets` and those their removals lead into,
/// smallest first, under `rules`' N-move limits, against the tables in
/// `tables` (opened for play under the same rules, already checked).
pub fn check(
    tables: &Tablebases,
    rules: &Rules,
    targets: &[(u8, u8)],
    threads: usize,
    mut each: impl FnMut(&SubspaceCheck),
) -> Vec<SubspaceCheck> {
    let limits = NMoveLimits::of(rules);
    let mut done: HashMap<(u8, u8), Vec<Code>> = HashMap::new();
    let mut reports = Vec::new();
    for (a, b) in plan(targets) {
        let pair: Vec<(u8, u8)> = if a == b {
            vec![(a, b)]
        } else {
            vec![(a, b), (b, a)]
        };
        let codes = solve_pair(tables, rules, limits, &pair, &done, threads);
        for (&(own, opp), c) in pair.iter().zip(codes) {
            let report = compare(tables, rules, limits, own, opp, &c, threads);
            each(&report);
            reports.push(report);
            done.insert((own, opp), c);
        }
    }
    reports
}

/// The thresholds of one pair of subspaces, layer by layer.
fn solve_pair(
    tables: &Tablebases,
    rules: &Rules,
    limits: NMoveLimits,
    pair: &[(u8, u8)],
    done: &HashMap<(u8, u8), Vec<Code>>,
    threads: usize,
) -> Vec<Vec<Code>> {
    let subs: Vec<Subspace> = pair
        .iter()
        .map(|&(a, b)| Subspace::new(a, b).expect("valid counts"))
        .collect();
    let codes: Vec<Vec<AtomicU16>> = subs
        .iter()
        .map(|s| (0..s.len()).map(|_| Default::default()).collect())
        .collect();
    let tb_rules = tables.tb_rules();
    // The pair's limit (both sides have the same pieces).
    let (a, b) = pair[0];
    let last = limits.limit(a as u32, b as u32).map(u32::from);
    // Only the wins and losses without N-move rules can be decided at
    // some r: their moves are generated once, and each layer looks at
    // those still undecided, and no more.
    let mut todo: Vec<(Vec<Entry>, Vec<u32>)> = subs
        .iter()
        .enumerate()
        .map(|(i, sub)| {
            let twin = &subs[if subs.len() == 1 { 0 } else { 1 - i }];
            let mut slots: Vec<u64> = sub
                .par_classes(
                    threads,
                    Vec::new,
                    |mine, idx, own, opp| {
                        if !matches!(tables.probe_sets(own, opp), Ok(Value::Draw)) {
                            mine.push(idx);
                        }
                    },
                    |_| {},
                )
                .concat();
            slots.sort_unstable();
            prepare(&slots, threads, |moves, succ, idx| {
                let (own, opp) = sub.position(idx);
                let pos = tb_rules.position(own, opp)?;
                Some(moves_of(rules, limits, &pos, moves, done, twin, succ))
            })
        })
        .collect();
    let mut r: u32 = 0;
    loop {
        let mut found = 0;
        for (i, (entries, succ)) in todo.iter().enumerate() {
            let twin = &codes[if subs.len() == 1 { 0 } else { 1 - i }];
            found += one_layer(entries, threads, |e| {
                let Some(w) = layer_value(e, succ, twin, r) else {
                    return false;
                };
                let code = 1 + 2 * r as Code + (w == Wdl::Win) as Code;
                codes[i][e.slot as usize].store(code, Relaxed);
                true
            });
        }
        // What this layer decided leaves the lists only now, so that
        // every position of the layer saw the same layer r - 1.
        for (i, (entries, _)) in todo.iter_mut().enumerate() {
            entries.retain(|e| codes[i][e.slot as usize].load(Relaxed) == 0);
        }
        // No counter leaves more than the limit: a threshold past it
        // is a draw at every counter, like no threshold.
        if (found == 0 && r > 0) || last.is_some_and(|n| r >= n) {
            break;
        }
        r += 1;
    }
    codes
        .into_iter()
        .map(|v| v.into_iter().map(|a| a.into_inner()).collect())
        .collect()
}

/// `V(P, r)` of an entry where it is decided (`None`: a draw at `r`),
/// its successors' values read from `twin` as far as layer `r - 1`
/// knows them.
#[inline]
fn layer_value(e: &Entry, succ: &[u32], twin: &[AtomicU16], r: u32) -> Option<Wdl> {
    match (e.moves, r) {
        (Moves::None, _) => Some(Wdl::Loss),
        (_, 0) => None,
        (Moves::WinAtOnce, _) => Some(Wdl::Win),
        (Moves::Open { holds }, _) => {
            let mut all_lose = !holds;
            for &s in &succ[e.first..e.first + e.len as usize] {
                match decided_by(twin[s as usize].load(Relaxed), r - 1) {
                    Some(Wdl::Loss) => return Some(Wdl::Win),
                    Some(Wdl::Win) => {}
                    _ => all_lose = false,
                }
            }
            all_lose.then_some(Wdl::Loss)
        }
    }
}

/// What a position's moves lead to, apart from the layers: found once
/// with the rules core's move generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moves {
    /// No legal move: lost at once.
    None,
    /// A move wins whatever the layer: the game ends, or a removal leads
    /// to a loss for the opponent in the smaller subspace.
    WinAtOnce,
    /// The rest: the successors that remove nothing (listed), and whether
    /// a removal leads to a draw (so the position never loses).
    Open { holds: bool },
}

/// A position the layers look at: its slot, what its moves lead to, and
/// its successors that remove nothing (slots of the twin subspace) at
/// `first..first + len` of the pair's list.
struct Entry {
    slot: u64,
    first: usize,
    len: u32,
    moves: Moves,
}

/// The moves of `pos`: the successors that remove nothing pushed on
/// `succ` (as slots of `twin`), the removals valued from the smaller
/// subspaces' thresholds in `done` under their own limits, from a
/// counter of 0.
fn moves_of(
    rules: &Rules,
    limits: NMoveLimits,
    pos: &Position,
    moves: &mut MoveList,
    done: &HashMap<(u8, u8), Vec<Code>>,
    twin: &Subspace,
    succ: &mut Vec<u32>,
) -> Moves {
    pos.legal_moves(rules, moves);
    if moves.is_empty() {
        return Moves::None;
    }
    let us = pos.side_to_move();
    let mut holds = false;
    let mark = succ.len();
    for &m in moves.iter() {
        let next = pos.play_unchecked(rules, m);
        if matches!(next.outcome(rules), Some(Outcome::Win { winner, .. }) if winner == us) {
            succ.truncate(mark);
            return Moves::WinAtOnce;
        }
        let them = next.side_to_move();
        let (o, p) = (next.pieces(them), next.pieces(them.opponent()));
        if m.has_removal() {
            let key = (o.count() as u8, p.count() as u8);
            let c = Subspace::new(key.0, key.1)
                .map(|s| done[&key][s.index(o, p) as usize])
                .unwrap_or(0);
            let n = limits
                .limit(o.count(), p.count())
                .map_or(u32::MAX, u32::from);
            match decided_by(c, n) {
                Some(Wdl::Loss) => {
                    succ.truncate(mark);
                    return Moves::WinAtOnce;
                }
                Some(Wdl::Win) => {}
                _ => holds = true,
            }
        } else {
            let slot = twin.index(o, p);
            succ.push(u32::try_from(slot).expect("a subspace has fewer than 2^32 slots"));
        }
    }
    Moves::Open { holds }
}

/// The entries of `slots` (those `describe` can describe), their moves
/// found by `describe` over `threads` in chunks, in the order of `slots`.
fn prepare(
    slots: &[u64],
    threads: usize,
    describe: impl Fn(&mut MoveList, &mut Vec<u32>, u64) -> Option<Moves> + Sync,
) -> (Vec<Entry>, Vec<u32>) {
    const CHUNK: usize = 1 << 14;
    let next = AtomicUsize::new(0);
    let parts = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut moves = MoveList::new();
                loop {
                    let start = next.fetch_add(CHUNK, Relaxed);
                    if start >= slots.len() {
                        break;
                    }
                    let mut entries = Vec::new();
                    let mut succ = Vec::new();
                    for &slot in &slots[start..(start + CHUNK).min(slots.len())] {
                        let first = succ.len();
                        if let Some(m) = describe(&mut moves, &mut succ, slot) {
                            let len = (succ.len() - first) as u32;
                            entries.push(Entry {
                                slot,
                                first,
                                len,
                                moves: m,
                            });
                        }
                    }
                    parts
                        .lock()
                        .expect("no panics")
                        .push((start, entries, succ));
                }
            });
        }
    });
    let mut parts = parts.into_inner().expect("no panics");
    parts.sort_unstable_by_key(|p| p.0);
    let mut entries = Vec::new();
    let mut succ = Vec::new();
    for (_, mut part, list) in parts {
        let base = succ.len();
        for e in &mut part {
            e.first += base;
        }
        entries.append(&mut part);
        succ.extend_from_slice(&list);
    }
    (entries, succ)
}

/// Runs `decide` on every entry, split over `threads` in chunks; how
/// many it decided (returned true).
fn one_layer(entries: &[Entry], threads: usize, decide: impl Fn(&Entry) -> bool + Sync) -> u64 {
    const CHUNK: usize = 1 << 14;
    let next = AtomicUsize::new(0);
    let found = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut mine = 0;
                loop {
                    let start = next.fetch_add(CHUNK, Relaxed);
                    if start >= entries.len() {
                        break;
                    }
                    for e in &entries[start..(start + CHUNK).min(entries.len())] {
                        mine += decide(e) as u64;
                    }
                }
                found.fetch_add(mine, Relaxed);
            });
        }
    });
    found.into_inner()
}

/// Compares the engine's values of subspace `own-opp` with the minimax's.
fn compare(
    tables: &Tablebases,
    rules: &Rules,
    limits: NMoveLimits,
    own: u8,
    opp: u8,
    codes: &[Code],
    threads: usize,
) -> SubspaceCheck {
    let sub = Subspace::new(own, opp).expect("valid counts");
    let limit = limits.limit(own as u32, opp as u32);
    let report = Mutex::new(SubspaceCheck {
        own,
        opp,
        ..SubspaceCheck::default()
    });
    let tb_rules = tables.tb_rules();
    let states = sub.par_classes(
        threads,
        SubspaceCheck::default,
        |mine, idx, own_set, opp_set| {
            mine.classes += 1;
            if let Some(pos) = tb_rules.position(own_set, opp_set) {
                let code = codes[idx as usize];
                compare_one(tables, rules, &pos, code, limit, idx, mine);
            }
        },
        |_| {},
    );
    for mine in states {
        let mut r = report.lock().expect("no panics");
        r.classes += mine.classes;
        r.compared += mine.compared;
        r.wins_drawn += mine.wins_drawn;
        r.losses_drawn += mine.losses_drawn;
        r.win_counters_drawn += mine.win_counters_drawn;
        r.longest = r.longest.max(mine.longest);
        r.mismatches += mine.mismatches;
        r.unknown += mine.unknown;
        for f in mine.first {
            if r.first.len() < 10 {
                r.first.push(f);
            }
        }
    }
    report.into_inner().expect("no panics")
}

/// Compares one position at the counters where a value can change, and
/// (for every 64th position) its moves' values from the root probe.
fn compare_one(
    tables: &Tablebases,
    rules: &Rules,
    pos: &Position,
    code: Code,
    limit: Option<u16>,
    idx: u64,
    out: &mut SubspaceCheck,
) {
    let t = (code != 0).then(|| (code - 1) >> 1);
    if let Some(t) = t {
        out.longest = out.longest.max(t);
    }
    let Some(limit) = limit else {
        // No limit here: every counter is the same.
        check_at(tables, pos, code, u32::MAX, 0, out);
        return;
    };
    let pure = tables.probe(pos).unwrap_or(Value::Draw);
    if let Some(t) = t {
        if t > limit {
            match pure {
                Value::Win(_) => out.wins_drawn += 1,
                _ => out.losses_drawn += 1,
            }
        }
        if matches!(pure, Value::Win(_)) {
            // Drawn at the counters c with t > limit - c.
            out.win_counters_drawn += if t > limit {
                limit as u64
            } else {
                (t as u64).saturating_sub(1)
            };
        }
    } else if pure != Value::Draw {
        // Decided without the rules, never with them: drawn at every counter.
        match pure {
            Value::Win(_) => {
                out.wins_drawn += 1;
                out.win_counters_drawn += limit as u64;
            }
            _ => out.losses_drawn += 1,
        }
    }
    let mut counters = vec![0, limit - 1];
    if let Some(t) = t {
        for c in [limit as i32 - t as i32, limit as i32 - t as i32 + 1] {
            if (0..limit as i32).contains(&c) {
                counters.push(c as u16);
            }
        }
    }
    counters.sort_unstable();
    counters.dedup();
    for c in counters {
        check_at(tables, pos, code, (limit - c) as u32, c, out);
    }
    if idx % 64 == 0 {
        check_moves(tables, rules, pos, out);
    }
}

/// Whether the engine's value at counter `counter` is `V(pos, left)`.
fn check_at(
    tables: &Tablebases,
    pos: &Position,
    code: Code,
    left: u32,
    counter: u16,
    out: &mut SubspaceCheck,
) {
    out.compared += 1;
    let at = pos.with_rule50(counter);
    let want = decided_by(code, left).unwrap_or(Wdl::Draw);
    let got = tables.value(&at).and_then(|v| v.rule);
    if got != Some(want) {
        match got {
            None => out.unknown += 1,
            Some(_) => out.mismatches += 1,
        }
        if out.first.len() < 10 {
            out.first.push(format!(
                "{} counter {counter}: the engine says {got:?}, the minimax {want:?}",
                at.fen(&Rules::default())
            ));
        }
    }
}

/// The root probe's value of each move against the engine's value of the
/// position it leads to (which `check_at` compares with the minimax).
fn check_moves(tables: &Tablebases, rules: &Rules, pos: &Position, out: &mut SubspaceCheck) {
    let probe = probe_root(tables, rules, pos);
    for (m, v) in &probe.moves {
        let next = pos.play_unchecked(rules, *m);
        let expected = if next.material(next.side_to_move()) < Rules::MIN_PIECES as u32 {
            Some(Wdl::Win)
        } else {
            tables.value(&next).and_then(|c| c.rule).map(Wdl::flip)
        };
        if v.and_then(|v| v.rule) != expected {
            out.mismatches += 1;
            if out.first.len() < 10 {
                out.first.push(format!(
                    "{} move {m}: the root probe says {v:?}",
                    pos.fen(&Rules::default())
                ));
            }
        }
    }
}
