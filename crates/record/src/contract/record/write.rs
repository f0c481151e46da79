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

/// The mode of every file mlb writes for others to read (reports, failure
/// records, `doctor.json`, `system.json`, the HTML page): results are meant
/// to be shared, so anyone may read them and only the owner write them.
pub const SHARED_MODE: u32 = 0o644;

/// Writes `value` to `dir/file_name` atomically: a temporary file in the same
/// folder, flushed to disk, then renamed over the target. Creates `dir`.
pub fn write_atomic(dir: &Path, file_name: &str, value: &Value) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let mut text = to_strict_json(value);
    text.push('\n');
    let target = dir.join(file_name);
    Staged::write(dir, text.as_bytes())?.replace(&target)?;
    Ok(target)
}

/// The error of making a temporary file without the temporary file's name
/// (`... at path "/d/.mlb-x1Yz.tmp"`), which means nothing to a user: the
/// caller names the file it was writing.
fn without_temporary_name(e: std::io::Error) -> std::io::Error {
    let text = e.to_string();
    match text.split_once(" at path ") {
        Some((message, _)) => std::io::Error::new(e.kind(), message.to_string()),
        None => e,
    }
}

/// A file written whole and flushed to disk beside the file it is to
/// replace, not yet in its place: [`Staged::replace`] renames it over the
/// target; dropped, it is removed and the target is left as it was.
pub struct Staged(tempfile::NamedTempFile);

impl Staged {
    /// Writes `bytes` to a hidden temporary file in `dir` (mode
    /// [`SHARED_MODE`]) and flushes it to disk.
    pub fn write(dir: &Path, bytes: &[u8]) -> std::io::Result<Staged> {
        use std::os::unix::fs::PermissionsExt;
        let mut tmp =
            tempfile::Builder::new().prefix(".mlb-").suffix(".tmp").tempfile_in(dir).map_err(without_temporary_name)?;
        tmp.as_file().set_permissions(std::fs::Permissions::from_mode(SHARED_MODE))?;
        tmp.write_all(bytes)?;
        tmp.as_file().sync_all()?;
        Ok(Staged(tmp))
    }

    /// Renames the file over `target` (in the same folder): a reader sees
    /// the old file or the new one, whole, never a part.
    pub fn replace(self, target: &Path) -> std::io::Result<()> {
        self.0.persist(target).map(drop).map_err(|e| e.error)
    }
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
    fn a_staged_file_dropped_leaves_the_target_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("page.html");
        std::fs::write(&target, "old").unwrap();
        drop(Staged::write(dir.path(), b"new").unwrap());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the temporary file is removed");
        Staged::write(dir.path(), b"new").unwrap().replace(&target).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let Err(missing) = Staged::write(&dir.path().join("missing"), b"new") else { panic!("no folder") };
        assert_eq!(missing.to_string(), "No such file or directory (os error 2)");
    }

    #[test]
    fn atomic_write_leaves_only_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sub");
        let path = write_atomic(&out, "x.json", &json!({"k": 1})).unwrap();
        assert_eq!(path, out.join("x.json"));
        let names: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["x.json"]);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, SHARED_MODE, "readable by others: {mode:o}");
        let back: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(back, json!({"k": 1}));
    }
}
