//! What the results store keeps of a report entry beyond `mlb report`'s
//! light view ([`Entry`](super::Entry)): every finite number of its
//! timings, losses and energy as named metrics, its last loss, when it
//! started, and the provenance its run is described by.
//!
//! Read in the same pass as the light view ([`entry`](super::entry)),
//! which hands over the fields read here as values: a non-finite token of
//! the original's (its marker) reads as missing, as a `null` does.

use super::intern::intern;
use super::text::marker_value;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A number of an instance: name, value, unit. Names and units repeat
/// over every entry: each is one shared copy ([`intern`]), a million
/// metrics held until the import writes them are 80 MB fewer.
pub type Metric = (Arc<str>, f64, Arc<str>);

/// What one report entry adds to its light view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extra {
    /// Named finite numbers (`train_item.avg`, `train.max`, `loss.last`, ...).
    pub metrics: Vec<Metric>,
    /// The last finite `batch_loss`.
    pub loss: Option<f64>,
    /// `start_time`, as written.
    pub started_at: Option<String>,
    /// `run_id`, as text.
    pub run_id: Option<String>,
    /// `provenance.mlb_version`.
    pub mlb_version: Option<String>,
    /// `provenance.isolation`.
    pub isolation: Option<String>,
    /// `provenance.container.digest`.
    pub image_digest: Option<String>,
    /// `provenance.container.runtime`.
    pub runtime: Option<String>,
    /// `log`: the instance's output log, in a launcher's record.
    pub log: Option<String>,
    /// `unique_id`: mlb's id of the config and its arguments.
    pub unique_id: Option<String>,
}

/// The objects of a report whose numbers are kept, and the unit of each
/// when the object names none.
const SUMMARIES: [(&str, &str); 2] = [("train_item", "items/s"), ("train", "s")];

/// The keys read here that the light view does not read itself (it reads
/// `train_item`, `batch_loss`, `telemetry` and `provenance`).
pub const OTHER_KEYS: [&str; 5] = ["train", "start_time", "run_id", "log", "unique_id"];

impl Extra {
    /// What the entry whose fields read here are `report` adds to its
    /// light view.
    pub fn of(report: &Map<String, Value>) -> Extra {
        let mut metrics = Vec::new();
        for (key, default_unit) in SUMMARIES {
            let Some(Value::Object(summary)) = report.get(key) else { continue };
            let unit = intern(
                summary
                    .get("unit")
                    .and_then(Value::as_str)
                    .filter(|u| marker_value(u).is_none())
                    .unwrap_or(default_unit),
            );
            for (name, value) in summary {
                if let Some(v) = finite(value) {
                    metrics.push((intern(&format!("{key}.{name}")), v, unit.clone()));
                }
            }
        }
        let losses: Vec<f64> = report
            .get("batch_loss")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(finite).collect())
            .unwrap_or_default();
        if let (Some(first), Some(last)) = (losses.first(), losses.last()) {
            metrics.push((intern("loss.first"), *first, intern("")));
            metrics.push((intern("loss.last"), *last, intern("")));
        }
        if let Some(Value::Object(energy)) = at(report, "telemetry", &["energy"]) {
            for (name, value) in energy {
                if let Some(v) = finite(value) {
                    metrics.push((intern(&format!("energy.{name}")), v, intern(energy_unit(name))));
                }
            }
        }
        let field = |key: &str, path: &[&str]| at(report, key, path).and_then(text_or_number);
        Extra {
            metrics,
            loss: losses.last().copied(),
            started_at: field("start_time", &[]),
            run_id: field("run_id", &[]),
            mlb_version: field("provenance", &["mlb_version"]),
            isolation: field("provenance", &["isolation"]),
            image_digest: field("provenance", &["container", "digest"]),
            runtime: field("provenance", &["container", "runtime"]),
            log: field("log", &[]),
            unique_id: field("unique_id", &[]),
        }
    }
}

/// The value at `path` inside the field `key` of `report`.
fn at<'a>(report: &'a Map<String, Value>, key: &str, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(report.get(key)?, |value, name| value.get(name))
}

/// A number that is finite.
fn finite(value: &Value) -> Option<f64> {
    value.as_f64().filter(|v| v.is_finite())
}

/// A non-empty string that is no marker of a non-finite token, or a
/// number as text.
fn text_or_number(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => Some(n.to_string()),
        other => other.as_str().filter(|s| !s.is_empty() && marker_value(s).is_none()).map(str::to_string),
    }
}

/// The unit of a number of the `telemetry.energy` block (docs/telemetry.md).
fn energy_unit(name: &str) -> &'static str {
    match name {
        "joules_per_item" => "J/item",
        n if n.ends_with("joules") => "J",
        n if n.ends_with("watts") => "W",
        n if n.ends_with("seconds") => "s",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::read::{read_text, read_whole, text::replace_non_finite, Entry};

    #[test]
    fn the_keys_read_here_are_no_config_arguments() {
        for key in OTHER_KEYS {
            assert!(!crate::contract::keys::Key::of(key).splits_configs(), "{key}");
        }
    }

    /// The extras of the entries of `text`, as the import reads them.
    fn extras(text: &str) -> Vec<Extra> {
        let read = read_whole(text, &Arc::from(std::path::Path::new("r.json"))).unwrap();
        read.into_iter().map(|(_, extra)| extra).collect()
    }

    #[test]
    fn finite_numbers_of_the_original_format_become_metrics() {
        let text = r#"{"name": "vae", "run_id": 3, "batch_loss": [2.0, NaN, 1.5, Infinity],
            "train": {"avg": 0.5, "sd": NaN, "unit": "s"},
            "train_item": {"avg": 100.0, "max": Infinity, "unit": "items/sec"}}"#;
        let extras = extras(text);
        assert_eq!(extras.len(), 1);
        let e = &extras[0];
        let names: Vec<(&str, f64, &str)> = e.metrics.iter().map(|(n, v, u)| (&**n, *v, &**u)).collect();
        assert_eq!(
            names,
            [
                ("train_item.avg", 100.0, "items/sec"),
                ("train.avg", 0.5, "s"),
                ("loss.first", 2.0, ""),
                ("loss.last", 1.5, "")
            ]
        );
        assert_eq!((e.loss, e.run_id.as_deref()), (Some(1.5), Some("3")));
    }

    #[test]
    fn an_appended_file_gives_one_extra_per_entry_and_provenance_is_read() {
        let text = "[\n{\"name\": \"a\", \"start_time\": \"2026-01-02T03:04:05Z\", \"provenance\": {\"mlb_version\": \"0.1.0\", \
                    \"isolation\": \"cgroup-v2\", \"container\": {\"runtime\": \"docker\", \"digest\": \"sha256:ab\"}}, \
                    \"telemetry\": {\"energy\": {\"joules_per_item\": 0.25, \"source\": \"gpu\"}}},\n{\"name\": \"b\"},\n";
        let extras = extras(text);
        assert_eq!(extras.len(), 2);
        let a = &extras[0];
        assert_eq!(a.started_at.as_deref(), Some("2026-01-02T03:04:05Z"));
        assert_eq!((a.mlb_version.as_deref(), a.isolation.as_deref()), (Some("0.1.0"), Some("cgroup-v2")));
        assert_eq!((a.runtime.as_deref(), a.image_digest.as_deref()), (Some("docker"), Some("sha256:ab")));
        assert_eq!(a.metrics, [(intern("energy.joules_per_item"), 0.25, intern("J/item"))]);
        assert_eq!(extras[1], Extra::default());
    }

    #[test]
    fn a_token_reads_as_null_and_the_light_view_is_the_same() {
        // Tokens where texts are read: missing, as the `null` mlb writes.
        let tokens = r#"{"name": "a", "run_id": NaN, "start_time": Infinity, "log": "",
            "train_item": {"avg": NaN, "unit": NaN}, "batch_loss": [NaN, 1.0],
            "telemetry": {"energy": {"joules": 5.0}}, "provenance": {"slurm": {"node": "n1"}}}"#;
        let nulls = replace_non_finite(tokens, crate::contract::read::text::Tokens::Null);
        let (with, without) = (extras(tokens), extras(&nulls));
        assert_eq!(with, without);
        let e = &with[0];
        assert_eq!((&e.run_id, &e.started_at, &e.log), (&None, &None, &None));
        assert_eq!(e.metrics[0], (intern("loss.first"), 1.0, intern("")));
        assert_eq!(e.metrics[2], (intern("energy.joules"), 5.0, intern("J")));
        // The light view read with the extras is the view `mlb report` reads.
        let path = std::path::Path::new("r.json");
        let whole = read_whole(tokens, &Arc::from(path)).unwrap();
        let light = read_text(path, tokens).unwrap();
        let whole: Vec<Entry> = whole.into_iter().map(|(entry, _)| entry).collect();
        assert_eq!(format!("{whole:?}"), format!("{light:?}"), "alike, NaN and all");
        assert!(light[0].losses.nan && light[0].avg.unwrap().is_nan() && light[0].node() == Some("n1"));
    }
}
