//! What `mlb prepare` holds while it checks and writes, so that it never
//! runs beside what it would disturb or be disturbed by:
//!
//! - the host lock of benchmark runs ([`host_lock`], `MLB_LOCK` or
//!   `--lock` in tests): a prepare takes the CPUs and the disk a run
//!   measures, so while a run holds the host a prepare is refused (or waits
//!   with `--wait`), and a run started during a prepare is refused as
//!   beside another run. Holding it, a prepare removes the groups the run
//!   before left (killed by SIGKILL), as the next run would have. A user who
//!   cannot open the host lock (not root) prepares unguarded, as a run does;
//! - a lock on the data folder (`.mlb-prepare.lock` in it): two prepares
//!   into one base would empty each other's partial folders.
//!
//! Both are `flock`s the kernel releases however the process ends; each
//! names its holder for the one refused.

use super::error::PrepareError;
use mlb_run::console::Console;
use mlb_run::isolation::support;
use mlb_run::launch::host_lock::{self, Holder, HostLock, Taken};
use mlb_run::launch::run_name;
use mlb_run::launch::{remove_left_groups, LaunchError};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// The lock file of a data folder, in it.
pub const FILE_NAME: &str = ".mlb-prepare.lock";

/// The locks a prepare holds until dropped.
#[derive(Debug)]
pub struct Held {
    _host: Option<HostLock>,
    _data: HostLock,
}

/// The host lock, then the lock of the data folder `data`; `None` when
/// interrupted while waiting for either. Without `wait`, a lock held by
/// another is refused, naming the holder.
pub fn take(
    data: &Path,
    host: Option<&Path>,
    wait: bool,
    interrupt: &AtomicBool,
) -> Result<Option<Held>, PrepareError> {
    let me = Holder::this_run(data, &run_name::new("prepare"));
    let say = |text: &str| Console::Err.line(text);
    let host = host.map_or_else(|| PathBuf::from(host_lock::HOST_LOCK), Path::to_path_buf);
    let host = match host_lock::take(&host, &me, wait, interrupt, &say).map_err(Box::new)? {
        Taken::Held { lock, previous } => {
            // The lock file named the run before, for the next run to find
            // the groups it could not remove (killed by SIGKILL); it names
            // this prepare now, so those groups are removed here.
            let cgroups = support::probe(Path::new("/"), nix::unistd::Uid::effective().as_raw()).root();
            if let (Some(previous), Ok(root)) = (previous, cgroups) {
                remove_left_groups(&root, &previous);
            }
            Some(lock)
        }
        Taken::Unguarded(_) => None,
        Taken::Interrupted => return Ok(None),
    };
    let path = data.join(FILE_NAME);
    // The lock file is mlb's: a link planted in its place is removed, not followed.
    if path.is_symlink() {
        std::fs::remove_file(&path).map_err(|source| PrepareError::Write { path: path.clone(), source })?;
    }
    let data_lock = match host_lock::take(&path, &me, wait, interrupt, &say) {
        Ok(Taken::Held { lock, .. }) => lock,
        Ok(Taken::Interrupted) => return Ok(None),
        Ok(Taken::Unguarded(source)) => return Err(PrepareError::Write { path, source }),
        Err(LaunchError::Busy { holder, .. }) => {
            return Err(PrepareError::DataBusy { data: data.to_path_buf(), holder, lock: path })
        }
        Err(e) => return Err(Box::new(e).into()),
    };
    Ok(Some(Held { _host: host, _data: data_lock }))
}
