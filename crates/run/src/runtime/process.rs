//! An instance that is a process of the launcher (bare, or the `exec` of
//! Singularity/Apptainer): placed in its slot's cgroup before it executes
//! anything, in a process group of its own, dying with the launcher.
//!
//! When it ends, what it left in its process group is killed; what left the
//! group (`setsid`, a daemon) is found by the mark every instance carries in
//! its environment ([`INSTANCE_MARK_ENV`]), killed and named in what the
//! instance's line says of its end; what still holds its output open is
//! killed once a grace for reading that output has passed.

use super::holders::{self, Holder};
use super::{pump, End, Output, Running, RuntimeError, Started, Stream};
use crate::isolation::SlotGroup;
use crate::linux::marked::{self, Killed};
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the output readers get to end once what held the output open
/// was killed, before they are left to end on their own.
const SETTLE: Duration = Duration::from_millis(500);

/// The variable marking the processes of one instance: `PID-N`, the
/// launcher and the instance's number in it.
pub const INSTANCE_MARK_ENV: &str = "MLB_INSTANCE_MARK";

/// The number of the next instance process of this launcher.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A running instance process and the threads reading its output.
pub struct Process {
    child: Child,
    pumps: Vec<JoinHandle<()>>,
    /// Inodes of its stdout and stderr pipes.
    pipes: Vec<u64>,
    /// The value of its [`INSTANCE_MARK_ENV`].
    mark: String,
    /// What it left running outside its process group, killed once it ended.
    left: Vec<Killed>,
}

/// Starts `cmd` as an instance (see [`spawn`]); the error names its program.
pub fn start(cmd: Command, group: Option<&SlotGroup>, output: Arc<dyn Output>) -> Started {
    let program = cmd.get_program().to_string_lossy().into_owned();
    spawn(cmd, group, output)
        .map(|p| Box::new(p) as Box<dyn Running>)
        .map_err(|source| RuntimeError::Spawn { program, source })
}

/// Spawns `cmd` as an instance: stdin closed, stdout and stderr read into
/// `output`, its own process group, moved into `group` between fork and exec.
fn spawn(mut cmd: Command, group: Option<&SlotGroup>, output: Arc<dyn Output>) -> std::io::Result<Process> {
    let mark = format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    cmd.env(INSTANCE_MARK_ENV, &mark);
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
    let pipes = [holders::pipe_inode(&stdout), holders::pipe_inode(&stderr)].into_iter().flatten().collect();
    let out = Arc::clone(&output);
    let pumps = vec![
        std::thread::spawn(move || pump(out.as_ref(), Stream::Stdout, stdout)),
        std::thread::spawn(move || pump(output.as_ref(), Stream::Stderr, stderr)),
    ];
    Ok(Process { child, pumps, pipes, mark, left: Vec::new() })
}

impl Running for Process {
    fn poll(&mut self) -> Option<End> {
        let status = self.child.try_wait().ok()??;
        self.kill(); // whatever it left behind in its process group
        let group = self.child.id() as i32;
        self.left = marked::kill_marked_outside(INSTANCE_MARK_ENV, &self.mark, Some(group));
        Some(End::Exit { code: status.code(), signal: status.signal(), oom_killed: false })
    }

    fn drain(&mut self, until: Instant, interrupt: &AtomicBool) -> Option<String> {
        let left = left_running(&self.left);
        let held = self.drain_output(until, interrupt);
        match (left, held) {
            (Some(left), Some(held)) => Some(format!("{left}; {held}")),
            (left, held) => left.or(held),
        }
    }

    fn kill(&mut self) {
        let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
    }
}

impl Process {
    /// Waits for its output as [`Running::drain`] says: `None` when it was
    /// read to its end, else what held it open.
    fn drain_output(&mut self, until: Instant, interrupt: &AtomicBool) -> Option<String> {
        if self.read_to_end(until, Some(interrupt)) {
            return None;
        }
        // It ended, but something it left outside its process group may
        // hold its output open: that is killed, and the readers are not
        // waited for past a short while.
        let held = holders::holders(&self.pipes);
        for h in &held {
            let _ = kill(Pid::from_raw(h.pid), Signal::SIGKILL);
        }
        let ended = self.read_to_end(Instant::now() + SETTLE, None);
        if !ended {
            self.pumps.clear();
        }
        // Without a holder, an output that ended meanwhile only had its wait cut short.
        (!held.is_empty() || !ended).then(|| held_open(&held))
    }

    /// Waits until its output is read to the end (true), at most until
    /// `until`, and not past `interrupt` when given.
    fn read_to_end(&mut self, until: Instant, interrupt: Option<&AtomicBool>) -> bool {
        while !self.pumps.iter().all(JoinHandle::is_finished) {
            if Instant::now() >= until || interrupt.is_some_and(|i| i.load(Ordering::Relaxed)) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        for pump in self.pumps.drain(..) {
            let _ = pump.join();
        }
        true
    }
}

/// What the launcher says of the processes `left` running outside its
/// process group when the instance ended (killed since); `None` when none.
fn left_running(left: &[Killed]) -> Option<String> {
    if left.is_empty() {
        return None;
    }
    let who: Vec<String> = left.iter().map(|k| format!("pid {} ({})", k.pid, k.command)).collect();
    let s = if left.len() == 1 { "" } else { "es" };
    Some(format!("it left {} process{s} running after it ended: {}, killed", left.len(), who.join(", ")))
}

/// What the launcher says of output held open by `held` after the instance ended.
fn held_open(held: &[Holder]) -> String {
    if held.is_empty() {
        return "its output was held open after it ended by a process mlb cannot see: no longer read".into();
    }
    let who: Vec<String> = held.iter().map(Holder::to_string).collect();
    format!("its output was held open after it ended by {}: killed", who.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes its time over each line, as a reader behind a slow disk would.
    struct Slow;

    impl Output for Slow {
        fn line(&self, _: Stream, _: &str) {
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Drops every line.
    struct Quiet;

    impl Output for Quiet {
        fn line(&self, _: Stream, _: &str) {}
    }

    /// Starts `sh -c SCRIPT` and waits for the shell to end (its process
    /// group left as it is).
    fn ended(script: &str, output: Arc<dyn Output>) -> Process {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        let mut p = spawn(cmd, None, output).unwrap();
        while p.child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(5));
        }
        p
    }

    #[test]
    fn a_process_left_holding_the_output_is_killed_once_the_grace_is_over_and_named() {
        let mut p = ended("sleep 300 & echo started", Arc::new(Quiet));
        let note = p.drain(Instant::now() + Duration::from_millis(300), &AtomicBool::new(false)).unwrap();
        let held =
            note.strip_prefix("its output was held open after it ended by pid ").unwrap_or_else(|| panic!("{note}"));
        assert!(held.ends_with(" (sleep): killed"), "{note}");
        let pid: i32 = held.split(' ').next().unwrap().parse().unwrap();
        assert!(!std::path::Path::new(&format!("/proc/{pid}/fd/1")).exists(), "killed: {note}");
    }

    #[test]
    fn an_interrupt_cuts_the_wait_short_and_an_output_that_then_ends_is_no_leftover() {
        let mut p = ended("echo one", Arc::new(Slow));
        let cut = Instant::now();
        assert_eq!(p.drain(Instant::now() + Duration::from_secs(60), &AtomicBool::new(true)), None);
        assert!(cut.elapsed() < SETTLE, "{:?}", cut.elapsed());
    }
}
