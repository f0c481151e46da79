//! How instances are run, apart from where. A [`Backend`] says how one
//! instance is wrapped: [`bare`] (a process), [`docker`] (a container
//! through the Docker API), [`singularity`] (`apptainer exec`), and pyxis
//! under Slurm (`slurm::pyxis`); it returns a typed [`Launch`] and states
//! its [`Traits`]. A [`Site`] says where instances run: [`Host`] (this
//! host) or a Slurm job step (`slurm::SlurmSite`); it starts the launches
//! of one job config together. A [`Runtime`] is one of each. One
//! supervision loop ([`supervise`]) watches what was started, on this host
//! and on a Slurm node alike, and classifies each end once ([`outcome`]).

pub mod bare;
pub mod container;
pub mod docker;
mod error;
pub mod holders;
mod host;
pub mod images;
mod launch;
pub mod outcome;
mod output;
pub mod process;
pub mod remote;
pub mod shell;
pub mod signals;
pub mod singularity;
pub mod spec;
pub mod supervise;

pub use error::RuntimeError;
pub use host::Host;
pub use launch::{ContainerLaunch, Launch, ProcessLaunch, Wrapper};
pub use output::{pump, read_lines, LineBuf, Output, Stream};

use crate::isolation::{Isolation, SlotGroup};
use crate::plan::Instance;
use mlb_record::contract::Container;
use outcome::Outcome;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// How a started instance ended, as far as what ran it knows.
#[derive(Debug)]
pub enum End {
    /// Its process (or container) ended: its exit code or the signal that
    /// killed it; `oom_killed` when the runtime saw an OOM kill (Docker's
    /// `OOMKilled`).
    Exit {
        /// Its exit code, when it exited.
        code: Option<i32>,
        /// The signal that killed it.
        signal: Option<i32>,
        /// The runtime saw an OOM kill.
        oom_killed: bool,
    },
    /// What ran it failed (the daemon refused a request).
    Failed(RuntimeError),
    /// It started where it ran, and what supervised it there was killed
    /// before it said how the instance ended (a SIGKILLed Slurm task).
    Lost(RuntimeError),
    /// It was supervised where it ran (a Slurm task, on its node), and its
    /// outcome classified there.
    Supervised {
        /// Its outcome.
        outcome: Outcome,
        /// Its failure record is written already.
        recorded: bool,
    },
}

/// One instance of a job config to start: where its output goes.
pub struct Start<'a> {
    /// The instance.
    pub instance: &'a Instance,
    /// Its slot's group, when the launcher isolates with cgroups.
    pub group: Option<&'a SlotGroup>,
    /// Where its output lines go.
    pub output: Arc<dyn Output>,
    /// Its failure record, failure not yet set, for a site that supervises
    /// the instance where it runs (a Slurm task writes it on its node).
    pub record: mlb_record::contract::Report,
}

/// A started instance, or why it could not start.
pub type Started = Result<Box<dyn Running>, RuntimeError>;

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

/// What a backend is, stated once when it is opened.
#[derive(Clone, Debug, Default)]
pub struct Traits {
    /// The isolation it applies itself (Docker sets the slot's limits on
    /// the container); `None`: the launcher's cgroups, or the site's, do.
    pub isolation: Option<Isolation>,
    /// The instances' output is also echoed on the terminal.
    pub echoes: bool,
    /// The container every instance runs in (runtime, image, digest), for
    /// the records the launcher writes; `None` when bare.
    pub container: Option<Container>,
    /// For `--dry-run`: what could not be checked while opening it (a
    /// daemon down, an image missing), one line each; empty for a run.
    pub notes: String,
}

/// How each instance is wrapped.
pub trait Backend: Sync {
    /// How `instance` is started: a process, or a container of its engine.
    fn launch(&self, instance: &Instance) -> Result<Launch, RuntimeError>;

    /// How `instance` would be started, as indented lines for `--dry-run`
    /// (empty when the planned command line says it all).
    fn describe(&self, instance: &Instance) -> String;

    /// What it is.
    fn traits(&self) -> &Traits;

    /// Cleans up at the end of the run, on every exit path (Docker: removes
    /// any container of the run still present); a warning, if any.
    fn close(&self) -> Option<String> {
        None
    }

    /// Removes what the run of launcher pid `launcher`, which held the host
    /// before and ended without cleaning up (SIGKILL), left in this runtime
    /// (Docker: its containers, which outlive it); what to say, if anything.
    fn remove_left_by(&self, _launcher: u32) -> Option<String> {
        None
    }

    /// Whether what starts the instances has gone away (Docker: the daemon
    /// no longer answers), asked once a config had a failure: every config
    /// after it would fail the same way, so the run stops.
    fn gone(&self) -> Option<Gone> {
        None
    }
}

/// What starts the instances went away mid-run ([`Backend::gone`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gone {
    /// What went away, and how it was seen.
    pub why: String,
    /// What to do about it.
    pub fix: String,
}

/// What a site is.
#[derive(Clone, Copy, Debug, Default)]
pub struct SiteTraits {
    /// What confines every instance there (Slurm confines its tasks);
    /// `None`: the backend's own isolation, or the launcher's cgroups.
    pub isolation: Option<Isolation>,
    /// Each instance is supervised where it runs, under `--timeout`, and
    /// comes back with its outcome ([`End::Supervised`]): the launcher
    /// does not time it out (killing a Slurm task cancels its whole step).
    pub supervises: bool,
}

/// Where instances run.
pub trait Site: Sync {
    /// Starts the instances of one job config together, each as `backend`
    /// launches it; one result per start, in order.
    fn start(&self, backend: &dyn Backend, starts: &[Start]) -> Vec<Started>;

    /// How `instance` would be started there, as indented lines for `--dry-run`.
    fn describe(&self, backend: &dyn Backend, instance: &Instance) -> String;

    /// What it is.
    fn traits(&self) -> SiteTraits;
}

/// How and where a run's instances run.
pub struct Runtime {
    /// How each is wrapped.
    pub backend: Box<dyn Backend>,
    /// Where they run.
    pub site: Box<dyn Site>,
}

impl Runtime {
    /// Starts the instances of one job config together.
    pub fn start_all(&self, starts: &[Start]) -> Vec<Started> {
        self.site.start(self.backend.as_ref(), starts)
    }

    /// How `instance` would be started, for `--dry-run`.
    pub fn describe(&self, instance: &Instance) -> String {
        self.site.describe(self.backend.as_ref(), instance)
    }

    /// What isolates the run's slot instances when the launcher's cgroups
    /// do not: the site (Slurm), else the backend (Docker).
    pub fn isolation(&self) -> Option<Isolation> {
        self.site.traits().isolation.or(self.backend.traits().isolation)
    }

    /// The limit the launcher enforces: `timeout`, unless the site
    /// supervises each instance where it runs.
    pub fn timeout_here(&self, timeout: Option<f64>) -> Option<f64> {
        timeout.filter(|_| !self.site.traits().supervises)
    }
}
