//! One instance, described independently of how it is run (bare, Docker,
//! Singularity/Apptainer): what to execute, with which environment, in which
//! slot, seeing which folders.

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
    /// Instance environment (compat §2: `JOB_ID`, `BENCH_NAME`, `RUN_ID`, ...),
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
    /// GPUs the instance may use.
    pub gpus: Gpus,
}

/// GPU access of an instance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Gpus {
    /// No GPU (CPU-only host, or `--devices` slots on a GPU-less host).
    #[default]
    None,
    /// NVIDIA GPUs by host index (`nvidia-smi` numbering).
    Nvidia(Vec<u32>),
    /// AMD GPUs through ROCm.
    Rocm(Vec<RocmGpu>),
}

impl Gpus {
    /// Host indices of the GPUs, in order.
    pub fn indices(&self) -> Vec<u32> {
        match self {
            Gpus::None => Vec::new(),
            Gpus::Nvidia(ids) => ids.clone(),
            Gpus::Rocm(gpus) => gpus.iter().map(|g| g.index).collect(),
        }
    }
}

/// One AMD GPU: its host index and its DRM render node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RocmGpu {
    /// Host index (`rocm-smi` numbering).
    pub index: u32,
    /// Its render node, e.g. `/dev/dri/renderD128`.
    pub render_node: PathBuf,
}

impl RocmGpu {
    /// GPU `index` with the conventional render node `/dev/dri/renderD{128+index}`
    /// (true when every GPU has a render node and no other DRM device precedes them).
    pub fn conventional(index: u32) -> Self {
        RocmGpu { index, render_node: PathBuf::from(format!("/dev/dri/renderD{}", 128 + index)) }
    }
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
