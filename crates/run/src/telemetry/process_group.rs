//! The cgroup of a process the launcher did not place itself: the main
//! process of an instance's container, which Docker (or whatever runs it)
//! put in a group of its own. Read from `/proc/PID/cgroup`, so it holds for
//! any cgroup driver (`cgroupfs`: `/docker/ID`; `systemd`:
//! `/system.slice/docker-ID.scope`) and either layout.

use super::slot::SlotProbe;
use crate::isolation::Version;
use std::path::{Path, PathBuf};

/// The group of one process: where its memory and CPU counters are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessGroup {
    /// The layout.
    pub version: Version,
    /// The group's path in the memory hierarchy (v1) or the unified one (v2).
    pub path: String,
    memory: PathBuf,
    cpuacct: Option<PathBuf>,
    cpu: Option<PathBuf>,
}

impl ProcessGroup {
    /// The group of process `pid`, which must name `id` (a container's id:
    /// Docker names its groups after it), under `root` (`/` on a real
    /// host), whose cgroup filesystem is mounted at `mount` with layout
    /// `version`. The error says why it cannot be read: the process is gone,
    /// or is another one (the daemon's PID namespace is not this one), or its
    /// group is not mounted here.
    pub fn of(pid: u32, id: &str, root: &Path, mount: &Path, version: Version) -> Result<ProcessGroup, String> {
        let file = root.join(format!("proc/{pid}/cgroup"));
        let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let in_hierarchy = |controller: &str| -> Option<String> {
            text.lines().find_map(|line| {
                let mut fields = line.splitn(3, ':');
                let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
                let named = match version {
                    Version::V2 => controllers.is_empty(),
                    _ => controllers.split(',').any(|c| c == controller),
                };
                named.then(|| path.to_string())
            })
        };
        let dir = |controller: &str, path: &str| match version {
            Version::V2 => mount.join(path.trim_start_matches('/')),
            _ => mount.join(controller).join(path.trim_start_matches('/')),
        };
        let path = in_hierarchy("memory").ok_or_else(|| format!("{} names no memory group", file.display()))?;
        if !path.contains(id) {
            return Err(format!(
                "process {pid} is in {path}, not in a group of container {id}: the Docker daemon runs in another PID namespace"
            ));
        }
        let memory = dir("memory", &path);
        if !memory.is_dir() {
            return Err(format!("the group {path} of process {pid} is not under {}", mount.display()));
        }
        let found = |controller: &str| in_hierarchy(controller).map(|p| dir(controller, &p)).filter(|d| d.is_dir());
        Ok(ProcessGroup { version, path, cpuacct: found("cpuacct"), cpu: found("cpu"), memory })
    }

    /// The probe of this group, whose process runs on `cpus`.
    pub fn probe(&self, cpus: &[usize], root: &Path) -> SlotProbe {
        SlotProbe::at(self.version, &self.memory, self.cpuacct.as_deref(), self.cpu.as_deref(), cpus, root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(cgroup: &str, dirs: &[&str]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("proc/42")).unwrap();
        std::fs::write(root.path().join("proc/42/cgroup"), cgroup).unwrap();
        for d in dirs {
            std::fs::create_dir_all(root.path().join("sys/fs/cgroup").join(d)).unwrap();
        }
        root
    }

    #[test]
    fn a_docker_container_on_v1_with_cgroupfs() {
        let id = "0123abcd";
        let root = tree(
            &format!("12:memory:/docker/{id}\n4:cpu,cpuacct:/docker/{id}\n2:cpuset:/docker/{id}\n1:name=systemd:/docker/{id}\n"),
            &[&format!("memory/docker/{id}"), &format!("cpu/docker/{id}"), &format!("cpuacct/docker/{id}")],
        );
        let mount = root.path().join("sys/fs/cgroup");
        let g = ProcessGroup::of(42, id, root.path(), &mount, Version::V1).unwrap();
        assert_eq!(g.path, format!("/docker/{id}"));
        assert_eq!(g.memory, mount.join("memory/docker").join(id));
        assert_eq!(g.cpuacct, Some(mount.join("cpuacct/docker").join(id)));
        assert_eq!(g.cpu, Some(mount.join("cpu/docker").join(id)));
    }

    #[test]
    fn a_systemd_scope_on_v2() {
        let scope = "system.slice/docker-0123.scope";
        let root = tree(&format!("0::/{scope}\n"), &[scope]);
        let mount = root.path().join("sys/fs/cgroup");
        let g = ProcessGroup::of(42, "0123", root.path(), &mount, Version::V2).unwrap();
        assert_eq!((g.memory.clone(), g.cpu.clone()), (mount.join(scope), Some(mount.join(scope))));
    }

    #[test]
    fn a_gone_process_another_process_and_a_group_not_mounted_here_are_reasons() {
        let root = tree("12:memory:/docker/elsewhere\n", &[]);
        let mount = root.path().join("sys/fs/cgroup");
        let gone = ProcessGroup::of(7, "elsewhere", root.path(), &mount, Version::V1).unwrap_err();
        assert!(gone.contains("proc/7/cgroup"), "{gone}");
        let other = ProcessGroup::of(42, "0123abcd", root.path(), &mount, Version::V1).unwrap_err();
        assert!(other.contains("another PID namespace"), "{other}");
        let elsewhere = ProcessGroup::of(42, "elsewhere", root.path(), &mount, Version::V1).unwrap_err();
        assert!(elsewhere.contains("/docker/elsewhere") && elsewhere.contains("not under"), "{elsewhere}");
    }
}
