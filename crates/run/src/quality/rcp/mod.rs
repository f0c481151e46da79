//! Reference convergence points (RCPs), as MLPerf Training checks them.
//!
//! An RCP is a set of reference runs of one benchmark at one global batch
//! size: how many epochs (or items) each took to reach the quality target. A
//! submission's runs are compared with the reference at the same batch size
//! (or one interpolated between its neighbours): a mean convergence
//! statistically faster than the reference's is flagged, because it suggests
//! the run changed what it trains, not how fast.
//!
//! This is a port of `mlperf_logging.rcp_checker` (the statistics, the
//! pruning of the reference points and the verdict), with its numbers: it is
//! tested against the Python package's own answers on its shipped reference
//! sets (launcher/tests/it/quality_rcp.rs). What differs is the input: the
//! package reads runs from log files, this takes their convergence points.
//!
//! - [`set`]: the RCP JSON files (read and written in MLPerf's shape).
//! - the statistics (olympic mean, the one-sided t-test and the smallest
//!   acceptable mean) are [`mlb_figures::rcp`]'s.
//! - [`checker`]: the processed reference points and the verdict on a
//!   submission.
//! - [`matching`]: which points a config is compared with (the same
//!   benchmark and problem).
//! - [`reference`]: a config's runs, and the point made from them.
//! - [`installed`]: the reference set shipped with mlb.

pub mod checker;
pub mod installed;
pub mod matching;
pub mod reference;
pub mod set;

pub use checker::{Checker, Outcome, Pass, PointStats, Verdict};
pub use matching::Problem;
pub use reference::{ConfigRuns, ReferenceError, Run};
pub use set::{RcpError, RcpSet, Reference};
