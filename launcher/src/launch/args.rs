//! Command line of the launcher (`mlb --jobs FILE ...`).

use super::error::LaunchError;
use crate::host::HostKind;
use crate::runtime::supervise;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// The longest `--pause`, in seconds: a day.
pub const MAX_PAUSE_SECONDS: f64 = 86_400.0;

/// Launcher options.
#[derive(Debug, Clone, Default, Args)]
pub struct LaunchArgs {
    /// Jobs file to run (JSON, or YAML for `.yaml`/`.yml`).
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<PathBuf>,

    /// Run only these jobs (comma-separated or repeated).
    #[arg(long, value_name = "JOB", value_delimiter = ',')]
    pub name: Vec<String>,

    /// Skip these jobs (comma-separated or repeated).
    #[arg(long, value_name = "JOB", value_delimiter = ',')]
    pub exclude: Vec<String>,

    /// Run id of the first run (the original's uid); seeds derive from it
    /// (run id + 100 per instance rank, which must not pass 2^64-1).
    #[arg(long, default_value_t = 0)]
    pub uid: u64,

    /// Report folder (default: `$BASE/output`).
    #[arg(long, value_name = "DIR")]
    pub outdir: Option<PathBuf>,

    /// Base folder: data in `$BASE/data`, scratch in `$BASE/tmp` (default: the current folder).
    #[arg(long, env = "BASE", value_name = "DIR")]
    pub base: Option<PathBuf>,

    /// Number of slots on a host without GPU (default 1); on a GPU host, use the first N GPUs.
    #[arg(long, value_name = "N")]
    pub devices: Option<usize>,

    /// Kill an instance that runs longer than this many seconds (finite, at least 1).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = supervise::timeout)]
    pub timeout: Option<f64>,

    /// Skip job configs whose reports in the output folder are complete.
    #[arg(long)]
    pub resume: bool,

    /// Run without cgroups: instances are not confined to their slot (recorded in every report).
    #[arg(long = "no-cgroups")]
    pub no_cgroups: bool,

    /// When another mlb run holds this host, wait for it to end instead of refusing.
    #[arg(long)]
    pub wait: bool,

    /// Run the whole selection K times (K >= 1), with run ids uid..uid+K-1.
    #[arg(long, value_name = "K", default_value = "1", allow_negative_numbers = true, value_parser = at_least_one)]
    pub runs: u64,

    /// Train each instance to its quality target on MLPerf's clock instead of
    /// timing a fixed number of steps (docs/quality.md): the page cache is
    /// dropped before each config's run (as root), each report holds the
    /// time to quality, and each instance writes MLLOG lines beside it.
    #[arg(long = "to-quality")]
    pub to_quality: bool,

    /// Seconds to wait between two runs of `--runs` (0 to 86400).
    #[arg(long, value_name = "SECONDS", default_value = "10", allow_negative_numbers = true, value_parser = pause)]
    pub pause: Duration,

    /// Refuse a selection of more job configs than this (each list argument
    /// multiplies its job's configs).
    #[arg(long = "max-configs", value_name = "N", default_value = "10000", allow_negative_numbers = true, value_parser = at_least_one)]
    pub max_configs: u64,

    /// Start nothing: print every instance's command, environment, devices, CPUs, memory, cgroup and seed.
    #[arg(long = "dry-run")]
    pub dry_run: bool,

    /// Run every instance in a Docker container: of the image of the detected
    /// host kind (no value), of a kind's image (`ngc`, `rocm`, `powerai`), or of IMAGE.
    #[arg(long, value_name = "KIND|IMAGE", num_args = 0..=1, conflicts_with = "singularity")]
    pub docker: Option<Option<String>>,

    /// Image mapping (JSON, kind -> image) overriding `configs/containers.json` for `--docker`.
    #[arg(long, value_name = "FILE", requires = "docker")]
    pub images: Option<PathBuf>,

    /// Run across the nodes of the Slurm allocation this runs in: each job
    /// config as one job step, one task per slot on every node (see `mlb slurm submit`).
    #[arg(long)]
    pub slurm: bool,

    /// Run every instance with `apptainer exec` (or `singularity exec`) of this image file.
    #[arg(long, value_name = "IMAGE")]
    pub singularity: Option<PathBuf>,

    /// Treat the host as this kind instead of the detected one.
    #[arg(long, value_name = "KIND")]
    pub host: Option<HostKind>,

    /// Refuse to run when a pre-flight check (`mlb doctor`) fails, instead of
    /// warning; a slot that failed its last `mlb burn` fails it too.
    #[arg(long = "strict-preflight")]
    pub strict_preflight: bool,

    /// Import the run into the results store when it ends: `--db` alone for
    /// the default store (`MLB_DB`, else `$XDG_DATA_HOME/mlb/results.db`), or
    /// `--db URL` (`sqlite:PATH`, `postgres://...`). A failure to import is
    /// a warning: the exit status stays the run's.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    pub db: Option<String>,

    /// Telemetry samples per second of every instance (0 to 1000; 0: none).
    #[arg(long = "sample-hz", value_name = "HZ", default_value = "10", allow_negative_numbers = true, value_parser = sample_hz)]
    pub sample_hz: f64,

    /// Read the host description under this folder instead of `/` (fixture trees).
    #[arg(long = "host-root", value_name = "DIR", hide = true)]
    pub host_root: Option<PathBuf>,

    /// Take this lock file instead of the host's (`/run/mlb/launch.lock`): runs
    /// exclude only the runs given the same file (tests running launchers side by side).
    #[arg(long = "lock", env = "MLB_LOCK", value_name = "FILE", hide = true)]
    pub lock: Option<PathBuf>,
}

/// What an instance's seed adds to its run id per instance rank: the seed
/// of rank `i` is `run id + (i+1) * 100` (docs/launcher.md).
pub const SEED_STEP: u64 = 100;

impl LaunchArgs {
    /// Whether the instances run in a container image (`--docker`,
    /// `--singularity`), with the image's own `mlb` and plugins.
    pub fn in_image(&self) -> bool {
        self.docker.is_some() || self.singularity.is_some()
    }

    /// The run id of the last run, `--uid` + `--runs` - 1, for a run of
    /// `instances` instances per config at most; refused when it, or a
    /// seed derived from it, would pass the largest number (`u64::MAX`).
    pub fn last_run_id(&self, instances: usize) -> Result<u64, LaunchError> {
        let runs = self.runs.max(1);
        if self.to_quality && runs > SEED_STEP {
            return Err(LaunchError::SeedsRepeat { runs });
        }
        let seeds = SEED_STEP.saturating_mul(instances as u64);
        let highest = (runs - 1).saturating_add(seeds);
        match self.uid.checked_add(highest) {
            Some(_) => Ok(self.uid + (runs - 1)),
            None => Err(LaunchError::RunIds { uid: self.uid, runs, largest: u64::MAX - highest }),
        }
    }
}

/// The highest `--sample-hz`.
pub const MAX_SAMPLE_HZ: f64 = 1000.0;

/// `--sample-hz`: 0 to [`MAX_SAMPLE_HZ`].
fn sample_hz(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(hz) if (0.0..=MAX_SAMPLE_HZ).contains(&hz) => Ok(hz),
        _ => Err(format!("accepted: 0 (no telemetry) to {MAX_SAMPLE_HZ} samples per second")),
    }
}

/// `--pause`: 0 to [`MAX_PAUSE_SECONDS`] seconds.
fn pause(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if (0.0..=MAX_PAUSE_SECONDS).contains(&seconds) => Ok(Duration::from_secs_f64(seconds)),
        _ => Err(format!("accepted: 0 to {MAX_PAUSE_SECONDS} seconds")),
    }
}

/// `--runs`, `--max-configs`: a whole number, at least 1.
fn at_least_one(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("accepted: a whole number at least 1 (at most {})", u64::MAX)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_out_of_range_are_refused_with_the_accepted_range() {
        assert_eq!(pause("0"), Ok(Duration::ZERO));
        assert_eq!(pause("86400"), Ok(Duration::from_secs(86_400)));
        for bad in ["-1", "86400.5", "1e300", "NaN", "inf"] {
            assert_eq!(pause(bad).unwrap_err(), "accepted: 0 to 86400 seconds", "{bad}");
        }
        assert_eq!(sample_hz("10"), Ok(10.0));
        assert_eq!(sample_hz("0"), Ok(0.0));
        for bad in ["-1", "1001", "NaN", "inf", "fast"] {
            assert!(sample_hz(bad).unwrap_err().contains("0 (no telemetry) to 1000"), "{bad}");
        }
        assert_eq!(at_least_one("3"), Ok(3));
        for bad in ["0", "-2", "1.5", "18446744073709551616"] {
            assert!(at_least_one(bad).unwrap_err().contains("at least 1"), "{bad}");
        }
    }

    #[test]
    fn run_ids_may_reach_the_largest_and_not_pass_it() {
        let args = |uid, runs| LaunchArgs { uid, runs, ..LaunchArgs::default() };
        assert_eq!(args(7, 3).last_run_id(2).unwrap(), 9);
        // Two instances: seeds up to the last run id + 200.
        let top = u64::MAX - 200;
        assert_eq!(args(top, 1).last_run_id(2).unwrap(), top);
        assert_eq!(args(top - 1, 2).last_run_id(2).unwrap(), top);
        let wraps = args(top - 1, 3).last_run_id(2);
        assert!(matches!(wraps, Err(LaunchError::RunIds { runs: 3, largest, .. }) if largest == top - 2), "{wraps:?}");
        assert!(matches!(args(u64::MAX, 1).last_run_id(1), Err(LaunchError::RunIds { .. })));
    }

    #[test]
    fn a_run_to_quality_refuses_runs_whose_seeds_would_repeat() {
        let args = |runs| LaunchArgs { runs, to_quality: true, ..LaunchArgs::default() };
        assert_eq!(args(SEED_STEP).last_run_id(8).unwrap(), SEED_STEP - 1);
        let err = args(SEED_STEP + 1).last_run_id(8).unwrap_err();
        assert!(matches!(err, LaunchError::SeedsRepeat { runs: 101 }), "{err:?}");
        assert!(err.to_string().contains("would repeat"));
        let throughput = LaunchArgs { runs: SEED_STEP + 1, ..LaunchArgs::default() };
        assert!(throughput.last_run_id(8).is_ok(), "a throughput run keeps its behaviour");
    }
}
