//! `mulino tb plan` and `mulino tb build --job`: the plan's jobs, run
//! wave by wave as separate processes into one folder, make the same
//! files as one `tb build`; a job whose input is missing is refused with
//! exit status 3.

use std::path::Path;
use std::process::Command;

use super::fixture;

const BIN: &str = env!("CARGO_BIN_EXE_mulino");

fn options(dir: &Path) -> Vec<String> {
    ["--pieces", "4", "--files", "wdz", "--dir"]
        .iter()
        .map(|s| s.to_string())
        .chain([dir.display().to_string()])
        .collect()
}

fn plan_json(dir: &Path) -> serde_json::Value {
    let out = Command::new(BIN)
        .args(["tb", "plan", "--format", "json"])
        .args(options(dir))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn jobs_run_at_once_make_the_files_of_one_build() {
    let (jobs_dir, one_dir) = (fixture::scratch("plan-jobs"), fixture::scratch("plan-one"));
    let plan = plan_json(&jobs_dir);
    let jobs = plan["jobs"].as_array().unwrap();
    let ids: Vec<&str> = jobs.iter().map(|j| j["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["moving-3-3", "moving-4-3", "moving-4-4"]);
    // The waves as a scheduler would run them: every job of a wave at once.
    let out = Command::new(BIN)
        .args(["tb", "plan", "--format", "waves"])
        .args(options(&jobs_dir))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let waves: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(waves.len(), 3, "{text}");
    for wave in waves {
        let children: Vec<_> = wave
            .lines()
            .map(|line| {
                let argv: Vec<&str> = line.split(' ').collect();
                Command::new(argv[0]).args(&argv[1..]).output()
            })
            .collect();
        for c in children {
            let c = c.unwrap();
            assert!(c.status.success(), "{c:?}");
        }
    }
    // Two processes of a finished job into one folder: both keep it.
    let again: Vec<_> = (0..2)
        .map(|_| {
            Command::new(BIN)
                .args(["tb", "build", "--job", "moving-4-4"])
                .args(options(&jobs_dir))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in again {
        assert!(c.wait().unwrap().success());
    }
    let out = Command::new(BIN)
        .args(["tb", "build"])
        .args(options(&one_dir))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    for job in jobs {
        for f in job["outputs"].as_array().unwrap() {
            let f = f.as_str().unwrap();
            let (a, b) = (
                std::fs::read(jobs_dir.join(f)),
                std::fs::read(one_dir.join(f)),
            );
            assert_eq!(a.unwrap(), b.unwrap(), "{f}");
        }
    }
    let _ = std::fs::remove_dir_all(&jobs_dir);
    let _ = std::fs::remove_dir_all(&one_dir);
}

#[test]
fn a_missing_input_exits_3_and_an_unknown_job_1() {
    let dir = fixture::scratch("plan-missing");
    let out = Command::new(BIN)
        .args(["tb", "build", "--job", "moving-4-4"])
        .args(options(&dir))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mulino-4-3-n100-100.wdz"), "{err}");
    assert!(!dir.join("mulino-4-4-n100-100.wdz").exists());
    let out = Command::new(BIN)
        .args(["tb", "build", "--job", "moving-9-9"])
        .args(options(&dir))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_plan_of_both_kinds_with_the_placing_layers_runs_to_the_end() {
    // `--files both`: a pair clean under the rule names its `.dtz` file
    // without the rule, which the placing jobs after it must accept.
    let (jobs_dir, one_dir) = (
        fixture::scratch("plan-both"),
        fixture::scratch("plan-both-one"),
    );
    let opts = |dir: &Path| -> Vec<String> {
        ["--pieces", "3", "--placing", "--placing-max", "3", "--dir"]
            .iter()
            .map(|s| s.to_string())
            .chain([dir.display().to_string()])
            .collect()
    };
    let out = Command::new(BIN)
        .args(["tb", "plan", "--format", "waves"])
        .args(opts(&jobs_dir))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("--placing-max 3"), "{text}");
    for line in text.lines().filter(|l| !l.is_empty()) {
        let argv: Vec<&str> = line.split(' ').collect();
        let c = Command::new(argv[0]).args(&argv[1..]).output().unwrap();
        assert!(c.status.success(), "{line}: {c:?}");
    }
    let out = Command::new(BIN)
        .args(["tb", "build"])
        .args(opts(&one_dir))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let names = |dir: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| !n.starts_with(".mulino-checked"))
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&jobs_dir), names(&one_dir));
    assert!(names(&one_dir).iter().any(|n| n == "mulino-place-0.tb"));
    for n in names(&one_dir) {
        assert_eq!(
            std::fs::read(jobs_dir.join(&n)).unwrap(),
            std::fs::read(one_dir.join(&n)).unwrap(),
            "{n}"
        );
    }
    let _ = std::fs::remove_dir_all(&jobs_dir);
    let _ = std::fs::remove_dir_all(&one_dir);
}

#[test]
fn a_plan_with_checks_notes_every_file_and_a_damaged_one_fails_its_check() {
    let dir = fixture::scratch("plan-check");
    let opts: Vec<String> = ["--pieces", "3", "--placing", "--placing-max", "3", "--dir"]
        .iter()
        .map(|s| s.to_string())
        .chain([dir.display().to_string()])
        .collect();
    let out = Command::new(BIN)
        .args(["tb", "plan", "--format", "json", "--check"])
        .args(&opts)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let jobs = plan["jobs"].as_array().unwrap();
    // 3-3 and 18 layers, each built then checked.
    assert_eq!(jobs.len(), 2 * 19);
    let argv = |j: &serde_json::Value| -> Vec<String> {
        j["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect()
    };
    let run = |j: &serde_json::Value| {
        let a = argv(j);
        Command::new(&a[0]).args(&a[1..]).output().unwrap()
    };
    for j in jobs {
        let c = run(j);
        assert!(c.status.success(), "{}: {c:?}", j["id"]);
    }
    let mut notes = 0;
    for j in jobs
        .iter()
        .filter(|j| j["id"].as_str().unwrap().starts_with("check-"))
    {
        for o in j["outputs"].as_array().unwrap() {
            let o = o.as_str().unwrap();
            // A `.dtz` file clean below the rule has its rule-free name.
            let there = dir.join(o).exists()
                || o.split_once("-n")
                    .is_some_and(|(base, _)| dir.join(format!("{base}.dtz.verified")).exists());
            assert!(there, "{o}");
            notes += 1;
        }
    }
    assert_eq!(notes, 2 + 18);
    // A check verifies the plan's kinds of file and fails where there is
    // none of them.
    let c = run(jobs.iter().find(|j| j["id"] == "check-moving-3-3").unwrap());
    let out = String::from_utf8_lossy(&c.stdout);
    assert!(
        out.contains("mulino-3-3.tb\tok") && out.contains("mulino-3-3.dtz\tok"),
        "{out}"
    );
    let wdz = Command::new(BIN)
        .args([
            "tb",
            "verify",
            "--subspaces",
            "3-3",
            "--files",
            "wdz",
            "--dir",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!wdz.status.success(), "{wdz:?}");
    // A layer damaged after its check: checked again, it fails, and its
    // note is gone.
    let layer = dir.join("mulino-place-16.tb");
    let mut bytes = std::fs::read(&layer).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&layer, &bytes).unwrap();
    let check = jobs.iter().find(|j| j["id"] == "check-place-16").unwrap();
    let c = run(check);
    assert!(!c.status.success(), "{c:?}");
    assert!(!dir.join("mulino-place-16.tb.verified").exists());
    assert!(dir.join("mulino-place-15.tb.verified").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
