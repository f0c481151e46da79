//! The cgroups of one run: a parent `mlb-<run>` and one child per slot with
//! its CPUs, memory nodes and memory limit, made through cgroups-rs, read back
//! and verified, and removed when dropped.

use super::error::CgroupError;
use super::support::{Support, Version, CONTROLLERS};
use super::v2;
use crate::host::cpulist;
use crate::plan::Slot;
use cgroups_rs::fs::cgroup_builder::CgroupBuilder;
use cgroups_rs::fs::hierarchies::{V1, V2};
use cgroups_rs::fs::{Cgroup, Hierarchy};
use std::fs::File;
use std::path::PathBuf;
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
    /// `cgroup.procs` of each folder, opened for writing: a child writes
    /// `0` to each (its own pid) before it executes anything.
    procs: Vec<File>,
    /// The folder holding the memory controller's files.
    memory_dir: PathBuf,
    version: Version,
    cgroup: Cgroup,
}

/// The groups of one run. Dropping it kills whatever is left in them and
/// removes them.
#[derive(Debug)]
pub struct RunGroups {
    /// `mlb-<run>`.
    pub path: String,
    /// One group per slot.
    pub slots: Vec<SlotGroup>,
    parent: Cgroup,
    version: Version,
}

fn hierarchy(version: Version) -> Box<dyn Hierarchy> {
    match version {
        Version::V2 => Box::new(V2::new()),
        _ => Box::new(V1::new()),
    }
}

fn controllers() -> Vec<String> {
    CONTROLLERS.iter().map(|c| c.to_string()).collect()
}

impl RunGroups {
    /// Creates `mlb-<run>` and `mlb-<run>/slot<i>` for every slot on the host
    /// described by `support`, applies and verifies each slot's limits.
    pub fn create(support: &Support, run: &str, slots: &[Slot]) -> Result<RunGroups, CgroupError> {
        if let Some(reason) = &support.reason {
            return Err(CgroupError::Unsupported { reason: reason.clone() });
        }
        let path = format!("mlb-{run}");
        let create = |p: &str, e: cgroups_rs::fs::error::Error| CgroupError::Create {
            group: p.to_string(),
            message: format!("{e}{}", e.source_text()),
        };
        if support.version == Version::V2 {
            v2::delegate(&support.mount, &path, &CONTROLLERS)?;
        }
        let parent = Cgroup::new_with_specified_controllers(hierarchy(support.version), &path, Some(controllers()))
            .map_err(|e| create(&path, e))?;
        let mut groups = RunGroups { path: path.clone(), slots: Vec::new(), parent, version: support.version };
        for slot in slots {
            let slot_path = format!("{path}/slot{}", slot.index);
            let built = CgroupBuilder::new(&slot_path)
                .set_specified_controllers(controllers())
                .cpu()
                .cpus(cpulist::format(&slot.cpus))
                .mems(cpulist::format(&slot.mems))
                .done()
                .memory()
                .memory_hard_limit(slot.memory_bytes as i64)
                .done()
                .build(hierarchy(support.version));
            let cgroup = match built {
                Ok(c) => c,
                Err(e) => {
                    // A group made but not configured goes too (the parent goes with `groups`).
                    let made =
                        Cgroup::load_with_specified_controllers(hierarchy(support.version), &slot_path, controllers());
                    let _ = made.delete();
                    return Err(create(&slot_path, e));
                }
            };
            let dir_of = |kind: &str| {
                cgroup
                    .subsystems()
                    .iter()
                    .find(|s| s.controller_name() == kind)
                    .map(|s| s.to_controller().path().to_path_buf())
            };
            let missing =
                |c: &str| CgroupError::Create { group: slot_path.clone(), message: format!("no {c} controller") };
            let cpuset_dir = dir_of("cpuset").ok_or_else(|| missing("cpuset"))?;
            let memory_dir = dir_of("memory").ok_or_else(|| missing("memory"))?;
            let mut dirs = vec![cpuset_dir.clone(), memory_dir.clone()];
            dirs.dedup();
            let group = SlotGroup {
                index: slot.index,
                procs: Vec::new(),
                cpuset_dir,
                memory_dir,
                dirs,
                path: slot_path,
                version: support.version,
                cgroup,
            };
            groups.slots.push(group);
            let group = groups.slots.last_mut().expect("just pushed");
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

    /// The isolation mode to record (`cgroup-v1`, `cgroup-v2`).
    pub fn isolation_name(&self) -> &'static str {
        self.version.isolation_name()
    }

    /// The group of slot `index`.
    pub fn slot(&self, index: usize) -> Option<&SlotGroup> {
        self.slots.iter().find(|s| s.index == index)
    }
}

fn memory_limit_file(version: Version) -> &'static str {
    match version {
        Version::V2 => "memory.max",
        _ => "memory.limit_in_bytes",
    }
}

trait SourceText {
    fn source_text(&self) -> String;
}

impl SourceText for cgroups_rs::fs::error::Error {
    fn source_text(&self) -> String {
        std::error::Error::source(self).map(|s| format!(": {s}")).unwrap_or_default()
    }
}

impl SlotGroup {
    /// Reads the slot's limits back and fails when one did not take.
    fn verify(&self, slot: &Slot) -> Result<(), CgroupError> {
        let cpuset_dir = &self.cpuset_dir;
        let check = |file: PathBuf, wanted: String, same: &dyn Fn(&str) -> bool| {
            let got = std::fs::read_to_string(&file).map_err(CgroupError::io(&file))?;
            if same(got.trim()) {
                Ok(())
            } else {
                Err(CgroupError::NotApplied { file, wanted, got: got.trim().to_string() })
            }
        };
        let cpus = cpulist::format(&slot.cpus);
        check(cpuset_dir.join("cpuset.cpus"), cpus, &|g| cpulist::parse(g) == slot.cpus)?;
        let mems = cpulist::format(&slot.mems);
        check(cpuset_dir.join("cpuset.mems"), mems, &|g| cpulist::parse(g) == slot.mems)?;
        let limit = slot.memory_bytes;
        check(self.memory_dir.join(memory_limit_file(self.version)), limit.to_string(), &|g| g.parse() == Ok(limit))
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

    /// Kills every process of the group and waits (a bounded time) until it is empty.
    pub fn kill_all(&self) {
        let deadline = Instant::now() + DRAIN;
        loop {
            let pids = self.pids();
            if pids.is_empty() || Instant::now() > deadline {
                return;
            }
            for pid in pids {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for RunGroups {
    fn drop(&mut self) {
        for slot in &self.slots {
            slot.kill_all();
            if let Err(e) = slot.cgroup.delete() {
                eprintln!("mlb: cannot remove cgroup {}: {e}", slot.path);
            }
        }
        if let Err(e) = self.parent.delete() {
            eprintln!("mlb: cannot remove cgroup {}: {e}", self.path);
        }
    }
}
