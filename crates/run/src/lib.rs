//! mlb's run layer: everything that puts a benchmark on a GPU and times it.
//! The host (its GPUs, cgroups and container runtimes), jobs files and the
//! plans made of them, Slurm, the plugins and the worker that loads them,
//! telemetry, `mlb launch` and `mlb doctor`'s checks of a node.
//!
//! It reads and writes through the record crate and computes its timing
//! figures through the figures crate; nothing here knows of the results
//! store, the served pages or the judgment tools above it, so `mlb worker`
//! is built from this crate and the ones below.

pub mod check;
pub mod console;
pub mod doctor;
pub mod faults;
pub mod gpu;
pub mod host;
pub mod isolation;
pub mod jobs;
pub mod launch;
pub mod linux;
pub mod plan;
pub mod plugins;
pub mod quality;
pub mod runtime;
pub mod slurm;
pub mod system;
pub mod telemetry;
pub mod worker;
