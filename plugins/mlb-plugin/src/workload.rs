//! The safe side of the ABI: what a plugin author implements.

use crate::{Fault, Fingerprint, Quality, WorkloadArgs};

/// Error type of workload code: any error converts into it with `?`, and a
/// message converts with `.into()` (`Err("bad arch".into())`).
pub type Error = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Result of workload code.
pub type Result<T> = std::result::Result<T, Error>;

/// How the host sets an instance up before the timed loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// `"auto"` (first visible GPU, else CPU), `"cpu"` or `"cuda:N"`.
    pub device: String,
    /// CPUs of the instance's slot: use this many intra-op threads.
    pub threads: u32,
    /// The run is deterministic: seed every generator with the instance's
    /// seed, read the data in the same order and ask for deterministic
    /// algorithms (a workload that declares [`Workload::DETERMINISTIC`]).
    pub deterministic: bool,
}

impl Setup {
    /// A throughput setup on `device` with `threads` intra-op threads.
    pub fn new(device: impl Into<String>, threads: u32) -> Self {
        Setup { device: device.into(), threads, deterministic: false }
    }
}

/// What one training step did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Items (samples, images, sequences...) really processed by the step.
    pub items: u64,
    /// The step's loss, if the workload has one.
    pub loss: Option<f64>,
}

impl Step {
    /// A step that processed `items` and has no loss.
    pub fn items(items: u64) -> Self {
        Step { items, loss: None }
    }

    /// A step that processed `items` with the given loss.
    pub fn with_loss(items: u64, loss: f64) -> Self {
        Step { items, loss: Some(loss) }
    }
}

/// A training workload. Implement it and export it with
/// [`export_workload!`](crate::export_workload).
///
/// The host calls `create`, then `setup` once, then `step` repeatedly with
/// `sync` at the edges of each timed block, then `report`. A time-to-quality
/// run also calls `eval` between steps; a run that checkpoints calls `save`
/// between steps, and `restore` on a fresh instance before its first step. Panics are caught at the ABI boundary
/// and reported as failures of the instance.
pub trait Workload: Sized + 'static {
    /// Workload name, as used by `plugin` jobs.
    const NAME: &'static str;
    /// Workload version (usually `env!("CARGO_PKG_VERSION")`).
    const VERSION: &'static str;
    /// One-line description shown by `mlb plugins list`.
    const DESCRIPTION: &'static str;
    /// The declared arguments (see [`workload_args!`](crate::workload_args)):
    /// their defaults and kinds are the manifest's, and `create` gets them
    /// read from the instance's config.
    type Args: WorkloadArgs;
    /// What [`eval`](Self::eval) measures and its default target; `None`
    /// (the default) for a workload without an evaluation.
    const QUALITY: Option<Quality> = None;
    /// The version of the libtorch the library links, as that libtorch's
    /// version file writes it (`2.11.0+cu130`, see [`crate::libtorch`]):
    /// mlb refuses the library, before loading it, when the libtorch it
    /// would load at run time is another release. Empty (the default) for a
    /// library that does not link libtorch. A libtorch plugin sets it from
    /// its build script (mlb-torch-build's `declare_libtorch_version`).
    const LIBTORCH: &'static str = "";
    /// Whether the workload can run deterministically: given the same seed,
    /// threads and stack, every instance computes the same bits, and
    /// [`fingerprint`](Self::fingerprint) says what it computed. A workload
    /// that cannot (the default) is refused in deterministic mode, by name.
    const DETERMINISTIC: bool = false;
    /// Whether the workload can checkpoint: [`save`](Self::save) writes its
    /// state and [`restore`](Self::restore) continues from it. A workload
    /// that cannot (the default) has no checkpoint entries in its table, and
    /// a failed instance of it starts afresh.
    const CHECKPOINT: bool = false;

    /// Builds the instance from its arguments.
    fn create(args: Self::Args) -> Result<Self>;

    /// Prepares device, threads, model and data. Not timed.
    fn setup(&mut self, _setup: &Setup) -> Result<()> {
        Ok(())
    }

    /// Runs one training step.
    fn step(&mut self) -> Result<Step>;

    /// Blocks until queued device work is done (no-op on the CPU).
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }

    /// Extra report fields: `metrics` ({name: [values]}), `gpu`, `cuda`,
    /// `data` ("synthetic" or a path), anything the workload wants recorded.
    fn report(&self) -> Result<serde_json::Map<String, serde_json::Value>> {
        Ok(serde_json::Map::new())
    }

    /// Evaluates the current model on held-out data and returns the value of
    /// [`QUALITY`](Self::QUALITY)'s metric. No training: no gradients, no
    /// optimizer step, nothing the next `step` sees (a model switched to
    /// evaluation mode is put back in training mode). Called after `setup`,
    /// between steps, outside the timed blocks of a throughput run.
    ///
    /// The default fails: the workload has no evaluation.
    fn eval(&mut self) -> Result<f64> {
        Err(format!("workload `{}` has no evaluation", Self::NAME).into())
    }

    /// What the instance has computed so far: the hash of its parameters and
    /// the last step's gradient norm. Called after a step, outside nothing:
    /// its cost is the step's. Only called on a workload that declares
    /// [`DETERMINISTIC`](Self::DETERMINISTIC); the default fails.
    fn fingerprint(&mut self) -> Result<Fingerprint> {
        Err(format!("workload `{}` cannot run deterministically", Self::NAME).into())
    }

    /// Writes into `dir` everything the instance needs to continue exactly
    /// where it is: weights, optimizer state, data position, random
    /// generators' state, step counters, the loss scaler, and a header
    /// ([`CheckpointHeader`](crate::CheckpointHeader)) naming the workload
    /// and the shapes and config fields a restore must match. `dir` is an
    /// existing, empty folder the host made. Called after `setup`, between
    /// steps, after `sync`, outside the timed blocks. Only called on a
    /// workload that declares [`CHECKPOINT`](Self::CHECKPOINT); the default
    /// fails.
    fn save(&mut self, _dir: &std::path::Path) -> Result<()> {
        Err(format!("workload `{}` cannot checkpoint", Self::NAME).into())
    }

    /// Reads back the state [`save`](Self::save) wrote into `dir`. Called on
    /// a fresh instance created from the same config, after `setup`, before
    /// its first step; afterwards its next steps compute what the saved
    /// instance's next steps would have computed (bit for bit in
    /// deterministic mode). A folder written by another workload, or by an
    /// instance whose shapes or config differ, is refused with a message
    /// naming the folder and the mismatch. Only called on a workload that
    /// declares [`CHECKPOINT`](Self::CHECKPOINT); the default fails.
    fn restore(&mut self, _dir: &std::path::Path) -> Result<()> {
        Err(format!("workload `{}` cannot checkpoint", Self::NAME).into())
    }

    /// Injects `fault` (tests, and sites checking the checks). The default
    /// fails: the workload has no such fault.
    fn inject(&mut self, fault: Fault) -> Result<()> {
        Err(format!("workload `{}` cannot inject the fault `{fault}`", Self::NAME).into())
    }
}
