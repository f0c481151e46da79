//! How instances are run. One [`Runtime`] trait, one module per backend:
//! [`bare`] (a process on the host), [`docker`] (a container through the
//! Docker API) and [`singularity`] (`apptainer exec`). A runtime both starts
//! a planned [`Instance`] and describes it for `--dry-run`, from the same
//! code. The launcher (`launch/`) selects a runtime, supervises what it
//! starts and records the outcome.

pub mod bare;
pub mod build_cmd;
pub mod container;
pub mod docker;
pub mod holders;
pub mod images;
mod output;
pub mod process;
pub mod shell;
pub mod singularity;
pub mod spec;

pub use output::{pump, Output, Stream};

use crate::isolation::{Isolation, SlotGroup};
use crate::plan::Instance;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// How a started instance ended, as far as its runtime knows.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct End {
    /// Its exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that killed it.
    pub signal: Option<i32>,
    /// The runtime saw an OOM kill (Docker's `OOMKilled`).
    pub oom_killed: bool,
    /// The runtime failed to run it (e.g. the daemon refused a request).
    pub error: Option<String>,
    /// The runtime killed it for running past `--timeout` (seconds), when
    /// the runtime enforces the limit itself (Slurm's tasks, on their node).
    pub timed_out: Option<f64>,
    /// The runtime wrote its failure record already (a Slurm task, on its node).
    pub recorded: bool,
}

/// One instance of a job config to start: where its output goes.
pub struct Start<'a> {
    /// The instance.
    pub instance: &'a Instance,
    /// Its slot's group, when the launcher isolates with cgroups.
    pub group: Option<&'a SlotGroup>,
    /// Where its output lines go.
    pub output: Arc<dyn Output>,
    /// Its failure record, failure not yet set, for a runtime that writes
    /// it itself (a Slurm task, on its node).
    pub record: crate::contract::Report,
}

/// A started instance, or why it could not start.
pub type Started = Result<Box<dyn Running>, String>;

/// A started instance.
pub trait Running: Send {
    /// Its end, once it has ended; `None` while it runs.
    fn poll(&mut self) -> Option<End>;
    /// After its end (and once whatever it left in its slot's group is
    /// killed): waits until its output has been read to the end, at most
    /// until `until` and not past an interrupt (Ctrl-C/SIGTERM). `None` when
    /// it was read to its end; else what held it open, and what was done.
    fn drain(&mut self, _until: Instant, _interrupt: &AtomicBool) -> Option<String> {
        None
    }
    /// Kills it (timeout, Ctrl-C/SIGTERM); `poll` then reports its end.
    fn kill(&mut self);
}

/// Starts and describes instances.
pub trait Runtime: Sync {
    /// Starts `instance`, placed in `group` (when given) before it executes
    /// anything; its output lines go to `output`. The error says why it could
    /// not start.
    fn start(&self, instance: &Instance, group: Option<&SlotGroup>, output: Arc<dyn Output>) -> Started;

    /// Starts the instances of one job config together (one `start` each,
    /// unless the backend starts them as one unit: a Slurm job step).
    fn start_all(&self, starts: &[Start]) -> Vec<Started> {
        starts.iter().map(|s| self.start(s.instance, s.group, Arc::clone(&s.output))).collect()
    }

    /// The process that runs `instance` on this host, for a backend that
    /// runs it elsewhere (a Slurm task); an error for a backend that starts
    /// no process of its own (Docker).
    fn command(&self, _instance: &Instance) -> Result<std::process::Command, String> {
        Err("this runtime starts no process of its own".into())
    }

    /// Whether the runtime enforces `--timeout` itself, per instance
    /// (`false`: the launcher kills an instance past it).
    fn enforces_timeout(&self) -> bool {
        false
    }

    /// How `instance` would be started, as indented lines for `--dry-run`
    /// (empty when the planned command line says it all).
    fn describe(&self, instance: &Instance) -> String;

    /// What could not be checked while opening the runtime for `--dry-run`
    /// (a daemon down, an image missing), one line each; empty for a run.
    fn notes(&self) -> String {
        String::new()
    }

    /// Whether slot instances need the launcher's cgroups (`false`: the
    /// runtime applies the slot's limits itself, as Docker does).
    fn needs_cgroups(&self) -> bool {
        true
    }

    /// The isolation recorded for slot instances when the runtime applies
    /// the limits itself (`docker`); `None`: the launcher's cgroups decide.
    fn own_isolation(&self) -> Option<Isolation> {
        None
    }

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
    fn container(&self) -> Option<crate::contract::Container> {
        None
    }
}
