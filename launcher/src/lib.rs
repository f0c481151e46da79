//! mlb: runs GPU training benchmarks fairly, in isolation, inside vendor
//! containers.
//!
//! This crate is the top of mlb's layers: the command line (`cli`), the
//! commands that turn its arguments into the typed options of the crates
//! below (`commands`), `mlb burn`, which composes runs and judgments, and
//! the error edge. The crates below are re-exported under their module
//! names, so `mlb::gpu` is `mlb_run::gpu` (docs/architecture.md).
//!
//! The host side never links libtorch: workloads are plugins (see the
//! `mlb-plugin` crate) that one `mlb worker` process per slot loads, times
//! and reports on.

pub mod cli;
pub mod commands;
pub mod edge;

pub use mlb_judge::{accept, charts, interfere, report, targets};
pub use mlb_prepare as prepare;
pub use mlb_run::{
    check, console, doctor, gpu, host, isolation, jobs, launch, linux, plan, plugins, quality, runtime, slurm, system,
    telemetry, worker,
};
pub use mlb_store::{serve, store};
