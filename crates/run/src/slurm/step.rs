//! One job config as one Slurm job step: the `srun` line that starts it
//! (its tasks read the step's plan, `runtime::remote::StepPlan`).

use std::path::Path;

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
