//! Which processes hold a pipe open: an instance's output pipe still open
//! after the instance ended is held by something it left behind, found
//! through the `pipe:[INODE]` links in `/proc/<pid>/fd`.

use std::os::fd::AsRawFd;

/// A process holding a pipe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// Its pid.
    pub pid: i32,
    /// Its command name (`/proc/<pid>/comm`).
    pub name: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pid {} ({})", self.pid, self.name)
    }
}

/// The inode of the pipe `end` is one end of.
pub fn pipe_inode(end: &impl AsRawFd) -> Option<u64> {
    nix::sys::stat::fstat(end.as_raw_fd()).ok().map(|s| s.st_ino)
}

/// Every process but this one holding an end of one of the pipes `inodes`
/// (the processes whose fds this user may read), by pid.
pub fn holders(inodes: &[u64]) -> Vec<Holder> {
    let links: Vec<String> = inodes.iter().map(|i| format!("pipe:[{i}]")).collect();
    let me = std::process::id() as i32;
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        if pid == me {
            continue;
        }
        let holds = std::fs::read_dir(entry.path().join("fd")).into_iter().flatten().flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|l| l.to_str().is_some_and(|l| links.iter().any(|p| p == l)))
        });
        if holds {
            let name = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default().trim().to_string();
            found.push(Holder { pid, name });
        }
    }
    found.sort_by_key(|h| h.pid);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    #[test]
    fn the_process_writing_to_a_pipe_is_found_and_this_one_is_not() {
        let mut child = Command::new("sleep").arg("30").stdout(Stdio::piped()).spawn().unwrap();
        let inode = pipe_inode(child.stdout.as_ref().unwrap()).unwrap();
        let found = holders(&[inode]);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(found, [Holder { pid: child.id() as i32, name: "sleep".into() }]);
        assert_eq!(found[0].to_string(), format!("pid {} (sleep)", child.id()));
        assert!(holders(&[inode]).is_empty(), "gone with it");
    }
}
