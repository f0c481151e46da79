//! A job name too long for the file names mlb makes of it: a 300-byte name
//! once ran, failed to create its log and then its failure record ("File
//! name too long"), and `mlb report` said "no reports". It is refused before
//! anything starts, naming the file, the job and the longest name that fits;
//! a name at that limit runs and its failure is recorded.

use crate::hostile::scene::Scene;

/// A `cmd` job named `name` that fails.
fn failing_job(name: &str) -> String {
    format!(r#"[{{"name": "{name}", "cmd": "false"}}]"#)
}

/// The limit `may be at most N bytes` said in `stderr`.
fn limit_in(stderr: &str) -> usize {
    let (_, rest) = stderr.split_once("may be at most ").unwrap_or_else(|| panic!("no limit in {stderr}"));
    rest.split(' ').next().unwrap().parse().unwrap_or_else(|_| panic!("no number in {stderr}"))
}

#[test]
fn a_job_name_too_long_for_a_file_name_is_refused_and_one_at_the_limit_is_recorded() {
    let scene = Scene::new("names");
    let jobs = scene.jobs(&failing_job(&"n".repeat(300)));
    let refused = scene.run(&jobs, &[]);
    refused.refused(&[jobs.to_str().unwrap(), "job #1", "300 bytes", "255", "fix: shorten"]);
    scene.nothing_started();
    scene.run(&jobs, &["--dry-run"]).refused(&["job #1", "300 bytes"]);
    let limit = limit_in(&refused.stderr);
    assert!((150..255).contains(&limit), "a limit below NAME_MAX: {limit}");

    // One byte over is refused; at the limit the failure is recorded.
    let over = scene.jobs(&failing_job(&"n".repeat(limit + 1)));
    scene.run(&over, &[]).refused(&[&format!("{} bytes", limit + 1)]);
    scene.nothing_started();
    let at = scene.jobs(&failing_job(&"n".repeat(limit)));
    let ran = scene.run(&at, &[]);
    assert_eq!(ran.code, Some(1), "ran and failed: {}", ran.stderr);
    let records = scene.reports();
    assert_eq!(records.len(), 1, "the failure is recorded: {}", ran.stderr);
    assert!(records[0].0.contains(".FAIL.") && records[0].0.len() <= 255, "{}", records[0].0);
    assert_eq!(scene.logs().len(), 1, "its log was made");
}
