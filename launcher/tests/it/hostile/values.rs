//! Command-line values that were taken and then did harm: `--timeout
//! 1e-300` (every instance killed before it could start) and a `--uid` so
//! high that `--runs` made run ids wrap past the largest. Both are refused
//! before anything starts, with what is accepted.

use crate::hostile::scene::Scene;

/// A job that passes.
const TRUE_JOB: &str = r#"[{"name": "t", "cmd": "/bin/true"}]"#;

#[test]
fn a_timeout_under_a_second_is_refused_with_the_minimum() {
    let scene = Scene::new("tiny");
    let jobs = scene.jobs(TRUE_JOB);
    for tiny in ["1e-300", "0.5", "0.999"] {
        let ran = scene.run(&jobs, &["--timeout", tiny]);
        ran.refused(&["--timeout", tiny, "at least 1"]);
        scene.nothing_started();
    }
    let ran = scene.run(&jobs, &["--timeout", "1"]);
    assert_eq!(ran.code, Some(0), "the minimum is taken: {}", ran.stderr);
    // A batch script would carry it to a refusal in the allocation: refused at once.
    let out = std::process::Command::new(crate::common::mlb())
        .args(["slurm", "submit", "--jobs"])
        .arg(&jobs)
        .args(["--nodes", "1", "--dry-run", "--timeout", "1e-300"])
        .output()
        .unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("at least 1") && stdout.is_empty(), "{stderr}");
}

#[test]
fn run_ids_or_seeds_past_the_largest_number_are_refused() {
    let scene = Scene::new("uids");
    let jobs = scene.jobs(TRUE_JOB);
    let max = u64::MAX.to_string();
    let ran = scene.run(&jobs, &["--uid", &max, "--runs", "2", "--pause", "0"]);
    // One instance: its seeds are the run id + 100.
    let largest = u64::MAX - 1 - 100;
    ran.refused(&["--uid", &max, "--runs 2", &format!("fix: lower --uid to at most {largest}")]);
    scene.nothing_started();
    scene.run(&jobs, &["--uid", &max, "--dry-run"]).refused(&["--runs 1", "seeds"]);
    // The largest that fits runs, and its last run has the run id it says.
    let ran = scene.run(&jobs, &["--uid", &largest.to_string(), "--runs", "2", "--pause", "0"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let last = format!(".R{}.", largest + 1);
    assert!(scene.logs().iter().any(|(name, _)| name.contains(&last)), "{:?}", scene.logs());
}

#[test]
fn a_control_character_in_a_value_of_the_batch_script_is_refused() {
    let scene = Scene::new("sbatch");
    let jobs = scene.jobs(TRUE_JOB);
    let submit = |extra: &[&str]| {
        let mut c = std::process::Command::new(crate::common::mlb());
        c.args(["slurm", "submit", "--jobs"]).arg(&jobs).args(["--nodes", "1", "--dry-run"]).args(extra);
        c.output().unwrap()
    };
    let cases: [(&[&str], &str); 5] = [
        (&["--partition", "gpu\n#SBATCH --uid=0"], r"--partition `gpu\n#SBATCH --uid=0`"),
        (&["--time", "1:00\r"], r"--time `1:00\r`"),
        (&["--account", "a\u{1b}[2Jb"], r"--account `a\u{1b}[2Jb`"),
        (&["--name", "t\necho owned"], r"--name `t\necho owned`"),
        (&["--", "--qos=high\nrm -rf /"], r"sbatch flag `--qos=high\nrm -rf /`"),
    ];
    for (extra, named) in cases {
        let out = submit(extra);
        let (stdout, stderr) = crate::common::text(&out);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: refused\n{stdout}\n{stderr}");
        assert!(stderr.contains(named) && stderr.contains("control character"), "{named} in {stderr}");
        assert!(stdout.is_empty(), "no script printed: {stdout}");
    }
    let out = submit(&["--partition", "gpu"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::text(&out).1);
    assert!(String::from_utf8_lossy(&out.stdout).contains("#SBATCH --partition=gpu\n"));
}
