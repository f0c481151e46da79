//! mlb's judgment layer: what a site reads off a folder of reports. `mlb
//! report` (aggregates, checks against the original's rules, tables, the
//! HTML report and its charts), target tables (`mlb targets`), `mlb
//! accept` with its signed record, and `mlb interfere`'s matrix.
//!
//! It reads reports through the record crate and computes every figure
//! through the figures crate; the run layer below gives it the jobs, GPU
//! models and quality rules it judges against.

pub mod accept;
pub mod charts;
pub mod interfere;
pub mod report;
pub mod targets;
