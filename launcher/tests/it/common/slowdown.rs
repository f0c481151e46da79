//! Real slowdowns of one slot or one node, for the acceptance tests: busy
//! processes pinned to a slot's CPUs (they compete with its instance, as a
//! neighbour's stray job would), and a CPU quota (cgroup v1 `cpu`
//! controller) put on the instances of one Slurm node (whose two test nodes
//! share this machine's CPUs, so pinning alone would slow both).

use super::launcher::wait_until;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
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

    /// The CPUs of its slot: the `cpuset.cpus` of the cgroup v1 cpuset group
    /// its launcher named in `MLB_CGROUP` (not its affinity, which is the
    /// whole machine's until the worker has joined its group).
    pub fn slot_cpus(&self) -> Option<String> {
        let group = self.var("MLB_CGROUP")?.trim_start_matches('/');
        let cpus = std::fs::read_to_string(format!("/sys/fs/cgroup/cpuset/{group}/cpuset.cpus")).ok()?;
        Some(cpus.trim().to_string()).filter(|c| !c.is_empty())
    }
}

/// `count` busy loops pinned (taskset) to `cpus`, killed when dropped.
pub struct Spinners(Vec<Child>);

impl Spinners {
    /// Starts them.
    pub fn pinned(cpus: &str, count: usize) -> Spinners {
        let spin = |_| {
            Command::new("taskset")
                .args(["-c", cpus, "sh", "-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .spawn()
                .expect("taskset (util-linux) starts a busy loop")
        };
        Spinners((0..count).map(spin).collect())
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Waits (at most a minute) for the first worker of `suite` that `pick`
/// accepts, and starts busy loops pinned to its slot's CPUs: enough of
/// them ([`crowd_size`]) to slow it down whatever else runs on the machine.
pub fn crowd_slot(suite: &str, pick: impl Fn(&Worker) -> bool) -> Spinners {
    let mut cpus = None;
    wait_until(Duration::from_secs(60), "the instance to slow down starts", || {
        cpus = Worker::of_suite(suite).iter().find(|w| pick(w)).and_then(Worker::slot_cpus);
        cpus.is_some()
    });
    Spinners::pinned(&cpus.unwrap(), crowd_size())
}

/// How many busy loops crowd a slot: three, or one and a half for each
/// process the machine's load average says is running, if more. The
/// kernel balances the machine's other processes across its CPUs: loops
/// pinned to a slot's CPUs push them onto the other slot's until they
/// outnumber them all, and only from there on does the crowded slot get
/// less than the other. At load 8 on two CPUs, three loops left the slots
/// even (a burn once found the clean slot the slower); fifteen outnumber
/// the eight others with room.
pub fn crowd_size() -> usize {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    3.max((1.5 * load).ceil() as usize)
}

/// A cgroup v1 `cpu` group capping its processes at a share of one CPU;
/// a watcher thread moves each worker of a suite that a predicate accepts
/// into it as soon as it appears. Dropping it stops the watcher, moves the
/// processes back to the root group and removes the group.
pub struct Throttle {
    group: PathBuf,
    stop: Arc<AtomicBool>,
    watcher: Option<JoinHandle<()>>,
}

impl Throttle {
    /// The cgroup v1 `cpu` hierarchy of this machine.
    const CPU: &'static str = "/sys/fs/cgroup/cpu";

    /// A group named after `name` allowing `share` of one CPU, watching for
    /// workers of `suite` that `pick` accepts.
    pub fn workers(name: &str, share: f64, suite: &str, pick: impl Fn(&Worker) -> bool + Send + 'static) -> Throttle {
        let group = PathBuf::from(Self::CPU).join(format!("mlb-test-throttle-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&group).expect("make a cgroup v1 cpu group (root, cgroup v1 `cpu` mounted)");
        let period = 100_000.0;
        std::fs::write(group.join("cpu.cfs_period_us"), format!("{period}")).unwrap();
        std::fs::write(group.join("cpu.cfs_quota_us"), format!("{}", (period * share) as u64)).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let (procs, until, suite) = (group.join("cgroup.procs"), stop.clone(), suite.to_string());
        let watcher = std::thread::spawn(move || {
            while !until.load(Ordering::Relaxed) {
                for w in Worker::of_suite(&suite).iter().filter(|w| pick(w)) {
                    let _ = std::fs::write(&procs, w.pid.to_string());
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        Throttle { group, stop, watcher: Some(watcher) }
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
        let root = PathBuf::from(Self::CPU).join("cgroup.procs");
        for pid in std::fs::read_to_string(self.group.join("cgroup.procs")).unwrap_or_default().lines() {
            let _ = std::fs::write(&root, pid);
        }
        let _ = std::fs::remove_dir(&self.group);
    }
}
