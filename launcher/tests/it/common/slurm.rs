//! The two-node Slurm test cluster of `scripts/setup-slurm.sh` (nodes n1
//! and n2 on this machine, real slurmctld, slurmd and munged). Slurm tests
//! FAIL, naming the set-up script, when it does not answer; they run one at
//! a time, since they share the cluster's two nodes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The cluster's folder (as the set-up script has it).
pub fn dir() -> PathBuf {
    PathBuf::from(std::env::var("MLB_SLURM_DIR").unwrap_or_else(|_| "/run/mlb-slurm".into()))
}

/// The cluster, held by this test until the guard drops; a failure naming
/// the set-up script when it is not running.
pub fn cluster() -> MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let guard = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/setup-slurm.sh");
    let up = Command::new(&script).arg("status").status().is_ok_and(|s| s.success());
    assert!(up, "the Slurm tests need the two-node test cluster: run `scripts/setup-slurm.sh` as root first");
    guard
}

/// A Slurm client command (`salloc`, `squeue`...) talking to the test cluster.
pub fn client(program: &str) -> Command {
    let mut c = Command::new(program);
    c.env("SLURM_CONF", dir().join("slurm.conf")).env("RUST_BACKTRACE", "0");
    c
}

/// `salloc SALLOC_ARGS mlb MLB_ARGS`: mlb run inside a fresh allocation.
pub fn in_allocation(salloc: &[&str], mlb: &[&str]) -> Command {
    let mut c = client("salloc");
    c.arg("-Q").args(salloc).arg(super::mlb()).args(mlb);
    c
}

/// The steps of the cluster still listed by `squeue --steps`.
pub fn steps() -> Vec<String> {
    let out = client("squeue").args(["--steps", "--noheader", "--format=%i %j"]).output().expect("squeue runs");
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).filter(|l| !l.trim().is_empty()).collect()
}

/// Waits (at most `limit`) until `squeue` lists no step and no job.
pub fn wait_idle(limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        let jobs = client("squeue").args(["--noheader"]).output().map(|o| o.stdout.is_empty()).unwrap_or(false);
        if jobs && steps().is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    false
}

/// The output, with stdout and stderr for assertion messages.
pub fn run(mut c: Command) -> (Output, String) {
    let out = c.output().expect("the command runs");
    let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out, text)
}
