//! Strict JSON and atomic writes.

use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Pretty JSON with sorted keys and a 4-space indent. Never holds `NaN` or
/// `Infinity`: `serde_json::Value` cannot represent them (they become `null`
/// when a value is built).
pub fn to_strict_json(value: &Value) -> String {
    let sorted = sort_keys(value);
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&sorted, &mut ser).expect("serialising a Value to memory cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Rebuilds every object with its keys in sorted order, whatever map type
/// serde_json was compiled with.
fn sort_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sort_keys(&map[k]))).collect::<Map<_, _>>())
        }
        Value::Array(items) => Value::Array(items.iter().map(sort_keys).collect()),
        other => other.clone(),
    }
}

/// Writes `value` to `dir/file_name` atomically: a temporary file in the same
/// folder, flushed to disk, then renamed over the target. Creates `dir`.
pub fn write_atomic(dir: &Path, file_name: &str, value: &Value) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".mlb-").suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(to_strict_json(value).as_bytes())?;
    tmp.write_all(b"\n")?;
    tmp.as_file().sync_all()?;
    let target = dir.join(file_name);
    tmp.persist(&target).map_err(|e| e.error)?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorted_four_space_strict() {
        let v = json!({"b": 1, "a": {"d": f64::NAN, "c": [1.5]}});
        assert_eq!(
            to_strict_json(&v),
            "{\n    \"a\": {\n        \"c\": [\n            1.5\n        ],\n        \"d\": null\n    },\n    \"b\": 1\n}"
        );
    }

    #[test]
    fn atomic_write_leaves_only_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sub");
        let path = write_atomic(&out, "x.json", &json!({"k": 1})).unwrap();
        assert_eq!(path, out.join("x.json"));
        let names: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["x.json"]);
        let back: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(back, json!({"k": 1}));
    }
}
