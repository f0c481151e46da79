//! Command line of the launcher (`mlb --jobs FILE ...`).

use crate::host::HostKind;
use clap::Args;
use std::path::PathBuf;

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

    /// Run id of the first run (the original's uid); seeds derive from it.
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

    /// Kill an instance that runs longer than this many seconds.
    #[arg(long, value_name = "SECONDS")]
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

    /// Run the whole selection K times, with run ids uid..uid+K-1.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub runs: u64,

    /// Seconds to wait between two runs of `--runs`.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub pause: f64,

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

    /// Read the host description under this folder instead of `/` (fixture trees).
    #[arg(long = "host-root", value_name = "DIR", hide = true)]
    pub host_root: Option<PathBuf>,

    /// Take this lock file instead of the host's (`/run/mlb/launch.lock`): runs
    /// exclude only the runs given the same file (tests running launchers side by side).
    #[arg(long = "lock", env = "MLB_LOCK", value_name = "FILE", hide = true)]
    pub lock: Option<PathBuf>,
}
