//! What a launch is asked for (`mlb --jobs FILE ...`, or a burn's jobs):
//! the typed options the `mlb` crate's command line is turned into.

use super::error::LaunchError;
use crate::faults::Fault;
use crate::host::HostKind;
use std::path::PathBuf;
use std::time::Duration;

/// The longest pause between two runs, in seconds: a day.
pub const MAX_PAUSE_SECONDS: f64 = 86_400.0;

/// The highest telemetry rate, samples per second.
pub const MAX_SAMPLE_HZ: f64 = 1000.0;

/// What an instance's seed adds to its run id per instance rank: the seed
/// of rank `i` is `run id + (i+1) * 100` (docs/launcher.md).
pub const SEED_STEP: u64 = 100;

/// A launch's options; [`Default`] is what the command line gives when no
/// flag is passed, but the jobs file.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The jobs file to run (JSON, or YAML for `.yaml`/`.yml`).
    pub jobs: Option<PathBuf>,
    /// Run only these jobs.
    pub name: Vec<String>,
    /// Skip these jobs.
    pub exclude: Vec<String>,
    /// The run id of the first run; seeds derive from it.
    pub uid: u64,
    /// The report folder (none: `$BASE/output`).
    pub outdir: Option<PathBuf>,
    /// The base folder: data in `base/data`, scratch in `base/tmp` (none: the current folder).
    pub base: Option<PathBuf>,
    /// Slots on a host without GPU; on a GPU host, the first N GPUs.
    pub devices: Option<usize>,
    /// Kill an instance that runs longer than this many seconds.
    pub timeout: Option<f64>,
    /// Skip job configs whose reports in the output folder are complete.
    pub resume: bool,
    /// Run without cgroups (recorded in every report).
    pub no_cgroups: bool,
    /// Wait for another mlb run that holds this host instead of refusing.
    pub wait: bool,
    /// Run the whole selection this many times (at least 1).
    pub runs: u64,
    /// Train each instance to its quality target on MLPerf's clock.
    pub to_quality: bool,
    /// The pause between two runs.
    pub pause: Duration,
    /// Refuse a selection of more job configs than this.
    pub max_configs: u64,
    /// Start nothing: print every instance's command and placement.
    pub dry_run: bool,
    /// Run every instance in a Docker container: of the detected host
    /// kind's image (`Some(None)`), of a kind's image, or of an image.
    pub docker: Option<Option<String>>,
    /// The image mapping overriding `configs/containers.json`.
    pub images: Option<PathBuf>,
    /// Run across the nodes of the Slurm allocation this runs in.
    pub slurm: bool,
    /// Run every instance with `apptainer exec` of this image file.
    pub singularity: Option<PathBuf>,
    /// Treat the host as this kind instead of the detected one.
    pub host: Option<HostKind>,
    /// Refuse to run when a pre-flight check fails, instead of warning.
    pub strict_preflight: bool,
    /// Telemetry samples per second of every instance (0: none).
    pub sample_hz: f64,
    /// Read the host description under this folder instead of `/`.
    pub host_root: Option<PathBuf>,
    /// The lock file to take instead of the host's.
    pub lock: Option<PathBuf>,
    /// Faults and restarts (docs/faults.md).
    pub recovery: Recovery,
}

/// What `--inject`, `--restarts` and `--checkpoint-every` ask for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recovery {
    /// Faults injected into every config, timed from its start.
    pub inject: Vec<Fault>,
    /// How many times a failed instance (or DDP group) is started again.
    pub restarts: u32,
    /// Seconds between two checkpoints of every instance.
    pub checkpoint_every: Option<f64>,
    /// With faults: no reference run without them first.
    pub no_reference: bool,
}

impl Recovery {
    /// Whether the run injects faults, restarts or checkpoints: then every
    /// config's instances tell their position and its reports get a
    /// `faults` block.
    pub fn active(&self) -> bool {
        !self.inject.is_empty() || self.restarts > 0 || self.checkpoint_every.is_some()
    }

    /// Whether each config first runs once without faults, for its goodput
    /// to be compared with.
    pub fn reference(&self) -> bool {
        !self.inject.is_empty() && !self.no_reference
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            jobs: None,
            name: Vec::new(),
            exclude: Vec::new(),
            uid: 0,
            outdir: None,
            base: None,
            devices: None,
            timeout: None,
            resume: false,
            no_cgroups: false,
            wait: false,
            runs: 1,
            to_quality: false,
            pause: Duration::from_secs(10),
            max_configs: 10_000,
            dry_run: false,
            docker: None,
            images: None,
            slurm: false,
            singularity: None,
            host: None,
            strict_preflight: false,
            sample_hz: 10.0,
            host_root: None,
            lock: None,
            recovery: Recovery::default(),
        }
    }
}

impl Options {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_may_reach_the_largest_and_not_pass_it() {
        let args = |uid, runs| Options { uid, runs, ..Options::default() };
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
        let args = |runs| Options { runs, to_quality: true, ..Options::default() };
        assert_eq!(args(SEED_STEP).last_run_id(8).unwrap(), SEED_STEP - 1);
        let err = args(SEED_STEP + 1).last_run_id(8).unwrap_err();
        assert!(matches!(err, LaunchError::SeedsRepeat { runs: 101 }), "{err:?}");
        assert!(err.to_string().contains("would repeat"));
        let throughput = Options { runs: SEED_STEP + 1, ..Options::default() };
        assert!(throughput.last_run_id(8).is_ok(), "a throughput run keeps its behaviour");
    }
}
