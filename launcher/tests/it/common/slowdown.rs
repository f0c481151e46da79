//! Real slowdowns of one slot or one node, for the acceptance tests: a CPU
//! quota (cgroup v1 `cpu` controller) put on the instances of one slot, or
//! of one Slurm node (whose two test nodes share this machine's CPUs).
//!
//! Tests that compare slots must also hold on a machine others load (load
//! average 8 on 2 CPUs): the kernel spreads those unpinned processes
//! unevenly over the CPUs, and two clean slots were measured 0.54 apart. A
//! [`Shield`] gives the run's groups the largest CPU weight, so that the
//! others get a small part of any CPU a slot wants.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// An `mlb worker` process of this machine: its pid and what it was given.
pub struct Worker {
    /// The pid.
    pub pid: i32,
    /// Its command line, arguments joined by spaces.
    pub cmdline: String,
    /// Its environment, `NAME=VALUE` per entry.
    pub environ: Vec<String>,
}

impl Worker {
    /// Every `mlb worker` of suite `suite` running now.
    pub fn of_suite(suite: &str) -> Vec<Worker> {
        let mine = format!("--suite={suite} ");
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
            let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else { continue };
            let cmdline = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if !cmdline.contains(" worker ") || !cmdline.contains(&mine) {
                continue;
            }
            let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
            let environ = environ.split(|b| *b == 0).map(|e| String::from_utf8_lossy(e).into_owned()).collect();
            found.push(Worker { pid, cmdline, environ });
        }
        found
    }

    /// The value of its variable `name`.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.environ.iter().find_map(|e| e.strip_prefix(name)?.strip_prefix('='))
    }
}

/// The CPU weight (`cpu.shares`, cgroup v1's largest) of a shielded run's
/// group and of the test's watching threads: against it, each process outside weighs 1024, so
/// eight of them take about 3% of a CPU a shielded slot wants.
const SHIELD_SHARES: u64 = 262_144;

/// The cgroup v1 `cpu` hierarchy of this machine.
const CPU: &str = "/sys/fs/cgroup/cpu";

/// A cgroup v1 `cpu` group of the test's own. Dropping it moves its
/// processes back to the root group and removes it.
struct CpuGroup(PathBuf);

impl CpuGroup {
    /// A group named after `name` and this test process.
    fn new(name: &str) -> CpuGroup {
        let dir = PathBuf::from(CPU).join(format!("mlb-test-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("make a cgroup v1 cpu group (root, cgroup v1 `cpu` mounted)");
        CpuGroup(dir)
    }

    /// Writes `value` to its interface file `file`.
    fn set(&self, file: &str, value: impl std::fmt::Display) {
        std::fs::write(self.0.join(file), value.to_string()).unwrap_or_else(|e| panic!("{file} = {value}: {e}"));
    }

    /// A group of the weight [`SHIELD_SHARES`].
    fn weighted(name: &str) -> CpuGroup {
        let group = CpuGroup::new(name);
        group.set("cpu.shares", SHIELD_SHARES);
        group
    }

    /// Moves process `pid` into it (a process already gone is no error).
    fn add(&self, pid: u32) {
        let _ = std::fs::write(self.0.join("cgroup.procs"), pid.to_string());
    }

    /// Moves the calling thread alone into it (cgroup v1 places threads
    /// one by one through `tasks`).
    fn join(&self) {
        let me = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self names this thread");
        let tid = me.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::write(self.0.join("tasks"), &tid).unwrap_or_else(|e| panic!("move thread {tid} to {:?}: {e}", self.0));
    }
}

impl Drop for CpuGroup {
    fn drop(&mut self) {
        let root = PathBuf::from(CPU).join("cgroup.procs");
        for pid in std::fs::read_to_string(self.0.join("cgroup.procs")).unwrap_or_default().lines() {
            let _ = std::fs::write(&root, pid);
        }
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// A thread that hands every `mlb worker` of a suite to `each` as soon as
/// it appears (every 10 ms), until dropped.
struct Watcher {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// A watcher whose thread runs in a group of its own of the weight
    /// [`SHIELD_SHARES`], removed when the thread has ended.
    fn weighted(suite: &str, mut each: impl FnMut(&Worker) + Send + 'static) -> Watcher {
        let group = CpuGroup::weighted("watcher");
        let stop = Arc::new(AtomicBool::new(false));
        let (until, suite) = (stop.clone(), suite.to_string());
        let thread = std::thread::spawn(move || {
            group.join();
            while !until.load(Ordering::Relaxed) {
                Worker::of_suite(&suite).iter().for_each(&mut each);
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        Watcher { stop, thread: Some(thread) }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Shields the runs of a suite from the machine's other load while it
/// lives: each worker's run group (`mlb-<run>`, the parent of the slot
/// group its launcher named in `MLB_CGROUP`) gets the weight
/// [`SHIELD_SHARES`] in the `cpu` hierarchy, where mlb makes it for its
/// slots' CPU counters. The watching thread has a group of that weight too:
/// in the root group, a watcher was starved long enough against a shielded
/// run to miss the instance it was waiting for.
pub struct Shield {
    _watcher: Watcher,
}

impl Shield {
    /// Starts shielding every run of `suite`.
    pub fn suite(suite: &str) -> Shield {
        let mut shielded = HashSet::new();
        let _watcher = Watcher::weighted(suite, move |w| {
            let Some(run) = w.var("MLB_CGROUP").and_then(|g| g.trim_start_matches('/').split('/').next()) else {
                return;
            };
            let shares = PathBuf::from(CPU).join(run).join("cpu.shares");
            if !shielded.contains(&shares) && std::fs::write(&shares, SHIELD_SHARES.to_string()).is_ok() {
                shielded.insert(shares);
            }
        });
        Shield { _watcher }
    }
}

/// The share of one CPU a slowed slot's instances get ([`slow_slot`]): a
/// tenth, so that a bench's mean over a clean slot and a slowed one,
/// (1 + 0.1) / 2 = 0.55 of a clean run, falls clearly below what clean runs
/// measure (at a quarter, benches of spin measured 0.67 and 0.75, as high
/// as a floor of 0.75).
const SLOWED_SHARE: f64 = 0.1;

/// The quota's period, microseconds: 20 ms, short against an observation
/// of spin's (about 100 ms), so that every observation is slowed alike,
/// and long enough that the smallest share asked for (0.05) is the
/// kernel's smallest quota (1 ms).
const PERIOD_US: f64 = 20_000.0;

/// Caps the instances of `suite` that `pick` accepts (one slot's) at a
/// tenth of one CPU with a CPU quota, as soon as each appears. Busy loops
/// pinned to the slot's CPUs took less from it than their weight says (a
/// crowded slot measured 0.65 and 0.9 of a clean one on a quiet machine:
/// when the other slot idles, the run's weight moves to the crowded one),
/// while a quota takes the same part at any load.
pub fn slow_slot(suite: &str, pick: impl Fn(&Worker) -> bool + Send + 'static) -> Throttle {
    Throttle::workers("slot", SLOWED_SHARE, suite, pick)
}

/// A cgroup v1 `cpu` group capping its processes at a share of one CPU,
/// into which a watcher moves each worker of a suite that a predicate
/// accepts as soon as it appears. Dropping it stops the watcher, whose
/// closure holds the group: its processes go back to the root group and the
/// group is removed with it.
pub struct Throttle {
    _watcher: Watcher,
}

impl Throttle {
    /// A group named after `name` allowing `share` of one CPU, watching for
    /// workers of `suite` that `pick` accepts.
    pub fn workers(name: &str, share: f64, suite: &str, pick: impl Fn(&Worker) -> bool + Send + 'static) -> Throttle {
        let group = CpuGroup::new(&format!("throttle-{name}"));
        group.set("cpu.cfs_period_us", PERIOD_US);
        group.set("cpu.cfs_quota_us", (PERIOD_US * share) as u64);
        let _watcher = Watcher::weighted(suite, move |w| {
            if pick(w) {
                group.add(w.pid as u32);
            }
        });
        Throttle { _watcher }
    }
}
