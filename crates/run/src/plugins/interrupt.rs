//! Ctrl-C while plugins are probed. Probing comes before a launch installs
//! its own handlers, and `mlb plugins list` has none: the signal's default
//! action would end mlb at once and leave the probes, and what they started,
//! running. While [`Interrupt`] lives, the signals that stop a run
//! ([`signals::caught`]) only set its flag, which the probes watch; what
//! the signals did before is put back when it is dropped.

use crate::console::Console;
use crate::runtime::signals;
use mlb_record::exit::EXIT_INTERRUPTED;
use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the handler: the probes stop.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn interrupted(_: nix::libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// The handlers of probing, installed until dropped.
pub struct Interrupt {
    /// Set once a signal came.
    pub flag: &'static AtomicBool,
    before: Vec<(Signal, SigAction)>,
}

impl Interrupt {
    /// Installs the handlers (a signal that cannot be handled keeps its
    /// action).
    pub fn watch() -> Interrupt {
        INTERRUPTED.store(false, Ordering::Relaxed);
        let action = SigAction::new(SigHandler::Handler(interrupted), SaFlags::SA_RESTART, SigSet::empty());
        // Reading a disposition cannot fail but for a bad signal number.
        let caught = signals::caught().unwrap_or_else(|_| signals::STOPPING.to_vec());
        let before = caught
            .into_iter()
            // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
            .filter_map(|s| unsafe { sigaction(s, &action) }.ok().map(|old| (s, old)))
            .collect();
        Interrupt { flag: &INTERRUPTED, before }
    }

    /// Ends mlb as interrupted (status 130), the probes and what they
    /// started being killed already.
    pub fn end_mlb(self) -> ! {
        drop(self);
        Console::Err.line("mlb: interrupted while loading plugins; nothing was started");
        std::process::exit(EXIT_INTERRUPTED)
    }
}

impl Drop for Interrupt {
    fn drop(&mut self) {
        for (signal, old) in &self.before {
            // SAFETY: puts back the action that was there before.
            let _ = unsafe { sigaction(*signal, old) };
        }
    }
}
