//! `mlb prepare` beside another mlb: two prepares into one base once
//! emptied each other's partial folder (the second, of other settings,
//! removed the first's files as it wrote them), and a prepare ran beside a
//! benchmark run, taking the CPUs and the disk it measures. A prepare now
//! holds a lock on its base's data folder and the host lock of the runs:
//! while either is held it refuses at once, naming the holder, or waits for
//! it with `--wait` (and still hears Ctrl-C).

use super::concurrent::First;
use crate::common::launcher::{output_of, private_lock, wait_until, wait_within, KillOnDrop, Launches};
use crate::common::prepare::{command, jpegs, lock};
use crate::common::text;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// A prepare of the fake ImageNet into `base` that has written a few images.
fn first_prepare(base: &Path) -> (Child, KillOnDrop) {
    let child = command(base, &["--name", "dcgan"]).spawn().unwrap();
    let guard = KillOnDrop::new(child.id() as i32);
    let partial = base.join("data/.ImageNet.partial");
    wait_until(Duration::from_secs(60), "the first prepare writes images", || jpegs(&partial).len() >= 3);
    (child, guard)
}

#[test]
fn a_second_prepare_into_the_same_base_is_refused_naming_the_first_and_wipes_nothing() {
    let base = tempfile::tempdir().unwrap();
    let (mut first, _guard) = first_prepare(base.path());
    // Another seed: its partial folder would be emptied for the second's.
    // Its own host lock: the base's lock alone must keep them apart.
    let other_host = tempfile::tempdir().unwrap();
    let mut second = command(base.path(), &["--name", "dcgan", "--seed", "1"]);
    private_lock(&mut second, &other_host.path().join("host.lock"));
    let out = second.output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    let data = base.path().join("data");
    for expected in [
        format!("another mlb prepare is writing into {}: pid {}", data.display(), first.id()),
        "fix: pass --wait to start once it has ended, or prepare into another folder with --base DIR".to_string(),
    ] {
        assert!(stderr.contains(&expected), "{expected:?} in {stderr}");
    }
    let status = wait_within(&mut first, Duration::from_secs(120), "the first prepare");
    let (stdout, stderr) = text(&output_of(first));
    assert_eq!(status.code(), Some(0), "the first prepare went on undisturbed: {stdout}\n{stderr}");
    assert_eq!(jpegs(&data.join("ImageNet/train")).len(), 80);
}

#[test]
fn with_wait_a_second_prepare_into_the_same_base_starts_once_the_first_has_ended() {
    let base = tempfile::tempdir().unwrap();
    let (mut first, _guard) = first_prepare(base.path());
    let other_host = tempfile::tempdir().unwrap();
    let mut second = command(base.path(), &["--name", "dcgan", "--wait"]);
    private_lock(&mut second, &other_host.path().join("host.lock"));
    let out = second.output().unwrap();
    assert_eq!(wait_within(&mut first, Duration::from_secs(5), "the first prepare").code(), Some(0));
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let waiting = format!("waiting for another mlb run to end (--wait): pid {}", first.id());
    assert!(stderr.contains(&waiting) && stderr.contains(".mlb-prepare.lock"), "{stderr}");
    assert!(stdout.contains(" present "), "the first one's set, checked: {stdout}");
}

#[test]
fn a_prepare_is_refused_while_a_benchmark_run_holds_the_host() {
    let l = Launches::new("prepbusy");
    let mut run = First::start(&l);
    let base = tempfile::tempdir().unwrap();
    let mut c = command(base.path(), &["--name", "recom"]);
    private_lock(&mut c, &l.lock());
    let out = c.output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    for expected in [
        format!("another mlb run holds this host: pid {}", run.pid()),
        format!("lock {}", l.lock().display()),
        "fix: pass --wait to start once it has ended, or stop it".to_string(),
    ] {
        assert!(stderr.contains(&expected), "{expected:?} in {stderr}");
    }
    assert!(!base.path().join("data").exists(), "nothing written");
    run.finish();
}

#[test]
fn a_benchmark_run_is_refused_while_a_prepare_holds_the_host() {
    let base = tempfile::tempdir().unwrap();
    let (mut prepare, _guard) = first_prepare(base.path());
    let l = Launches::new("runbusy");
    let jobs = l.jobs(r#"[{"name": "t", "cmd": "true", "cgroup": "all"}]"#);
    let mut c = l.command(&jobs, &l.out(), &[]);
    private_lock(&mut c, &lock(base.path()));
    let out = c.output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains(&format!("another mlb run holds this host: pid {}", prepare.id())), "{stderr}");
    assert_eq!(wait_within(&mut prepare, Duration::from_secs(120), "the prepare").code(), Some(0));
}

#[test]
fn ctrl_c_while_a_prepare_waits_for_the_host_exits_130_and_writes_nothing() {
    let l = Launches::new("prepwait");
    let mut run = First::start(&l);
    let base = tempfile::tempdir().unwrap();
    let mut c = command(base.path(), &["--name", "recom", "--wait"]);
    private_lock(&mut c, &l.lock());
    let mut waiting = c.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(waiting.try_wait().unwrap().is_none(), "it waits");
    kill(Pid::from_raw(waiting.id() as i32), Signal::SIGINT).unwrap();
    let signalled = Instant::now();
    let status = wait_within(&mut waiting, Duration::from_secs(30), "the waiting prepare");
    assert!(signalled.elapsed() < Duration::from_secs(2), "{:?}", signalled.elapsed());
    let (stdout, stderr) = text(&output_of(waiting));
    assert_eq!(status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(stderr.contains("waiting for another mlb run to end (--wait)"), "{stderr}");
    assert!(!base.path().join("data").exists(), "nothing written");
    run.finish();
}

#[test]
fn the_host_lock_a_prepare_leaves_names_a_run_the_next_holder_reads_without_a_warning() {
    // A prepare once wrote `prepare-PID` into the host lock, which is not a
    // run name mlb makes: the next run or prepare warned that the lock file
    // was not mlb's.
    let base = tempfile::tempdir().unwrap();
    for round in ["first", "second"] {
        let out = command(base.path(), &["--name", "vae"]).output().unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "the {round} prepare: {stdout}\n{stderr}");
        assert!(!stderr.contains("warning"), "the {round} prepare: {stderr}");
    }
    let holder = std::fs::read_to_string(lock(base.path())).unwrap();
    assert!(holder.contains("prepare-"), "the lock names the prepare: {holder}");
}
