//! The smoke suite's check that its jobs read the data sets `mlb prepare`
//! generated: every report that names a folder under the prepared data
//! (`data` or `dataroot`) must read it (`data` there, no `data_missing`).

use crate::cmd::Error;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Fewer reports than this reading prepared data means jobs lost their data.
const AT_LEAST: usize = 15;

/// How many reports under `out` read data under `data`; an error naming
/// those that did not, or when fewer than [`AT_LEAST`] did.
pub fn check(out: &Path, data: &Path) -> Result<usize, Error> {
    let prefix = format!("{}/", data.display());
    let mut reports = Vec::new();
    json_files(out, &mut reports)?;
    reports.sort();
    let (mut read, mut wrong) = (0, Vec::new());
    for path in reports {
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
        let report: Value = serde_json::from_str(&text).map_err(|e| Error::Data(format!("{}: {e}", path.display())))?;
        if let Some(problem) = judge(&report, &prefix) {
            read += 1;
            if let Err(why) = problem {
                wrong.push(format!("{}: {why}", path.file_name().unwrap_or_default().to_string_lossy()));
            }
        }
    }
    if wrong.is_empty() && read >= AT_LEAST {
        Ok(read)
    } else {
        Err(Error::Data(format!(
            "{read} reports read prepared data (at least {AT_LEAST} should); not read:\n{}",
            wrong.join("\n")
        )))
    }
}

/// None when `report` names no folder under `prefix`; otherwise whether it read it.
fn judge(report: &Value, prefix: &str) -> Option<Result<(), String>> {
    let names = |key: &str| report.get(key).and_then(Value::as_str).is_some_and(|v| v.starts_with(prefix));
    if !names("data") && !names("dataroot") {
        return None;
    }
    Some(if report.get("data_missing").is_some() || !names("data") {
        Err(format!(
            "data {}, data_missing {}",
            report.get("data").unwrap_or(&Value::Null),
            report.get("data_missing").unwrap_or(&Value::Null)
        ))
    } else {
        Ok(())
    })
}

/// Every `*.json` file under `dir`, at any depth.
fn json_files(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
    for entry in entries {
        let path = entry.map_err(|source| Error::Io { path: dir.to_path_buf(), source })?.path();
        if path.is_dir() {
            json_files(&path, found)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            found.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::judge;
    use serde_json::json;

    const PREFIX: &str = "/base/data/";

    #[test]
    fn a_report_naming_no_prepared_folder_is_not_counted() {
        assert_eq!(judge(&json!({"name": "toy_reg"}), PREFIX), None);
        assert_eq!(judge(&json!({"data": "/elsewhere/MNIST"}), PREFIX), None);
    }

    #[test]
    fn a_report_that_read_its_folder_passes() {
        assert_eq!(judge(&json!({"data": "/base/data/MNIST"}), PREFIX), Some(Ok(())));
    }

    #[test]
    fn a_missing_folder_or_a_data_elsewhere_fails() {
        assert!(matches!(judge(&json!({"data": "/base/data/MNIST", "data_missing": true}), PREFIX), Some(Err(_))));
        assert!(matches!(judge(&json!({"dataroot": "/base/data/celeba", "data": 3}), PREFIX), Some(Err(_))));
    }
}
