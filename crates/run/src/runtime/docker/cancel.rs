//! Stopping running instances from another thread (Ctrl-C, SIGTERM).

use std::sync::Arc;
use tokio::sync::watch;

/// A cancel switch shared by the launcher and the instances it runs: once
/// [`Cancel::cancel`] is called, every [`Docker::run`](super::Docker::run)
/// holding a clone kills and removes its container and returns
/// [`Exit::Cancelled`](super::Exit::Cancelled). Cheap to clone; callable
/// from any thread (not from inside a signal handler: call it from the
/// thread that receives the signal, e.g. a `signal-hook` iterator).
#[derive(Clone, Debug)]
pub struct Cancel(Arc<watch::Sender<bool>>);

impl Default for Cancel {
    fn default() -> Self {
        Cancel(Arc::new(watch::Sender::new(false)))
    }
}

impl Cancel {
    /// A switch not yet pulled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Pulls the switch.
    pub fn cancel(&self) {
        self.0.send_replace(true);
    }

    /// Whether the switch was pulled.
    pub fn is_cancelled(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once the switch is pulled (at once if it already was).
    pub(super) async fn cancelled(&self) {
        let mut rx = self.0.subscribe();
        // The sender lives in `self`, so the channel cannot close while waiting.
        let _ = rx.wait_for(|pulled| *pulled).await;
    }
}
