//! A memory cgroup enclosing the launcher, as a batch system would: the
//! launcher sees less usable memory, and its slots get shares of it.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A memory cgroup enclosing the launcher, as a batch system would.
pub struct Enclosure(PathBuf);

impl Enclosure {
    /// Creates the group `name` (v1: in the memory hierarchy) with a memory limit of `limit` bytes.
    pub fn new(name: &str, limit: u64) -> Enclosure {
        let dir = if Path::new("/sys/fs/cgroup/cgroup.controllers").exists() {
            PathBuf::from("/sys/fs/cgroup").join(name)
        } else {
            PathBuf::from("/sys/fs/cgroup/memory").join(name)
        };
        std::fs::create_dir_all(&dir).unwrap();
        let file = if dir.join("memory.max").exists() { "memory.max" } else { "memory.limit_in_bytes" };
        std::fs::write(dir.join(file), limit.to_string()).unwrap();
        Enclosure(dir)
    }

    /// Starts `cmd` inside the enclosure.
    pub fn place(&self, cmd: &mut Command) {
        let procs = self.0.join("cgroup.procs");
        // SAFETY: the hook only writes a pre-built path's file (the test is
        // single-purpose; allocation after fork is tolerated here).
        unsafe {
            cmd.pre_exec(move || std::fs::write(&procs, "0"));
        }
    }
}

impl Drop for Enclosure {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}
