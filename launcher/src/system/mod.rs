//! What the host of a run is: `system.json` in the output folder of every
//! run, shaped after MLPerf's `system_desc` (its field names), filled with
//! what can be detected; `mlb report` shows it in a header section.

mod describe;

pub use describe::{describe, read, write, SystemDesc, FILE};

/// Whether `path` is a file a run writes beside its reports that is no
/// report: its system description or its pre-flight verdict.
pub fn is_run_file(path: &std::path::Path) -> bool {
    path.file_name().is_some_and(|n| n == FILE || n == crate::doctor::FILE)
}
