//! One job config as one Slurm job step: the plan every task reads (what
//! each rank runs, and the failure record it writes if it must), and the
//! `srun` line that starts the step.

use crate::contract::Report;
use crate::runtime::ProcessLaunch;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What the tasks of one step run, by rank. Written by the launcher into
/// the output folder, read by `mlb slurm task` on every node.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StepPlan {
    /// One task per rank, in rank order.
    pub tasks: Vec<TaskPlan>,
}

/// One rank of a step.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskPlan {
    /// Its rank (`SLURM_PROCID`).
    pub rank: usize,
    /// The node it was planned on (`SLURMD_NODENAME`).
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

/// The shape of a step: how many tasks where, and what each may use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepShape {
    /// Nodes of the step.
    pub nodes: usize,
    /// Tasks on each node (slots, or 1 for an `all` job).
    pub tasks_per_node: usize,
    /// CPUs of each task (its slot's).
    pub cpus_per_task: usize,
    /// Memory per CPU, MiB, when the allocation states memory.
    pub mem_per_cpu_mib: Option<u64>,
    /// GPUs per task: 1 for a slot, all of the node's for an `all` task; 0 on CPU nodes.
    pub gpus_per_task: usize,
    /// The step's name in `squeue --steps`.
    pub name: String,
}

impl StepShape {
    /// The `srun` arguments (without `srun`) that start `mlb slurm task
    /// --plan PLAN` as this step; `container` are the flags of the step's
    /// container (pyxis), if any.
    pub fn srun_args(&self, mlb: &Path, plan: &Path, container: &[String]) -> Vec<String> {
        let mut args = vec![
            format!("--nodes={}", self.nodes),
            format!("--ntasks={}", self.nodes * self.tasks_per_node),
            format!("--ntasks-per-node={}", self.tasks_per_node),
            format!("--cpus-per-task={}", self.cpus_per_task),
            "--cpu-bind=cores".to_string(),
            "--distribution=block".to_string(),
        ];
        if let Some(mib) = self.mem_per_cpu_mib {
            args.push(format!("--mem-per-cpu={mib}M"));
        }
        if self.gpus_per_task > 0 {
            args.push(format!("--gpus-per-task={}", self.gpus_per_task));
        }
        args.extend(["--kill-on-bad-exit=0".to_string(), "--label".to_string(), format!("--job-name={}", self.name)]);
        args.extend(container.iter().cloned());
        args.extend([mlb.display().to_string(), "slurm".into(), "task".into(), "--plan".into()]);
        args.push(plan.display().to_string());
        args
    }

    /// The environment srun needs besides its flags: since Slurm 22.05 a
    /// step does not inherit `--cpus-per-task` from the allocation.
    pub fn srun_env(&self) -> [(&'static str, String); 1] {
        [("SRUN_CPUS_PER_TASK", self.cpus_per_task.to_string())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srun_line_of_a_two_node_step() {
        let shape = StepShape {
            nodes: 2,
            tasks_per_node: 4,
            cpus_per_task: 8,
            mem_per_cpu_mib: Some(4096),
            gpus_per_task: 1,
            name: "mlb:convnet".into(),
        };
        let args = shape.srun_args(Path::new("/opt/mlb"), Path::new("/out/slurm/s.json"), &[]);
        assert_eq!(
            args.join(" "),
            "--nodes=2 --ntasks=8 --ntasks-per-node=4 --cpus-per-task=8 --cpu-bind=cores --distribution=block \
             --mem-per-cpu=4096M --gpus-per-task=1 --kill-on-bad-exit=0 --label --job-name=mlb:convnet \
             /opt/mlb slurm task --plan /out/slurm/s.json"
        );
        assert_eq!(shape.srun_env(), [("SRUN_CPUS_PER_TASK", "8".to_string())]);
    }
}
