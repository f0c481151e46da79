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
//! - [`report`]: the report file, written by the worker (and by the launcher
//!   for an instance that could not, or to add the telemetry), read by
//!   `--resume` and `mlb report`;
//! - [`telemetry`](mod@telemetry): the report's `telemetry` block, set by the
//!   launcher;
//! - [`read`]: the one tolerant reader of report files (the original
//!   suite's too), into the full report or `mlb report`'s light view;
//! - [`keys`]: which of its keys are typed fields, and which workload keys
//!   are the configuration's arguments.
//!
//! docs/worker.md ("The launcher-worker contract") describes it for people.

pub mod argv;
pub mod env;
pub mod exit;
pub mod keys;
pub mod line;
pub mod read;
pub mod report;
pub mod telemetry;
pub mod window;

pub use line::WorkerLine;
pub use report::{Container, PluginBuild, Provenance, Report, SlurmTask};
pub use window::Edge;
