//! A config under `--inject`, `--restarts` or `--checkpoint-every`
//! (docs/faults.md): its instances told where to keep their checkpoints;
//! with faults, a reference run without them first; then attempts, the
//! faults applied on the config's clock, each failed instance (every rank,
//! for a DDP group) started again from the newest checkpoint it holds (all
//! its ranks hold), up to `--restarts` times; and at the end the `faults`
//! block on the config's reports: what was injected, each restart's
//! detection, restart time and work lost, and the goodput against the
//! reference run's.

use super::options::Recovery;
use super::progress::{Display, JobProgress};
use super::supervise::{run_instances, Finished, Watch};
use crate::faults::Schedule;
use crate::plan::{self, Instance, Work};
use crate::runtime::outcome::Outcome;
use mlb_figures::goodput;
use mlb_record::contract::checkpoint;
use mlb_record::contract::faults::{Faults, Goodput, Reference, Restart};
use mlb_record::contract::record::Cause;
use mlb_record::contract::{env, Report};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

/// The hidden folder of a run's checkpoints, below its output folder
/// (hidden: `mlb report`'s walk leaves it out).
pub const CHECKPOINTS: &str = ".checkpoints";
/// The hidden folder of the reference runs' reports and logs.
pub const REFERENCE: &str = ".reference";
/// The hidden folder the failure records of restarted instances are
/// moved to: a restart supersedes them, so no reader counts them.
pub const RESTARTED: &str = ".restarted";

/// What a config's attempts share.
pub struct Attempts<'a> {
    /// The run's watch.
    pub watch: &'a Watch<'a>,
    /// What was asked for.
    pub recovery: &'a Recovery,
    /// The config's position in its job (1-based).
    pub config: usize,
    /// How long the other ranks of a group may run once one failed.
    pub peers: Option<f64>,
    /// The failure record of an instance, for a site that writes it.
    pub record: &'a dyn Fn(&Instance, Option<&Path>) -> Report,
    /// The config's progress.
    pub progress: &'a JobProgress,
    /// The run's notes.
    pub display: &'a Display,
    /// The run's output folder.
    pub outdir: &'a Path,
    /// The run's name: its checkpoints' folder.
    pub run_name: &'a str,
}

impl Attempts<'_> {
    /// Runs the config's `instances` to their end (restarted as asked);
    /// what ended last of each, with the `faults` block on their reports.
    pub fn run(&self, instances: Vec<Instance>) -> Vec<Finished> {
        let instances: Vec<Instance> = instances.into_iter().map(|i| self.checkpointed(i)).collect();
        let reference = self.recovery.reference().then(|| self.reference(&instances)).flatten();
        let origin = Instant::now();
        let mut schedule = Schedule::new(&self.recovery.inject, origin, crate::linux::hostname());
        let slots = instances.len();
        let mut current = instances;
        let mut kept: Vec<Finished> = Vec::new();
        let mut restarts: Vec<(Restart, Instant)> = Vec::new();
        loop {
            let began = SystemTime::now();
            let left = (restarts.len() as u32) < self.recovery.restarts;
            let finished = self.attempt(current, &mut schedule, left);
            if let Some((restart, detected)) = restarts.last_mut() {
                restart.restart_s = finished
                    .iter()
                    .filter_map(|f| f.resumed.map(|(_, at)| at))
                    .min()
                    .map(|at| at.saturating_duration_since(*detected).as_secs_f64());
            }
            let over = finished.iter().any(|f| f.outcome == Outcome::Interrupted)
                || finished.iter().all(|f| f.outcome.passed())
                || !left;
            if over {
                kept.extend(finished);
                break;
            }
            let group = self.peers.is_some();
            let (again, passed): (Vec<Finished>, Vec<Finished>) =
                finished.into_iter().partition(|f| group || !f.outcome.passed());
            kept.extend(passed);
            let (restart, detected) = self.restart(&again, &schedule, origin, restarts.len() as u32 + 1);
            for f in &again {
                set_aside(f, self.outdir, self.run_name, began);
            }
            self.display.note(&format!(
                "  restart {} of {}: {}; {}",
                restart.attempt,
                self.recovery.restarts,
                restart.failed,
                restart.restored_step.map_or("started over (no checkpoint)".into(), |s| format!("from step {s}")),
            ));
            current = self.again(again, restart.restored_step, restart.attempt);
            restarts.push((restart, detected));
        }
        kept.sort_by_key(|f| f.instance.identity.jr_id);
        let end = kept.iter().filter_map(|f| f.ended_at).max().unwrap_or_else(Instant::now);
        let wall_s = end.saturating_duration_since(origin).as_secs_f64();
        let goodput = goodput_of(&kept, wall_s, slots, reference);
        let block = Faults {
            injected: schedule.into_applied(),
            restarts: restarts.into_iter().map(|(r, _)| r).collect(),
            goodput,
        };
        for f in &kept {
            if let (Outcome::Ok, Some(path)) = (&f.outcome, &f.report) {
                if let Err(e) = Report::amend(path, |r| r.faults = Some(block.clone())) {
                    self.display.note(&format!("mlb: warning: cannot add the faults block to {}: {e}", path.display()));
                }
            }
        }
        remove_checkpoints(&kept);
        kept
    }

    /// Runs one attempt; while restarts are left, the other ranks of a
    /// group are killed as soon as one has failed (the group starts again
    /// anyway), instead of being given the peers' grace.
    fn attempt(&self, instances: Vec<Instance>, schedule: &mut Schedule, left: bool) -> Vec<Finished> {
        let peers = if left { self.peers.map(|_| 0.0) } else { self.peers };
        run_instances(self.watch, self.config, instances, peers, self.record, self.progress, Some(schedule))
    }

    /// `instance` told where to keep its checkpoints (and, with
    /// `--checkpoint-every`, how often): a worker told a folder says where
    /// it stands after every observation.
    fn checkpointed(&self, mut instance: Instance) -> Instance {
        if let Work::Workload { outdir, .. } = &instance.work {
            let stem = super::logs::instance_stem(&instance.identity, self.config);
            let dir = outdir.join(CHECKPOINTS).join(self.run_name).join(stem);
            env::set(&mut instance.env, env::CHECKPOINT_DIR, &dir.display().to_string());
            if let Some(every) = self.recovery.checkpoint_every {
                env::set(&mut instance.env, env::CHECKPOINT_EVERY, &every.to_string());
            }
        }
        instance
    }

    /// Runs the config once without faults, its reports and logs in the
    /// reference folder; its goodput, when every instance completed.
    fn reference(&self, instances: &[Instance]) -> Option<(f64, f64)> {
        let folder = self.outdir.join(REFERENCE);
        let logs = folder.join("logs");
        let watch = Watch { logs: &logs, ..*self.watch };
        let redirected = instances.iter().cloned().map(|i| redirected(i, &folder)).collect();
        let origin = Instant::now();
        self.display.note(&format!("  reference run without faults, into {}", folder.display()));
        let finished = run_instances(&watch, self.config, redirected, self.peers, self.record, self.progress, None);
        remove_checkpoints(&finished);
        if !finished.iter().all(|f| f.outcome.passed()) {
            self.display.note("  the reference run failed: the goodput has no reference");
            return None;
        }
        let end = finished.iter().filter_map(|f| f.ended_at).max()?;
        let wall_s = end.saturating_duration_since(origin).as_secs_f64();
        let per = goodput::per_slot_second(useful_items(&finished), wall_s, finished.len())?;
        Some((wall_s, per))
    }

    /// The restart of the instances `again` after their attempt failed.
    fn restart(&self, again: &[Finished], schedule: &Schedule, origin: Instant, attempt: u32) -> (Restart, Instant) {
        let failed: Vec<&Finished> = again.iter().filter(|f| !f.outcome.passed()).collect();
        let first = failed.iter().min_by_key(|f| f.ended_at).expect("a restart follows a failure");
        let detected = first.ended_at.unwrap_or_else(Instant::now);
        let detected_at_s = detected.saturating_duration_since(origin).as_secs_f64();
        let fault = schedule.last_before(detected_at_s);
        let by_group = self.peers.is_some() && matches!(first.outcome, Outcome::Failed { cause: Cause::Error, .. });
        let dirs: Vec<PathBuf> = again.iter().filter_map(|f| checkpoint_dir_of(&f.instance)).collect();
        let step = common_step(&dirs);
        let items_lost = again
            .iter()
            .map(|f| {
                let reached = f.position.map_or(0, |p| p.items);
                let restored = step
                    .and_then(|s| checkpoint_dir_of(&f.instance).and_then(|d| checkpoint::position(&d, s)))
                    .map_or(0, |p| p.items);
                reached.saturating_sub(restored)
            })
            .sum();
        let id = &first.instance.identity;
        let restart = Restart {
            attempt,
            failed: format!("instance {} (device {}): {}", id.jr_id, id.vcd, first.outcome.describe()),
            fault: fault.map(|f| f.fault.clone()),
            detected_at_s,
            detection_s: fault.map(|f| detected_at_s - f.at_s),
            detected_by: if by_group { "group" } else { "supervisor" }.into(),
            instances: again.iter().map(|f| f.instance.identity.jr_id).collect(),
            restored_step: step,
            restart_s: None,
            items_lost,
        };
        (restart, detected)
    }

    /// The instances of `again`, to restore `step` (none: start over) as
    /// attempt `attempt`; a group meets at a new port.
    fn again(&self, again: Vec<Finished>, step: Option<u64>, attempt: u32) -> Vec<Instance> {
        let port = plan::store_port().to_string();
        again
            .into_iter()
            .map(|f| {
                let mut i = f.instance;
                i.env.retain(|(k, _)| k != env::RESTORE_STEP);
                if let Some(step) = step {
                    i.env.push((env::RESTORE_STEP.into(), step.to_string()));
                }
                env::set(&mut i.env, env::ATTEMPT, &attempt.to_string());
                if let Some(p) = i.env.iter_mut().find(|(k, _)| k == plan::MASTER_PORT) {
                    p.1 = port.clone();
                }
                i
            })
            .collect()
    }
}

/// The goodput of the instances `kept` over `wall_s` on `slots` slots,
/// against the reference's (wall, goodput).
fn goodput_of(kept: &[Finished], wall_s: f64, slots: usize, reference: Option<(f64, f64)>) -> Option<Goodput> {
    let useful_items = useful_items(kept);
    let items_per_slot_s = goodput::per_slot_second(useful_items, wall_s, slots)?;
    let reference = reference.map(|(wall_s, per)| Reference {
        wall_s,
        items_per_slot_s: per,
        ratio: goodput::ratio(items_per_slot_s, per),
    });
    Some(Goodput { wall_s, slots, useful_items, items_per_slot_s, reference })
}

/// The items the completed instances trained on, counted once: where each
/// said it stood last.
fn useful_items(finished: &[Finished]) -> f64 {
    finished.iter().filter(|f| f.outcome.passed()).filter_map(|f| f.position).map(|p| p.items as f64).sum()
}

/// The newest checkpoint step every folder of `dirs` holds.
fn common_step(dirs: &[PathBuf]) -> Option<u64> {
    let mut lists = dirs.iter().map(|d| checkpoint::steps(d));
    let first = lists.next()?;
    let common = lists.fold(first, |acc, steps| acc.into_iter().filter(|s| steps.contains(s)).collect());
    common.last().copied()
}

/// Removes the checkpoints of the instances `finished` (the config is
/// over: nothing restores them), and the folders above them left empty.
fn remove_checkpoints(finished: &[Finished]) {
    for dir in finished.iter().filter_map(|f| checkpoint_dir_of(&f.instance)) {
        let _ = std::fs::remove_dir_all(&dir);
        // Only empty folders go: another config's checkpoints stay.
        dir.ancestors().skip(1).take(2).for_each(|d| drop(std::fs::remove_dir(d)));
    }
}

/// The checkpoint folder an instance was told.
fn checkpoint_dir_of(instance: &Instance) -> Option<PathBuf> {
    instance.env.iter().find(|(k, _)| k == env::CHECKPOINT_DIR).map(|(_, v)| PathBuf::from(v))
}

/// `instance` writing its report into `folder`.
fn redirected(mut instance: Instance, folder: &Path) -> Instance {
    if let Work::Workload { outdir, .. } = &mut instance.work {
        *outdir = folder.to_path_buf();
    }
    env::set(&mut instance.env, env::OUTPUT_DIRECTORY, &folder.display().to_string());
    if let Some(dir) = checkpoint_dir_of(&instance) {
        let moved = folder.join(CHECKPOINTS).join(dir.file_name().unwrap_or_default());
        env::set(&mut instance.env, env::CHECKPOINT_DIR, &moved.display().to_string());
    }
    instance
}

/// Moves the failure records a restarted instance's worker wrote since
/// `began` out of the readers' way, into the hidden folder of restarted
/// records.
fn set_aside(f: &Finished, outdir: &Path, run_name: &str, began: SystemTime) {
    let Work::Workload { outdir: reports, .. } = &f.instance.work else { return };
    let id = &f.instance.identity;
    let prefix = mlb_record::contract::record::file_name_prefix(&id.suite, &id.name, id.run_id, &id.vcd);
    let aside = outdir.join(RESTARTED).join(run_name);
    for entry in std::fs::read_dir(reports).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        let since = entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| t >= began);
        if regular && since && name.starts_with(&prefix) && name.contains(".FAIL.") && name.ends_with(".json") {
            let _ = std::fs::create_dir_all(&aside).and_then(|()| std::fs::rename(entry.path(), aside.join(&name)));
        }
    }
}
