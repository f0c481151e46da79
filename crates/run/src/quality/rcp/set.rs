//! The RCP JSON file: one object per reference point, keyed by its name.
//!
//! ```json
//! {"resnet_ref_3264": {"Benchmark": "resnet", "Creator": "...", "When": "...",
//!   "Platform": "...", "BS": 3264, "Hyperparams": {...},
//!   "Epochs to converge": [40, 40, 41, ...]}}
//! ```
//!
//! Points whose convergence is counted in samples (MLPerf's LLM fine-tuning
//! sets) name the list `"samples to converge"`; either name is read. Keys
//! other than these are kept on writing (creator, platform, dates).

use serde_json::{Map, Value};
use std::path::Path;

/// A reference point of an RCP file.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// The point's name (its key in the file).
    pub name: String,
    /// Benchmark name (`Benchmark`).
    pub benchmark: String,
    /// Global batch size (`BS`).
    pub batch_size: f64,
    /// Hyper-parameters of the reference runs (`Hyperparams`), as written.
    pub hyperparams: Value,
    /// Convergence point of each reference run, in epochs (or samples).
    pub converged_at: Vec<f64>,
    /// Whether the list counts samples (`"samples to converge"`, as mlb's
    /// points count items) rather than epochs (`"Epochs to converge"`).
    pub samples: bool,
    /// The other keys of the point (creator, platform, dates...), kept for
    /// writing the file back.
    pub extra: Map<String, Value>,
}

/// The reference points of one RCP file, in the file's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RcpSet {
    /// The points.
    pub points: Vec<Reference>,
}

/// An RCP file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RcpError {
    /// The file cannot be read.
    #[error("cannot read the RCP file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not the RCP JSON shape.
    #[error("{origin}: {what}; fix: an RCP file is a JSON object of points, each with Benchmark, BS, Hyperparams and \"Epochs to converge\" (a list of numbers)")]
    Shape {
        /// The file (or "RCP JSON").
        origin: String,
        /// What is wrong, naming the point.
        what: String,
    },
}

/// The name of the convergence list in a point.
const EPOCHS: &str = "Epochs to converge";
/// The name MLPerf uses for sets counted in samples.
const SAMPLES: &str = "samples to converge";

impl RcpSet {
    /// Reads an RCP file (a regular file of at most 16 MiB, `read_input`).
    pub fn read(path: &Path) -> Result<RcpSet, RcpError> {
        let text = mlb_record::reading::read_input(path)
            .map_err(|source| RcpError::Read { path: path.display().to_string(), source })?;
        RcpSet::parse(&text, &path.display().to_string())
    }

    /// Parses the JSON text of an RCP file; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<RcpSet, RcpError> {
        let shape = |what: String| RcpError::Shape { origin: origin.to_string(), what };
        let root: InOrder =
            serde_json::from_str(text).map_err(|e| shape(format!("not a JSON object of reference points ({e})")))?;
        let mut points = Vec::with_capacity(root.0.len());
        for (name, point) in root.0 {
            let Value::Object(mut fields) = point else {
                return Err(shape(format!("point `{name}` is not an object")));
            };
            let benchmark = match fields.remove("Benchmark") {
                Some(Value::String(b)) => b,
                _ => return Err(shape(format!("point `{name}` has no Benchmark string"))),
            };
            let batch_size = match fields.remove("BS").as_ref().and_then(Value::as_f64) {
                Some(bs) if bs > 0.0 => bs,
                _ => return Err(shape(format!("point `{name}` has no positive BS"))),
            };
            let hyperparams = fields.remove("Hyperparams").unwrap_or(Value::Object(Map::new()));
            let samples = !fields.contains_key(EPOCHS) && fields.contains_key(SAMPLES);
            let list = fields.remove(EPOCHS).or_else(|| fields.remove(SAMPLES));
            let converged_at = match list {
                Some(Value::Array(values)) if !values.is_empty() => values
                    .iter()
                    .map(|v| v.as_f64().filter(|x| x.is_finite()))
                    .collect::<Option<Vec<f64>>>()
                    .ok_or_else(|| {
                        shape(format!("point `{name}`'s \"{EPOCHS}\" holds a value that is not a number"))
                    })?,
                _ => return Err(shape(format!("point `{name}` has no \"{EPOCHS}\" list"))),
            };
            points.push(Reference { name, benchmark, batch_size, hyperparams, converged_at, samples, extra: fields });
        }
        Ok(RcpSet { points })
    }

    /// The file's JSON text: MLPerf's shape, one point per key, in the set's
    /// order.
    pub fn to_json(&self) -> String {
        let members: Vec<String> = self
            .points
            .iter()
            .map(|point| {
                let mut fields = point.extra.clone();
                fields.insert("Benchmark".into(), Value::String(point.benchmark.clone()));
                fields.insert("BS".into(), number(point.batch_size));
                fields.insert("Hyperparams".into(), point.hyperparams.clone());
                let list = if point.samples { SAMPLES } else { EPOCHS };
                fields.insert(list.into(), Value::Array(point.converged_at.iter().map(|&x| number(x)).collect()));
                format!("  {}: {}", Value::String(point.name.clone()), Value::Object(fields))
            })
            .collect();
        format!("{{\n{}\n}}\n", members.join(",\n"))
    }
}

/// A JSON object's members in the file's order (`serde_json`'s map sorts
/// them, and the checker breaks ties between equal batch sizes by file order,
/// as the Python package does).
struct InOrder(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for InOrder {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = InOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<InOrder, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Value>()? {
                    members.push(member);
                }
                Ok(InOrder(members))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// A JSON number, integral when the value is (batch sizes, whole epochs).
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{
        "z_first": {"Benchmark": "resnet", "Creator": "mlb", "BS": 256,
                  "Hyperparams": {"lr": 0.1}, "Epochs to converge": [40, 41, 39.5]},
        "a_second": {"Benchmark": "resnet", "BS": 64, "Hyperparams": {},
                 "samples to converge": [30, 31, 32]}
    }"#;

    #[test]
    fn a_file_reads_in_its_order_with_either_list_name_and_writes_back_the_same() {
        let set = RcpSet::parse(FILE, "test").unwrap();
        assert_eq!(set.points.len(), 2);
        assert_eq!(set.points[0].name, "z_first", "the file's order, not the keys'");
        assert_eq!(set.points[0].converged_at, vec![40.0, 41.0, 39.5]);
        assert_eq!(set.points[0].extra["Creator"], "mlb");
        assert_eq!(set.points[1].batch_size, 64.0);
        assert_eq!((set.points[0].samples, set.points[1].samples), (false, true));
        let again = RcpSet::parse(&set.to_json(), "again").unwrap();
        assert_eq!(again, set);
    }

    #[test]
    fn a_point_without_its_list_or_batch_size_is_named_in_the_error() {
        for (text, point) in [
            (r#"{"p": {"Benchmark": "b", "BS": 8, "Hyperparams": {}}}"#, "`p` has no"),
            (r#"{"q": {"Benchmark": "b", "Epochs to converge": [1]}}"#, "`q` has no positive BS"),
            (r#"{"r": {"Benchmark": "b", "BS": 8, "Epochs to converge": [1, "x"]}}"#, "`r`'s"),
        ] {
            let err = RcpSet::parse(text, "rcps.json").unwrap_err().to_string();
            assert!(err.contains(point) && err.contains("rcps.json") && err.contains("fix:"), "{err}");
        }
    }
}
