//! Rounds of different configs side by side: where the run loop starts one
//! config on every slot, a round places a config of its own on each slot
//! it names (a victim on slot 0 and an aggressor on slot 1; a different
//! workload on every slot) and starts them together, in the same slot
//! groups, under the same host lock, supervision and failure records as a
//! launch (`mlb interfere`, docs/interfere.md). The caller decides the
//! rounds one after the other, from what the earlier ones measured.

use super::error::LaunchError;
use super::options::Options;
use super::run::{context, emit, failure_record, record_failure};
use super::run_name;
use super::session::Session;
use super::setup::{self, plugin_of, Prepared};
use super::space::Space;
use super::summary::{self, Summary};
use super::supervise;
use crate::host::Host;
use crate::isolation::Slot;
use crate::jobs::JobConfig;
use crate::plan::{self, Instance};
use crate::runtime::outcome::Outcome;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// One config placed on one slot of a round.
#[derive(Clone, Debug)]
pub struct Seat {
    /// The config (a selected one, its arguments possibly changed).
    pub config: JobConfig,
    /// The slot's index.
    pub slot: usize,
}

/// Configs started together, each on its own slot.
#[derive(Clone, Debug)]
pub struct Round {
    /// Its result line's label.
    pub label: String,
    /// The suite its reports and logs are named with.
    pub suite: String,
    /// Its run id (seeds derive from it as a launch's do).
    pub run_id: u64,
    /// Its place among the rounds, from 1, and their number.
    pub position: (usize, usize),
    /// Who sits where: one config a slot.
    pub seats: Vec<Seat>,
}

/// How one seat of a round ended.
#[derive(Clone, Debug)]
pub struct Ended {
    /// The seat's slot.
    pub slot: usize,
    /// How its instance ended.
    pub outcome: Outcome,
    /// The report it wrote, when it passed.
    pub report: Option<PathBuf>,
}

/// A launch of rounds, prepared: the jobs file read and checked, the host
/// detected and its slots planned; nothing made or written yet.
pub struct Plan {
    options: Options,
    prepared: Prepared,
}

impl Plan {
    /// Prepares the jobs of `options` as `mlb --jobs` does, refusing what
    /// it refuses, before anything is made.
    pub fn new(options: &Options, plugin_dirs: &[PathBuf]) -> Result<Plan, LaunchError> {
        if options.host_root.is_some() {
            return Err(LaunchError::FixtureHost);
        }
        Ok(Plan { options: options.clone(), prepared: setup::prepare(options, plugin_dirs)? })
    }

    /// The selected configs, in file order.
    pub fn configs(&self) -> &[JobConfig] {
        &self.prepared.configs
    }

    /// The slots.
    pub fn slots(&self) -> &[Slot] {
        &self.prepared.slots
    }

    /// The host.
    pub fn host(&self) -> &Host {
        &self.prepared.host
    }

    /// The output folder.
    pub fn outdir(&self) -> &Path {
        &self.prepared.outdir
    }

    /// The jobs file's suite.
    pub fn suite(&self) -> &str {
        &self.prepared.file.suite
    }

    /// The jobs file.
    pub fn file(&self) -> &Path {
        &self.prepared.file.path
    }

    /// Opens the launch (see [`Session::open`]): takes the host, makes the
    /// slot groups, writes `system.json`; `None`: interrupted while waiting
    /// for the host.
    pub fn open(self) -> Result<Option<Mix>, LaunchError> {
        let run_name = run_name::new(&self.prepared.file.suite);
        let choice = super::choice::Choice::of(&self.options, self.prepared.host.kind)?;
        let runtime = super::choice::runtime(&choice, &self.prepared, self.options.timeout, false)?;
        let Some((session, summary)) = Session::open(&self.options, &self.prepared, &run_name, runtime)? else {
            return Ok(None);
        };
        let logs = self.prepared.outdir.join("logs");
        Ok(Some(Mix { plan: self, session, summary, space: Space::default(), logs }))
    }
}

/// A launch of rounds under way: the host held and its slot groups made,
/// as for `mlb --jobs`.
pub struct Mix {
    plan: Plan,
    session: Session,
    summary: Summary,
    space: Space,
    logs: PathBuf,
}

impl Mix {
    /// What it was prepared as.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Starts the seats of `round` together and waits for all of them;
    /// writes the failure records of those that could not write their
    /// own, and the round's result line. `None`: interrupted (no result
    /// line). A full output folder stops the rounds with its error.
    pub fn round(&mut self, round: &Round) -> Result<Option<Vec<Ended>>, LaunchError> {
        if self.session.interrupt.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let p = &self.plan.prepared;
        let mut ctx = context(p, &self.plan.options, round.run_id, self.session.mode);
        ctx.suite = round.suite.clone();
        let instances: Vec<Instance> = round
            .seats
            .iter()
            .flat_map(|s| {
                let slot = std::slice::from_ref(&p.slots[s.slot]);
                plan::instances(&s.config, plugin_of(p, &s.config), slot, &ctx, &p.host.cpus)
            })
            .collect();
        let seat_of = |i: &Instance| {
            round.seats.iter().find(|s| s.slot == i.identity.jr_id as usize).expect("an instance of each seat")
        };
        let record = self.session.record();
        let template = |i: &Instance, log: Option<&Path>| failure_record(p, &seat_of(i).config, &ctx, i, log, &record);
        let watch = self.session.watch(&self.logs, self.plan.options.timeout);
        let display = &self.session.display;
        let progress = display.start(&round.label, instances.len());
        let t0 = Instant::now();
        // The logs are numbered with the first seat's config (`C<k>`): each
        // instance's log is named with its own job and slot.
        let first = round.seats.first().map_or(1, |s| s.config.index);
        let finished = supervise::run_instances(&watch, first, instances, None, &template, &progress, None);
        progress.finish();
        if finished.iter().any(|f| f.outcome == Outcome::Interrupted) {
            display.note(&format!("{}: interrupted, no result line", round.label));
            return Ok(None);
        }
        for f in &finished {
            if let Err(e) = record_failure(p, &seat_of(&f.instance).config, &ctx, f, &record, display) {
                self.space.failed(format!("write the failure record {}", e.path.display()), e.source, display);
            }
        }
        let failed = finished.iter().filter(|f| !f.outcome.passed()).count();
        let (at, of) = round.position;
        let line = summary::line(at, of, failed, finished.len(), t0.elapsed().as_secs_f64(), &round.label);
        emit(&mut self.summary, &line, &mut self.space, display);
        if self.space.is_full() {
            let space = std::mem::take(&mut self.space);
            return Err(space.stopped(&p.outdir, of - at).expect("a full folder stops"));
        }
        Ok(Some(
            finished
                .into_iter()
                .map(|f| Ended {
                    slot: f.instance.identity.jr_id as usize,
                    report: f.report.filter(|_| f.outcome.passed()),
                    outcome: f.outcome,
                })
                .collect(),
        ))
    }

    /// Ends the launch: the total line, the groups removed, the host let
    /// go; whether it was interrupted.
    pub fn close(mut self, started: Instant) -> bool {
        emit(
            &mut self.summary,
            &summary::total(started.elapsed().as_secs_f64()),
            &mut self.space,
            &self.session.display,
        );
        let interrupted = self.session.interrupt.load(Ordering::Relaxed);
        self.session.close();
        interrupted
    }
}
