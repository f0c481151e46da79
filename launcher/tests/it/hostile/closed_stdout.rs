//! A closed stdout or stderr (`mlb --jobs F | head -1`, a terminal gone):
//! the launcher once panicked at its next line ("failed printing to stdout:
//! Broken pipe"), exited 101 and left the rest of the configs unrun. What is
//! printed to a closed pipe is dropped; the run goes on to its end and its
//! exit status is the benchmark's.

use crate::common::launcher::{wait_within, Launches};
use crate::common::reports;
use crate::hostile::scene::Scene;
use std::io::{BufRead, BufReader};
use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::time::Duration;

/// Configs of the spin job below.
const CONFIGS: usize = 8;

/// A spin job of [`CONFIGS`] short configs.
const SPIN: &str = r#"[{"name": "spin", "plugin": "spin",
    "args": {"repeat": 2, "number": 1, "skip": 0, "size": [1, 2, 3, 4, 5, 6, 7, 8]}}]"#;

/// A pipe, both ends closed on exec: no other process started meanwhile
/// (by a test beside this one) holds its read end open.
fn pipe() -> (OwnedFd, OwnedFd) {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap()
}

/// A pipe whose read end is closed: every write to the other end fails with `EPIPE`.
fn closed_pipe() -> OwnedFd {
    let (read, write) = pipe();
    drop(read);
    write
}

#[test]
fn a_run_whose_output_pipe_closes_after_one_line_runs_every_config() {
    let l = Launches::new("headrun");
    let jobs = l.jobs(SPIN);
    let (read, write) = pipe();
    // `mlb ... 2>&1 | head -1`: both streams into one pipe, read once, closed.
    let mut cmd = l.command(&jobs, &l.out(), &["--devices", "1"]);
    cmd.stdout(Stdio::from(write.try_clone().unwrap())).stderr(Stdio::from(write));
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    let mut first = String::new();
    BufReader::new(std::fs::File::from(read)).read_line(&mut first).unwrap();
    assert!(!first.is_empty(), "a first line was read");
    let status = wait_within(&mut child, Duration::from_secs(120), "the launcher");
    assert_eq!(status.code(), Some(0), "the benchmark passed, whatever became of its output");
    let written = reports(&l.out());
    assert_eq!(written.len(), CONFIGS, "every config ran: {:?}", written.iter().map(|r| &r.0).collect::<Vec<_>>());
    assert!(written.iter().all(|(name, _)| !name.contains(".FAIL.")), "{written:?}");
    let summary = std::fs::read_to_string(l.out().join("summary.txt")).unwrap();
    assert_eq!(summary.lines().filter(|l| l.contains("PASSED")).count(), CONFIGS, "{summary}");
    assert!(summary.contains("Total Time"), "{summary}");
}

#[test]
fn a_dry_run_into_a_closed_pipe_ends_0() {
    let scene = Scene::new("headdry");
    let jobs = scene.jobs(SPIN);
    let out = scene
        .command(&jobs, &["--dry-run"])
        .stdout(Stdio::from(closed_pipe()))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_failing_run_into_closed_pipes_still_ends_1() {
    let l = Launches::new("headfail");
    let jobs = l.jobs(r#"[{"name": "no", "cmd": "false"}, {"name": "yes", "cmd": "true"}]"#);
    let mut cmd = l.command(&jobs, &l.out(), &[]);
    cmd.stdout(Stdio::from(closed_pipe())).stderr(Stdio::from(closed_pipe()));
    let status = cmd.status().unwrap();
    assert_eq!(status.code(), Some(1), "the benchmark's status: one config failed");
    let summary = std::fs::read_to_string(l.out().join("summary.txt")).unwrap();
    assert!(summary.contains("FAILED") && summary.contains("PASSED | "), "both ran: {summary}");
}
