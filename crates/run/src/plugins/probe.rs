//! One probe: `mlb worker --describe FILE` in a child process, for a file
//! whose manifest cannot say what it exports (or for `--verify`), so that a
//! library whose initialisers crash, hang or abort cannot take mlb down.
//!
//! A probe is bounded whatever its initialisers do. Its output is read as
//! it comes and no longer than the probe lives (a copy it forked may keep
//! its pipes open for ever); it is killed at its timeout or when mlb is
//! interrupted. Every process it started is then found by a mark in its
//! environment ([`crate::linux::marked`]), whatever its session or parent,
//! and killed: a library that leaves one running is refused, naming it.

use super::listing::{Status, PROBE_TIMEOUT_ENV};
use crate::console::Console;
use crate::linux::marked::{kill_marked, Killed};
use mlb_plugin::manifest::PluginMeta;
use mlb_record::contract::env;
use std::io::Read;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The variable marking the processes of one probe: `PID-N`, this process
/// and the probe's number in it.
pub const PROBE_MARK_ENV: &str = "MLB_PROBE_MARK";

/// Most of a probe's stdout and of its stderr kept (what comes after is
/// read and dropped, so that the probe never blocks on a full pipe).
const KEPT: usize = 1 << 20;

/// How often a probe is looked at.
const POLL: Duration = Duration::from_millis(5);

/// The number of the next probe of this process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// How a probe ended.
#[derive(Debug)]
pub enum Probed {
    /// It ended (or was killed at its timeout): the statuses of its file.
    Done(Vec<Status>),
    /// `interrupt` was set: it was killed, with what it started.
    Interrupted,
}

/// Runs `mlb worker --describe path` (trust already checked) for at most
/// `timeout`, or until `interrupt` is set: one status per workload the
/// library exports, or why it is refused. `library_path` is a folder the
/// probe gets in front of its `LD_LIBRARY_PATH`, as a worker of the library
/// would (its libtorch's, found through python3: `super::libtorch`).
pub fn probe(
    mlb: &Path,
    path: &Path,
    library_path: Option<&Path>,
    timeout: Duration,
    interrupt: &AtomicBool,
) -> Probed {
    let refused = |reason: String| Probed::Done(vec![Status::Refused { reason }]);
    let mark = format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let inherited = std::env::var(env::LD_LIBRARY_PATH).ok();
    let child = Command::new(mlb)
        .arg("worker")
        .arg("--describe")
        .arg(path)
        .env(PROBE_MARK_ENV, &mark)
        .envs(library_path.map(|dir| env::library_path(dir, inherited.as_deref())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return refused(format!("cannot start probe {}: {e}", mlb.display())),
    };
    let ended = watch(&mut child, path, timeout, interrupt);
    let left = kill_marked(PROBE_MARK_ENV, &mark);
    let (status, stdout, stderr) = match ended {
        Ended::Interrupted => return Probed::Interrupted,
        Ended::Hung => {
            let hung = format!(
                "{} did not finish loading within {} s (an initialiser hangs?) and was refused{}",
                path.display(),
                timeout.as_secs(),
                left_words(&left).map(|w| format!("; it {w}")).unwrap_or_default(),
            );
            Console::Err.line(&format!("mlb: warning: {hung}"));
            return refused(format!("{hung}; fix: give it a manifest (build it with mlb-plugin's `export_workload!`), remove it from the plugin folders, or raise {PROBE_TIMEOUT_ENV}"));
        }
        Ended::Exited { status, stdout, stderr } => (status, stdout, stderr),
    };
    if let Some(words) = left_words(&left) {
        let reason = format!("{} {words}; a plugin's initialisers must not start processes", path.display());
        Console::Err.line(&format!("mlb: warning: {reason}"));
        return refused(format!("{reason}; fix: remove it from the plugin folders"));
    }
    Probed::Done(statuses(path, status, &stdout, &stderr))
}

/// What a library left running, in words (`left 1 process running after
/// loading: pid 42 (sleep), killed`); `None` when nothing.
fn left_words(left: &[Killed]) -> Option<String> {
    if left.is_empty() {
        return None;
    }
    let pids: Vec<String> = left.iter().map(|k| format!("pid {} ({})", k.pid, k.command)).collect();
    let (n, s) = (left.len(), if left.len() == 1 { "" } else { "es" });
    Some(format!("left {n} process{s} running after loading: {}, killed", pids.join(", ")))
}

/// How the probe process ended.
enum Ended {
    /// It exited, with what it printed.
    Exited { status: ExitStatus, stdout: Vec<u8>, stderr: Vec<u8> },
    /// Still running at its timeout: killed.
    Hung,
    /// Killed on an interrupt.
    Interrupted,
}

/// Reads the probe's output while it runs and waits for it, killing it at
/// `timeout` or on `interrupt`. Its output is read to its end only as far as
/// the probe wrote it: once it has exited, what is in its pipes is taken,
/// and a copy that keeps them open is not waited for.
fn watch(child: &mut Child, path: &Path, timeout: Duration, interrupt: &AtomicBool) -> Ended {
    let mut out = Pipe::new(child.stdout.take());
    let mut err = Pipe::new(child.stderr.take());
    let started = Instant::now();
    // Past a quarter of the timeout the wait is worth a word.
    let mut quiet = true;
    loop {
        out.drain();
        err.drain();
        let stop = match child.try_wait() {
            Ok(Some(status)) => {
                // What it wrote before it exited is in the pipes now.
                out.drain();
                err.drain();
                return Ended::Exited { status, stdout: out.kept, stderr: err.kept };
            }
            Ok(None) if interrupt.load(Ordering::Relaxed) => Ended::Interrupted,
            Ok(None) if started.elapsed() < timeout => {
                if quiet && started.elapsed() >= timeout / 4 {
                    quiet = false;
                    Console::Err.line(&format!(
                        "mlb: still loading {} to learn which workloads it exports; refused if not done within {} s",
                        path.display(),
                        timeout.as_secs()
                    ));
                }
                std::thread::sleep(POLL);
                continue;
            }
            Ok(None) | Err(_) => Ended::Hung,
        };
        let _ = child.kill();
        let _ = child.wait();
        return stop;
    }
}

/// One of the probe's output pipes, read without blocking.
struct Pipe<R> {
    pipe: Option<R>,
    kept: Vec<u8>,
}

impl<R: Read + AsRawFd> Pipe<R> {
    fn new(pipe: Option<R>) -> Pipe<R> {
        if let Some(p) = &pipe {
            let fd: RawFd = p.as_raw_fd();
            let flags = nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_GETFL).unwrap_or(0);
            let nonblocking = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
            let _ = nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_SETFL(nonblocking));
        }
        Pipe { pipe, kept: Vec::new() }
    }

    /// Reads what is there now; at its end (or an error) the pipe is closed.
    fn drain(&mut self) {
        let mut buf = [0u8; 8192];
        while let Some(p) = &mut self.pipe {
            match p.read(&mut buf) {
                Ok(0) => self.pipe = None,
                Ok(n) => self.kept.extend_from_slice(&buf[..n.min(KEPT.saturating_sub(self.kept.len()))]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => self.pipe = None,
            }
        }
    }
}

/// What a probe that exited says of `path`.
fn statuses(path: &Path, status: ExitStatus, stdout: &[u8], stderr: &[u8]) -> Vec<Status> {
    let refused = |reason: String| vec![Status::Refused { reason }];
    if status.success() {
        // One JSON object per line, one line per workload.
        let metas: Result<Vec<PluginMeta>, _> = String::from_utf8_lossy(stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str::<PluginMeta>)
            .collect();
        return match metas {
            Ok(metas) if !metas.is_empty() => metas.into_iter().map(|meta| Status::Ok { meta }).collect(),
            Ok(_) => refused("probe printed no metadata".into()),
            Err(e) => refused(format!("probe printed no metadata: {e}")),
        };
    }
    let stderr = String::from_utf8_lossy(stderr).trim().to_string();
    let reason = match status.signal() {
        Some(sig) => format!("{} crashed while loading (signal {sig}) {stderr}", path.display()).trim().to_string(),
        None => stderr.lines().last().unwrap_or("probe failed without a message").to_string(),
    };
    refused(reason)
}
