//! `mlb slurm task --plan FILE`: one task of a step, on its node. It finds
//! its rank and Slurm ids in its environment, says its step id to the
//! launcher, and runs its rank's task of the plan
//! ([`remote::task`](crate::runtime::remote::task)), its Slurm ids passed
//! into its container and recorded in its failure record.

use crate::console::Console;
use crate::runtime::outcome::Outcome;
use crate::runtime::remote::{task, PlanError, StepPlan, TaskLine};
use mlb_record::contract::SlurmTask;
use std::path::Path;

/// Runs the task of this process's rank in the plan at `plan`; its exit
/// status: 0 when the instance passed, 1 otherwise.
pub fn main(plan: &Path) -> i32 {
    let var = |name: &str| std::env::var(name).ok();
    let ids = SlurmTask::read(var).unwrap_or_default();
    let rank: usize = ids.task_id.parse().unwrap_or(0);
    let planned = StepPlan::read(plan).and_then(|p| p.tasks.into_iter().nth(rank).ok_or(PlanError::NoRank(rank)));
    let planned = match planned {
        Ok(t) => t,
        Err(source) => {
            let error = super::SlurmError::Plan { path: plan.to_path_buf(), source };
            return task::finish(rank, Outcome::not_started(error.to_string()), false);
        }
    };
    Console::Out.line(&TaskLine::Start { rank, node: ids.node.clone(), step: ids.step_id.clone() }.render());
    if !planned.node.is_empty() && planned.node != ids.node {
        Console::Err.line(&format!("mlb: rank {rank} was planned on node {} and runs on {}", planned.node, ids.node));
    }
    let (outcome, recorded) = task::run(&planned, &SlurmTask::VARIABLES, |record| {
        if let Some(p) = record.provenance.as_mut() {
            p.slurm = Some(ids);
        }
    });
    task::finish(rank, outcome, recorded)
}
