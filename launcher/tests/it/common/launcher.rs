//! Real `mlb --jobs` runs for one test: a private folder for the jobs file,
//! scripts, the output folder and the run's host lock (so that tests running
//! launchers side by side do not wait for each other), and the real spin
//! plugin (or another plugin folder).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The variable pointing a launcher at another host lock (see docs/launcher.md).
pub const LOCK_VAR: &str = "MLB_LOCK";

/// Points `cmd` (an `mlb --jobs` launch) at the host lock `lock` instead of
/// the host's: launches given the same file exclude each other, no other.
pub fn private_lock(cmd: &mut Command, lock: &Path) {
    cmd.env(LOCK_VAR, lock);
}

/// One test's launches.
pub struct Launches {
    dir: tempfile::TempDir,
    plugins: tempfile::TempDir,
    /// The jobs file's (and the suite's) name: unique per test and process.
    pub suite: String,
}

impl Launches {
    /// Launches for the test `name`, of the spin plugin.
    pub fn new(name: &str) -> Launches {
        Launches::with_plugins(name, super::spin_dir())
    }

    /// Launches for the test `name`, of the plugins in the folder `plugins`.
    pub fn with_plugins(name: &str, plugins: tempfile::TempDir) -> Launches {
        Launches { dir: tempfile::tempdir().unwrap(), plugins, suite: format!("{name}{}", std::process::id()) }
    }

    /// The test's folder.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The output folder `out`.
    pub fn out(&self) -> PathBuf {
        self.dir().join("out")
    }

    /// The host lock every launch of this test shares.
    pub fn lock(&self) -> PathBuf {
        self.dir().join("mlb.lock")
    }

    /// Writes the jobs file `<suite>.json`.
    pub fn jobs(&self, text: &str) -> PathBuf {
        super::write(self.dir(), &format!("{}.json", self.suite), text)
    }

    /// Writes an executable shell script `name` holding `body`.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = super::write(self.dir(), name, &format!("#!/bin/sh\n{body}"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// This test's folder of burn records (`MLB_BURN_DIR`), not the host's.
    pub fn burns(&self) -> PathBuf {
        self.dir().join("burns")
    }

    /// `mlb --jobs JOBS --outdir OUT EXTRA...` with this test's lock,
    /// plugin folder (spin's unless [`Self::with_plugins`]) and burn records ([`Self::burns`]), plain (no colour),
    /// its output piped.
    pub fn command(&self, jobs: &Path, out: &Path, extra: &[&str]) -> Command {
        let mut c = Command::new(super::mlb());
        c.arg("--plugin-dir").arg(self.plugins.path()).arg("--jobs").arg(jobs).arg("--outdir").arg(out).args(extra);
        c.env(mlb::doctor::burn_record::DIR_VAR, self.burns());
        private_lock(&mut c, &self.lock());
        c.env("NO_COLOR", "1").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        c
    }

    /// `mlb --jobs JOBS --outdir OUT --to-quality --no-cgroups --pause 0
    /// EXTRA...` ([`Self::command`]), checked to succeed; the reports in
    /// [`Self::out`], by file name.
    pub fn to_quality(&self, jobs: &Path, extra: &[&str]) -> Vec<(String, serde_json::Value)> {
        let mut args = vec!["--to-quality", "--no-cgroups", "--pause", "0"];
        args.extend(extra);
        let out = self.command(jobs, &self.out(), &args).output().unwrap();
        let (stdout, stderr) = super::text(&out);
        assert!(out.status.success(), "the run to quality failed:\n{stdout}\n{stderr}");
        super::reports(&self.out())
    }
}

/// Whether this process may mount filesystems and make cgroups; when not,
/// says which test is skipped. `MLB_SKIP_CGROUP_TESTS=1` skips them too.
pub fn root_or_skip(what: &str) -> bool {
    if std::env::var_os("MLB_SKIP_CGROUP_TESTS").is_some() {
        eprintln!("MLB_SKIP_CGROUP_TESTS is set: skipping {what}");
        return false;
    }
    assert!(
        nix::unistd::geteuid().is_root(),
        "{what} needs root (real cgroups, mounts); set MLB_SKIP_CGROUP_TESTS=1 to skip it"
    );
    true
}

/// Waits for `child` at most `limit`; kills it (and fails the test) past that.
pub fn wait_within(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}, killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The output of a `child` that has ended (its pipes read to their end).
pub fn output_of(child: Child) -> Output {
    child.wait_with_output().unwrap()
}

/// Waits (at most `limit`) until `ready` holds.
pub fn wait_until(limit: Duration, what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !ready() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether process `pid` is alive (not a zombie).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
}

/// Kills a test's leftover process when dropped, whatever the test's end;
/// not a process that took its pid since it ended (pids are reused).
pub struct KillOnDrop {
    /// The pid.
    pub pid: i32,
    started: Option<u64>,
}

impl KillOnDrop {
    /// The process `pid`, as it is now.
    pub fn new(pid: i32) -> KillOnDrop {
        KillOnDrop { pid, started: start_time(pid) }
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if self.started.is_some() && start_time(self.pid) == self.started {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.pid), nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// When process `pid` started (clock ticks since boot), if it exists.
fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name; the start time is the 22nd field.
    stat.rsplit_once(") ")?.1.split(' ').nth(19)?.parse().ok()
}

/// The pid a script wrote to `file`, once it is there.
pub fn pid_in(file: &Path) -> i32 {
    wait_until(Duration::from_secs(30), "the script writes its pid file", || {
        std::fs::read_to_string(file).is_ok_and(|t| t.ends_with('\n'))
    });
    std::fs::read_to_string(file).unwrap().trim().parse().unwrap()
}
