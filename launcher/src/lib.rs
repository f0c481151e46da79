//! mlb: runs GPU training benchmarks fairly, in isolation, inside vendor
//! containers.
//!
//! The host side (this crate) never links libtorch: workloads are plugins
//! (see the `mlb-plugin` crate) that one `mlb worker` process per slot loads,
//! times and reports on.

pub mod accept;
pub mod burn;
pub mod charts;
pub mod check;
pub mod cli;
pub mod commands;
pub mod console;
pub mod doctor;
pub mod edge;
pub mod gpu;
pub mod host;
pub mod isolation;
pub mod jobs;
pub mod launch;
pub mod linux;
pub mod plan;
pub mod plugins;
pub mod prepare;
pub mod quality;
pub mod report;
pub mod runtime;
pub mod serve;
pub mod slurm;
pub mod store;
pub mod system;
pub mod targets;
pub mod telemetry;
pub mod worker;
