//! Two runs on one host at once: both took the same CPUs (and devices) and
//! measured each other, with no word. A run now holds the host lock for its
//! whole length; a second run is refused before it starts anything, naming
//! the first, or waits for it with `--wait` (and still hears Ctrl-C).

use crate::common::launcher::{output_of, wait_until, wait_within, Launches};
use crate::common::text;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// A first run, holding the host until the test creates its `release` file
/// (tests/it/hostile/prepare_locks.rs runs a prepare beside it).
pub(super) struct First {
    child: Child,
    out: PathBuf,
    release: PathBuf,
}

impl First {
    pub(super) fn start(l: &Launches) -> First {
        let started = l.dir().join("first.started");
        let release = l.dir().join("first.release");
        let script = l.script("hold.sh", "touch \"$1\"\nwhile [ ! -e \"$2\" ]; do sleep 0.02; done\n");
        let jobs = l.jobs(&format!(
            r#"[{{"name": "hold", "cmd": "{} {} {}"}}]"#,
            script.display(),
            started.display(),
            release.display()
        ));
        let out = l.dir().join("out1");
        let child = l.command(&jobs, &out, &[]).spawn().unwrap();
        wait_until(Duration::from_secs(30), "the first run starts its job", || started.exists());
        First { child, out, release }
    }

    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Lets its job end; the run must then pass.
    pub(super) fn finish(&mut self) {
        std::fs::write(&self.release, "").unwrap();
        let status = wait_within(&mut self.child, Duration::from_secs(30), "the first run");
        let mut stderr = String::new();
        std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(0), "{stderr}");
    }
}

impl Drop for First {
    /// A test that failed half-way stops the first run (its job dies with it).
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A second run's jobs file: one job that leaves `marker` when it starts,
/// failing if the first run has not written its total line yet.
fn second_jobs(l: &Launches, first: &First, marker: &Path) -> PathBuf {
    let script = l.script("second.sh", "grep -q 'Total Time' \"$1\" || exit 9\ntouch \"$2\"\n");
    let name = format!("{}-second.json", l.suite);
    crate::common::write(
        l.dir(),
        &name,
        &format!(
            r#"[{{"name": "second", "cmd": "{} {} {}", "cgroup": "all"}}]"#,
            script.display(),
            first.out.join("summary.txt").display(),
            marker.display()
        ),
    )
}

#[test]
fn a_second_run_is_refused_before_it_starts_anything_and_names_the_first() {
    let l = Launches::new("busy");
    let mut first = First::start(&l);
    let marker = l.dir().join("second.started");
    let jobs = second_jobs(&l, &first, &marker);
    let out2 = l.dir().join("out2");
    // A run without cgroups shares the CPUs all the same: it is refused too.
    let mut second = l.command(&jobs, &out2, &["--no-cgroups"]).spawn().unwrap();
    let status = wait_within(&mut second, Duration::from_secs(30), "the second run");
    let (stdout, stderr) = text(&output_of(second));
    assert_eq!(status.code(), Some(2), "refused: {stdout}\n{stderr}");
    for expected in [
        format!("another mlb run holds this host: pid {}", first.pid()),
        format!("output folder {}", first.out.display()),
        ", started ".to_string(),
        format!("lock {}", l.lock().display()),
        "fix: pass --wait to start once it has ended, or stop it".to_string(),
    ] {
        assert!(stderr.contains(&expected), "{expected:?} in {stderr}");
    }
    assert!(stdout.is_empty(), "{stdout}");
    assert!(!marker.exists() && !out2.exists(), "nothing started, no output folder made");
    first.finish();
}

#[test]
fn with_wait_a_second_run_starts_once_the_first_has_ended() {
    let l = Launches::new("waits");
    let mut first = First::start(&l);
    let marker = l.dir().join("second.started");
    let jobs = second_jobs(&l, &first, &marker);
    let out2 = l.dir().join("out2");
    let mut second = l.command(&jobs, &out2, &["--wait"]).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(second.try_wait().unwrap().is_none() && !marker.exists(), "it waits");
    first.finish();
    let status = wait_within(&mut second, Duration::from_secs(30), "the second run");
    let (stdout, stderr) = text(&output_of(second));
    assert_eq!(status.code(), Some(0), "started after the first ended: {stdout}\n{stderr}");
    assert!(marker.exists(), "{stderr}");
    assert!(stderr.contains("waiting for another mlb run to end (--wait): pid "), "{stderr}");
}

#[test]
fn ctrl_c_while_waiting_for_the_host_exits_130_and_starts_nothing() {
    let l = Launches::new("waitint");
    let mut first = First::start(&l);
    let marker = l.dir().join("second.started");
    let jobs = second_jobs(&l, &first, &marker);
    let out2 = l.dir().join("out2");
    let mut second = l.command(&jobs, &out2, &["--wait"]).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    kill(Pid::from_raw(second.id() as i32), Signal::SIGINT).unwrap();
    let signalled = Instant::now();
    let status = wait_within(&mut second, Duration::from_secs(30), "the second run");
    assert!(signalled.elapsed() < Duration::from_secs(2), "{:?}", signalled.elapsed());
    let (stdout, stderr) = text(&output_of(second));
    assert_eq!(status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(!marker.exists() && !out2.exists(), "nothing started");
    first.finish();
}
