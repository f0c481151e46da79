//! How an instance is started and watched. `Bare` runs the command on the
//! host; the container runtimes (`docker`, `singularity`) plug in behind the
//! same traits, so supervision and recording are shared.

use super::lines::Lines;
use super::process;
use crate::isolation::SlotGroup;
use crate::plan::InstanceSpec;
use std::process::Command;
use std::sync::Arc;

/// How a started instance ended, as far as its runtime knows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct End {
    /// Its exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that killed it.
    pub signal: Option<i32>,
    /// The runtime saw an OOM kill (Docker's `OOMKilled`).
    pub oom_killed: bool,
    /// The runtime failed to run it (e.g. the daemon refused a request).
    pub error: Option<String>,
}

/// A started instance, or why it could not start.
pub type Started = Result<Box<dyn Running>, String>;

/// A started instance.
pub trait Running: Send {
    /// Its end, once it has ended; `None` while it runs.
    fn poll(&mut self) -> Option<End>;
    /// After its end (and once whatever it left in its slot's group is
    /// killed): waits until its output has been read to the end.
    fn drain(&mut self) {}
    /// Kills it (timeout, Ctrl-C/SIGTERM); `poll` then reports its end.
    fn kill(&mut self);
}

/// Starts instances.
pub trait Runtime: Sync {
    /// Starts `spec`, placed in `group` (when given) before it executes
    /// anything; its output lines go to `lines`. The error says why it could not start.
    fn start(
        &self,
        spec: &InstanceSpec,
        group: Option<&SlotGroup>,
        lines: Arc<Lines>,
    ) -> Result<Box<dyn Running>, String>;

    /// Whether the instances' output is also echoed on the terminal.
    fn echoes(&self) -> bool {
        false
    }

    /// Cleans up at the end of the run, on every exit path (Docker: removes
    /// any container of the run still present); returns a warning, if any.
    fn finish(&self) -> Option<String> {
        None
    }

    /// The container every instance runs in (runtime, image, digest), for
    /// the records the launcher writes; `None` when bare.
    fn container(&self) -> Option<serde_json::Value> {
        None
    }
}

/// The instance runs directly on the host.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bare;

impl Runtime for Bare {
    fn start(&self, spec: &InstanceSpec, group: Option<&SlotGroup>, lines: Arc<Lines>) -> Started {
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args).envs(spec.env.iter().map(|(k, v)| (k, v)));
        process::start(cmd, group, lines)
    }
}
