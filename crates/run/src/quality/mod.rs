//! Time to quality (`mlb --jobs FILE --to-quality`): MLPerf's clock as mlb
//! applies it (docs/quality.md).
//!
//! - [`rules`]: an instance's target, evaluation interval, bounds and
//!   initialisation cap, read from its config;
//! - [`cache`]: dropping the page cache before a run;
//! - [`mllog`]: the `:::MLLOG` lines of MLPerf's log format;
//! - a config's result over its runs (MLPerf's olympic mean) is
//!   [`mlb_figures::olympic`]'s;
//! - [`concurrent`]: the concurrent-instance metric of a run of M instances;
//! - [`rcp`]: MLPerf's check of a config's convergence against reference
//!   convergence points.

pub mod cache;
pub mod concurrent;
pub mod mllog;
pub mod rcp;
pub mod rules;
