//! The signals that stop a run or a `mlb prepare`: Ctrl-C, `Ctrl-\`
//! (SIGQUIT), SIGTERM, a hang-up (an ssh session or terminal closed) and
//! the two user signals, whose default action would kill mlb at once (a
//! SIGQUIT with a core dump) and leave its instances,
//! groups, lock or half-written files behind. Each sets a flag the run loop
//! (or the writers of `mlb prepare`, between two files) watches, so that
//! instances are stopped, groups removed and what is owed written, as for
//! Ctrl-C; mlb then exits 130.
//!
//! A handler is installed even where the signal was ignored when mlb
//! started (a shell starts a background job with SIGINT ignored, so that a
//! `kill -INT` once did nothing), except a hang-up ignored at the start:
//! that is `nohup` asking for the run to outlive its terminal.
//!
//! SIGPIPE needs no handler: Rust's runtime ignores it, so a write to a
//! closed pipe fails with `EPIPE`, which mlb's printing swallows.

use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The signals that stop a run.
pub const STOPPING: [Signal; 6] =
    [Signal::SIGINT, Signal::SIGQUIT, Signal::SIGTERM, Signal::SIGHUP, Signal::SIGUSR1, Signal::SIGUSR2];

/// Installs the handlers; the flag turns true on any of [`caught`].
pub fn install() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in caught()? {
        signal_hook::flag::register(signal as i32, Arc::clone(&flag))?;
    }
    Ok(flag)
}

/// The signals of [`STOPPING`] mlb catches: all but a hang-up ignored at
/// the start (`nohup`).
pub fn caught() -> std::io::Result<Vec<Signal>> {
    let mut signals = Vec::with_capacity(STOPPING.len());
    for signal in STOPPING {
        if signal != Signal::SIGHUP || !ignored(signal)? {
            signals.push(signal);
        }
    }
    Ok(signals)
}

/// Whether `signal` is ignored (its disposition, as inherited).
fn ignored(signal: Signal) -> std::io::Result<bool> {
    let ignore = SigAction::new(SigHandler::SigIgn, SaFlags::empty(), SigSet::empty());
    // SAFETY: the disposition is read by setting "ignore" and put back at
    // once; no handler of Rust code is installed here.
    let before = unsafe { sigaction(signal, &ignore)? };
    // SAFETY: as above: the disposition read is restored as it was.
    unsafe { sigaction(signal, &before)? };
    Ok(before.handler() == SigHandler::SigIgn)
}
