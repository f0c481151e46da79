//! `mlb prepare`: its options, turned into `mlb_prepare::Options`, and what
//! it prints: one line per data set, or where a signal stopped it
//! (docs/data.md).

use clap::Args;
use mlb_prepare::{Interrupted, Options, PrepareError, Scale};
use mlb_run::jobs::STANDARD_SUITE;
use std::path::PathBuf;

/// `mlb prepare` options.
#[derive(Debug, Clone, Args)]
pub struct PrepareArgs {
    /// Jobs file (or installed suite) whose jobs' data sets to prepare.
    #[arg(long, value_name = "FILE", default_value = STANDARD_SUITE)]
    pub jobs: PathBuf,

    /// Only these jobs' data sets (comma-separated or repeated).
    #[arg(long, value_name = "JOB", value_delimiter = ',')]
    pub name: Vec<String>,

    /// Base folder: the data sets go to `$BASE/data` (default: the current folder).
    #[arg(long, env = "BASE", value_name = "DIR")]
    pub base: Option<PathBuf>,

    /// `full`: the original suite's sizes (tens of GB, docs/data.md); `small`: a few MB, for tests.
    #[arg(long, value_enum, default_value_t = Scale::Small)]
    pub scale: Scale,

    /// Seed of the generators: the same seed gives the same files.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// When a benchmark run holds this host, or another prepare writes into
    /// the same base, wait for it to end instead of refusing.
    #[arg(long)]
    pub wait: bool,

    /// Take this host lock instead of the host's (`/run/mlb/launch.lock`),
    /// as `mlb --jobs` does (tests running side by side).
    #[arg(long = "lock", env = "MLB_LOCK", value_name = "FILE", hide = true)]
    pub lock: Option<PathBuf>,
}

impl PrepareArgs {
    /// The prepare's options: the base is the current folder when neither
    /// `--base` nor `$BASE` names one.
    pub fn options(&self) -> Options {
        Options {
            jobs: self.jobs.clone(),
            names: self.name.clone(),
            base: self.base.clone().unwrap_or_else(|| PathBuf::from(".")),
            scale: self.scale,
            seed: self.seed,
            wait: self.wait,
            lock: self.lock.clone(),
        }
    }
}

/// Runs `mlb prepare`: what to print on stdout (a line per set), and
/// where a signal stopped it, if one did.
pub fn run(args: &PrepareArgs) -> Result<(String, Option<Interrupted>), PrepareError> {
    let outcome = mlb_prepare::run(&args.options())?;
    let text = if outcome.sets.is_empty() && outcome.interrupted.is_none() {
        "the selected jobs read no data set\n".to_string()
    } else {
        outcome.sets.iter().map(|p| format!("{p}\n")).collect()
    };
    Ok((text, outcome.interrupted))
}
