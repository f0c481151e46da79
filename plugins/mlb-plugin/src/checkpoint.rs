//! The header of a checkpoint folder: which workload wrote it, and the
//! shapes and config fields an instance restoring it must share.
//!
//! A workload's [`save`](crate::Workload::save) writes the header
//! ([`HEADER_FILE`], a JSON object `{"workload": NAME, "fields": {...}}`)
//! beside its own files; its [`restore`](crate::Workload::restore) builds the
//! header its instance would write and [`check`](CheckpointHeader::check)s
//! the folder's against it before reading anything else, so that a folder of
//! another workload, of another shape or config, or one `save` did not
//! finish, is refused by name instead of being loaded into the wrong
//! tensors.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The header's file name in a checkpoint folder.
pub const HEADER_FILE: &str = "checkpoint.json";

/// Why a checkpoint header could not be written, or does not match.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Writing the header failed.
    #[error("{path}: cannot write the checkpoint header: {source}")]
    Write {
        /// The header file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The folder has no header.
    #[error("{path} is missing ({source}): the folder is not a checkpoint, or its save did not finish; fix: restore from a folder a complete `save` wrote")]
    Missing {
        /// The header file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The header is not what `write` writes.
    #[error("{path} is not a checkpoint header: {reason}; fix: restore from a folder a complete `save` wrote")]
    Corrupt {
        /// The header file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Another workload wrote the folder.
    #[error("{path} holds a checkpoint of workload `{found}`, not of `{expected}`; fix: restore it into `{found}`, or start `{expected}` afresh")]
    OtherWorkload {
        /// The header file.
        path: PathBuf,
        /// The workload that wrote it.
        found: String,
        /// The workload restoring it.
        expected: String,
    },
    /// A shape or config field differs.
    #[error("{path}: the checkpoint's `{field}` is {found}, this instance's is {expected}; fix: restore it into an instance of the config that saved it, or start afresh")]
    Mismatch {
        /// The header file.
        path: PathBuf,
        /// The field.
        field: String,
        /// The checkpoint's value (JSON; `absent` when it has none).
        found: String,
        /// The instance's value (JSON; `absent` when it has none).
        expected: String,
    },
}

/// The header of a checkpoint: the workload's name and the fields (shapes,
/// config values) that must match between the saving and the restoring
/// instance.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointHeader {
    workload: String,
    fields: Map<String, Value>,
}

impl CheckpointHeader {
    /// The header of a checkpoint of `workload`, with no field yet.
    pub fn new(workload: &str) -> Self {
        CheckpointHeader { workload: workload.to_string(), fields: Map::new() }
    }

    /// The header with field `name` set to `value`.
    pub fn with(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.fields.insert(name.to_string(), value.into());
        self
    }

    /// Writes the header into the folder `dir`.
    pub fn write(&self, dir: &Path) -> Result<(), CheckpointError> {
        let path = dir.join(HEADER_FILE);
        let text = serde_json::json!({"workload": self.workload, "fields": self.fields}).to_string();
        std::fs::write(&path, text).map_err(|source| CheckpointError::Write { path, source })
    }

    /// Checks that the folder `dir` holds a checkpoint of this workload
    /// with these fields: the first difference is the error.
    pub fn check(&self, dir: &Path) -> Result<(), CheckpointError> {
        let path = dir.join(HEADER_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(source) => return Err(CheckpointError::Missing { path, source }),
        };
        let corrupt = |reason: String| CheckpointError::Corrupt { path: path.clone(), reason };
        let value: Value = serde_json::from_str(&text).map_err(|e| corrupt(format!("not JSON ({e})")))?;
        let (Some(workload), Some(fields)) = (value["workload"].as_str(), value["fields"].as_object()) else {
            return Err(corrupt("expected {\"workload\": NAME, \"fields\": {...}}".into()));
        };
        if workload != self.workload {
            let (found, expected) = (workload.to_string(), self.workload.clone());
            return Err(CheckpointError::OtherWorkload { path, found, expected });
        }
        let shown = |v: Option<&Value>| v.map_or("absent".to_string(), Value::to_string);
        let names = self.fields.keys().chain(fields.keys().filter(|k| !self.fields.contains_key(*k)));
        match names.into_iter().find(|name| fields.get(*name) != self.fields.get(*name)) {
            Some(name) => Err(CheckpointError::Mismatch {
                path,
                field: name.clone(),
                found: shown(fields.get(name)),
                expected: shown(self.fields.get(name)),
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mlb-checkpoint-header-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_header_checks_against_itself_and_names_the_first_difference() {
        let dir = folder("differs");
        let header = CheckpointHeader::new("gpt").with("width", 64).with("precision", "fp32");
        header.write(&dir).unwrap();
        header.check(&dir).unwrap();

        let e = CheckpointHeader::new("gpt").with("width", 128).with("precision", "fp32").check(&dir).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("the checkpoint's `width` is 64, this instance's is 128"), "{text}");
        assert!(text.contains(HEADER_FILE) && text.contains("fix: "), "{text}");

        let e = CheckpointHeader::new("gpt").with("width", 64).check(&dir).unwrap_err().to_string();
        assert!(e.contains("`precision` is \"fp32\", this instance's is absent"), "{e}");

        let e = CheckpointHeader::new("convnet").check(&dir).unwrap_err().to_string();
        assert!(e.contains("holds a checkpoint of workload `gpt`, not of `convnet`"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_folder_without_a_header_or_with_a_damaged_one_is_refused() {
        let dir = folder("damaged");
        let header = CheckpointHeader::new("spin");
        let e = header.check(&dir).unwrap_err();
        assert!(matches!(e, CheckpointError::Missing { .. }), "{e}");
        assert!(e.to_string().contains("its save did not finish"), "{e}");
        for text in ["{", r#"{"workload": 3}"#] {
            std::fs::write(dir.join(HEADER_FILE), text).unwrap();
            let e = header.check(&dir).unwrap_err();
            assert!(matches!(e, CheckpointError::Corrupt { .. }), "{text}: {e}");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
