//! The command line of `mlb interfere`.

use crate::commands::db::DbArg;
use crate::commands::output::OutputArgs;
use clap::Args;
use mlb_run::launch::Options as LaunchOptions;
use mlb_run::runtime::supervise::timeout;
use std::path::PathBuf;

/// `mlb interfere` options.
#[derive(Debug, Clone, Args)]
pub struct InterfereArgs {
    /// Jobs file whose workloads (each job config of a plugin job) are measured.
    #[arg(long, value_name = "FILE")]
    pub jobs: PathBuf,

    /// The workloads measured (the matrix's rows; default: every one).
    #[arg(long, value_name = "WORKLOAD", value_delimiter = ',')]
    pub victims: Vec<String>,

    /// The workloads each victim is measured beside (the matrix's columns;
    /// default: every one).
    #[arg(long, value_name = "WORKLOAD", value_delimiter = ',')]
    pub aggressors: Vec<String>,

    /// Runs of each workload alone, of each pair and of the mix (at least 2:
    /// an interval needs two).
    #[arg(long, value_name = "K", default_value = "3", value_parser = clap::value_parser!(u64).range(2..=1000))]
    pub repeats: u64,

    /// Folder of every run's reports, `interference.json` and `interference.html`.
    #[arg(long, value_name = "DIR", default_value = "interfere")]
    pub outdir: PathBuf,

    /// Skip the whole-node mix (a different workload on every slot at once).
    #[arg(long = "no-mix")]
    pub no_mix: bool,

    /// Number of slots on a host without GPU (default 1); on a GPU host, use the first N GPUs.
    #[arg(long, value_name = "N")]
    pub devices: Option<usize>,

    /// Base folder: data in `$BASE/data`, scratch in `$BASE/tmp` (default: the current folder).
    #[arg(long, env = "BASE", value_name = "DIR")]
    pub base: Option<PathBuf>,

    /// Run id of the first run; each run of the matrix takes the next one.
    #[arg(long, default_value_t = 0)]
    pub uid: u64,

    /// Kill an instance that runs longer than this many seconds (finite, at least 1).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = timeout)]
    pub timeout: Option<f64>,

    /// Run without cgroups: instances are not confined to their slot (recorded in every report).
    #[arg(long = "no-cgroups")]
    pub no_cgroups: bool,

    /// When another mlb run holds this host, wait for it to end instead of refusing.
    #[arg(long)]
    pub wait: bool,

    /// `--db [URL]`: import the runs and the matrix's cells into this store
    /// when they end (a failure to import is a warning).
    #[command(flatten)]
    pub store: DbArg,

    /// `--format`, `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,

    /// Take this lock file instead of the host's (tests running side by side).
    #[arg(long = "lock", env = "MLB_LOCK", value_name = "FILE", hide = true)]
    pub lock: Option<PathBuf>,
}

impl InterfereArgs {
    /// The launch's options: the jobs file, the output folder, the slots.
    pub fn launch(&self) -> LaunchOptions {
        LaunchOptions {
            jobs: Some(self.jobs.clone()),
            outdir: Some(self.outdir.clone()),
            base: self.base.clone(),
            devices: self.devices,
            uid: self.uid,
            timeout: self.timeout,
            no_cgroups: self.no_cgroups,
            wait: self.wait,
            lock: self.lock.clone(),
            ..LaunchOptions::default()
        }
    }
}
