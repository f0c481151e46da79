//! The worker's checkpoints (docs/faults.md). When the launcher gives it a
//! folder (`MLB_CHECKPOINT_DIR`), the worker says where it stands after
//! every observation (`position:` lines); with a cadence
//! (`MLB_CHECKPOINT_EVERY` seconds) it saves the workload's state and the
//! loop's there, at the first observation's end in each new period of the
//! cadence on the wall clock (periods counted from the Unix epoch, so that
//! the ranks of a group, in step with each other, cut theirs at the same
//! step); told a step (`MLB_RESTORE_STEP`), it restores that
//! checkpoint after setup and says so (`resumed:`), and its loop goes on
//! from there. The layout on disk is the contract's
//! ([`checkpoint`](mlb_record::contract::checkpoint)).

use super::say;
use super::timing::{LoopState, Stepper};
use crate::plugins::CallError;
use mlb_record::contract::checkpoint::{self, KEPT, WORKER_FILE, WORKLOAD_DIR};
use mlb_record::contract::determinism::Fingerprint;
use mlb_record::contract::{env, Position, WorkerLine};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The largest worker file read back.
const MAX_WORKER_FILE: u64 = 64 << 20;

/// What a checkpoint's worker file holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    /// Steps run when it was taken.
    pub step: u64,
    /// Items processed by them.
    pub items: u64,
    /// When the training started (the report's `start_time`).
    pub started: String,
    /// The loop's state.
    pub state: LoopState,
    /// The fingerprints of a deterministic run taken so far.
    pub fingerprints: Vec<Fingerprint>,
}

/// Why a checkpoint could not be restored.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The worker file is missing, unreadable or of another step.
    #[error("cannot restore the checkpoint of step {step} in {}: {why}", dir.display())]
    Worker {
        /// The checkpoint folder.
        dir: PathBuf,
        /// Its step.
        step: u64,
        /// Why.
        why: String,
    },
    /// The workload refused it.
    #[error("cannot restore the checkpoint of step {step}: {source}")]
    Workload {
        /// Its step.
        step: u64,
        /// The workload's error.
        source: CallError,
    },
}

/// What a stepper that checkpoints can do besides stepping (its `sync`
/// waits for the device before a save).
pub trait Saves: Stepper {
    /// Writes the workload's state into `dir`.
    fn save(&mut self, dir: &Path) -> Result<(), CallError>;
    /// Reads the workload's state back from `dir`.
    fn restore(&mut self, dir: &Path) -> Result<(), CallError>;
}

/// Where and how often the worker checkpoints.
#[derive(Debug)]
pub struct Checkpoints {
    dir: PathBuf,
    every: Option<Duration>,
    restore: Option<u64>,
    /// The period of the cadence the last checkpoint (or the start) fell in.
    period: Option<u64>,
    started: String,
}

impl Checkpoints {
    /// What the environment asks for (`None`: no folder given); `started`
    /// is the training's start, as a report writes it.
    pub fn from_env(started: String) -> Result<Option<Checkpoints>, String> {
        let Some(dir) = std::env::var_os(env::CHECKPOINT_DIR) else { return Ok(None) };
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let every = match var(env::CHECKPOINT_EVERY) {
            None => None,
            Some(v) => match v.parse::<f64>() {
                Ok(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
                _ => return Err(format!("{}={v:?}: not a number of seconds above 0", env::CHECKPOINT_EVERY)),
            },
        };
        let restore = match var(env::RESTORE_STEP) {
            None => None,
            Some(v) => Some(v.parse().map_err(|_| format!("{}={v:?}: not a step", env::RESTORE_STEP))?),
        };
        let mut checkpoints = Checkpoints { dir: PathBuf::from(dir), every, restore, period: None, started };
        checkpoints.period = checkpoints.period_now();
        Ok(Some(checkpoints))
    }

    /// The period of the cadence now falls in: whole `every`s since the
    /// Unix epoch (`None`: no cadence).
    fn period_now(&self) -> Option<u64> {
        let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        self.every.map(|every| (since.as_secs_f64() / every.as_secs_f64()) as u64)
    }

    /// Restores the checkpoint asked for into `inner`, and says so; what
    /// its worker file held (`None`: no restore asked for, the loop starts
    /// at step 0, which it says too).
    pub fn restore(&mut self, inner: &mut impl Saves) -> Result<Option<Saved>, RestoreError> {
        let Some(step) = self.restore else {
            say(WorkerLine::Resumed(Position::default()));
            return Ok(None);
        };
        let dir = checkpoint::step_dir(&self.dir, step);
        let bad = |why: String| RestoreError::Worker { dir: dir.clone(), step, why };
        let text = mlb_record::reading::input::read_limited(&dir.join(WORKER_FILE), MAX_WORKER_FILE)
            .map_err(|e| bad(format!("{WORKER_FILE}: {e}")))?;
        let saved: Saved = serde_json::from_str(&text).map_err(|e| bad(format!("{WORKER_FILE}: {e}")))?;
        if saved.step != step || saved.state.steps != step {
            return Err(bad(format!("{WORKER_FILE} is of step {}", saved.step)));
        }
        inner.restore(&dir.join(WORKLOAD_DIR)).map_err(|source| RestoreError::Workload { step, source })?;
        self.started = saved.started.clone();
        self.period = self.period_now();
        say(WorkerLine::Resumed(Position { step, items: saved.items }));
        Ok(Some(saved))
    }

    /// After an observation: says where the loop stands (`at`), and
    /// checkpoints the loop's `state` when the cadence has passed. A
    /// checkpoint that cannot be written is a warning, not a failure: the
    /// training goes on without it.
    pub fn between(
        &mut self,
        inner: &mut impl Saves,
        at: Position,
        state: &dyn Fn() -> LoopState,
        fingerprints: &[Fingerprint],
    ) -> Result<(), CallError> {
        // The period when deciding, not after the save: a save longer than
        // a period leaves every rank due at its next observation alike.
        let now = self.period_now();
        if now != self.period {
            inner.sync()?;
            let saved = Saved {
                step: at.step,
                items: at.items,
                started: self.started.clone(),
                state: state(),
                fingerprints: fingerprints.to_vec(),
            };
            if let Err(e) = self.save(inner, &saved) {
                eprintln!("mlb worker: warning: no checkpoint at step {}: {e}", at.step);
            }
            self.period = now;
        }
        say(WorkerLine::Position(at));
        Ok(())
    }

    /// Writes `saved` and the workload's state as the checkpoint of its
    /// step: into a partial folder, renamed once complete; keeps the last
    /// [`KEPT`].
    fn save(&self, inner: &mut impl Saves, saved: &Saved) -> Result<(), String> {
        let partial = checkpoint::partial_dir(&self.dir, saved.step);
        let io = |what: &str, e: std::io::Error| format!("{what}: {e}");
        std::fs::create_dir_all(&self.dir).map_err(|e| io(&self.dir.display().to_string(), e))?;
        if partial.is_dir() {
            std::fs::remove_dir_all(&partial).map_err(|e| io("an earlier partial checkpoint", e))?;
        }
        std::fs::create_dir_all(partial.join(WORKLOAD_DIR)).map_err(|e| io(&partial.display().to_string(), e))?;
        inner.save(&partial.join(WORKLOAD_DIR)).map_err(|e| e.to_string())?;
        let text = serde_json::to_vec(saved).map_err(|e| e.to_string())?;
        std::fs::write(partial.join(WORKER_FILE), text).map_err(|e| io(WORKER_FILE, e))?;
        let complete = checkpoint::step_dir(&self.dir, saved.step);
        std::fs::rename(&partial, &complete).map_err(|e| io(&complete.display().to_string(), e))?;
        let steps = checkpoint::steps(&self.dir);
        for old in &steps[..steps.len().saturating_sub(KEPT)] {
            let _ = std::fs::remove_dir_all(checkpoint::step_dir(&self.dir, *old));
        }
        Ok(())
    }
}
