//! One report entry as the report tool sees it: which bench, which device,
//! and either a throughput or the reason it failed.

use serde::Deserialize;
use std::path::Path;
use std::sync::Arc;

/// A report entry, read from `file`.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The file it was read from (shared by the entries of one file).
    pub file: Arc<Path>,
    /// Bench (job) name.
    pub name: String,
    /// Suite name, when the report holds one (the original's did not).
    pub suite: Option<String>,
    /// Visible device(s): `"3"` or `"0,1,2,3"`.
    pub vcd: Option<String>,
    /// Device name, when the report holds one.
    pub gpu: Option<String>,
    /// Throughput or failure.
    pub outcome: Outcome,
}

/// What an entry measured.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// `train_item.avg`, in items per second.
    Ok(f64),
    /// The entry is a failure and stays out of the statistics.
    Failed {
        /// `failure.cause` of an mlb record, or what the report tool found.
        cause: String,
        /// What happened.
        message: String,
    },
}

impl Entry {
    /// The throughput of a successful entry.
    pub fn throughput(&self) -> Option<f64> {
        match self.outcome {
            Outcome::Ok(v) => Some(v),
            Outcome::Failed { .. } => None,
        }
    }

    /// The single device of a single-GPU entry (`vcd` without a comma).
    pub fn single_device(&self) -> Option<&str> {
        self.vcd.as_deref().filter(|v| !v.contains(','))
    }
}

/// The fields of a report file that the report tool reads; others are
/// skipped. Non-finite numbers arrive as `null` (see `tolerant`).
#[derive(Debug, Deserialize)]
pub struct RawEntry {
    name: Option<String>,
    suite: Option<String>,
    vcd: Option<Vcd>,
    gpu: Option<String>,
    completed: Option<bool>,
    train_item: Option<RawThroughput>,
    batch_loss: Option<Vec<Option<f64>>>,
    failure: Option<RawFailure>,
}

#[derive(Debug, Deserialize)]
struct RawThroughput {
    avg: Option<f64>,
}

#[derive(Debug, Deserialize)]
struct RawFailure {
    cause: Option<String>,
    message: Option<String>,
}

/// `vcd` is a string; very old reports may hold a bare number.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Vcd {
    Text(String),
    Number(u64),
}

impl RawEntry {
    /// Classifies the entry (compat §6 step 2): `completed == false` and a
    /// NaN (or infinite) value in `batch_loss` are failures; so is an entry
    /// without a usable `train_item.avg`. Errs when the entry has no name.
    pub fn into_entry(self, file: &Arc<Path>) -> Result<Entry, &'static str> {
        let name = self.name.ok_or("an entry has no `name`")?;
        let outcome = if self.completed == Some(false) {
            let failure = self.failure.unwrap_or(RawFailure { cause: None, message: None });
            Outcome::Failed {
                cause: failure.cause.unwrap_or_else(|| "incomplete".into()),
                message: failure.message.unwrap_or_else(|| "`completed` is false".into()),
            }
        } else if self.batch_loss.as_ref().is_some_and(|l| l.iter().any(Option::is_none)) {
            Outcome::Failed { cause: "nan".into(), message: "NaN in batch_loss".into() }
        } else {
            match self.train_item.and_then(|t| t.avg).filter(|v| v.is_finite() && *v >= 0.0) {
                Some(v) => Outcome::Ok(v),
                None => Outcome::Failed {
                    cause: "no_throughput".into(),
                    message: "no finite `train_item.avg` in a completed report".into(),
                },
            }
        };
        let vcd = self.vcd.map(|v| match v {
            Vcd::Text(s) => s,
            Vcd::Number(n) => n.to_string(),
        });
        Ok(Entry { file: file.clone(), name, suite: self.suite, vcd, gpu: self.gpu, outcome })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(v: serde_json::Value) -> Entry {
        let raw: RawEntry = serde_json::from_value(v).unwrap();
        raw.into_entry(&Arc::from(Path::new("f.json"))).unwrap()
    }

    #[test]
    fn classification() {
        let ok = entry(json!({"name": "vae", "vcd": "1", "train_item": {"avg": 12.5}, "batch_loss": [0.5]}));
        assert_eq!(ok.outcome, Outcome::Ok(12.5));
        assert_eq!(ok.single_device(), Some("1"));
        let nan = entry(json!({"name": "vae", "vcd": "0,1", "train_item": {"avg": 12.5}, "batch_loss": [0.5, null]}));
        assert!(matches!(&nan.outcome, Outcome::Failed { cause, .. } if cause == "nan"));
        assert_eq!(nan.single_device(), None);
        let failed = entry(json!({"name": "vae", "completed": false,
            "failure": {"cause": "oom", "message": "killed at 4 GiB"}}));
        assert_eq!(failed.outcome, Outcome::Failed { cause: "oom".into(), message: "killed at 4 GiB".into() });
        let bare = entry(json!({"name": "vae", "completed": false}));
        assert!(matches!(&bare.outcome, Outcome::Failed { cause, .. } if cause == "incomplete"));
        let no_avg = entry(json!({"name": "vae", "vcd": 2, "train_item": {"avg": null}}));
        assert!(matches!(&no_avg.outcome, Outcome::Failed { cause, .. } if cause == "no_throughput"));
        assert_eq!(no_avg.vcd.as_deref(), Some("2"));
    }

    #[test]
    fn nameless_entry_is_refused() {
        let raw: RawEntry = serde_json::from_value(json!({"vcd": "0"})).unwrap();
        assert!(raw.into_entry(&Arc::from(Path::new("f.json"))).is_err());
    }
}
