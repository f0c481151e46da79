//! What the import keeps of a report beyond `mlb report`'s light view
//! ([`Entry`](mlb_record::contract::read::Entry)): every finite number of its
//! timings, losses and energy as named metrics, its last loss, when it
//! started, and the provenance its run is described by.

use serde_json::Value;

/// A number of an instance: name, value, unit.
pub type Metric = (String, f64, String);

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

/// The entries of a report file's text (one object, or a list of them,
/// closed or appended; the original's `NaN` tokens read as missing).
pub fn entries_of(text: &str) -> Option<Vec<Extra>> {
    match mlb_record::contract::read::from_text::<Value>(text).ok()? {
        Value::Array(items) => Some(items.iter().map(extra).collect()),
        object @ Value::Object(_) => Some(vec![extra(&object)]),
        _ => None,
    }
}

/// What `report` (one entry) adds to its light view.
pub fn extra(report: &Value) -> Extra {
    let mut metrics = Vec::new();
    for (key, default_unit) in SUMMARIES {
        let Some(Value::Object(summary)) = report.get(key) else { continue };
        let unit = summary.get("unit").and_then(Value::as_str).unwrap_or(default_unit);
        for (name, value) in summary {
            if let Some(v) = value.as_f64().filter(|v| v.is_finite()) {
                metrics.push((format!("{key}.{name}"), v, unit.to_string()));
            }
        }
    }
    let losses: Vec<f64> = report
        .get("batch_loss")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_f64).filter(|v| v.is_finite()).collect())
        .unwrap_or_default();
    if let (Some(first), Some(last)) = (losses.first(), losses.last()) {
        metrics.push(("loss.first".into(), *first, String::new()));
        metrics.push(("loss.last".into(), *last, String::new()));
    }
    if let Some(Value::Object(energy)) = report.pointer("/telemetry/energy") {
        for (name, value) in energy {
            if let Some(v) = value.as_f64().filter(|v| v.is_finite()) {
                metrics.push((format!("energy.{name}"), v, energy_unit(name).to_string()));
            }
        }
    }
    let text = |pointer: &str| match report.pointer(pointer)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    Extra {
        metrics,
        loss: losses.last().copied(),
        started_at: text("/start_time"),
        run_id: text("/run_id"),
        mlb_version: text("/provenance/mlb_version"),
        isolation: text("/provenance/isolation"),
        image_digest: text("/provenance/container/digest"),
        runtime: text("/provenance/container/runtime"),
        log: text("/log"),
        unique_id: text("/unique_id"),
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

    #[test]
    fn finite_numbers_of_the_original_format_become_metrics() {
        let text = r#"{"name": "vae", "run_id": 3, "batch_loss": [2.0, NaN, 1.5, Infinity],
            "train": {"avg": 0.5, "sd": NaN, "unit": "s"},
            "train_item": {"avg": 100.0, "max": Infinity, "unit": "items/sec"}}"#;
        let extras = entries_of(text).unwrap();
        assert_eq!(extras.len(), 1);
        let e = &extras[0];
        let names: Vec<(&str, f64, &str)> = e.metrics.iter().map(|(n, v, u)| (n.as_str(), *v, u.as_str())).collect();
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
        let extras = entries_of(text).unwrap();
        assert_eq!(extras.len(), 2);
        let a = &extras[0];
        assert_eq!(a.started_at.as_deref(), Some("2026-01-02T03:04:05Z"));
        assert_eq!((a.mlb_version.as_deref(), a.isolation.as_deref()), (Some("0.1.0"), Some("cgroup-v2")));
        assert_eq!((a.runtime.as_deref(), a.image_digest.as_deref()), (Some("docker"), Some("sha256:ab")));
        assert_eq!(a.metrics, [("energy.joules_per_item".to_string(), 0.25, "J/item".to_string())]);
        assert_eq!(extras[1], Extra::default());
    }
}
