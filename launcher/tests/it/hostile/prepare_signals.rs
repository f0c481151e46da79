//! `mlb prepare` and the signals that end a terminal session: it once took
//! no handler, so Ctrl-C did nothing to a prepare started in the background
//! of a script (where the shell ignores SIGINT, and the ignoring is
//! inherited) and a hang-up killed it on the spot. SIGINT, SIGTERM and
//! SIGHUP now stop it between two files: it exits 130, names the partial
//! folder, and the same command resumes it. A hang-up ignored when it
//! started (`nohup`) stays ignored.

use crate::common::launcher::{output_of, wait_until, wait_within, KillOnDrop};
use crate::common::prepare::{command, jpegs, run as prepare};
use crate::common::text;
use nix::sys::signal::{kill, signal, SigHandler, Signal};
use nix::unistd::Pid;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// `mlb prepare --name dcgan` (the fake ImageNet) into `base`, started with
/// `ignored` ignored (as a shell starts a background job, or `nohup`), once
/// it has written a few images.
fn start_imagenet(base: &Path, ignored: Option<Signal>) -> (Child, KillOnDrop) {
    let mut c = command(base, &["--name", "dcgan"]);
    if let Some(ignored) = ignored {
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            c.pre_exec(move || signal(ignored, SigHandler::SigIgn).map(drop).map_err(std::io::Error::from));
        }
    }
    let child = c.spawn().unwrap();
    let guard = KillOnDrop::new(child.id() as i32);
    let partial = base.join("data/.ImageNet.partial");
    wait_until(Duration::from_secs(60), "some images written", || jpegs(&partial).len() >= 3);
    (child, guard)
}

/// Sends `sent` to a prepare started with `ignored` ignored: it must stop
/// within a few seconds, exit 130 naming the partial folder, leave no set
/// that looks complete, and resume.
fn a_signal_stops_prepare_resumably(sent: Signal, ignored: Option<Signal>) {
    let base = tempfile::tempdir().unwrap();
    let data = base.path().join("data");
    let (mut child, _guard) = start_imagenet(base.path(), ignored);
    kill(Pid::from_raw(child.id() as i32), sent).unwrap();
    let signalled = Instant::now();
    let status = wait_within(&mut child, Duration::from_secs(60), "the interrupted prepare");
    let elapsed = signalled.elapsed();
    let (stdout, stderr) = text(&output_of(child));
    assert_eq!(status.code(), Some(130), "{sent}: {stdout}\n{stderr}");
    assert!(elapsed < Duration::from_secs(10), "stopped between two files: {elapsed:?}");
    let partial = data.join(".ImageNet.partial");
    assert!(stderr.contains("interrupted") && stderr.contains(&partial.display().to_string()), "{stderr}");
    assert!(stderr.contains("run the same command again to resume"), "{stderr}");
    assert!(!data.join("ImageNet").exists(), "no set that looks complete");
    let kept = jpegs(&partial).len();
    assert!((3..80).contains(&kept), "{kept} images kept");

    let out = prepare(base.path(), &["--name", "dcgan"]);
    assert!(out.status.success(), "{:?}", text(&out));
    assert_eq!(jpegs(&data.join("ImageNet/train")).len(), 80);
    assert!(!partial.exists());
}

#[test]
fn ctrl_c_stops_a_prepare_started_in_the_background_of_a_script() {
    a_signal_stops_prepare_resumably(Signal::SIGINT, Some(Signal::SIGINT));
}

#[test]
fn a_hang_up_stops_prepare_as_sigterm_does() {
    a_signal_stops_prepare_resumably(Signal::SIGHUP, None);
}

#[test]
fn sigterm_stops_prepare_resumably() {
    a_signal_stops_prepare_resumably(Signal::SIGTERM, None);
}

#[test]
fn under_nohup_a_hang_up_is_still_ignored() {
    let base = tempfile::tempdir().unwrap();
    let (mut child, _guard) = start_imagenet(base.path(), Some(Signal::SIGHUP));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGHUP).unwrap();
    let status = wait_within(&mut child, Duration::from_secs(120), "the prepare under nohup");
    let (stdout, stderr) = text(&output_of(child));
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(jpegs(&base.path().join("data/ImageNet/train")).len(), 80);
}
