//! How an instance is started. `Bare` runs the command on the host; container
//! runtimes plug in behind the same trait.

use crate::isolation::SlotGroup;
use crate::plan::InstanceSpec;
use crate::worker::provenance::vars;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// Builds the process of one instance.
pub trait Runtime {
    /// The command that starts `spec`, placed in `group` (when given) before
    /// it executes anything; stdout and stderr piped, stdin closed, in a
    /// process group of its own.
    fn command(&self, spec: &InstanceSpec, group: Option<&SlotGroup>) -> Command;
}

/// The instance runs directly on the host.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bare;

impl Runtime for Bare {
    fn command(&self, spec: &InstanceSpec, group: Option<&SlotGroup>) -> Command {
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let fds: Vec<i32> = group.map(|g| g.procs_files().iter().map(|f| f.as_raw_fd()).collect()).unwrap_or_default();
        if let Some(g) = group {
            cmd.env(vars::CGROUP, g.display_path());
        }
        // SAFETY: the hook runs between fork and exec and only makes
        // async-signal-safe calls (write, prctl) on memory prepared before the fork.
        unsafe {
            cmd.pre_exec(move || {
                for &fd in &fds {
                    // Writing 0 to cgroup.procs moves the writing process itself.
                    if nix::libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                // The instance dies with the launcher, whatever kills it.
                if nix::libc::prctl(nix::libc::PR_SET_PDEATHSIG, nix::libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd
    }
}
