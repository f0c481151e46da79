//! What a launch holds while its instances run, opened once before the
//! first starts and closed after the last: the runtime, the signal flag,
//! the host lock, the slot groups, the result lines, the telemetry sources.
//! The run loop (`run.rs`) and the rounds of different configs side by
//! side (`mix.rs`) open it alike.

use super::dry_run::CgroupPlan;
use super::error::LaunchError;
use super::host_lock::{HostLock, Taken};
use super::options::Options;
use super::progress::Display;
use super::run::{preflight, take_host, Record};
use super::setup::Prepared;
use super::summary::Summary;
use super::supervise::Watch;
use crate::console::Console;
use crate::isolation::{Isolation, RunGroups};
use crate::jobs::Scope;
use crate::runtime::{signals, Runtime};
use crate::{system, telemetry};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A launch under way: what its instances are started and watched with.
pub struct Session {
    /// How and where instances run.
    pub runtime: Runtime,
    /// Set on Ctrl-C, SIGTERM and the other signals that stop a run.
    pub interrupt: Arc<AtomicBool>,
    /// The host lock (none under Slurm, or unguarded).
    lock: Option<HostLock>,
    /// The slot groups, when the run makes them.
    pub groups: Option<RunGroups>,
    /// What isolates the run's slot instances.
    pub mode: Isolation,
    /// Progress and notes on stderr.
    pub display: Display,
    /// The telemetry sources.
    pub sources: telemetry::Sources,
}

impl Session {
    /// Opens the launch `prepared` of `options` as the run `run_name` with
    /// `runtime`: takes the host lock (waiting with `--wait`), makes the
    /// slot groups, runs the pre-flight checks, opens the result lines,
    /// writes `system.json` and opens the telemetry; returns it with the
    /// result lines (`summary.txt`). `None`: interrupted while waiting for
    /// the host, nothing started.
    pub fn open(
        options: &Options,
        prepared: &Prepared,
        run_name: &str,
        runtime: Runtime,
    ) -> Result<Option<(Session, Summary)>, LaunchError> {
        let interrupt = signals::install().map_err(LaunchError::Signals)?;
        // Under Slurm, Slurm shares the nodes out: two runs in two allocations
        // may well share the node the launchers run on.
        let lock = match prepared.allocation {
            Some(_) => None,
            None => match take_host(options, prepared, run_name, &runtime, &interrupt)? {
                Taken::Held { lock, .. } => Some(lock),
                Taken::Unguarded(_) => None,
                Taken::Interrupted => return Ok(None),
            },
        };
        let cgroups = CgroupPlan::decide(&runtime, options.no_cgroups, &prepared.host.cgroup, run_name);
        if cgroups == CgroupPlan::Disabled {
            Console::Err.line("mlb: warning: --no-cgroups: instances are not confined to their slot's CPUs and memory; every report records isolation \"none\"");
        }
        let slot_jobs = prepared.configs.iter().any(|c| c.scope == Scope::Student);
        // A host that cannot make groups is refused by `root()`, with its reason.
        let groups = match &cgroups {
            CgroupPlan::Groups { .. } | CgroupPlan::Impossible(_) if slot_jobs => {
                Some(RunGroups::create(&prepared.host.cgroup.root()?, run_name, &prepared.slots)?)
            }
            _ => None,
        };
        let mode = cgroups.isolation();
        // After every refusal of its own, before the first thing written.
        preflight(options, prepared, &runtime)?;
        let summary = Summary::open(&prepared.outdir)
            .map_err(|source| LaunchError::Io { path: prepared.outdir.clone(), source })?;
        let display = Display::for_stderr();
        let nodes = prepared.allocation.as_ref().map_or(1, |a| a.nodes.len());
        let desc = system::describe(&prepared.host, Path::new("/"), nodes, runtime.backend.traits().container.clone());
        if let Err(e) = system::write(&prepared.outdir, &desc) {
            display.note(&format!("mlb: warning: cannot write {}: {e}", prepared.outdir.join(system::FILE).display()));
        }
        let sources = telemetry::Sources::open(&prepared.host, options.sample_hz);
        if let Some(warning) = sources.warning() {
            display.note(&format!("mlb: warning: {warning}"));
        }
        Ok(Some((Session { runtime, interrupt, lock, groups, mode, display, sources }, summary)))
    }

    /// The watch of instances whose logs go to `logs`, timed out past `timeout` seconds.
    pub fn watch<'s>(&'s self, logs: &'s Path, timeout: Option<f64>) -> Watch<'s> {
        Watch {
            runtime: &self.runtime,
            groups: self.groups.as_ref(),
            timeout,
            interrupt: &self.interrupt,
            logs,
            telemetry: Some(&self.sources),
        }
    }

    /// What the launcher's failure records say of the run's isolation.
    pub fn record(&self) -> Record<'_> {
        Record { groups: self.groups.as_ref(), runtime: &self.runtime }
    }

    /// Ends the launch: closes the runtime (its warning said), removes the
    /// groups and lets the host go; gives back the display, for what is
    /// said after.
    pub fn close(self) -> Display {
        if let Some(warning) = self.runtime.backend.close() {
            self.display.note(&format!("mlb: {warning}"));
        }
        drop(self.groups);
        drop(self.lock);
        self.display
    }
}
