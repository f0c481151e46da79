//! Ctrl-C and SIGTERM: set a flag the run loop watches, so that instances
//! are stopped, groups removed and the result lines so far written.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Installs the handlers; the flag turns true on SIGINT or SIGTERM.
pub fn install() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&flag))?;
    }
    Ok(flag)
}
