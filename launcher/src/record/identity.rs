//! Which instance a report belongs to.

use super::failure::Failure;
use super::name::{file_name, timestamp};
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

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

    /// The identity fields every report carries.
    pub fn fields(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("suite".into(), self.suite.clone().into());
        m.insert("name".into(), self.name.clone().into());
        m.insert("run_id".into(), self.run_id.into());
        m.insert("jr_id".into(), self.jr_id.to_string().into());
        m.insert("vcd".into(), self.vcd.clone().into());
        m
    }

    /// A failure record: identity, `completed: false`, the failure and any
    /// `extra` fields (times, unique id, provenance, losses so far).
    pub fn failure_record(&self, failure: &Failure, extra: Map<String, Value>) -> Value {
        let mut m = extra;
        m.extend(self.fields());
        m.insert("completed".into(), false.into());
        m.insert("failure".into(), json!(failure));
        m.entry("end_time").or_insert_with(|| timestamp(Utc::now()).into());
        Value::Object(m)
    }
}
