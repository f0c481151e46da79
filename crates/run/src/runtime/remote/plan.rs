//! The plan of a step: what each of its tasks runs, by rank (the typed
//! launch its backend made, as it made it), under which limit, and the
//! failure record it writes if its instance cannot. Written by the launcher
//! into the output folder, which every node sees.

use crate::runtime::ProcessLaunch;
use mlb_record::contract::Report;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What the tasks of one step run, by rank. Written by the launcher into
/// the output folder, read by each task on its node (`mlb slurm task`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StepPlan {
    /// One task per rank, in rank order.
    pub tasks: Vec<TaskPlan>,
}

/// One rank of a step.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskPlan {
    /// Its rank (Slurm's `SLURM_PROCID`).
    pub rank: usize,
    /// The node it was planned on.
    pub node: String,
    /// Its instance, as the backend launches it (`mlb worker`, a `cmd`
    /// job's program, `apptainer exec ...`).
    pub launch: ProcessLaunch,
    /// Kill it after this many seconds.
    pub timeout: Option<f64>,
    /// It is an `mlb worker`, whose exit codes are known.
    pub worker: bool,
    /// Its memory limit, for the OOM message.
    pub limit_bytes: Option<u64>,
    /// The failure record to write (failure added) when the instance cannot.
    pub record: Report,
    /// Where that record goes.
    pub outdir: PathBuf,
}

impl StepPlan {
    /// Writes the plan to `path` (atomically: a task never reads half of it).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, path)
    }

    /// Reads a plan written by [`StepPlan::write`].
    pub fn read(path: &Path) -> Result<Self, PlanError> {
        let text = std::fs::read(path).map_err(PlanError::Read)?;
        Ok(serde_json::from_slice(&text)?)
    }
}

/// Why a task cannot read its step plan.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The file cannot be read.
    #[error("{0}")]
    Read(std::io::Error),
    /// It is not a step plan.
    #[error(transparent)]
    Parse(#[from] serde_json::Error),
    /// It holds no task of this rank.
    #[error("it has no task of rank {0}")]
    NoRank(usize),
}
