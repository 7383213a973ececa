//! A build as a graph of jobs (`mulino tb plan`): one job per moving-phase
//! pair (`X-Y` with `Y-X`, as the builder makes them, after the smaller
//! pairs a removal reaches) and one per placing layer (after the next
//! layer; the last after the moving phase), each with the files it reads
//! and writes and what it needs, so that a scheduler can run them.
//! Pure: no files are touched here.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::tb::index::{MIN_PIECES, Subspace, plan as pair_plan};
use crate::tb::placing::{self, LAYERS};

/// Why a plan cannot be made or is not sound.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlanError {
    #[error("job `{0}` appears twice")]
    DuplicateId(String),
    #[error("job `{job}` waits for `{after}`, which comes later or not at all")]
    BadOrder { job: String, after: String },
    #[error("job `{job}` reads `{input}`, which no job before it writes")]
    UnmetInput { job: String, input: String },
    #[error("job `{job}` needs `{input}`, which is not in the folder (or is damaged)")]
    MissingInput { job: String, input: String },
    #[error("no job named `{0}` in this plan")]
    NoSuchJob(String),
}

/// One job of a plan.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Job {
    /// `moving-X-Y` (X >= Y) or `place-K`.
    pub id: String,
    /// The ids of the jobs it waits for.
    pub after: Vec<String>,
    /// The argv that runs it.
    pub command: Vec<String>,
    /// Estimated peak memory.
    pub memory_gib: f64,
    /// Threads it uses.
    pub cpus: usize,
    /// Estimated seconds on one core of the 2-core reference machine.
    pub seconds: u64,
    /// The file names it reads (in the shared folder).
    pub inputs: Vec<String>,
    /// The file names it writes.
    pub outputs: Vec<String>,
}

/// What a plan is made of: the build's targets and how to name and run a
/// job.
pub struct PlanSpec<'a> {
    /// The subspaces asked for (the pairs below them join the plan).
    pub targets: Vec<(u8, u8)>,
    /// Whether the placing layers are built too.
    pub placing: bool,
    /// The most pieces a side has in the placing layers built (9: all).
    pub placing_max: u8,
    /// The file names a pair `X-Y` (X >= Y) writes.
    pub pair_outputs: &'a dyn Fn(u8, u8) -> Vec<String>,
    /// The argv of a job, given its id.
    pub command: &'a dyn Fn(&str) -> Vec<String>,
    /// The memory limit of a job, GiB (`--memory`).
    pub memory_gib: f64,
    /// Threads per job.
    pub cpus: usize,
}

/// The id of pair `x-y`'s job (larger count first).
pub fn pair_id(x: u8, y: u8) -> String {
    format!("moving-{}-{}", x.max(y), x.min(y))
}

/// The id of placing layer `k`'s job.
pub fn layer_id(k: u8) -> String {
    format!("place-{k}")
}

/// The pairs a removal from pair `a-b` leads into (as `pair_id` keys).
fn removal_successors(a: u8, b: u8) -> Vec<(u8, u8)> {
    let mut v = Vec::new();
    if b > MIN_PIECES {
        v.push((b - 1, a));
    }
    if a > MIN_PIECES {
        v.push((a - 1, b));
    }
    v.into_iter()
        .map(|(p, q)| (p.max(q), p.min(q)))
        .filter(|&(p, q)| (p, q) != (a.max(b), a.min(b)))
        .collect()
}

/// Slots of pair `x-y` (both directions).
fn pair_slots(x: u8, y: u8) -> u64 {
    let len = |a, b| Subspace::new(a, b).map_or(0, |s| s.len());
    len(x, y) + if x == y { 0 } else { len(y, x) }
}

/// The plan's jobs, each after every job it waits for.
pub fn make(spec: &PlanSpec) -> Vec<Job> {
    let mut jobs = Vec::new();
    let pairs = pair_plan(&spec.targets);
    let mut outputs_of: HashMap<(u8, u8), Vec<String>> = HashMap::new();
    for &(x, y) in &pairs {
        let outputs = (spec.pair_outputs)(x, y);
        outputs_of.insert((x, y), outputs.clone());
        let below = removal_successors(x, y);
        let id = pair_id(x, y);
        let slots = pair_slots(x, y);
        jobs.push(Job {
            command: (spec.command)(&id),
            id,
            after: below.iter().map(|&(p, q)| pair_id(p, q)).collect(),
            // A byte a slot for the pair being built and its successors
            // mapped: an estimate, capped by the build's own limit.
            memory_gib: estimate_gib(3 * slots, spec.memory_gib),
            cpus: spec.cpus,
            seconds: slots / 2_000_000 + 1,
            inputs: below.iter().flat_map(|k| outputs_of[k].clone()).collect(),
            outputs,
        });
    }
    if spec.placing {
        for k in (0..LAYERS).rev() {
            let (after, inputs) = if k + 1 == LAYERS {
                let ids = pairs.iter().map(|&(x, y)| pair_id(x, y)).collect();
                let files = pairs.iter().flat_map(|k| outputs_of[k].clone()).collect();
                (ids, files)
            } else {
                (vec![layer_id(k + 1)], vec![placing::file_name(k + 1)])
            };
            let id = layer_id(k);
            jobs.push(Job {
                command: (spec.command)(&id),
                id,
                after,
                memory_gib: estimate_gib(layer_bytes(k, spec.placing_max, &pairs), f64::INFINITY),
                cpus: spec.cpus,
                seconds: layer_seconds(k, spec.placing_max),
                inputs,
                outputs: vec![placing::file_name(k)],
            });
        }
    }
    jobs
}

/// What a build job (`moving-X-Y`, `place-K`) builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Moving-phase pair `X-Y` with `Y-X` (X >= Y).
    Pair(u8, u8),
    /// Placing layer `K`.
    Layer(u8),
}

/// What the build job `id` builds (`pair_id` and `layer_id` read back);
/// `None` for any other id.
pub fn target(id: &str) -> Option<Target> {
    if let Some(k) = id.strip_prefix("place-") {
        return k.parse().ok().map(Target::Layer);
    }
    let (x, y) = id.strip_prefix("moving-")?.split_once('-')?;
    Some(Target::Pair(x.parse().ok()?, y.parse().ok()?))
}

/// Estimated seconds on one core of placing layer `k`'s build: layer
/// 17's 6.93 G slots took 626 s on 2 threads.
fn layer_seconds(k: u8, max: u8) -> u64 {
    placing::Layer { k, max }.slots() / 5_000_000 + 1
}

/// The id of the job that checks what job `id` built.
pub fn check_id(id: &str) -> String {
    format!("check-{id}")
}

/// How many times its build a check takes, per slot: measured on the
/// whole game with 58ef918 at 2 threads (the moving pairs 2.2-2.8 M
/// slots/s against a build's 2 M a core; layer 17 2,700 s against its
/// build's 626 s).
const CHECK_FACTOR_MOVING: u64 = 2;
const CHECK_FACTOR_PLACING: u64 = 4;

/// The plan with a check after every build job (`tb plan --check`): it
/// reads what the job read and wrote, writes a note beside each output
/// that passed (`trust::verified_name`), and needs what the job needed.
/// `command` gives the argv of the check of a build job.
pub fn with_checks(jobs: Vec<Job>, command: &dyn Fn(&Job) -> Vec<String>) -> Vec<Job> {
    let mut out = Vec::with_capacity(2 * jobs.len());
    for job in jobs {
        let factor = match target(&job.id) {
            Some(Target::Layer(_)) => CHECK_FACTOR_PLACING,
            _ => CHECK_FACTOR_MOVING,
        };
        let check = Job {
            id: check_id(&job.id),
            after: vec![job.id.clone()],
            command: command(&job),
            memory_gib: job.memory_gib,
            cpus: job.cpus,
            seconds: job.seconds * factor,
            inputs: job.outputs.iter().chain(&job.inputs).cloned().collect(),
            outputs: job
                .outputs
                .iter()
                .map(|o| crate::tb::trust::verified_name(o))
                .collect(),
        };
        out.push(job);
        out.push(check);
    }
    out
}

/// The peak memory of placing layer `k`'s job: a byte a slot for the
/// layer and the next layer's two bits a slot (the builder's own need,
/// which `--memory` bounds: over it the job stops at once), and for
/// layer 17 the moving phase's files it maps, a byte a slot of `pairs`
/// (for the whole game 15.0 GiB; measured 15.1 GiB).
fn layer_bytes(k: u8, max: u8, pairs: &[(u8, u8)]) -> u64 {
    let own = placing::Layer { k, max }.slots();
    let read = if k + 1 < LAYERS {
        placing::Layer { k: k + 1, max }.slots().div_ceil(4)
    } else {
        pairs.iter().map(|&(x, y)| pair_slots(x, y)).sum()
    };
    own + read
}

fn estimate_gib(bytes: u64, cap: f64) -> f64 {
    let gib = bytes as f64 / (1u64 << 30) as f64;
    (gib.max(0.25).min(cap.max(0.25)) * 100.0).ceil() / 100.0
}

/// Checks that ids are unique, every job comes after the jobs it waits
/// for, and every input is written by a job it waits for (transitively)
/// or is in `present`.
pub fn check(jobs: &[Job], present: &HashSet<String>) -> Result<(), PlanError> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    // For each job, the files written by it and every job it waits for.
    let mut reach: Vec<HashSet<&str>> = Vec::new();
    for (n, job) in jobs.iter().enumerate() {
        if index.insert(&job.id, n).is_some() {
            return Err(PlanError::DuplicateId(job.id.clone()));
        }
        let mut files: HashSet<&str> = job.outputs.iter().map(String::as_str).collect();
        for a in &job.after {
            let Some(&m) = index.get(a.as_str()).filter(|&&m| m < n) else {
                return Err(PlanError::BadOrder {
                    job: job.id.clone(),
                    after: a.clone(),
                });
            };
            files.extend(reach[m].iter().copied());
        }
        for input in &job.inputs {
            if !files.contains(input.as_str()) && !present.contains(input) {
                return Err(PlanError::UnmetInput {
                    job: job.id.clone(),
                    input: input.clone(),
                });
            }
        }
        reach.push(files);
    }
    Ok(())
}

/// The job named `id`.
pub fn find<'a>(jobs: &'a [Job], id: &str) -> Result<&'a Job, PlanError> {
    jobs.iter()
        .find(|j| j.id == id)
        .ok_or_else(|| PlanError::NoSuchJob(id.to_string()))
}

/// The jobs in waves: every job in a wave after some job of the wave
/// before, none after a job of its own wave or a later one.
pub fn waves(jobs: &[Job]) -> Vec<Vec<&Job>> {
    let mut depth: HashMap<&str, usize> = HashMap::new();
    let mut out: Vec<Vec<&Job>> = Vec::new();
    for job in jobs {
        let d = job
            .after
            .iter()
            .filter_map(|a| depth.get(a.as_str()))
            .map(|d| d + 1)
            .max();
        let d = d.unwrap_or(0);
        depth.insert(&job.id, d);
        if out.len() <= d {
            out.resize_with(d + 1, Vec::new);
        }
        out[d].push(job);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(x: u8, y: u8) -> Vec<String> {
        let mut v = vec![format!("{x}-{y}.wdz")];
        if x != y {
            v.push(format!("{y}-{x}.wdz"));
        }
        v
    }

    fn spec(targets: Vec<(u8, u8)>, placing: bool) -> Vec<Job> {
        let command = |id: &str| {
            vec![
                "mulino".into(),
                "tb".into(),
                "build".into(),
                "--job".into(),
                id.into(),
            ]
        };
        make(&PlanSpec {
            targets,
            placing,
            placing_max: 9,
            pair_outputs: &names,
            command: &command,
            memory_gib: 4.0,
            cpus: 1,
        })
    }

    #[test]
    fn the_whole_game_is_a_sound_graph() {
        let jobs = spec(vec![(9, 9)], true);
        check(&jobs, &HashSet::new()).unwrap();
        // 3..=9 each way: 28 unordered pairs, then 18 layers.
        assert_eq!(jobs.len(), 28 + 18);
        assert_eq!(jobs[0].id, "moving-3-3");
        assert!(jobs[0].after.is_empty());
        let j = find(&jobs, "moving-6-5").unwrap();
        // A removal from 6-5 leads into 4-6, from 5-6 into 5-5.
        assert_eq!(j.after, vec!["moving-6-4", "moving-5-5"]);
        assert_eq!(j.outputs, vec!["6-5.wdz", "5-6.wdz"]);
        assert_eq!(j.command.last().map(String::as_str), Some("moving-6-5"));
        let p = find(&jobs, "place-16").unwrap();
        assert_eq!(p.after, vec!["place-17"]);
        assert_eq!(p.inputs, vec!["mulino-place-17.tb"]);
        assert_eq!(find(&jobs, "place-17").unwrap().after.len(), 28);
        // Layer 17 holds 6.93 G slots and maps the moving phase's 9.19 G
        // (the whole game's build peaked at 15.1 GiB); layer 16 4.99 G and
        // layer 17's two bits a slot.
        let gib = |id| find(&jobs, id).unwrap().memory_gib;
        assert!(
            (14.9..15.2).contains(&gib("place-17")),
            "{}",
            gib("place-17")
        );
        assert!((6.1..6.4).contains(&gib("place-16")), "{}", gib("place-16"));
        assert!(gib("place-3") < 0.5);
        assert_eq!(
            find(&jobs, "place-0").unwrap().outputs,
            vec!["mulino-place-0.tb"]
        );
    }

    #[test]
    fn a_broken_plan_is_refused() {
        let mut jobs = spec(vec![(5, 5)], false);
        let mut dup = jobs.clone();
        dup.push(jobs[0].clone());
        assert_eq!(
            check(&dup, &HashSet::new()),
            Err(PlanError::DuplicateId("moving-3-3".into()))
        );
        jobs.swap(0, 1);
        assert!(matches!(
            check(&jobs, &HashSet::new()),
            Err(PlanError::BadOrder { .. })
        ));
        let mut cut = spec(vec![(5, 5)], false);
        cut.retain(|j| j.id != "moving-3-3");
        for j in &mut cut {
            j.after.retain(|a| a != "moving-3-3");
        }
        let unmet = check(&cut, &HashSet::new());
        assert_eq!(
            unmet,
            Err(PlanError::UnmetInput {
                job: "moving-4-3".into(),
                input: "3-3.wdz".into()
            })
        );
        let present = ["3-3.wdz".to_string()].into_iter().collect();
        check(&cut, &present).unwrap();
        assert_eq!(
            find(&cut, "moving-9-9"),
            Err(PlanError::NoSuchJob("moving-9-9".into()))
        );
    }

    #[test]
    fn a_job_id_names_what_it_builds() {
        assert_eq!(target(&pair_id(6, 7)), Some(Target::Pair(7, 6)));
        assert_eq!(target(&layer_id(17)), Some(Target::Layer(17)));
        for other in ["check-moving-4-3", "moving-4", "place-x", "moving-a-3"] {
            assert_eq!(target(other), None, "{other}");
        }
    }

    #[test]
    fn every_job_can_have_its_check() {
        let jobs = spec(vec![(4, 4)], true);
        let n = jobs.len();
        let checked = with_checks(jobs, &|j| vec!["verify".into(), j.id.clone()]);
        check(&checked, &HashSet::new()).unwrap();
        assert_eq!(checked.len(), 2 * n);
        let c = find(&checked, "check-moving-4-3").unwrap();
        assert_eq!(c.after, vec!["moving-4-3"]);
        assert_eq!(c.command, vec!["verify", "moving-4-3"]);
        // It reads the pair and what the pair read, and notes each file.
        assert_eq!(c.inputs, vec!["4-3.wdz", "3-4.wdz", "3-3.wdz"]);
        assert_eq!(c.outputs, vec!["4-3.wdz.verified", "3-4.wdz.verified"]);
        let p = find(&checked, "check-place-0").unwrap();
        assert_eq!(p.outputs, vec!["mulino-place-0.tb.verified"]);
        assert!(p.inputs.contains(&"mulino-place-1.tb".to_string()));
        // Checks run beside the next builds: 3-3's beside 4-3.
        let w = waves(&checked);
        let second: Vec<&str> = w[1].iter().map(|j| j.id.as_str()).collect();
        assert_eq!(second, vec!["check-moving-3-3", "moving-4-3"]);
    }

    #[test]
    fn waves_follow_the_waits() {
        let jobs = spec(vec![(5, 5)], false);
        let w = waves(&jobs);
        let ids: Vec<Vec<&str>> = w
            .iter()
            .map(|w| w.iter().map(|j| j.id.as_str()).collect())
            .collect();
        assert_eq!(
            ids,
            vec![
                vec!["moving-3-3"],
                vec!["moving-4-3"],
                vec!["moving-4-4", "moving-5-3"],
                vec!["moving-5-4"],
                vec!["moving-5-5"],
            ]
        );
    }
}
