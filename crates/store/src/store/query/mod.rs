//! Queries of the results store: runs and systems, the comparison of
//! systems bench by bench, one system's history, a run against its history
//! (regressions), exports and the vote across runs (docs/results.md,
//! "Queries", "Regressions", "Export", "The vote across runs"). The figures
//! are computed by pure functions over what the store returns; the SQL
//! binds every name as a parameter.

pub mod bencher;
pub mod chart;
pub mod compare;
pub mod error;
pub mod export;
mod figures;
pub mod filters;
pub mod glob;
pub mod history;
pub mod interference;
pub mod matrix;
pub mod regressions;
pub mod render;
pub mod runs;
pub mod scale;
pub(crate) mod sql;
pub mod systems;
pub mod vote;

pub use error::QueryError;
pub use matrix::{Figure, Matrix, Metric};
