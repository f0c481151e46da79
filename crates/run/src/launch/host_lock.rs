//! One run at a time on a host. Two runs at once would share the host's CPUs
//! and devices and measure each other, so a run holds an exclusive `flock`
//! on the host lock file from before it makes any group until it ends. The
//! kernel releases the lock when the process ends, however it ends (SIGKILL
//! included): a lock file left behind never blocks a later run.
//!
//! The holder writes who it is into the file: a run refused reads it to name
//! the run in its way, and the next holder reads it to find the groups of a
//! run that could not remove them (killed by SIGKILL). What is read back is
//! checked first: a run name that is not one mlb makes ([`run_name`]) could
//! lead that search out of mlb's groups, and is ignored with a warning. The
//! lock file is opened without following a symbolic link, and refused when
//! it is not a regular file: the run writes into it.

use super::error::LaunchError;
use super::run_name;
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The host lock of every run that is not pointed at another (`MLB_LOCK`).
pub const HOST_LOCK: &str = "/run/mlb/launch.lock";

/// How often a waiting run tries the lock again.
const RETRY: Duration = Duration::from_millis(100);

/// How often a waiting run says it still waits.
const REMIND: Duration = Duration::from_secs(60);

/// The run holding the lock, as it wrote itself into the lock file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// The launcher's pid.
    pub pid: u32,
    /// When it took the lock (local time).
    pub started: String,
    /// Its output folder.
    pub outdir: PathBuf,
    /// Its run name: its groups are `mlb-<run>`.
    pub run: String,
}

impl Holder {
    /// This process, starting the run `run` into `outdir`.
    pub fn this_run(outdir: &Path, run: &str) -> Holder {
        Holder {
            pid: std::process::id(),
            started: chrono::Local::now().format("%Y-%m-%d %H:%M:%S%:z").to_string(),
            outdir: outdir.to_path_buf(),
            run: run.to_string(),
        }
    }
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pid {}, output folder {}, started {}", self.pid, self.outdir.display(), self.started)
    }
}

/// The host lock, held until dropped or the process ends.
#[derive(Debug)]
pub struct HostLock {
    _file: Flock<File>,
}

/// What asking for the lock gave.
#[derive(Debug)]
pub enum Taken {
    /// This run holds the host; `previous` is the last run that held it.
    Held {
        /// The lock.
        lock: HostLock,
        /// The run that held it before, as it wrote itself.
        previous: Option<Holder>,
    },
    /// Ctrl-C/SIGTERM came while waiting for it.
    Interrupted,
    /// The lock file cannot be opened (mlb not run as root): the run goes
    /// on without it.
    Unguarded(std::io::Error),
}

/// Takes the lock `path` for the run `me`. When another run holds it: with
/// `wait`, tries again until it is free (saying so through `say` at once,
/// then every minute) or `interrupt` is set; without, refuses, naming that run.
/// A lock file that is not a regular file is refused; a run name read back
/// that mlb does not make is said through `say` and not returned.
pub fn take(
    path: &Path,
    me: &Holder,
    wait: bool,
    interrupt: &AtomicBool,
    say: &dyn Fn(&str),
) -> Result<Taken, LaunchError> {
    let mut file = match open(path)? {
        Ok(f) => f,
        Err(e) => return Ok(Taken::Unguarded(e)),
    };
    let since = Instant::now();
    let mut next_word = since;
    loop {
        file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(mut locked) => {
                let previous = read(&mut locked).filter(|h| {
                    let valid = run_name::is_valid(&h.run);
                    if !valid {
                        say(&format!(
                            "mlb: warning: the host lock {} names the run {:?}, which is not a run name mlb makes \
                             (SUITE-PID-YYYYMMDDHHMMSS); its groups are not looked for; fix: remove the lock file if mlb \
                             did not write it",
                            path.display(),
                            h.run
                        ));
                    }
                    valid
                });
                write(&mut locked, me).map_err(|source| LaunchError::Io { path: path.to_path_buf(), source })?;
                return Ok(Taken::Held { lock: HostLock { _file: locked }, previous });
            }
            Err((f, Errno::EWOULDBLOCK)) => f,
            Err((_, errno)) => return Ok(Taken::Unguarded(errno.into())),
        };
        let holder = read(&mut file).map_or_else(|| "a run that has not yet said who it is".into(), |h| h.to_string());
        if !wait {
            return Err(LaunchError::Busy { lock: path.to_path_buf(), holder });
        }
        if interrupt.load(Ordering::Relaxed) {
            return Ok(Taken::Interrupted);
        }
        if Instant::now() >= next_word {
            say(&if next_word == since {
                format!("mlb: waiting for another mlb run to end (--wait): {holder} (lock {})", path.display())
            } else {
                format!(
                    "mlb: still waiting for another mlb run to end ({} min so far): {holder}",
                    since.elapsed().as_secs() / 60
                )
            });
            next_word = Instant::now() + REMIND;
        }
        std::thread::sleep(RETRY);
    }
}

/// Opens (creates, with its folder) the lock file, not through a symbolic
/// link (nor blocking on a FIFO). A file that cannot be opened or made (not
/// root) is the inner error; one that is not a regular file is refused.
fn open(path: &Path) -> Result<std::io::Result<File>, LaunchError> {
    let refused = |what| LaunchError::LockNotAFile { lock: path.to_path_buf(), what };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return Ok(Err(e));
        }
    }
    let opened = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path);
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.raw_os_error() == Some(nix::libc::ELOOP) => return Err(refused("a symbolic link")),
        Err(e) if e.raw_os_error() == Some(nix::libc::EISDIR) => return Err(refused("a folder")),
        Err(e) => return Ok(Err(e)),
    };
    let kind = match file.metadata() {
        Ok(m) => m.file_type(),
        Err(e) => return Ok(Err(e)),
    };
    // A folder cannot be opened for writing, nor a link without following it.
    Err(refused(match () {
        _ if kind.is_file() => return Ok(Ok(file)),
        _ if kind.is_fifo() => "a FIFO",
        _ if kind.is_socket() => "a socket",
        _ => "a device",
    }))
}

/// The run the lock file names, if it names one.
fn read(file: &mut File) -> Option<Holder> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}

/// Names `me` in the lock file, in place of the run before.
fn write(file: &mut File, me: &Holder) -> std::io::Result<()> {
    file.set_len(0)?;
    file.rewind()?;
    let text = serde_json::to_string(me).expect("a holder serialises");
    file.write_all(format!("{text}\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn holder(pid: u32, run: &str) -> Holder {
        Holder { pid, started: "2025-01-01 10:00:00+00:00".into(), outdir: "/out".into(), run: run.into() }
    }

    fn held(taken: Taken) -> (HostLock, Option<Holder>) {
        match taken {
            Taken::Held { lock, previous } => (lock, previous),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn one_holder_at_a_time_the_next_learns_who_held_it_before() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/launch.lock");
        let quiet = |_: &str| {};
        let never = AtomicBool::new(false);
        let (first, previous) = held(take(&path, &holder(1, "a-1-20250101100000"), false, &never, &quiet).unwrap());
        assert_eq!(previous, None, "a new lock file names nobody");
        let busy = take(&path, &holder(2, "b-2-20250101100000"), false, &never, &quiet).unwrap_err();
        assert_eq!(
            mlb_record::fix::one_line(&busy),
            format!(
                "another mlb run holds this host: pid 1, output folder /out, started 2025-01-01 10:00:00+00:00 (lock {}); \
                 two runs at once would share its CPUs and devices and measure each other; \
                 fix: pass --wait to start once it has ended, or stop it",
                path.display()
            )
        );
        drop(first);
        let (_second, previous) = held(take(&path, &holder(2, "b-2-20250101100000"), false, &never, &quiet).unwrap());
        assert_eq!(previous, Some(holder(1, "a-1-20250101100000")), "the file stays; the lock does not");
    }

    #[test]
    fn a_waiting_run_says_so_once_and_stops_on_an_interrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("launch.lock");
        let never = AtomicBool::new(false);
        let _first = held(take(&path, &holder(1, "a-1-20250101100000"), false, &never, &|_| {}).unwrap());
        let said = RefCell::new(Vec::new());
        let interrupt = AtomicBool::new(false);
        let say = |text: &str| {
            said.borrow_mut().push(text.to_string());
            // The interrupt comes while it waits.
            interrupt.store(true, Ordering::Relaxed);
        };
        let taken = take(&path, &holder(2, "b-2-20250101100000"), true, &interrupt, &say).unwrap();
        assert!(matches!(taken, Taken::Interrupted), "{taken:?}");
        assert_eq!(said.borrow().len(), 1);
        assert!(
            said.borrow()[0].starts_with("mlb: waiting for another mlb run to end (--wait): pid 1, output folder /out")
        );
    }

    #[test]
    fn a_lock_file_that_cannot_be_made_leaves_the_run_unguarded() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let taken = take(&file.join("launch.lock"), &holder(1, "a"), false, &AtomicBool::new(false), &|_| {});
        assert!(matches!(taken, Ok(Taken::Unguarded(_))), "{taken:?}");
    }
}
