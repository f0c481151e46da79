//! The signals that stop `mlb prepare`: Ctrl-C (SIGINT), SIGTERM and a
//! hang-up (SIGHUP: a closed terminal, a dropped ssh session) set a flag;
//! the writers look at it between two files (and two windows of a large
//! file's chunks), so the run stops soon, leaving its partial folder to
//! resume from, and exits 130.
//!
//! A handler is installed even where the signal was ignored when mlb
//! started (a shell starts a background job with SIGINT ignored, so that a
//! `kill -INT` once did nothing), except a hang-up ignored at the start:
//! that is `nohup` asking for the run to outlive its terminal.

use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Installs the handlers; the flag turns true on any of the signals.
pub fn install() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        if signal == Signal::SIGHUP && ignored(signal)? {
            continue;
        }
        signal_hook::flag::register(signal as i32, Arc::clone(&flag))?;
    }
    Ok(flag)
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
