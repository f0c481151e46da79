//! The cgroups of one run: a parent `mlb-<run>` and one child per slot with
//! its CPUs, memory nodes and memory limit, made below a [`CgroupRoot`],
//! read back and verified, and removed when dropped.

use super::error::CgroupError;
use super::root::CgroupRoot;
use super::support::{Version, ACCOUNTING, CONTROLLERS, FREEZER};
use super::v2;
use super::{Isolation, Slot};
use crate::linux::cpulist;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long removal waits for killed processes to leave a group.
const DRAIN: Duration = Duration::from_secs(5);

/// One slot's group.
#[derive(Debug)]
pub struct SlotGroup {
    /// Slot index.
    pub index: usize,
    /// Path below the mount(s): `mlb-<run>/slot<i>`.
    pub path: String,
    /// Folders of the group: one per controller on v1, one on v2.
    dirs: Vec<PathBuf>,
    /// The folder holding the cpuset controller's files.
    cpuset_dir: PathBuf,
    /// The folder holding the memory controller's files.
    memory_dir: PathBuf,
    /// The folders holding the CPU time (`cpuacct`) and throttling (`cpu`)
    /// counters, when the host has them ([`ACCOUNTING`]).
    accounting: [Option<PathBuf>; 2],
    /// The folder holding the freezer's files, when the host has it
    /// ([`FREEZER`]).
    freezer: Option<PathBuf>,
    /// `cgroup.procs` of each folder, opened for writing: a child writes
    /// `0` to each (its own pid) before it executes anything.
    procs: Vec<File>,
    version: Version,
}

/// The groups of one run. Dropping it kills whatever is left in them and
/// removes them.
#[derive(Debug)]
pub struct RunGroups {
    /// `mlb-<run>`.
    pub path: String,
    /// One group per slot.
    pub slots: Vec<SlotGroup>,
    /// Folders of the parent, one per hierarchy; removed after the slots.
    parent_dirs: Vec<PathBuf>,
    version: Version,
}

/// The folders of group `path`: one per controller's hierarchy (v1: those
/// of [`CONTROLLERS`] and of the [`ACCOUNTING`] ones and the [`FREEZER`]
/// mounted), one (v2).
fn dirs_of(root: &CgroupRoot, path: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = CONTROLLERS.iter().map(|c| root.dir(c, path)).collect();
    dirs.extend(accounting_dirs(root, path).into_iter().flatten());
    dirs.extend(optional_dir(root, FREEZER, path));
    dirs.sort();
    dirs.dedup();
    dirs
}

/// The folders of group `path` holding the [`ACCOUNTING`] counters.
fn accounting_dirs(root: &CgroupRoot, path: &str) -> [Option<PathBuf>; 2] {
    ACCOUNTING.map(|c| optional_dir(root, c, path))
}

/// The folder of group `path` holding controller `c`'s files: on v1 in its
/// hierarchy when the host mounts it (its mount point resolved, so that
/// `cpu` and `cpuacct` mounted together are one folder), on v2 the group's
/// one folder.
fn optional_dir(root: &CgroupRoot, c: &str, path: &str) -> Option<PathBuf> {
    match root.version() {
        Version::V1 => {
            let mount = root.mount().join(c);
            let mount = std::fs::canonicalize(&mount).unwrap_or(mount);
            mount.join("cgroup.procs").is_file().then(|| mount.join(path))
        }
        _ => Some(root.dir(c, path)),
    }
}

/// Creates a group's folder (the kernel fills it with the interface files).
/// A folder already there, a leftover of a run of the same name, is reused.
fn make_dir(dir: &Path) -> Result<(), CgroupError> {
    harmless(std::fs::create_dir(dir), std::io::ErrorKind::AlreadyExists)
        .map_err(|source| CgroupError::Create { group: dir.to_path_buf(), source })
}

/// `result`, where an error of kind `kind` means the work was done already.
fn harmless(result: std::io::Result<()>, kind: std::io::ErrorKind) -> std::io::Result<()> {
    match result {
        Err(e) if e.kind() == kind => Ok(()),
        other => other,
    }
}

/// Writes `value` to an interface file, which must exist: a missing file
/// means a missing controller.
fn write(file: &Path, value: &str) -> Result<(), CgroupError> {
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(file)
        .and_then(|mut f| f.write_all(value.as_bytes()))
        .map_err(|source| CgroupError::Write { file: file.to_path_buf(), value: value.to_string(), source })
}

/// Every CPU (or node) `of` gives some slot, sorted.
fn union(slots: &[Slot], of: impl Fn(&Slot) -> &[usize]) -> Vec<usize> {
    let mut all: Vec<usize> = slots.iter().flat_map(|s| of(s).iter().copied()).collect();
    all.sort_unstable();
    all.dedup();
    all
}

impl RunGroups {
    /// Creates `mlb-<run>` and `mlb-<run>/slot<i>` for every slot below
    /// `root`, applies and verifies each slot's limits. On failure, what was
    /// made is removed again.
    pub fn create(root: &CgroupRoot, run: &str, slots: &[Slot]) -> Result<RunGroups, CgroupError> {
        let path = format!("mlb-{run}");
        let version = root.version();
        let mut groups =
            RunGroups { path: path.clone(), slots: Vec::new(), parent_dirs: dirs_of(root, &path), version };
        if version == Version::V2 {
            v2::delegate(root.mount(), &path, &CONTROLLERS)?;
        } else {
            for dir in &groups.parent_dirs {
                make_dir(dir)?;
            }
            // A new v1 cpuset group has no CPU and no memory node, and its
            // children can only get what it has: it gets what the slots use.
            let cpuset = root.dir("cpuset", &path);
            write(&cpuset.join("cpuset.cpus"), &cpulist::format(&union(slots, |s| &s.cpus)))?;
            write(&cpuset.join("cpuset.mems"), &cpulist::format(&union(slots, |s| &s.mems)))?;
        }
        for slot in slots {
            groups.slots.push(SlotGroup::below(root, &path, slot.index, version));
            let group = groups.slots.last_mut().expect("just pushed");
            group.configure(slot)?;
            group.verify(slot)?;
            group.procs = group
                .dirs
                .iter()
                .map(|d| {
                    let f = d.join("cgroup.procs");
                    std::fs::OpenOptions::new().write(true).open(&f).map_err(CgroupError::io(f))
                })
                .collect::<Result<_, _>>()?;
        }
        Ok(groups)
    }

    /// The groups the run `run` left below `root`, when some are there: a
    /// launcher killed by SIGKILL cannot remove its own, and what its
    /// instances started may still run in them.
    pub fn left_by(root: &CgroupRoot, run: &str) -> Option<RunGroups> {
        let path = format!("mlb-{run}");
        let parent_dirs = dirs_of(root, &path);
        let mut indices: Vec<usize> = parent_dirs
            .iter()
            .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().to_str()?.strip_prefix("slot")?.parse().ok())
            .collect();
        indices.sort_unstable();
        indices.dedup();
        if indices.is_empty() && !parent_dirs.iter().any(|d| d.is_dir()) {
            return None;
        }
        let version = root.version();
        let slots = indices.into_iter().map(|index| SlotGroup::below(root, &path, index, version)).collect();
        Some(RunGroups { path, slots, parent_dirs, version })
    }

    /// The isolation the groups give (cgroup v1 or v2).
    pub fn isolation(&self) -> Isolation {
        self.version.isolation()
    }

    /// The group of slot `index`.
    pub fn slot(&self, index: usize) -> Option<&SlotGroup> {
        self.slots.iter().find(|s| s.index == index)
    }

    /// Kills whatever is left in the groups and removes them, the slots'
    /// first; returns how many processes it killed. Every group that stays
    /// is an error.
    pub fn remove(mut self) -> Result<usize, Vec<CgroupError>> {
        let (killed, errors) = self.remove_all();
        if errors.is_empty() {
            Ok(killed)
        } else {
            Err(errors)
        }
    }

    fn remove_all(&mut self) -> (usize, Vec<CgroupError>) {
        let mut errors = Vec::new();
        let mut killed = 0;
        for slot in self.slots.drain(..) {
            killed += slot.kill_all();
            errors.extend(slot.dirs.iter().filter_map(|d| remove_dir(d).err()));
        }
        errors.extend(self.parent_dirs.drain(..).filter_map(|d| remove_dir(&d).err()));
        (killed, errors)
    }
}

/// Removes a group's folder (the kernel takes its interface files with it);
/// one never made is not an error.
fn remove_dir(dir: &Path) -> Result<(), CgroupError> {
    harmless(std::fs::remove_dir(dir), std::io::ErrorKind::NotFound)
        .map_err(|source| CgroupError::Remove { group: dir.to_path_buf(), source })
}

fn memory_limit_file(version: Version) -> &'static str {
    match version {
        Version::V2 => "memory.max",
        _ => "memory.limit_in_bytes",
    }
}

/// The files where the kernel shows the CPUs and memory nodes a group really
/// gets (its setting within what its parent has).
fn effective_files(version: Version) -> [&'static str; 2] {
    match version {
        Version::V2 => ["cpuset.cpus.effective", "cpuset.mems.effective"],
        _ => ["cpuset.effective_cpus", "cpuset.effective_mems"],
    }
}

impl SlotGroup {
    /// Slot `index`'s group below the run group `run_path` (its folders
    /// named, nothing created or opened).
    fn below(root: &CgroupRoot, run_path: &str, index: usize, version: Version) -> SlotGroup {
        let path = format!("{run_path}/slot{index}");
        SlotGroup {
            index,
            dirs: dirs_of(root, &path),
            cpuset_dir: root.dir("cpuset", &path),
            memory_dir: root.dir("memory", &path),
            accounting: accounting_dirs(root, &path),
            freezer: optional_dir(root, FREEZER, &path),
            procs: Vec::new(),
            path,
            version,
        }
    }

    /// Makes the group's folders and writes the slot's limits.
    fn configure(&self, slot: &Slot) -> Result<(), CgroupError> {
        for dir in &self.dirs {
            make_dir(dir)?;
        }
        write(&self.cpuset_dir.join("cpuset.cpus"), &cpulist::format(&slot.cpus))?;
        write(&self.cpuset_dir.join("cpuset.mems"), &cpulist::format(&slot.mems))?;
        write(&self.memory_dir.join(memory_limit_file(self.version)), &slot.memory_bytes.to_string())
    }

    /// Reads the slot's limits back, and the CPUs and memory nodes the group
    /// effectively has, and fails when one is not what the slot asks for.
    fn verify(&self, slot: &Slot) -> Result<(), CgroupError> {
        let check = |file: PathBuf, wanted: String, same: &dyn Fn(&str) -> bool| {
            let got = std::fs::read_to_string(&file).map_err(CgroupError::io(&file))?;
            if same(got.trim()) {
                Ok(())
            } else {
                Err(CgroupError::NotApplied { file, wanted, got: got.trim().to_string() })
            }
        };
        let [effective_cpus, effective_mems] = effective_files(self.version);
        for (files, list) in
            [(["cpuset.cpus", effective_cpus], &slot.cpus), (["cpuset.mems", effective_mems], &slot.mems)]
        {
            for file in files {
                check(self.cpuset_dir.join(file), cpulist::format(list), &|g| cpulist::parse(g) == *list)?;
            }
        }
        let limit = slot.memory_bytes;
        check(self.memory_dir.join(memory_limit_file(self.version)), limit.to_string(), &|g| g.parse() == Ok(limit))
    }

    /// The folder of the memory controller's files.
    pub fn memory_dir(&self) -> &Path {
        &self.memory_dir
    }

    /// The folders of the `cpuacct` (CPU time) and `cpu` (throttling)
    /// counters, each when the host has it.
    pub fn accounting_dirs(&self) -> [Option<&Path>; 2] {
        [self.accounting[0].as_deref(), self.accounting[1].as_deref()]
    }

    /// The folder of the freezer's files (v1 `freezer.state`, v2
    /// `cgroup.freeze`), when the host has it.
    pub fn freezer_dir(&self) -> Option<&Path> {
        self.freezer.as_deref()
    }

    /// The cgroup layout.
    pub fn version(&self) -> Version {
        self.version
    }

    /// Open `cgroup.procs` files: the child writes `0` to each.
    pub fn procs_files(&self) -> &[File] {
        &self.procs
    }

    /// Where the group is, for reports: `/mlb-<run>/slot<i>`.
    pub fn display_path(&self) -> String {
        format!("/{}", self.path)
    }

    /// How many times the kernel's OOM killer has killed in this group.
    pub fn oom_kills(&self) -> u64 {
        super::oom::kills(&self.memory_dir, self.version)
    }

    /// Pids in the group.
    pub fn pids(&self) -> Vec<i32> {
        let mut out: Vec<i32> = Vec::new();
        for d in &self.dirs {
            let text = std::fs::read_to_string(d.join("cgroup.procs")).unwrap_or_default();
            out.extend(text.lines().filter_map(|l| l.trim().parse::<i32>().ok()));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Kills every process of the group and waits (a bounded time) until it
    /// is empty; returns how many processes it killed.
    pub fn kill_all(&self) -> usize {
        let deadline = Instant::now() + DRAIN;
        let mut killed: Vec<i32> = Vec::new();
        loop {
            let pids = self.pids();
            if pids.is_empty() || Instant::now() > deadline {
                return killed.len();
            }
            for pid in pids {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
                if !killed.contains(&pid) {
                    killed.push(pid);
                }
            }
            // A frozen process takes its SIGKILL only once thawed (v1).
            let _ = super::control::thaw(self);
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for RunGroups {
    fn drop(&mut self) {
        for e in self.remove_all().1 {
            crate::console::Console::Err.line(&format!("mlb: {}", mlb_record::fix::one_line(&e)));
        }
    }
}
