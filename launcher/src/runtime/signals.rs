//! The signals that stop a run: Ctrl-C, SIGTERM, a hang-up (an ssh session
//! or terminal closed) and the two user signals, whose default action would
//! kill the launcher at once and leave its instances, groups and lock
//! behind. Each sets a flag the run loop watches, so that instances are
//! stopped, groups removed and the result lines so far written, as for
//! Ctrl-C; the run then exits 130.
//!
//! SIGPIPE needs no handler: Rust's runtime ignores it, so a write to a
//! closed pipe fails with `EPIPE`, which the launcher's printing swallows.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The signals that stop a run.
pub const STOPPING: [i32; 5] = [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2];

/// Installs the handlers; the flag turns true on any of [`STOPPING`].
pub fn install() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in STOPPING {
        signal_hook::flag::register(signal, Arc::clone(&flag))?;
    }
    Ok(flag)
}
