//! One instance, described independently of how it is run (bare, Docker,
//! Singularity/Apptainer): what to execute, with which environment, in which
//! slot, seeing which folders.

use crate::gpu::ContainerGpus;
use std::path::PathBuf;

/// Everything a runtime needs to start one instance of one job config.
///
/// The launcher fills it from the job, the slot and the run; each runtime
/// turns it into its own form (a container, an `exec` command line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContainerSpec {
    /// Program and arguments, as seen where the instance runs (inside the
    /// image for containers): e.g. `mlb worker --plugin ... --config ...`, or
    /// the script of a `cmd` job. The worker records as `vcd` its `--vcd`
    /// argument first, so pass the host's device index there when a container
    /// renumbers the devices it sees.
    pub argv: Vec<String>,
    /// Instance environment (docs/launcher.md, "The host and its slots": `JOB_ID`, `BENCH_NAME`, `RUN_ID`, ...),
    /// in order. Runtimes add their own `MLB_*` provenance variables.
    pub env: Vec<(String, String)>,
    /// Working directory of the instance (`None`: the runtime's default).
    pub workdir: Option<PathBuf>,
    /// The slot's resources.
    pub resources: Resources,
    /// Host folders made visible to the instance.
    pub binds: Vec<Bind>,
    /// Labels identifying the instance (run, job, instance index).
    pub labels: Labels,
    /// Prefix of every log line the instance prints, e.g. `[toy_reg 1/4] `.
    pub prefix: String,
    /// Size of `/dev/shm` in bytes (`None`: the runtime's default; data
    /// loaders with worker processes need more than Docker's 64 MiB).
    pub shm_bytes: Option<u64>,
}

/// The slot an instance runs in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// CPUs in the kernel's list notation (`"0-3"`, `"0,2"`); `None`: all.
    pub cpus: Option<String>,
    /// NUMA memory nodes in list notation (`"0"`, `"0-1"`); `None`: all.
    pub mems: Option<String>,
    /// Memory hard limit in bytes (swap included); `None`: unlimited.
    pub memory_bytes: Option<u64>,
    /// GPUs the instance may use (`None`: no GPU).
    pub gpus: Option<ContainerGpus>,
}

/// A host folder visible to the instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bind {
    /// Path on the host.
    pub host: PathBuf,
    /// Path where the instance sees it.
    pub container: PathBuf,
    /// Mounted read-only (data and jobs) rather than read-write (outdir).
    pub read_only: bool,
}

impl Bind {
    /// A read-write bind (the output folder).
    pub fn rw(host: impl Into<PathBuf>, container: impl Into<PathBuf>) -> Self {
        Bind { host: host.into(), container: container.into(), read_only: false }
    }

    /// A read-only bind (data, jobs, configs).
    pub fn ro(host: impl Into<PathBuf>, container: impl Into<PathBuf>) -> Self {
        Bind { host: host.into(), container: container.into(), read_only: true }
    }
}

/// What identifies an instance among the containers of a host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels {
    /// The run id (`--uid`).
    pub run_id: String,
    /// The job name.
    pub job: String,
    /// The instance index within the job (`JOB_ID`).
    pub instance: u32,
}
