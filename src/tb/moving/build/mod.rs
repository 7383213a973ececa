//! The builder: retrograde analysis of one pair of subspaces, `W-B` and
//! `B-W` (a move that removes nothing leads from one to the other), over
//! the finished tables of the subspaces a removal leads into. It builds
//! either kind of file (`format.rs`): distances to the end of the game,
//! through removals (a removal into a position the smaller table gives as
//! lost for the opponent at distance d wins at d + 1), or distances to the
//! next removal that keeps the value (every such removal wins at 1, and a
//! forced removal that loses, loses at 1), the latter either beside the
//! first kind (`.dtz`) or with the sign under an N-move rule, on its own
//! (`.wdz`).
//!
//! Each table holds, while building, a value per slot (`code.rs`) and a
//! byte of successors still to be refuted. The method:
//!
//! 1. `scan.rs`: every class's immediate value.
//! 2. `retrograde.rs`: level by level, from the positions decided at
//!    distance k to their predecessors.
//! 3. What is still unknown is a draw. Each table is written with its
//!    counts and checksum, after a check that every value fits the file;
//!    a distance-to-removal table is checked against the pair's
//!    distance-to-end tables too: the same wins, losses and draws.
//!
//! Every table a build reads must pass its checksum; a file under a
//! table's name that is not this build's kind, rules or format version
//! stops the build instead of being replaced. Forward moves and un-moves
//! are generated from the rules core's geometry tables (`moves.rs`);
//! `verify.rs` checks the result with the core's own move generator.

mod code;
mod moves;
mod retrograde;
mod scan;

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::header_of;
use crate::largemem::HugeTable;
use crate::tb::error::TbError;
use crate::tb::format::{self, Header, Kind};
use crate::tb::index::{MIN_PIECES, Subspace, plan};
use crate::tb::mapped::MappedTable;
use crate::tb::nmove::NMoveLimits;
use crate::tb::rules::TbRules;
use crate::tb::value::{self, Value};
use crate::tb::work::{
    Event, check_memory, cpu_seconds, peak_memory, reset_peak_memory, working_table,
};
use code::Code;
pub use moves::Child;
use moves::{Mover, Removed};

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
    /// Seconds of the pair's steps, wall and CPU (the process's, every
    /// thread's): opening the tables the removals lead into (and copying
    /// them in the scan's order), the scan, the retrograde step, and
    /// writing the files.
    pub steps: [Step; 4],
}

/// The time one step of a build took.
#[derive(Clone, Copy, Debug, Default)]
pub struct Step {
    pub wall: f64,
    pub cpu: f64,
}

impl Step {
    /// The step from `start` to `end`, each (wall, CPU) seconds.
    fn between(start: (f64, f64), end: (f64, f64)) -> Step {
        Step {
            wall: end.0 - start.0,
            cpu: end.1 - start.1,
        }
    }
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
    values: HugeTable<Code>,
    counts: HugeTable<u8>,
    /// The subspace `(opp - 1)-own`, where this side's removals lead
    /// (none when `opp - 1` is below 3: such a removal wins), in the
    /// scan's order.
    removed: Option<Removed>,
    /// In a `.dtz` build, the side's own `.tb` table: its draws stay
    /// draws under every limit, so the build never searches them.
    pure: Option<MappedTable>,
}

/// Bytes of memory a slot takes while building: its value and its count.
const BYTES_PER_SLOT: u64 = (std::mem::size_of::<Code>() + 1) as u64;

/// One pair's build: the kind of file, the rules, the N-move limits its
/// removals are valued under (none for `.tb` files), the pair `own-opp`
/// and `opp-own` (one table when equal), and where and how. Every step
/// of the build reads it.
#[derive(Clone, Copy)]
pub struct PairBuild<'a> {
    pub kind: Kind,
    pub rules: TbRules,
    pub limits: NMoveLimits,
    pub own: u8,
    pub opp: u8,
    pub opts: &'a Options,
}

impl<'a> PairBuild<'a> {
    /// The pair's `.tb` tables, over the finished smaller tables in
    /// `opts.dir`.
    pub fn tb(rules: TbRules, own: u8, opp: u8, opts: &'a Options) -> PairBuild<'a> {
        PairBuild::of_kind(Kind::ToEnd, rules, own, opp, opts)
    }

    /// The pair's tables of kind `kind` without N-move rules; a `.dtz`
    /// pair needs the pair's own `.tb` tables as well, and takes the
    /// smaller subspaces' values without N-move rules.
    pub fn of_kind(
        kind: Kind,
        rules: TbRules,
        own: u8,
        opp: u8,
        opts: &'a Options,
    ) -> PairBuild<'a> {
        PairBuild {
            kind,
            rules,
            limits: NMoveLimits::NONE,
            own,
            opp,
            opts,
        }
    }

    /// The pair's `.dtz` tables with the removals valued under `limits`:
    /// a removal into a smaller subspace counts as its value there from a
    /// counter of 0 under them (from that subspace's `.dtz` file that is
    /// exact under them: its own for the limits, or the one without
    /// N-move rules). The files are named for the limits
    /// (`format::dtz_file_name`); a win or loss the rule then draws at
    /// every counter is left a draw, and counted in the header.
    pub fn dtz(
        rules: TbRules,
        limits: NMoveLimits,
        own: u8,
        opp: u8,
        opts: &'a Options,
    ) -> PairBuild<'a> {
        PairBuild {
            limits,
            ..PairBuild::of_kind(Kind::ToRemoval, rules, own, opp, opts)
        }
    }

    /// The pair's `.wdz` tables for `limits` (not none, each limit at
    /// most [`value::WDZ_MAX_LIMIT`]): the values under them from a
    /// counter of 0 and the plies to the next removal, with no `.tb` or
    /// `.dtz` file of the pair; the smaller subspaces' values come from
    /// their `.wdz` files for the same limits (or their `.tb` and `.dtz`
    /// files). The search stops at the limit: a removal further away is
    /// a draw under the rule.
    pub fn wdz(
        rules: TbRules,
        limits: NMoveLimits,
        own: u8,
        opp: u8,
        opts: &'a Options,
    ) -> PairBuild<'a> {
        PairBuild {
            limits,
            ..PairBuild::of_kind(Kind::UnderRule, rules, own, opp, opts)
        }
    }

    /// Builds the pair's tables into `opts.dir`; one report per table
    /// written. `progress` hears of each step.
    pub fn run(&self, progress: &(dyn Fn(Event) + Sync)) -> Result<Vec<Report>, TbError> {
        self.refuse_what_it_cannot_build()?;
        let started = Instant::now();
        let cpu_started = cpu_seconds();
        let clock = || (started.elapsed().as_secs_f64(), cpu_seconds() - cpu_started);
        reset_peak_memory();
        let m = Mover::new(self.rules);
        let mut sides = self.open_sides()?;
        let opened = clock();
        let threads = self.opts.threads.max(1);

        // 1. Immediate values, in parallel over the classes of each side.
        let total: u64 = sides.iter().map(|s| s.sub.len()).sum();
        progress(Event::Phase {
            label: "scan",
            total,
        });
        for side in &mut sides {
            scan::scan(self.kind, &m, side, threads, progress);
        }
        let scanned = clock();

        // 2. Level by level.
        // How many positions will be resolved is not known in advance.
        progress(Event::Phase {
            label: "retrograde",
            total: 0,
        });
        // Under a limit, a removal further away than it is a draw.
        let cap = match self.kind {
            Kind::UnderRule => self
                .limits
                .limit(self.own as u32, self.opp as u32)
                .map(u32::from),
            _ => None,
        };
        retrograde::retrograde(self.kind, &m, &mut sides, cap, threads, progress)?;
        for side in &mut sides {
            code::settle(&mut side.values);
        }
        let solved = clock();

        // 3. Write, with the per-class counts in the header.
        let mut reports = self.write_sides(&sides)?;
        let written = clock();
        let seconds = written.0;
        let peak = peak_memory();
        for r in &mut reports {
            r.seconds = seconds;
            r.peak_bytes = peak;
            r.steps = [
                Step::between((0.0, 0.0), opened),
                Step::between(opened, scanned),
                Step::between(scanned, solved),
                Step::between(solved, written),
            ];
        }
        Ok(reports)
    }

    /// The builds this builder cannot make: the placing phase, and
    /// `.wdz` files without limits or with a limit too long for them.
    fn refuse_what_it_cannot_build(&self) -> Result<(), TbError> {
        match self.kind {
            Kind::Placing => Err(TbError::Unusable(
                "the placing phase is built by tb::placing::build".into(),
            )),
            Kind::UnderRule => {
                let limits = self.limits;
                let too_long = [limits.n_move, limits.endgame]
                    .into_iter()
                    .any(|n| n > value::WDZ_MAX_LIMIT);
                if limits == NMoveLimits::NONE || too_long {
                    return Err(TbError::Unusable(format!(
                        ".wdz files hold values under N-move limits from 1 to {} ({limits:?} asked for): \
                         build .tb and .dtz files instead",
                        value::WDZ_MAX_LIMIT
                    )));
                }
                Ok(())
            }
            Kind::ToEnd | Kind::ToRemoval => Ok(()),
        }
    }
}

/// Opens a table the build reads, and checks its checksum.
fn open_checked(
    dir: &Path,
    kind: Kind,
    own: u8,
    opp: u8,
    rules: TbRules,
) -> Result<MappedTable, TbError> {
    let table = MappedTable::open_kind(dir, kind, own, opp, rules)?;
    table.verify_checksum()?;
    Ok(table)
}

impl PairBuild<'_> {
    /// The pair's sides, empty, with the smaller tables their removals lead
    /// into opened and checked; refused when the pair needs more than
    /// `opts.memory`.
    fn open_sides(&self) -> Result<Vec<Side>, TbError> {
        let PairBuild {
            kind,
            rules,
            limits,
            own,
            opp,
            opts,
        } = *self;
        let counts: Vec<(u8, u8)> = if own == opp {
            vec![(own, opp)]
        } else {
            vec![(own, opp), (opp, own)]
        };
        let subs: Vec<Subspace> = counts
            .iter()
            .map(|&(a, b)| Subspace::new(a, b).ok_or(TbError::BadSubspace(format!("{a}-{b}"))))
            .collect::<Result<_, _>>()?;
        // The values and counts, the retrograde step's bitmaps, and the
        // copies of the tables the removals lead into.
        let table_bytes: u64 = subs
            .iter()
            .map(|s| BYTES_PER_SLOT * s.len() + s.len().div_ceil(4))
            .sum();
        let removal_bytes: u64 = counts
            .iter()
            .filter(|&&(_, b)| b > MIN_PIECES)
            .filter_map(|&(a, b)| Subspace::new(b - 1, a))
            .map(|s| s.len())
            .sum();
        // A `.dtz` build reads the pair's `.tb` tables at the end.
        let own_tb_bytes: u64 = match kind {
            Kind::ToEnd | Kind::Placing | Kind::UnderRule => 0,
            Kind::ToRemoval => subs.iter().map(|s| s.len()).sum(),
        };
        let need = table_bytes + removal_bytes + own_tb_bytes;
        check_memory(|| format!("{own}-{opp}"), need, opts.memory)?;
        let mut sides = Vec::new();
        for (&(a, b), sub) in counts.iter().zip(subs) {
            let pure = match kind {
                Kind::ToRemoval => Some(open_checked(&opts.dir, Kind::ToEnd, a, b, rules)?),
                Kind::ToEnd | Kind::Placing | Kind::UnderRule => None,
            };
            let removed = if b > MIN_PIECES {
                let child = Child::open(&opts.dir, b - 1, a, rules, limits)?;
                if kind == Kind::ToEnd && child.under_rule() {
                    return Err(TbError::Unusable(format!(
                        "{}-{a}: a .tb build needs the .tb file, not the .wdz one",
                        b - 1
                    )));
                }
                Some(Removed::of(&child, kind, opts.threads.max(1), &opts.dir)?)
            } else {
                None
            };
            let len = sub.len() as usize;
            sides.push(Side {
                sub,
                values: working_table(len, &opts.dir)?,
                counts: working_table(len, &opts.dir)?,
                removed,
                pure,
            });
        }
        Ok(sides)
    }
}

/// The `.dtz` table of `own-opp` to use under `limits`: the one built
/// for them, or else the one without N-move rules.
fn open_chosen_dtz(
    dir: &Path,
    own: u8,
    opp: u8,
    rules: TbRules,
    limits: NMoveLimits,
) -> Result<MappedTable, TbError> {
    match MappedTable::open_dtz(dir, own, opp, rules, limits) {
        Err(TbError::Missing(_)) => MappedTable::open_dtz(dir, own, opp, rules, NMoveLimits::NONE),
        other => other,
    }
}

/// The `.dtz` table of `own-opp` exact under `limits`, checked: the one
/// built for them, or the one without N-move rules where every subspace
/// below it is clean ([`clean_below`]); an error otherwise.
pub fn open_exact_dtz(
    dir: &Path,
    own: u8,
    opp: u8,
    rules: TbRules,
    limits: NMoveLimits,
) -> Result<MappedTable, TbError> {
    let table = open_chosen_dtz(dir, own, opp, rules, limits)?;
    table.verify_checksum()?;
    if table.header.limits != limits && !clean_below(dir, rules, limits, own, opp) {
        return Err(TbError::Unusable(format!(
            "{} is not exact under {limits:?}: build the files of the smaller subspaces for these limits first",
            table.path.display()
        )));
    }
    Ok(table)
}

/// Whether every subspace that removals from the pair `own-opp` lead
/// into, on down, has a `.dtz` file to use under `limits` in which the
/// rule draws nothing from a counter of 0 (its longest distance within
/// its limit, no win or loss drawn at every counter). Then the values of
/// the pair without N-move rules are its values under them at a counter
/// of 0, and its `.dtz` file without N-move rules is exact under them.
pub fn clean_below(dir: &Path, rules: TbRules, limits: NMoveLimits, own: u8, opp: u8) -> bool {
    let pair = (own.max(opp), own.min(opp));
    plan(&[(own, opp)])
        .into_iter()
        .filter(|&p| p != pair)
        .flat_map(|(a, b)| [(a, b), (b, a)])
        .all(|(a, b)| {
            let Some(limit) = limits.limit(a as u32, b as u32) else {
                return true;
            };
            open_chosen_dtz(dir, a, b, rules, limits).is_ok_and(|t| {
                let h = &t.header;
                h.cursed == 0 && (h.max_win.max(h.max_loss) as u16) <= limit
            })
        })
}

impl PairBuild<'_> {
    /// Writes each side's finished table (unless a finished file is there
    /// already: its twin was the one missing), with its counts and checksum
    /// in the header; one report per side, its times still to be filled in.
    fn write_sides(&self, sides: &[Side]) -> Result<Vec<Report>, TbError> {
        let PairBuild {
            kind,
            rules,
            limits,
            opts,
            ..
        } = *self;
        std::fs::create_dir_all(&opts.dir).map_err(|source| TbError::Io {
            path: opts.dir.clone(),
            source,
        })?;
        let table_bytes: u64 = sides.iter().map(|s| BYTES_PER_SLOT * s.sub.len()).sum();
        let mut reports = Vec::new();
        for side in sides {
            let (own, opp) = (side.sub.own, side.sub.opp);
            let limit = limits.limit(own as u32, opp as u32);
            let (bytes, mut histogram) = file_bytes(kind, rules, side, limit, opts.threads.max(1))?;
            let mut cursed = 0;
            if kind == Kind::ToRemoval {
                let tb = open_checked(&opts.dir, Kind::ToEnd, own, opp, rules)?;
                let limited = limits != NMoveLimits::NONE;
                cursed = same_outcomes(rules, &side.sub, tb.slots(), &side.values, limited)?;
            }
            // The slots that hold no class are draws, and not counted.
            histogram[0] -= side.sub.unused_slots();
            let mut header = header_of(kind, &side.sub, rules, &histogram);
            header.checksum = format::checksum(&bytes);
            header.limits = limits;
            header.cursed = cursed;
            let (name, existing) = match kind {
                Kind::ToRemoval => (
                    format::dtz_file_name(own, opp, limits),
                    MappedTable::open_dtz(&opts.dir, own, opp, rules, limits),
                ),
                Kind::UnderRule => (
                    format::wdz_file_name(own, opp, limits),
                    MappedTable::open_wdz(&opts.dir, own, opp, rules, limits),
                ),
                _ => (
                    format::file_name_of(kind, own, opp),
                    MappedTable::open_kind(&opts.dir, kind, own, opp, rules),
                ),
            };
            let path = opts.dir.join(name);
            match existing {
                Err(TbError::Missing(_)) => format::write_table(&path, &header, &bytes)?,
                Err(e) => return Err(e),
                Ok(_) => {}
            }
            reports.push(Report {
                own,
                opp,
                slots: side.sub.len(),
                header,
                seconds: 0.0,
                peak_bytes: 0,
                table_bytes,
                steps: [Step::default(); 4],
            });
        }
        Ok(reports)
    }
}

/// A side's slot bytes as its file holds them, with how many slots hold
/// each byte; an error names the first value that does not fit (a `.tb`
/// win at an even distance, say). A `.wdz` table draws what lies further
/// than its `limit`. Split over `threads`.
fn file_bytes(
    kind: Kind,
    rules: TbRules,
    side: &Side,
    limit: Option<u16>,
    threads: usize,
) -> Result<(Vec<u8>, [u64; 256]), TbError> {
    let misfit = |idx: usize, value: Value| {
        let (own, opp) = side.sub.position(idx as u64);
        TbError::Unrepresentable {
            subspace: format!("{}-{}", side.sub.own, side.sub.opp),
            fen: rules.fen(own, opp),
            value,
        }
    };
    let encode = |c: Code| -> Result<u8, Value> {
        let value = code::to_value(c).ok_or(Value::Win(255))?;
        Ok(match (kind, value) {
            (_, Value::Draw) => 0,
            (Kind::ToEnd, v) if v.representable() => v.encode(),
            (Kind::ToEnd, v) => return Err(v),
            (Kind::ToRemoval, Value::Win(d) | Value::Loss(d)) if d < 255 => d + 1,
            (Kind::UnderRule, Value::Win(d) | Value::Loss(d))
                if limit.is_some_and(|n| d as u16 > n) =>
            {
                0
            }
            (Kind::UnderRule, v) => value::wdz_encode(v).ok_or(v)?,
            (Kind::ToRemoval | Kind::Placing, v) => return Err(v),
        })
    };
    let mut bytes = vec![0u8; side.values.len()];
    let chunk = side.values.len().div_ceil(threads).max(1);
    let parts: Vec<Result<[u64; 256], (usize, Value)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = side
            .values
            .chunks(chunk)
            .zip(bytes.chunks_mut(chunk))
            .enumerate()
            .map(|(n, (codes, out))| {
                scope.spawn(move || {
                    let mut histogram = [0u64; 256];
                    for (i, (&c, byte)) in codes.iter().zip(out).enumerate() {
                        *byte = encode(c).map_err(|v| (n * chunk + i, v))?;
                        histogram[*byte as usize] += 1;
                    }
                    Ok(histogram)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panics"))
            .collect()
    });
    let mut histogram = [0u64; 256];
    for part in parts {
        let part = part.map_err(|(idx, v)| misfit(idx, v))?;
        for (total, n) in histogram.iter_mut().zip(part) {
            *total += n;
        }
    }
    Ok((bytes, histogram))
}

/// Checks that a `.dtz` build decided the same classes, with the same
/// signs, as the `.tb` table of its subspace: both must agree on every
/// win, loss and draw, except that with removals valued under N-move
/// limits (`limited`) a win or loss may be left undecided (the rule draws
/// it at every counter). Returns how many were.
fn same_outcomes(
    rules: TbRules,
    sub: &Subspace,
    tb: &[u8],
    codes: &[Code],
    limited: bool,
) -> Result<u64, TbError> {
    let mut cursed = 0;
    for (idx, (&t, &c)) in tb.iter().zip(codes).enumerate() {
        let decisive = Value::decode(t) != Value::Draw;
        if limited && decisive && c == 0 {
            cursed += 1;
            continue;
        }
        let agree = match Value::decode(t) {
            Value::Draw => c == 0,
            Value::Win(_) => code::is_win(c),
            Value::Loss(_) => c != 0 && !code::is_win(c),
        };
        if !agree {
            let (own, opp) = sub.position(idx as u64);
            return Err(TbError::Inconsistent {
                subspace: format!("{}-{}", sub.own, sub.opp),
                fen: rules.fen(own, opp),
            });
        }
    }
    Ok(cursed)
}

/// Whether both `.tb` tables of the pair are finished in `dir` (see
/// [`pair_state`]); any problem with a file there counts as not done.
pub fn pair_done(dir: &Path, rules: TbRules, own: u8, opp: u8) -> bool {
    pair_state(dir, Kind::ToEnd, rules, own, opp).is_ok_and(|done| done)
}

/// [`pair_state`] for `.dtz` files with the removals valued under
/// `limits` (`NMoveLimits::NONE`: the files without N-move rules).
pub fn pair_state_under(
    dir: &Path,
    kind: Kind,
    rules: TbRules,
    limits: NMoveLimits,
    own: u8,
    opp: u8,
) -> Result<bool, TbError> {
    match kind {
        Kind::ToRemoval => both_finished(own, opp, |a, b| {
            MappedTable::open_dtz(dir, a, b, rules, limits)
        }),
        Kind::UnderRule => both_finished(own, opp, |a, b| {
            MappedTable::open_wdz(dir, a, b, rules, limits)
        }),
        _ => pair_state(dir, kind, rules, own, opp),
    }
}

/// Whether both files of kind `kind` of the pair are finished in `dir`:
/// `Ok(false)` if one is missing, an error if one is there but is not a
/// finished file of this kind for these rules and this format version, or
/// fails its checksum. A build stops there rather than replace it: such a
/// file is never rebuilt over.
pub fn pair_state(
    dir: &Path,
    kind: Kind,
    rules: TbRules,
    own: u8,
    opp: u8,
) -> Result<bool, TbError> {
    both_finished(own, opp, |a, b| {
        MappedTable::open_kind(dir, kind, a, b, rules)
    })
}

/// Whether the files `open` opens for `own-opp` and `opp-own` are both
/// there and pass their checksums (see [`pair_state`]).
fn both_finished(
    own: u8,
    opp: u8,
    open: impl Fn(u8, u8) -> Result<MappedTable, TbError>,
) -> Result<bool, TbError> {
    for (a, b) in [(own, opp), (opp, own)] {
        match open(a, b) {
            Err(TbError::Missing(_)) => return Ok(false),
            Err(e) => return Err(e),
            Ok(t) => t.verify_checksum()?,
        }
    }
    Ok(true)
}
