//! An instance that is a process of the launcher (bare, or the `exec` of
//! Singularity/Apptainer): placed in its slot's cgroup before it executes
//! anything, in a process group of its own, dying with the launcher.

use super::{pump, End, Output, Running, Started, Stream};
use crate::isolation::SlotGroup;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread::JoinHandle;

/// A running instance process and the threads reading its output.
pub struct Process {
    child: Child,
    pumps: Vec<JoinHandle<()>>,
}

/// Starts `cmd` as an instance (see [`spawn`]); the error names its program.
pub fn start(cmd: Command, group: Option<&SlotGroup>, output: Arc<dyn Output>) -> Started {
    let program = cmd.get_program().to_string_lossy().into_owned();
    spawn(cmd, group, output)
        .map(|p| Box::new(p) as Box<dyn Running>)
        .map_err(|e| format!("cannot start {program}: {e}"))
}

/// Spawns `cmd` as an instance: stdin closed, stdout and stderr read into
/// `output`, its own process group, moved into `group` between fork and exec.
fn spawn(mut cmd: Command, group: Option<&SlotGroup>, output: Arc<dyn Output>) -> std::io::Result<Process> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let fds: Vec<i32> = group.map(|g| g.procs_files().iter().map(|f| f.as_raw_fd()).collect()).unwrap_or_default();
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
    let mut child = cmd.spawn()?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let out = Arc::clone(&output);
    let pumps = vec![
        std::thread::spawn(move || pump(out.as_ref(), Stream::Stdout, stdout)),
        std::thread::spawn(move || pump(output.as_ref(), Stream::Stderr, stderr)),
    ];
    Ok(Process { child, pumps })
}

impl Running for Process {
    fn poll(&mut self) -> Option<End> {
        let status = self.child.try_wait().ok()??;
        self.kill(); // whatever it left behind in its process group
        Some(End { code: status.code(), signal: status.signal(), ..End::default() })
    }

    fn drain(&mut self) {
        for pump in self.pumps.drain(..) {
            let _ = pump.join();
        }
    }

    fn kill(&mut self) {
        let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
    }
}
