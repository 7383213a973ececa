//! `mulino tb plan` (the build as jobs, as JSON, waves or a Slurm script)
//! and `mulino tb build --job ID` (one job of that plan).

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;

use super::{BuildArgs, Files};
use crate::tb::NMoveLimits;
use crate::tb::format::{Kind, dtz_file_name, file_name_of, wdz_file_name};
use crate::tb::plan::{self, Job, PlanError, PlanSpec, Target};

/// How `tb plan` prints the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlanFormat {
    /// `{"jobs": [...]}`, each job after those it waits for.
    Json,
    /// One command a line, waves separated by a blank line.
    Waves,
    /// A bash script that submits the missing jobs with `sbatch`.
    Slurm,
}

/// The targets of a build's options (as `tb build` reads them).
fn targets(a: &BuildArgs) -> Result<Vec<(u8, u8)>> {
    Ok(match a.pieces {
        Some(n) => super::all_subspaces(n),
        None if a.placing && a.common.subspaces.is_empty() => Vec::new(),
        None if a.common.subspaces.is_empty() => {
            bail!("say --pieces N, --subspaces W-B,... or --placing")
        }
        None => a.common.subspaces.clone(),
    })
}

/// The options of the plan, as `tb build` reads them back.
fn options(a: &BuildArgs) -> Vec<String> {
    let mut v = vec![
        "--variant".into(),
        a.common.variant.name().to_string(),
        "--files".into(),
        files_name(a.files),
        "--n-move".into(),
        a.n_move.to_string(),
        "--memory".into(),
        a.memory.to_string(),
        "--threads".into(),
        a.common.threads.to_string(),
        "--dir".into(),
        a.common.dir.display().to_string(),
    ];
    if let Some(e) = a.endgame_n_move {
        v.extend(["--endgame-n-move".into(), e.to_string()]);
    }
    if let Some(n) = a.pieces {
        v.extend(["--pieces".into(), n.to_string()]);
    } else if !a.common.subspaces.is_empty() {
        let list: Vec<String> = a
            .common
            .subspaces
            .iter()
            .map(|(x, y)| format!("{x}-{y}"))
            .collect();
        v.extend(["--subspaces".into(), list.join(",")]);
    }
    if a.placing {
        v.push("--placing".into());
        if a.placing_max != 9 {
            v.extend(["--placing-max".into(), a.placing_max.to_string()]);
        }
    }
    v
}

fn files_name(f: Files) -> String {
    f.to_possible_value()
        .map_or_else(|| "both".into(), |p| p.get_name().to_string())
}

/// The files pair `x-y` writes, both directions.
fn pair_outputs(a: &BuildArgs, limits: NMoveLimits, x: u8, y: u8) -> Vec<String> {
    let mut v = Vec::new();
    let dirs: &[(u8, u8)] = if x == y { &[(x, y)] } else { &[(x, y), (y, x)] };
    for &kind in a.files.kinds() {
        for &(p, q) in dirs {
            v.push(match kind {
                Kind::UnderRule => wdz_file_name(p, q, limits),
                // The name under the rule; a pair clean below gets the
                // rule-free name, which `--job` also accepts.
                Kind::ToRemoval => dtz_file_name(p, q, limits),
                _ => file_name_of(kind, p, q),
            });
        }
    }
    v
}

/// The plan of a build's options.
pub fn jobs(a: &BuildArgs) -> Result<Vec<Job>> {
    let exe = std::env::current_exe().context("the path of this program")?;
    let exe = exe.display().to_string();
    let opts = options(a);
    let limits = a.limits();
    let outputs = |x, y| pair_outputs(a, limits, x, y);
    let command = |id: &str| {
        let mut v = vec![
            exe.clone(),
            "tb".into(),
            "build".into(),
            "--job".into(),
            id.into(),
        ];
        v.extend(opts.iter().cloned());
        v
    };
    let jobs = plan::make(&PlanSpec {
        targets: targets(a)?,
        placing: a.placing,
        placing_max: a.placing_max,
        pair_outputs: &outputs,
        command: &command,
        memory_gib: a.memory,
        cpus: a.common.threads.max(1),
    });
    plan::check(&jobs, &HashSet::new())?;
    Ok(jobs)
}

/// The argv of the check of build job `job`: `tb verify --stamp` of the
/// pair (both directions, the plan's kinds of file only) or the layer it
/// built.
fn check_command(a: &BuildArgs, exe: &str, job: &Job) -> Vec<String> {
    let mut v: Vec<String> = vec![
        exe.into(),
        "tb".into(),
        "verify".into(),
        "--variant".into(),
        a.common.variant.name().to_string(),
        "--threads".into(),
        a.common.threads.to_string(),
        "--dir".into(),
        a.common.dir.display().to_string(),
        "--stamp".into(),
    ];
    match plan::target(&job.id) {
        Some(Target::Layer(k)) => v.extend(["--layers".into(), k.to_string()]),
        Some(Target::Pair(x, y)) => {
            let list = if x == y {
                format!("{x}-{y}")
            } else {
                format!("{x}-{y},{y}-{x}")
            };
            v.extend([
                "--subspaces".into(),
                list,
                "--files".into(),
                files_name(a.files),
            ]);
        }
        None => {}
    }
    v
}

/// `mulino tb plan`.
pub fn run_plan(a: &BuildArgs, format: PlanFormat, check: bool) -> Result<()> {
    let mut jobs = jobs(a)?;
    if check {
        let exe = std::env::current_exe().context("the path of this program")?;
        let exe = exe.display().to_string();
        jobs = plan::with_checks(jobs, &|j| check_command(a, &exe, j));
        plan::check(&jobs, &HashSet::new())?;
    }
    match format {
        PlanFormat::Json => {
            let text = serde_json::to_string_pretty(&serde_json::json!({ "jobs": jobs }))?;
            println!("{text}");
        }
        PlanFormat::Waves => {
            let waves = plan::waves(&jobs);
            for (n, wave) in waves.iter().enumerate() {
                if n > 0 {
                    println!();
                }
                for job in wave {
                    println!("{}", shell_line(&job.command));
                }
            }
        }
        PlanFormat::Slurm => print!("{}", slurm_script(&jobs, &a.common.dir)),
    }
    Ok(())
}

/// A word quoted for the shell (single quotes, where needed).
pub fn shell_word(w: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=,:+@".contains(c);
    if !w.is_empty() && w.chars().all(plain) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

fn shell_line(argv: &[String]) -> String {
    argv.iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The Slurm script: cancels what an earlier run left waiting on a failed
/// job, then submits every job whose outputs are not all there, each
/// after the submitted jobs it waits for.
fn slurm_script(jobs: &[Job], dir: &Path) -> String {
    let prefix = format!(
        "mulino-{:08x}",
        fnv(&shell_line(
            &jobs.iter().map(|j| j.id.clone()).collect::<Vec<_>>()
        )) ^ fnv(&dir.display().to_string())
    );
    let mut s = String::from(
        "#!/bin/bash\n# mulino tb plan --format slurm: run again after a failure to resubmit what is missing.\nset -euo pipefail\n",
    );
    s += &format!(
        "DIR={}\nPREFIX={prefix}\n",
        shell_word(&dir.display().to_string())
    );
    s += "mkdir -p \"$DIR\"\n";
    s += "# Jobs of this plan left waiting on a failed one never run: cancel them.\n";
    s += "squeue -h -u \"${USER:-$(id -un)}\" -o '%i %j %r' | while read -r id name reason; do\n  case \"$name\" in \"$PREFIX\"-*) if [ \"$reason\" = DependencyNeverSatisfied ]; then scancel \"$id\"; fi ;; esac\ndone\n";
    // A `.dtz` file may have its rule-free name (`rule_free_dtz`).
    s += "done_all() { for f in \"$@\"; do [ -e \"$DIR/$f\" ] || [ -e \"$DIR/${f%-n*.dtz}.dtz\" ] || [ -e \"$DIR/${f%-n*.dtz.verified}.dtz.verified\" ] || return 1; done; }\n";
    s += "submit() { local name=$1 mem=$2 cpus=$3 deps=$4 cmd=$5; local dep=(); [ -n \"$deps\" ] && dep=(\"--dependency=afterok:$deps\"); sbatch --parsable --job-name=\"$PREFIX-$name\" --mem=\"${mem}M\" --cpus-per-task=\"$cpus\" \"${dep[@]}\" --wrap \"$cmd\"; }\n";
    s += "declare -A ID\n";
    for job in jobs {
        let var = job.id.replace('-', "_");
        let outs = job
            .outputs
            .iter()
            .map(|o| shell_word(o))
            .collect::<Vec<_>>()
            .join(" ");
        let deps = job
            .after
            .iter()
            .map(|a| format!("${{ID[{}]:-}}", a.replace('-', "_")))
            .collect::<Vec<_>>()
            .join(" ");
        let mem = (job.memory_gib * 1024.0).ceil() as u64 + 256;
        s += &format!(
            "if ! done_all {outs}; then\n  deps=$(echo {deps} | tr ' ' ':')\n  ID[{var}]=$(submit {} {mem} {} \"$deps\" {})\n  echo \"{} ${{ID[{var}]}}\"\nfi\n",
            job.id,
            job.cpus,
            shell_word(&shell_line(&job.command)),
            job.id,
        );
    }
    s
}

/// The rule-free name of a `.dtz` file named under a rule
/// (`mulino-6-5-n100-100.dtz` is `mulino-6-5.dtz`), which a pair whose
/// every distance to a removal is within the rule gets instead.
fn rule_free_dtz(name: &str) -> Option<String> {
    let stem = name.strip_suffix(".dtz")?;
    let (base, _) = stem.rsplit_once("-n")?;
    Some(format!("{base}.dtz"))
}

/// FNV-1a, for a plan's job-name prefix that stays the same run to run.
fn fnv(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

/// Refuses job `id` of the plan if an input is not in the folder; returns
/// the job and its pair (`None` for a placing layer).
pub fn job_to_build(a: &BuildArgs, id: &str) -> Result<(Job, Option<(u8, u8)>)> {
    let jobs = jobs(a)?;
    let job = plan::find(&jobs, id)?.clone();
    for input in &job.inputs {
        let there = |name: &str| a.common.dir.join(name).exists();
        if !there(input) && !rule_free_dtz(input).is_some_and(|n| there(&n)) {
            return Err(PlanError::MissingInput {
                job: id.into(),
                input: input.clone(),
            }
            .into());
        }
    }
    let pair = match plan::target(id) {
        Some(Target::Pair(x, y)) => Some((x, y)),
        _ => None,
    };
    Ok((job, pair))
}

#[cfg(test)]
mod tests {
    use super::rule_free_dtz;

    #[test]
    fn a_dtz_name_under_a_rule_has_a_rule_free_twin() {
        assert_eq!(
            rule_free_dtz("mulino-6-5-n100-100.dtz").as_deref(),
            Some("mulino-6-5.dtz")
        );
        assert_eq!(rule_free_dtz("mulino-6-5-n100-100.wdz"), None);
        assert_eq!(rule_free_dtz("mulino-6-5.tb"), None);
    }
}
