//! MLPerf's log format: one `:::MLLOG {...}` line per event, the JSON object
//! holding `namespace`, `time_ms`, `event_type`, `key`, `value` and
//! `metadata` in that order, as the `mlperf-logging` package writes them
//! (its `mllog` module), so that its compliance checker reads mlb's logs.
//!
//! `metadata` always holds `file` and `lineno`: where in mlb the event was
//! logged (the package names the caller's Python file and line).

use serde::Serialize;
use serde_json::{Map, Value};
use std::io::{self, Write};
use std::panic::Location;

/// The prefix of every line.
pub const PREFIX: &str = ":::MLLOG ";

/// What kind of event a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EventType {
    /// An interval starts (`init_start`, `run_start`, `block_start`...).
    IntervalStart,
    /// An interval ends (`init_stop`, `run_stop`, `block_stop`...).
    IntervalEnd,
    /// A value at a point in time (`seed`, `eval_accuracy`...).
    PointInTime,
}

/// The keys mlb logs (the package's `constants`).
pub mod key {
    /// The benchmark's name.
    pub const SUBMISSION_BENCHMARK: &str = "submission_benchmark";
    /// `open`: mlb's workloads are not MLPerf's reference models.
    pub const SUBMISSION_DIVISION: &str = "submission_division";
    /// Who ran it.
    pub const SUBMISSION_ORG: &str = "submission_org";
    /// The system it ran on.
    pub const SUBMISSION_PLATFORM: &str = "submission_platform";
    /// `research`: no submission.
    pub const SUBMISSION_STATUS: &str = "submission_status";
    /// Whether the page cache was dropped before the run.
    pub const CACHE_CLEAR: &str = "cache_clear";
    /// Initialisation (create and setup), before the clock.
    pub const INIT_START: &str = "init_start";
    /// End of the initialisation.
    pub const INIT_STOP: &str = "init_stop";
    /// The instance's seed.
    pub const SEED: &str = "seed";
    /// Items per step over every device of the instance.
    pub const GLOBAL_BATCH_SIZE: &str = "global_batch_size";
    /// The clock starts.
    pub const RUN_START: &str = "run_start";
    /// The clock stops (metadata `status`).
    pub const RUN_STOP: &str = "run_stop";
    /// Training between two evaluations starts.
    pub const BLOCK_START: &str = "block_start";
    /// It ends.
    pub const BLOCK_STOP: &str = "block_stop";
    /// An evaluation starts.
    pub const EVAL_START: &str = "eval_start";
    /// It ends.
    pub const EVAL_STOP: &str = "eval_stop";
    /// The quality an evaluation measured.
    pub const EVAL_ACCURACY: &str = "eval_accuracy";
    /// Items trained on in all.
    pub const TRAIN_SAMPLES: &str = "train_samples";
    /// Items of one evaluation (0 when the workload does not say).
    pub const EVAL_SAMPLES: &str = "eval_samples";
    /// `run_stop`'s status when the target was reached.
    pub const SUCCESS: &str = "success";
    /// `run_stop`'s status otherwise.
    pub const ABORTED: &str = "aborted";
    /// mlb's own: the instance was started again after a failure
    /// (`--restarts`, docs/faults.md); its value is the attempt (1: the
    /// first restart). The failed attempt's file ends without `run_stop`.
    pub const RESTART: &str = "restart";
}

/// One line's JSON object, its fields in the package's order.
#[derive(Serialize)]
struct Line<'a> {
    namespace: &'a str,
    time_ms: u64,
    event_type: EventType,
    key: &'a str,
    value: &'a Value,
    metadata: Metadata<'a>,
}

#[derive(Serialize)]
struct Metadata<'a> {
    file: &'a str,
    lineno: u32,
    #[serde(flatten)]
    more: &'a Map<String, Value>,
}

/// Writes MLLOG lines to `out`.
pub struct MlLog<W: Write> {
    out: W,
    namespace: String,
}

impl<W: Write> MlLog<W> {
    /// A log writing to `out` in `namespace` (`""`: the package's default).
    pub fn new(out: W, namespace: impl Into<String>) -> Self {
        MlLog { out, namespace: namespace.into() }
    }

    /// Logs the start of interval `key` at `time_ms` (ms since the Unix epoch).
    #[track_caller]
    pub fn start(&mut self, time_ms: u64, key: &str, value: Value, metadata: Map<String, Value>) -> io::Result<()> {
        self.log(time_ms, EventType::IntervalStart, key, value, metadata, Location::caller())
    }

    /// Logs the end of interval `key`.
    #[track_caller]
    pub fn end(&mut self, time_ms: u64, key: &str, value: Value, metadata: Map<String, Value>) -> io::Result<()> {
        self.log(time_ms, EventType::IntervalEnd, key, value, metadata, Location::caller())
    }

    /// Logs `key`'s value at a point in time.
    #[track_caller]
    pub fn event(&mut self, time_ms: u64, key: &str, value: Value, metadata: Map<String, Value>) -> io::Result<()> {
        self.log(time_ms, EventType::PointInTime, key, value, metadata, Location::caller())
    }

    fn log(
        &mut self,
        time_ms: u64,
        event_type: EventType,
        key: &str,
        value: Value,
        more: Map<String, Value>,
        at: &Location,
    ) -> io::Result<()> {
        let metadata = Metadata { file: at.file(), lineno: at.line(), more: &more };
        let line = Line { namespace: &self.namespace, time_ms, event_type, key, value: &value, metadata };
        let json = serde_json::to_string(&line).map_err(io::Error::other)?;
        writeln!(self.out, "{PREFIX}{json}")?;
        self.out.flush()
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// `{"samples_count": items}`: the metadata of block and evaluation events.
pub fn samples(items: u64) -> Map<String, Value> {
    Map::from_iter([("samples_count".to_string(), items.into())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_hold_the_packages_keys_in_its_order() {
        let mut log = MlLog::new(Vec::new(), "");
        log.start(1000, key::RUN_START, Value::Null, Map::new()).unwrap();
        log.event(1500, key::EVAL_ACCURACY, json!(0.75), samples(640)).unwrap();
        let status = Map::from_iter([("status".to_string(), json!(key::SUCCESS))]);
        log.end(2000, key::RUN_STOP, Value::Null, status).unwrap();
        let text = String::from_utf8(log.into_inner()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        for line in &lines {
            let body = line.strip_prefix(PREFIX).expect("the prefix");
            assert!(body.starts_with(r#"{"namespace":"","time_ms":"#), "{body}");
            let keys: Vec<_> = ["namespace", "time_ms", "event_type", "key", "value", "metadata"]
                .iter()
                .map(|k| body.find(&format!("\"{k}\":")).unwrap())
                .collect();
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "in order: {body}");
        }
        let v: Value = serde_json::from_str(lines[1].strip_prefix(PREFIX).unwrap()).unwrap();
        assert_eq!(v["event_type"], "POINT_IN_TIME");
        assert_eq!((v["time_ms"].as_u64(), v["value"].as_f64()), (Some(1500), Some(0.75)));
        assert_eq!(v["metadata"]["samples_count"], 640);
        assert!(v["metadata"]["file"].as_str().unwrap().ends_with("mllog.rs"));
        assert!(v["metadata"]["lineno"].as_u64().unwrap() > 0);
        let stop: Value = serde_json::from_str(lines[2].strip_prefix(PREFIX).unwrap()).unwrap();
        assert_eq!(
            (stop["event_type"].as_str(), stop["metadata"]["status"].as_str()),
            (Some("INTERVAL_END"), Some("success"))
        );
    }
}
