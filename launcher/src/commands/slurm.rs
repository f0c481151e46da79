//! `mlb slurm submit|task`: the options of a submission, turned into
//! `mlb_run::slurm::submit`'s [`Submission`]; a task of a job step, which
//! `mlb --slurm` starts through srun with its plan.

use clap::{Args, Subcommand};
use mlb_run::runtime::supervise::timeout;
use mlb_run::slurm::submit::{self, Submission};
use mlb_run::slurm::{task, SlurmError};
use std::path::PathBuf;

/// `mlb slurm ...`
#[derive(Debug, Subcommand)]
pub enum SlurmCommand {
    /// Writes an sbatch script running `mlb --slurm --jobs FILE` into the output folder and submits it.
    Submit(Box<SubmitArgs>),
    /// Runs one task of a job step on its node (started by `mlb --slurm` through srun).
    #[command(hide = true)]
    Task {
        /// The step's plan.
        #[arg(long, value_name = "FILE")]
        plan: PathBuf,
    },
}

/// `mlb slurm submit` options.
#[derive(Debug, Clone, Args)]
pub struct SubmitArgs {
    /// Jobs file (or an installed suite: `baselines`, `smoke`).
    #[arg(long, value_name = "FILE")]
    pub jobs: PathBuf,
    /// Nodes to allocate.
    #[arg(long, value_name = "N")]
    pub nodes: u32,
    /// GPUs per node (one slot each); omit on CPU nodes.
    #[arg(long = "gpus-per-node", value_name = "G")]
    pub gpus_per_node: Option<u32>,
    /// Slots per node on CPU nodes (as `mlb --devices`).
    #[arg(long, value_name = "N")]
    pub devices: Option<u32>,
    /// CPUs of each slot.
    #[arg(long = "cpus-per-task", value_name = "C")]
    pub cpus_per_task: Option<u32>,
    /// Partition.
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Time limit of the allocation (Slurm's format: `1:00:00`).
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    /// Account to charge.
    #[arg(long, value_name = "A")]
    pub account: Option<String>,
    /// Report folder (default: `./output`); the script and Slurm's output go there too.
    #[arg(long, value_name = "DIR")]
    pub outdir: Option<PathBuf>,
    /// Run only these jobs (comma-separated).
    #[arg(long, value_name = "JOB")]
    pub name: Option<String>,
    /// Kill an instance that runs longer than this many seconds (finite, at least 1).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = timeout)]
    pub timeout: Option<f64>,
    /// Print the script; submit nothing.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// More sbatch flags, after `--` (`-- --exclusive --qos=high`).
    #[arg(last = true, value_name = "SBATCH FLAGS")]
    pub extra: Vec<String>,
}

impl SubmitArgs {
    /// What is submitted.
    pub fn submission(&self) -> Submission {
        Submission {
            jobs: self.jobs.clone(),
            nodes: self.nodes,
            gpus_per_node: self.gpus_per_node,
            devices: self.devices,
            cpus_per_task: self.cpus_per_task,
            partition: self.partition.clone(),
            time: self.time.clone(),
            account: self.account.clone(),
            outdir: self.outdir.clone(),
            name: self.name.clone(),
            timeout: self.timeout,
            dry_run: self.dry_run,
            extra: self.extra.clone(),
        }
    }
}

/// Runs `mlb slurm ...`: the exit status.
pub fn run(command: &SlurmCommand) -> Result<i32, SlurmError> {
    match command {
        SlurmCommand::Submit(args) => submit::main(&args.submission()),
        SlurmCommand::Task { plan } => Ok(task::main(plan)),
    }
}
