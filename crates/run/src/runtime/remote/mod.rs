//! An instance run elsewhere, as a task of an engine's job (a Slurm step
//! today; a Flux job or a Kubernetes pod would be peers): the plan the
//! launcher writes for every task ([`StepPlan`]), the task's side on its
//! node ([`task`]: its planned launch run and supervised with the one loop,
//! its failure record written there), and the lines it sends back
//! ([`TaskLine`]: its typed outcome). An engine adds how it starts the
//! tasks, frames their output and cancels them, and how a task learns its
//! rank.

mod line;
mod plan;
pub mod task;

pub use line::TaskLine;
pub use plan::{PlanError, StepPlan, TaskPlan};
