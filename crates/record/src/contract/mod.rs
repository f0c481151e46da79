//! The contract between the launcher and `mlb worker`: everything both
//! sides must read and write the same way, defined once.
//!
//! - [`argv`]: the worker's command line, built by the launcher;
//! - [`env`](mod@env): the instance environment (the original suite's variables, device
//!   variables, `MLB_*` variables), built for every runtime and read back by
//!   the worker;
//! - [`line`](mod@line): the worker's stdout protocol (progress, window and report lines);
//! - [`window`]: the edges of the timed window and the clock they are read on;
//! - [`exit`]: exit codes and the failure cause each stands for;
//! - [`precision`]: the precision a report says it trained in;
//! - [`isolation`](mod@isolation): what confines an instance, as the environment and the
//!   report name it;
//! - [`report`]: the report file, written by the worker (and by the launcher
//!   for an instance that could not, or to add the telemetry), read by
//!   `--resume` and `mlb report`;
//! - [`telemetry`](mod@telemetry): the report's `telemetry` block, set by the
//!   launcher;
//! - [`quality`]: the report's `quality` block, of a run to quality;
//! - [`checkpoint`]: an instance's checkpoints on disk (worker writes,
//!   launcher lists);
//! - [`faults`]: the report's `faults` block: faults injected, restarts,
//!   goodput, set by the launcher;
//! - [`determinism`]: the config keys of a deterministic run and the
//!   report's `determinism` block (its fingerprints);
//! - [`read`]: the one tolerant reader of report files (the original
//!   suite's too), into the full report or `mlb report`'s light view;
//! - [`keys`]: which of its keys are typed fields, and which workload keys
//!   are the configuration's arguments;
//! - [`record`]: a report file's identity and name, its failure record, its
//!   configuration id and how it is written;
//! - [`physical`]: which throughputs and energies read from a report are
//!   measures (the rest count as missing);
//! - [`stats`]: the summaries of observed times and throughputs a report holds;
//! - [`step_plan`]: the Slurm step plans a run writes beside its reports,
//!   which no walk over reports reads;
//! - [`RUN_FILES`]: the files a run writes beside its reports that are no report.
//!
//! docs/worker.md ("The launcher-worker contract") describes it for people.

pub mod argv;
pub mod checkpoint;
pub mod determinism;
pub mod env;
pub mod exit;
pub mod faults;
pub mod isolation;
pub mod keys;
pub mod line;
pub mod physical;
pub mod precision;
pub mod quality;
pub mod read;
pub mod record;
pub mod report;
pub mod stats;
pub mod step_plan;
pub mod telemetry;
pub mod window;

pub use line::{Position, WorkerLine};
pub use report::{Container, PluginBuild, Provenance, Report, SlurmTask};
pub use window::Edge;

/// The files a run writes beside its reports that are no report: the system
/// description (`system.json`), the pre-flight verdict (`doctor.json`) and
/// a burn's verdicts (`burn.json`).
pub const RUN_FILES: [&str; 3] = [SYSTEM_FILE, VERDICT_FILE, BURN_FILE];
/// The run's system description, beside its reports.
pub const SYSTEM_FILE: &str = "system.json";
/// The run's pre-flight verdict, beside its reports.
pub const VERDICT_FILE: &str = "doctor.json";

/// A burn's verdicts, beside its reports (`mlb burn`).
pub const BURN_FILE: &str = "burn.json";

/// Whether `path` names one of the [`RUN_FILES`].
pub fn is_run_file(path: &std::path::Path) -> bool {
    path.file_name().is_some_and(is_run_file_name)
}

/// Whether a file named `name` is one of the [`RUN_FILES`].
pub fn is_run_file_name(name: &std::ffi::OsStr) -> bool {
    RUN_FILES.iter().any(|f| name == *f)
}
