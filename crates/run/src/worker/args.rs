//! Command line of `mlb worker`.
//!
//! Identity options fall back on the environment the launcher gives every
//! instance (docs/launcher.md, "The host and its slots"), so a worker started by hand needs only `--plugin`.
//! The launcher's side of this command line is
//! [`contract::argv`](mlb_record::contract::argv).

use clap::Args;
use mlb_record::contract::env;
use std::path::PathBuf;

/// `mlb worker` options.
#[derive(Debug, Clone, Args)]
pub struct WorkerArgs {
    /// Print the metadata of every workload of the plugin at this absolute
    /// path, one JSON object per line, and exit.
    #[arg(long, value_name = "PLUGIN", conflicts_with = "plugin")]
    pub describe: Option<PathBuf>,

    /// Absolute path of the plugin library to run.
    #[arg(long, required_unless_present = "describe")]
    pub plugin: Option<PathBuf>,

    /// The workload of the library to run: required when it exports several,
    /// checked against the name of its only one otherwise.
    #[arg(long, value_name = "NAME", conflicts_with = "describe")]
    pub workload: Option<String>,

    /// Workload arguments, a JSON object (merged over the plugin's defaults).
    #[arg(long, default_value = "{}")]
    pub config: String,

    /// Folder for the report file.
    #[arg(long, env = env::OUTPUT_DIRECTORY, default_value = ".")]
    pub outdir: PathBuf,

    /// Suite name (report file prefix).
    #[arg(long, env = env::SUITE_NAME, default_value = "mlb")]
    pub suite: String,

    /// Job name (defaults to the plugin's name).
    #[arg(long, env = env::BENCH_NAME)]
    pub name: Option<String>,

    /// Run id.
    #[arg(long = "run-id", env = env::RUN_ID, default_value_t = 0)]
    pub run_id: u64,

    /// Instance index within the job.
    #[arg(long = "jr-id", env = env::JOB_ID, default_value_t = 0)]
    pub jr_id: u32,

    /// Visible devices (default: CUDA_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES, else "0").
    #[arg(long)]
    pub vcd: Option<String>,

    /// Device request passed to the plugin: auto, cpu or cuda:N.
    #[arg(long, default_value = "auto")]
    pub device: String,

    /// Intra-op threads (default: the CPUs of this process's affinity mask).
    #[arg(long)]
    pub threads: Option<u32>,

    /// Run to quality (docs/quality.md): the clock and its evaluations
    /// instead of the timed loop.
    #[arg(long = "to-quality", env = env::TO_QUALITY)]
    pub to_quality: bool,
}
