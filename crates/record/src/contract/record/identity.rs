//! Which instance a report belongs to.

use super::name::file_name;
use chrono::{DateTime, Utc};

/// The fields that place a report: suite, job, run and instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// Suite name (the jobs file's base name).
    pub suite: String,
    /// Job name.
    pub name: String,
    /// Run id (`--uid`, +k for the k-th of `--runs`).
    pub run_id: u64,
    /// Instance index within the job config.
    pub jr_id: u32,
    /// Visible device(s), `"3"` or `"0,1,2,3"`.
    pub vcd: String,
}

impl Identity {
    /// The report file name for this instance.
    pub fn file_name(&self, failed: bool, at: DateTime<Utc>) -> String {
        file_name(&self.suite, &self.name, self.run_id, &self.vcd, failed, at)
    }
}
