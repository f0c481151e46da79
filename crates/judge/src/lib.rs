//! mlb's judgment layer: what a site reads off a folder of reports. `mlb
//! report` (aggregates, checks against the original's rules, tables, the
//! HTML report and its charts), target tables (`mlb targets`) and `mlb
//! accept` with its signed record.
//!
//! It reads reports through the record crate and computes every figure
//! through the figures crate; the run layer below gives it the jobs, GPU
//! models and quality rules it judges against.

pub mod accept;
pub mod charts;
pub mod report;
pub mod targets;
