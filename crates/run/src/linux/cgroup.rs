//! The memory cgroup of a process and the tightest limit above it: the
//! launcher sizes slots with it, the worker records what it got and counts
//! its OOM kills in it.

use std::path::{Path, PathBuf};

/// Limits at or above this are "no limit" (cgroup v1 writes 2^63 rounded to a page).
const UNLIMITED: u64 = 1 << 62;

/// This process's memory cgroup and the tightest memory limit on its path
/// to the root (`None` limit: unlimited).
pub fn memory_cgroup() -> (Option<String>, Option<u64>) {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    memory_cgroup_at(Path::new("/sys/fs/cgroup"), &own)
}

/// As [`memory_cgroup`], for a cgroup mount `root` and a `/proc/self/cgroup` text.
pub fn memory_cgroup_at(root: &Path, proc_cgroup: &str) -> (Option<String>, Option<u64>) {
    let mut v2 = None;
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if controllers.split(',').any(|c| c == "memory") {
            let limit = tightest(&root.join("memory"), path, "memory.limit_in_bytes");
            return (Some(path.to_string()), limit);
        }
        if controllers.is_empty() {
            v2 = Some(path.to_string());
        }
    }
    match v2 {
        Some(path) => {
            let limit = tightest(root, &path, "memory.max");
            (Some(path), limit)
        }
        None => (None, None),
    }
}

/// The smallest limit in `file` from the cgroup at `path` up to the mount
/// root. Inside a container the path may not exist in its view: the mount's
/// own root then is the instance's group.
fn tightest(mount: &Path, path: &str, file: &str) -> Option<u64> {
    let mut dir: PathBuf = mount.join(path.trim_start_matches('/'));
    if !dir.exists() {
        dir = mount.to_path_buf();
    }
    let mut best: Option<u64> = None;
    loop {
        if let Some(limit) = read_limit(&dir.join(file)) {
            best = Some(best.map_or(limit, |b| b.min(limit)));
        }
        if dir == mount || !dir.pop() || !dir.starts_with(mount) {
            break;
        }
    }
    best
}

fn read_limit(file: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let text = text.trim();
    if text == "max" {
        return None;
    }
    text.parse::<u64>().ok().filter(|&v| v < UNLIMITED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_limit_is_the_tightest_on_the_path() {
        let root = tempfile::tempdir().unwrap();
        let slot = root.path().join("memory/mlb/run/slot0");
        std::fs::create_dir_all(&slot).unwrap();
        std::fs::write(root.path().join("memory/memory.limit_in_bytes"), "9223372036854771712\n").unwrap();
        std::fs::write(root.path().join("memory/mlb/memory.limit_in_bytes"), "4096000\n").unwrap();
        std::fs::write(slot.join("memory.limit_in_bytes"), "2048000\n").unwrap();
        let proc = "12:pids:/x\n4:memory:/mlb/run/slot0\n0::/user.slice\n";
        assert_eq!(memory_cgroup_at(root.path(), proc), (Some("/mlb/run/slot0".into()), Some(2048000)));
        std::fs::write(slot.join("memory.limit_in_bytes"), "9223372036854771712\n").unwrap();
        assert_eq!(memory_cgroup_at(root.path(), proc).1, Some(4096000));
    }

    #[test]
    fn v2_limit_and_container_view() {
        let root = tempfile::tempdir().unwrap();
        let g = root.path().join("mlb/slot1");
        std::fs::create_dir_all(&g).unwrap();
        std::fs::write(g.join("memory.max"), "1000000\n").unwrap();
        std::fs::write(root.path().join("mlb/memory.max"), "max\n").unwrap();
        assert_eq!(memory_cgroup_at(root.path(), "0::/mlb/slot1\n"), (Some("/mlb/slot1".into()), Some(1000000)));
        // In a container the host path is not visible: the mount root is the group.
        std::fs::write(root.path().join("memory.max"), "5000\n").unwrap();
        assert_eq!(memory_cgroup_at(root.path(), "0::/docker/abc\n").1, Some(5000));
        assert_eq!(memory_cgroup_at(root.path(), ""), (None, None));
    }
}
