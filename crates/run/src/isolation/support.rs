//! Which cgroup version a host mounts and whether mlb can create groups there.

use super::Isolation;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The cgroup controllers a slot needs.
pub const CONTROLLERS: [&str; 2] = ["cpuset", "memory"];

/// The v1 controllers a slot joins when the host mounts them, for its
/// telemetry: `cpuacct` counts its CPU time, `cpu` its throttling. (On v2
/// every group has both counters in `cpu.stat`.)
pub const ACCOUNTING: [&str; 2] = ["cpuacct", "cpu"];

/// The v1 controller a slot joins when the host mounts it, so that a fault
/// can freeze the slot (`--inject freeze:...`, docs/faults.md). (On v2
/// every group has `cgroup.freeze`.)
pub const FREEZER: &str = "freezer";

/// The cgroup layout of a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Version {
    /// One hierarchy per controller (possibly beside a unified one: hybrid).
    V1,
    /// The unified hierarchy.
    V2,
    /// No usable cgroup filesystem.
    None,
}

impl Version {
    /// The isolation the launcher's groups give on this layout.
    pub fn isolation(self) -> Isolation {
        match self {
            Version::V1 => Isolation::CgroupV1,
            Version::V2 => Isolation::CgroupV2,
            Version::None => Isolation::None,
        }
    }
}

/// What mlb can do with cgroups on a host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Support {
    /// The layout.
    pub version: Version,
    /// The cgroup mount (`sys/fs/cgroup` under the root).
    pub mount: PathBuf,
    /// True when mlb can create slot groups.
    pub can_create: bool,
    /// Why it cannot, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Probes the cgroup filesystem under `root` as user `euid`.
pub fn probe(root: &Path, euid: u32) -> Support {
    let mount = root.join("sys/fs/cgroup");
    let version = if mount.join("cgroup.controllers").is_file() {
        Version::V2
    } else if CONTROLLERS.iter().any(|c| mount.join(c).is_dir()) {
        Version::V1
    } else {
        Version::None
    };
    let reason = why_not(&mount, version, euid);
    Support { version, mount, can_create: reason.is_none(), reason }
}

fn why_not(mount: &Path, version: Version, euid: u32) -> Option<String> {
    let dirs: Vec<PathBuf> = match version {
        Version::None => return Some(format!("no cgroup filesystem is mounted at {}", mount.display())),
        Version::V1 => {
            if let Some(missing) = CONTROLLERS.iter().find(|c| !mount.join(c).join("cgroup.procs").is_file()) {
                return Some(format!("the {missing} controller is not mounted (no {})", mount.join(missing).display()));
            }
            CONTROLLERS.iter().map(|c| mount.join(c)).collect()
        }
        Version::V2 => {
            let have = std::fs::read_to_string(mount.join("cgroup.controllers")).unwrap_or_default();
            if let Some(missing) = CONTROLLERS.iter().find(|c| !have.split_whitespace().any(|h| h == **c)) {
                return Some(format!(
                    "the {missing} controller is not available (not in {})",
                    mount.join("cgroup.controllers").display()
                ));
            }
            vec![mount.to_path_buf()]
        }
    };
    if euid != 0 {
        return Some(format!("mlb is not running as root (uid {euid}) and cannot create groups"));
    }
    for dir in dirs {
        if let Err(e) = nix::unistd::access(&dir, nix::unistd::AccessFlags::W_OK) {
            let why = if e == nix::errno::Errno::EROFS { "is read-only" } else { "is not writable" };
            return Some(format!("{} {why} ({e})", dir.display()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "").unwrap();
    }

    #[test]
    fn v1_v2_and_none_with_reasons() {
        let root = tempfile::tempdir().unwrap();
        let none = probe(root.path(), 0);
        assert_eq!(none.version, Version::None);
        assert!(none.reason.unwrap().contains("no cgroup filesystem"));

        let cg = root.path().join("sys/fs/cgroup");
        touch(&cg.join("cpuset/cgroup.procs"));
        let v1 = probe(root.path(), 0);
        assert_eq!(v1.version, Version::V1);
        assert!(v1.reason.unwrap().contains("memory controller is not mounted"));
        touch(&cg.join("memory/cgroup.procs"));
        assert!(probe(root.path(), 0).can_create);
        assert!(probe(root.path(), 1000).reason.unwrap().contains("not running as root (uid 1000)"));

        std::fs::write(cg.join("cgroup.controllers"), "cpu io memory pids\n").unwrap();
        let v2 = probe(root.path(), 0);
        assert_eq!(v2.version, Version::V2);
        assert!(v2.reason.unwrap().contains("cpuset controller is not available"));
        std::fs::write(cg.join("cgroup.controllers"), "cpuset cpu io memory pids\n").unwrap();
        assert!(probe(root.path(), 0).can_create);
    }
}
