//! Checks of the host itself: cgroups, the output folder's free space, the
//! jobs' data.

use crate::check::{Check, Status};
use crate::host::Host;
use std::path::Path;

/// Free space below which the output folder is a warning (reports, logs).
const LOW_SPACE: u64 = 1 << 30;

/// Whether slot groups can be made.
pub fn cgroups(host: &Host) -> Check {
    match &host.cgroup.reason {
        None => Check::pass("cgroups", format!("{} at {}", host.cgroup.version.isolation(), host.cgroup.mount.display())),
        Some(why) => Check::not(
            Status::Fail,
            "cgroups",
            why.clone(),
            "run mlb as root on a host with the cpuset and memory controllers, or pass --no-cgroups (reports then say isolation none)",
        ),
    }
}

/// Free space in the output folder (its nearest existing ancestor).
pub fn disk(outdir: &Path) -> Check {
    let existing = outdir.ancestors().find(|p| p.exists()).unwrap_or(Path::new("/"));
    match nix::sys::statvfs::statvfs(existing) {
        Ok(s) => {
            let free = s.blocks_available() * s.fragment_size();
            let found = format!("{:.1} GiB free in {}", free as f64 / (1u64 << 30) as f64, existing.display());
            if free < LOW_SPACE {
                Check::not(Status::Warn, "disk space", found, "free space there, or pass another --outdir")
            } else {
                Check::pass("disk space", found)
            }
        }
        Err(e) => {
            Check::not(Status::Warn, "disk space", format!("cannot read {}: {e}", existing.display()), "check --outdir")
        }
    }
}

/// Each data path the selected jobs name, present or not.
pub fn data(paths: &[&Path]) -> Vec<Check> {
    paths
        .iter()
        .map(|p| {
            let name = format!("data {}", p.display());
            if p.exists() {
                Check::pass(name, "present")
            } else {
                Check::not(
                    Status::Fail,
                    name,
                    "missing",
                    "download or copy the data there (docs/workloads.md), or pass --base DIR holding data/",
                )
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_and_disk() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("data/imagenet");
        let checks = data(&[dir.path(), &missing]);
        assert_eq!(checks[0].status, Status::Pass);
        assert_eq!(checks[1].status, Status::Fail);
        assert!(checks[1].fix.contains("--base"), "{:?}", checks[1]);
        let d = disk(&dir.path().join("not/yet/made"));
        assert!(d.found.contains("GiB free in"), "{d:?}");
    }
}
