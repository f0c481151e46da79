//! A Docker run killed by SIGKILL cannot remove its containers, and the
//! kernel releases its host lock all the same: its containers stayed for
//! good, still running, while the next run took the host. The next run on
//! the host (a Docker run) now removes the containers of the launcher that
//! held the lock before it, found by their session label (`PID-NANOS`).

use crate::common::docker::{docker, test_image_tag};
use crate::common::launcher::{wait_within, Launches, LOCK_VAR};
use crate::common::text;
use mlb::runtime::docker::{JOB_LABEL, SESSION_LABEL};
use std::process::Command;
use std::time::Duration;

/// A pid no process has (above the kernel's largest).
const DEAD_PID: u32 = 4_194_305;

#[test]
fn the_containers_of_a_killed_docker_run_are_removed_by_the_next_run() {
    let l = Launches::new("dockerleft");
    let job = format!("left_{}", std::process::id());
    let created = Command::new("docker")
        .args(["create", "--label", &format!("{SESSION_LABEL}={DEAD_PID}-1"), "--label"])
        .arg(format!("{JOB_LABEL}={job}"))
        .args([test_image_tag(), "sleep", "300"])
        .output()
        .unwrap();
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    assert_eq!(docker().containers_labelled(JOB_LABEL, &job).unwrap().len(), 1);
    // The killed run held the host lock last.
    let holder = serde_json::json!({"pid": DEAD_PID, "started": "2025-01-01 10:00:00+00:00", "outdir": "/x",
        "run": format!("dockerleft-{DEAD_PID}-20250101100000")});
    std::fs::write(l.lock(), holder.to_string()).unwrap();

    let jobs = l.jobs(r#"[{"name": "next", "plugin": "spin", "args": {"repeat": 12, "number": 1}, "cgroup": "all"}]"#);
    let mut cmd = l.command(&jobs, &l.out(), &["--devices", "1", "--docker", test_image_tag()]);
    cmd.env(LOCK_VAR, l.lock());
    let mut child = cmd.spawn().unwrap();
    wait_within(&mut child, Duration::from_secs(120), "the next run");
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&out);
    let left = docker().containers_labelled(JOB_LABEL, &job).unwrap();
    let _ = docker().remove_labelled(JOB_LABEL, &job);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(left.is_empty(), "the container stays: {stderr}");
    assert!(
        stderr.contains(&format!(
            "mlb: removed 1 container(s) left by the run of launcher pid {DEAD_PID} (ended without removing them)"
        )),
        "{stderr}"
    );
}
