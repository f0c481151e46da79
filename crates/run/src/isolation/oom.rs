//! The kernel's out-of-memory kill counter of a memory cgroup.

use super::support::Version;
use crate::linux::memory_cgroup;
use std::path::Path;

/// `oom_kill` of `memory.oom_control` (v1) or `memory.events` (v2) in
/// `memory_dir`; 0 when unreadable.
pub fn kills(memory_dir: &Path, version: Version) -> u64 {
    let file = match version {
        Version::V2 => "memory.events",
        _ => "memory.oom_control",
    };
    parse(&std::fs::read_to_string(memory_dir.join(file)).unwrap_or_default())
}

/// The kills of this process's own memory cgroup (as
/// [`memory_cgroup()`] finds it), on v1 or v2; 0
/// when it has none: a Slurm task where the site confines no memory.
pub fn own_kills() -> u64 {
    let (Some(path), _) = memory_cgroup() else { return 0 };
    let path = path.trim_start_matches('/');
    let v1 = Path::new("/sys/fs/cgroup/memory").join(path);
    if v1.is_dir() {
        kills(&v1, Version::V1)
    } else {
        kills(&Path::new("/sys/fs/cgroup").join(path), Version::V2)
    }
}

fn parse(text: &str) -> u64 {
    text.lines().find_map(|l| l.strip_prefix("oom_kill ")).and_then(|v| v.trim().parse().ok()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counters() {
        assert_eq!(super::parse("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"), 3);
        assert_eq!(super::parse("low 0\nhigh 0\nmax 5\noom 2\noom_kill 1\noom_group_kill 0\n"), 1);
        assert_eq!(super::parse(""), 0);
    }
}
