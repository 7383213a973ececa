//! The builder: retrograde analysis of one pair of subspaces, `W-B` and
//! `B-W` (a move that removes nothing leads from one to the other), over
//! the finished tables of the subspaces a removal leads into.
//!
//! Each table holds a byte per slot (0 unknown, else distance + 1, see
//! `format.rs`) and, while building, a byte of successors still to be
//! refuted. Distances count plies to the end of the game, through
//! removals: a removal into a position the smaller table gives as lost
//! for the opponent at distance d wins at d + 1. The method:
//!
//! 1. Scan every class: a side that cannot move has lost (distance 0). The
//!    shortest removal win (a removal that leaves two pieces wins at 1) is
//!    stored as a tentative win; a position all of whose moves remove, and
//!    lose, is lost at the longest of them.
//! 2. Level by level, distance k = 0, 1, ...: every position lost at k
//!    makes each predecessor (found by un-moves) a win at k + 1, unless it
//!    has a value already (a tentative win further away gives way). Every
//!    position won at k takes one from each unknown predecessor's count; a
//!    count that reaches 0 makes a loss at k + 1, or later if a removal
//!    loses later. A count is set the first time a successor is won (all
//!    other successors are unknown then, since every win is propagated at
//!    its own level): the number of distinct successor classes that remove
//!    nothing, plus one if a removal leads to a draw (which never falls).
//! 3. What is still unknown is a draw.
//!
//! Un-moves: the side that just moved slides (or flies, with `fly_at`
//! pieces or fewer) a piece back from `to` to an empty `from`; a piece that
//! stands in a mill cannot have just arrived, since that move would have
//! removed. Forward moves here are generated from the rules core's
//! geometry tables; `verify.rs` checks the result with the core's own
//! move generator.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize};
use std::time::Instant;

use super::format::{self, Header, MappedTable, TbError, TbRules, Value};
use super::index::{MIN_PIECES, Subspace};
use super::symmetry;
use crate::core::geometry::Geometry;
use crate::core::{Bitboard, Color, Position, Setup};

/// What a build reports to whoever shows progress.
pub enum Event<'a> {
    /// A phase of a subspace pair starts, with `total` units of work.
    Phase { label: &'a str, total: u64 },
    /// `n` more units of the current phase are done.
    Advance(u64),
    /// The retrograde analysis reached distance `k`.
    Level(u32),
}

/// The summary of one built subspace.
#[derive(Clone, Debug)]
pub struct Report {
    pub own: u8,
    pub opp: u8,
    pub slots: u64,
    pub header: Header,
    /// Wall time of the pair it was built with.
    pub seconds: f64,
    /// The process's peak resident memory while building the pair, bytes.
    pub peak_bytes: u64,
    /// The bytes the pair's tables took in memory.
    pub table_bytes: u64,
}

/// How to build.
pub struct Options {
    pub dir: PathBuf,
    pub threads: usize,
    /// The most memory (bytes) a pair may use.
    pub memory: u64,
}

/// One side of the pair being built.
struct Side {
    sub: Subspace,
    values: Vec<u8>,
    counts: Vec<u8>,
    /// The table of `(opp - 1)-own`, where this side's removals lead
    /// (none when `opp - 1` is below 3: such a removal wins).
    removal: Option<(Subspace, MappedTable)>,
}

/// The moving-phase rules in the form the inner loops want.
#[derive(Clone, Copy)]
struct Mover {
    g: &'static Geometry,
    flying: bool,
    fly_at: u32,
    remove_always: bool,
}

impl Mover {
    fn new(rules: TbRules) -> Mover {
        Mover {
            g: Geometry::get(rules.diagonals),
            flying: rules.flying,
            fly_at: rules.fly_at as u32,
            remove_always: rules.remove_from_mills_always,
        }
    }

    #[inline]
    fn flies(&self, pieces: Bitboard) -> bool {
        self.flying && pieces.count() <= self.fly_at
    }

    /// The opponent's pieces a mill may remove.
    #[inline]
    fn removable(&self, opp: Bitboard) -> Bitboard {
        if self.remove_always {
            return opp;
        }
        let free = opp & !self.g.pieces_in_mills(opp);
        if free.nonempty() { free } else { opp }
    }

    /// The points a piece at `from` may step to.
    #[inline]
    fn reach(&self, fly: bool, from: usize, empty: Bitboard) -> Bitboard {
        if fly {
            empty
        } else {
            self.g.adjacent[from] & empty
        }
    }
}

/// What the removals of a position lead to, as distances for the mover.
#[derive(Default)]
struct Removals {
    /// The shortest win by a removal.
    win: Option<u8>,
    /// A removal leads to a draw.
    draw: bool,
    /// The longest loss by a removal.
    loss: Option<u8>,
    /// Every move removes.
    all_moves_remove: bool,
}

/// Where one side's removals lead: the table of `(opp - 1)-own`, if any.
#[derive(Clone, Copy)]
struct Removing<'a>(Option<&'a (Subspace, MappedTable)>);

impl Side {
    fn removing(&self) -> Removing<'_> {
        Removing(self.removal.as_ref())
    }
}

impl Removing<'_> {
    /// The value, for the opponent to move, of the position after `own`
    /// (moved) removed a piece of `opp`, leaving `opp_left`.
    #[inline]
    fn after_removal(&self, opp_left: Bitboard, own: Bitboard) -> Value {
        match self.0 {
            None => Value::Loss(0),
            Some((sub, table)) => Value::decode(table.slots()[sub.index(opp_left, own) as usize]),
        }
    }

    fn removals(&self, m: &Mover, own: Bitboard, opp: Bitboard) -> Removals {
        let empty = !(own | opp);
        let closers = m.g.closing_points(own, empty);
        let mut r = Removals::default();
        if closers.is_empty() {
            return r;
        }
        let fly = m.flies(own);
        let removable = m.removable(opp);
        let mut closing_moves = 0;
        for to in closers {
            let sources = if fly {
                own
            } else {
                m.g.adjacent[to.index()] & own
            };
            for from in sources {
                let moved = own.without(from).with(to);
                if !m.g.in_mill(to, moved) {
                    continue;
                }
                closing_moves += 1;
                for x in removable {
                    match self.after_removal(opp.without(x), moved) {
                        Value::Loss(d) => {
                            let d = d + 1;
                            r.win = Some(r.win.map_or(d, |w| w.min(d)));
                        }
                        Value::Draw => r.draw = true,
                        Value::Win(d) => {
                            let d = d + 1;
                            r.loss = Some(r.loss.map_or(d, |l| l.max(d)));
                        }
                    }
                }
            }
        }
        let moves = if fly {
            own.count() * empty.count()
        } else {
            m.g.mobility(own, empty)
        };
        r.all_moves_remove = closing_moves == moves;
        r
    }
}

/// The FEN of a moving-phase position (for messages).
pub fn fen(rules: TbRules, own: Bitboard, opp: Bitboard) -> String {
    match position(rules, own, opp) {
        Some(p) => p.fen(&rules.game_rules()),
        None => format!("(own {own:?} against {opp:?})"),
    }
}

/// The rules core's position with `own` (White) to move against `opp`,
/// both hands empty.
pub fn position(rules: TbRules, own: Bitboard, opp: Bitboard) -> Option<Position> {
    let setup = Setup {
        board: [own, opp],
        marked: Bitboard::EMPTY,
        side: Color::White,
        phase: 'm',
        action: 's',
        on_board: [own.count() as u8, opp.count() as u8],
        in_hand: [0, 0],
        to_remove: [0, 0],
        last_mill: [None; 4],
        formed: [Bitboard::EMPTY; 2],
        rule50: 0,
        fullmove: 1,
        blocked_removal: false,
    };
    Position::from_setup(&setup, &rules.game_rules()).ok()
}

/// Builds the pair `own-opp` and `opp-own` (one table when equal) into
/// `opts.dir`, over the finished smaller tables there. Returns one report
/// per table written.
pub fn build_pair(
    rules: TbRules,
    own: u8,
    opp: u8,
    opts: &Options,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Vec<Report>, TbError> {
    let started = Instant::now();
    reset_peak_memory();
    let m = Mover::new(rules);
    let mut sides = open_sides(rules, own, opp, opts)?;

    // 1. Immediate values, in parallel over the classes of each side.
    let total: u64 = sides.iter().map(|s| s.sub.len()).sum();
    progress(Event::Phase {
        label: "scan",
        total,
    });
    for side in &mut sides {
        scan(rules, &m, side, opts.threads.max(1), progress)?;
    }

    // 2. Level by level.
    // How many positions will be resolved is not known in advance.
    progress(Event::Phase {
        label: "retrograde",
        total: 0,
    });
    retrograde(&m, &mut sides, opts.threads.max(1), progress)?;

    // 3. Write, with the per-class counts in the header.
    let mut reports = write_sides(rules, &sides, opts)?;
    let seconds = started.elapsed().as_secs_f64();
    let peak = peak_memory();
    for r in &mut reports {
        r.seconds = seconds;
        r.peak_bytes = peak;
    }
    Ok(reports)
}

/// The pair's sides, empty, with the smaller tables their removals lead
/// into opened; refused when the pair needs more than `opts.memory`.
fn open_sides(rules: TbRules, own: u8, opp: u8, opts: &Options) -> Result<Vec<Side>, TbError> {
    let counts: Vec<(u8, u8)> = if own == opp {
        vec![(own, opp)]
    } else {
        vec![(own, opp), (opp, own)]
    };
    let subs: Vec<Subspace> = counts
        .iter()
        .map(|&(a, b)| Subspace::new(a, b).ok_or(TbError::BadSubspace(format!("{a}-{b}"))))
        .collect::<Result<_, _>>()?;
    let table_bytes: u64 = subs.iter().map(|s| 2 * s.len()).sum();
    let removal_bytes: u64 = counts
        .iter()
        .filter(|&&(_, b)| b > MIN_PIECES)
        .filter_map(|&(a, b)| Subspace::new(b - 1, a))
        .map(|s| s.len())
        .sum();
    let need = table_bytes + removal_bytes;
    if need > opts.memory {
        let gib = |x: u64| x as f64 / (1u64 << 30) as f64;
        return Err(TbError::Memory {
            subspace: format!("{own}-{opp}"),
            need_gib: gib(need),
            limit_gib: gib(opts.memory),
        });
    }
    let mut sides = Vec::new();
    for (&(a, b), sub) in counts.iter().zip(subs) {
        let removal = if b > MIN_PIECES {
            let table = MappedTable::open(&opts.dir, b - 1, a, rules)?;
            Some((Subspace::new(b - 1, a).expect("valid counts"), table))
        } else {
            None
        };
        let len = sub.len() as usize;
        sides.push(Side {
            sub,
            values: vec![0; len],
            counts: vec![0; len],
            removal,
        });
    }
    Ok(sides)
}

/// Writes each side's finished table (unless a finished file is there
/// already: its twin was the one missing), with its counts and checksum
/// in the header; one report per side, its times still to be filled in.
fn write_sides(rules: TbRules, sides: &[Side], opts: &Options) -> Result<Vec<Report>, TbError> {
    std::fs::create_dir_all(&opts.dir).map_err(|source| TbError::Io {
        path: opts.dir.clone(),
        source,
    })?;
    let table_bytes: u64 = sides.iter().map(|s| 2 * s.sub.len()).sum();
    let mut reports = Vec::new();
    for side in sides {
        let mut header = summarise(&side.sub, &side.values, rules);
        header.checksum = format::checksum(&side.values);
        let path = opts.dir.join(format::file_name(side.sub.own, side.sub.opp));
        if MappedTable::open(&opts.dir, side.sub.own, side.sub.opp, rules).is_err() {
            format::write_table(&path, &header, &side.values)?;
        }
        reports.push(Report {
            own: side.sub.own,
            opp: side.sub.opp,
            slots: side.sub.len(),
            header,
            seconds: 0.0,
            peak_bytes: 0,
            table_bytes,
        });
    }
    Ok(reports)
}

/// One side's tables during the retrograde step, as atomics that the
/// threads update together.
struct AtomicSide<'a> {
    sub: &'a Subspace,
    values: &'a [AtomicU8],
    /// 0: not counted yet; otherwise 1 + the successors not yet known to
    /// win for the opponent (1: every one does; the position is lost).
    counts: &'a [AtomicU8],
    removing: Removing<'a>,
}

/// `values` as atomics, for threads that update it together.
fn atomic(values: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: `AtomicU8` has the size, alignment and bit validity of `u8`,
    // and the exclusive borrow keeps every other access out while the
    // atomic view lives.
    unsafe { &*(values as *mut [u8] as *const [AtomicU8]) }
}

/// Step 2: level by level, from the positions decided at distance
/// `level` to their predecessors, until no level finds more. Each level
/// is split over threads by slot; its outcome does not depend on the
/// order (a level only writes codes above the one it reads).
fn retrograde(
    m: &Mover,
    sides: &mut [Side],
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<(), TbError> {
    let top = sides
        .iter()
        .flat_map(|s| s.values.iter().copied())
        .max()
        .unwrap_or(0) as u32;
    let first = sides
        .first()
        .map(|s| format!("{}-{}", s.sub.own, s.sub.opp));
    let shared: Vec<AtomicSide> = sides
        .iter_mut()
        .map(|side| AtomicSide {
            sub: &side.sub,
            values: atomic(&mut side.values),
            counts: atomic(&mut side.counts),
            removing: Removing(side.removal.as_ref()),
        })
        .collect();
    const CHUNK: usize = 1 << 16;
    // The distance of a loss that broke the parity of the encoding, if any.
    let misfit = AtomicU8::new(0);
    let mut level: u32 = 0;
    loop {
        let code = (level + 1) as u8;
        let found = AtomicU64::new(0);
        progress(Event::Level(level));
        for i in 0..shared.len() {
            let (from, to) = (
                &shared[i],
                &shared[if shared.len() == 1 { 0 } else { 1 - i }],
            );
            let next_chunk = AtomicUsize::new(0);
            std::thread::scope(|scope| {
                for _ in 0..threads {
                    scope.spawn(|| {
                        let mut preds: Vec<u64> = Vec::with_capacity(512);
                        let mut mine = 0u64;
                        loop {
                            let start = next_chunk.fetch_add(CHUNK, Relaxed);
                            if start >= from.values.len() {
                                break;
                            }
                            let end = (start + CHUNK).min(from.values.len());
                            for idx in start..end {
                                if from.values[idx].load(Relaxed) != code {
                                    continue;
                                }
                                mine += 1;
                                let (own_s, opp_s) = from.sub.position(idx as u64);
                                predecessors(m, to.sub, own_s, opp_s, &mut preds);
                                if level % 2 == 0 {
                                    win_predecessors(to, &preds, code);
                                } else {
                                    preds.sort_unstable();
                                    preds.dedup();
                                    count_down(m, to, from.sub, &preds, level, &misfit);
                                }
                            }
                        }
                        found.fetch_add(mine, Relaxed);
                    });
                }
            });
        }
        let found = found.into_inner();
        progress(Event::Advance(found));
        let odd = misfit.load(Relaxed);
        if odd != 0 {
            return Err(TbError::Unrepresentable {
                subspace: first.unwrap_or_default(),
                fen: format!("(a position found lost at level {level})"),
                value: Value::Loss(odd),
            });
        }
        if found == 0 && level >= top {
            let above = shared
                .iter()
                .any(|s| s.values.iter().any(|v| v.load(Relaxed) as u32 > level + 1));
            if !above {
                return Ok(());
            }
        }
        level += 1;
        if level >= 254 {
            // Distances past 253 do not fit; these rules never reach them.
            return Err(TbError::Unrepresentable {
                subspace: first.unwrap_or_default(),
                fen: String::from("(distance 254 reached)"),
                value: Value::Win(254),
            });
        }
    }
}

/// A loss at distance `code - 1` found: its predecessors win at `code`,
/// unless they already win sooner.
#[inline]
fn win_predecessors(to: &AtomicSide, preds: &[u64], code: u8) {
    for &p in preds {
        // A win found by a removal at a longer distance is not yet
        // propagated and gives way to this one.
        let _ = to.values[p as usize].fetch_update(Relaxed, Relaxed, |v| {
            (v == 0 || v > code + 1).then_some(code + 1)
        });
    }
}

/// A win for the opponent found at distance `level`: each undecided
/// predecessor (distinct, in `to`) has one successor fewer left; the one
/// whose last successor this is loses.
#[inline]
fn count_down(
    m: &Mover,
    to: &AtomicSide,
    next: &Subspace,
    preds: &[u64],
    level: u32,
    misfit: &AtomicU8,
) {
    for &p in preds {
        let p = p as usize;
        if to.values[p].load(Relaxed) != 0 {
            continue;
        }
        let counter = &to.counts[p];
        let mut c = counter.load(Relaxed);
        loop {
            match c {
                0 => {
                    let n = successor_count(m, to.sub, to.removing, next, p as u64);
                    // Another thread may have counted it first.
                    c = match counter.compare_exchange(0, n + 1, Relaxed, Relaxed) {
                        Ok(_) => n + 1,
                        Err(now) => now,
                    };
                }
                1 => break,
                _ => match counter.compare_exchange_weak(c, c - 1, Relaxed, Relaxed) {
                    Ok(_) => {
                        if c == 2 {
                            // Lost; a removal may lose later still.
                            let (own_p, opp_p) = to.sub.position(p as u64);
                            let by_removal = to.removing.removals(m, own_p, opp_p).loss;
                            let d = by_removal.map_or(level as u8 + 1, |r| r.max(level as u8 + 1));
                            let value = Value::Loss(d);
                            if !value.representable() {
                                // A loss at an odd distance: the byte would
                                // read back as a win. Odd, so never 0.
                                misfit.store(d, Relaxed);
                            }
                            to.values[p].store(value.encode(), Relaxed);
                        }
                        break;
                    }
                    Err(now) => c = now,
                },
            }
        }
    }
}

/// Step 1 for one side, split over threads by class.
fn scan(
    rules: TbRules,
    m: &Mover,
    side: &mut Side,
    threads: usize,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<(), TbError> {
    let per_class = side.sub.per_class() as usize;
    let classes = side.sub.own_classes();
    let chunk_classes = classes.div_ceil(threads * 8).max(1);
    let first_error = std::sync::Mutex::new(None);
    let Side {
        sub,
        values,
        removal,
        ..
    } = side;
    // Each chunk of classes owns a disjoint piece of `values`.
    let chunks: Vec<(usize, &mut [u8])> = values
        .chunks_mut(chunk_classes * per_class)
        .enumerate()
        .collect();
    let chunks = std::sync::Mutex::new(chunks);
    let view = Side {
        sub: sub.clone(),
        values: Vec::new(),
        counts: Vec::new(),
        removal: removal.take(),
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let Some((chunk, slots)) = chunks.lock().expect("no panics").pop() else {
                        break;
                    };
                    let first_class = chunk * chunk_classes;
                    let base = (first_class * per_class) as u64;
                    let last_class = (first_class + chunk_classes).min(classes);
                    for class in first_class..last_class {
                        let own = view.sub.own_set(class);
                        view.sub.for_each_in_class(class, |idx, opp| {
                            if !view.sub.is_canonical(class, opp) {
                                return;
                            }
                            let slot = &mut slots[(idx - base) as usize];
                            let empty = !(own | opp);
                            if !m.flies(own) && (own & m.g.neighbours(empty)).is_empty() {
                                *slot = Value::Loss(0).encode();
                                return;
                            }
                            let r = view.removing().removals(m, own, opp);
                            let value = match r {
                                Removals { win: Some(d), .. } => Value::Win(d),
                                Removals {
                                    loss: Some(d),
                                    all_moves_remove: true,
                                    draw: false,
                                    ..
                                } => Value::Loss(d),
                                _ => return,
                            };
                            if !value.representable() {
                                let mut e = first_error.lock().expect("no panics");
                                if e.is_none() {
                                    *e = Some(TbError::Unrepresentable {
                                        subspace: format!("{}-{}", view.sub.own, view.sub.opp),
                                        fen: fen(rules, own, opp),
                                        value,
                                    });
                                }
                            }
                            *slot = value.encode();
                        });
                        progress(Event::Advance(per_class as u64));
                    }
                }
            });
        }
    });
    side.removal = view.removal;
    match first_error.into_inner().expect("no panics") {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The slots of the predecessors (in `pred_sub`, the other side to move)
/// of the position `own` to move against `opp`, found by un-moves of
/// `opp`. With repeats.
fn predecessors(m: &Mover, pred_sub: &Subspace, own: Bitboard, opp: Bitboard, out: &mut Vec<u64>) {
    out.clear();
    let empty = !(own | opp);
    let fly = m.flies(opp);
    let arrived = opp & !m.g.pieces_in_mills(opp);
    for to in arrived {
        let rest = opp.without(to);
        for from in m.reach(fly, to.index(), empty) {
            out.push(pred_sub.index(rest.with(from), own));
        }
    }
}

/// The count of slot `idx` of `sub`, whose removals are `removing` and
/// whose successors lie in `next`: its distinct successor classes that
/// remove nothing, plus one if a removal leads to a draw.
fn successor_count(m: &Mover, sub: &Subspace, removing: Removing, next: &Subspace, idx: u64) -> u8 {
    let (own, opp) = sub.position(idx);
    let empty = !(own | opp);
    let fly = m.flies(own);
    // Every successor has `opp` to move: one canonicalising symmetry.
    let (class, s) = next.canonical_own(opp);
    let own_img = symmetry::apply(s, own);
    let mut succ = [0u64; 256];
    let mut n = 0;
    let mut escape = false;
    let removable = m.removable(opp);
    for from in own {
        for to in m.reach(fly, from.index(), empty) {
            let moved = own.without(from).with(to);
            if m.g.in_mill(to, moved) {
                if !escape {
                    escape = removable
                        .into_iter()
                        .any(|x| removing.after_removal(opp.without(x), moved) == Value::Draw);
                }
                continue;
            }
            let img = own_img ^ symmetry::point_bits(s, from) ^ symmetry::point_bits(s, to);
            succ[n] = next.index_in_class(class, img);
            n += 1;
        }
    }
    let succ = &mut succ[..n];
    succ.sort_unstable();
    let mut distinct = 0;
    for i in 0..n {
        if i == 0 || succ[i] != succ[i - 1] {
            distinct += 1;
        }
    }
    (distinct + escape as usize) as u8
}

/// The header of a finished table: class counts and longest distances.
pub fn summarise(sub: &Subspace, values: &[u8], rules: TbRules) -> Header {
    let mut h = Header {
        own: sub.own,
        opp: sub.opp,
        rules,
        slots: sub.len(),
        wins: 0,
        losses: 0,
        draws: 0,
        max_win: 0,
        max_loss: 0,
        checksum: 0,
    };
    for class in 0..sub.own_classes() {
        sub.for_each_in_class(class, |idx, opp| {
            if !sub.is_canonical(class, opp) {
                return;
            }
            match Value::decode(values[idx as usize]) {
                Value::Win(d) => {
                    h.wins += 1;
                    h.max_win = h.max_win.max(d);
                }
                Value::Loss(d) => {
                    h.losses += 1;
                    h.max_loss = h.max_loss.max(d);
                }
                Value::Draw => h.draws += 1,
            }
        });
    }
    h
}

/// Resets the kernel's peak-RSS mark (Linux; elsewhere a no-op), so that
/// each pair reports its own peak.
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The peak resident memory since the last reset, bytes (0 if unknown).
pub fn peak_memory() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Whether both tables of the pair are finished in `dir`.
pub fn pair_done(dir: &Path, rules: TbRules, own: u8, opp: u8) -> bool {
    MappedTable::open(dir, own, opp, rules).is_ok()
        && MappedTable::open(dir, opp, own, rules).is_ok()
}

/// The pairs to build, smallest first, for the subspaces asked for and
/// those their removals lead into. Each pair is `(a, b)` with `a >= b`.
pub fn plan(targets: &[(u8, u8)]) -> Vec<(u8, u8)> {
    let mut pairs: Vec<(u8, u8)> = Vec::new();
    let mut todo: Vec<(u8, u8)> = targets.to_vec();
    while let Some((a, b)) = todo.pop() {
        let key = (a.max(b), a.min(b));
        if pairs.contains(&key) {
            continue;
        }
        pairs.push(key);
        // A removal from a-b leads into (b-1)-a, from b-a into (a-1)-b.
        if b > MIN_PIECES {
            todo.push((b - 1, a));
        }
        if a > MIN_PIECES {
            todo.push((a - 1, b));
        }
    }
    pairs.sort_by_key(|&(a, b)| (a + b, a, b));
    pairs
}
