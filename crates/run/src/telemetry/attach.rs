//! Adds the `telemetry` block to a report the worker wrote: the report is
//! read into the report model, its telemetry field set, and written back.

use mlb_record::contract::report::AmendError;
use mlb_record::contract::telemetry::Telemetry;
use mlb_record::contract::Report;
use std::path::Path;

/// Why the block could not be added.
#[derive(Debug, thiserror::Error)]
#[error("cannot add telemetry: {0}")]
pub struct AttachError(#[from] AmendError);

/// Rewrites the report at `path` (atomically) with `telemetry` set.
pub fn attach(path: &Path, telemetry: &Telemetry) -> Result<(), AttachError> {
    Ok(Report::amend(path, |r| r.telemetry = Some(telemetry.clone()))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_record::contract::record::Identity;
    use serde_json::json;

    #[test]
    fn the_block_is_added_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let id = Identity { suite: "s".into(), name: "n".into(), run_id: 0, jr_id: 0, vcd: "0".into() };
        let report = Report {
            args: json!({"lr": 0.1, "ballast_mb": 4}).as_object().unwrap().clone(),
            completed: true,
            batch_loss: Some(vec![0.5]),
            ..Report::new(&id)
        };
        let path = report.write(dir.path()).unwrap();
        let block = Telemetry { samples: 7, throttled: true, ..Telemetry::default() };
        attach(&path, &block).unwrap();
        let back = Report::load(&path).unwrap();
        assert_eq!(back, Report { telemetry: Some(block), ..report });
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"telemetry\": {") && text.ends_with("}\n"), "{text}");

        std::fs::write(&path, "[1]").unwrap();
        let err = attach(&path, &Telemetry::default()).unwrap_err();
        assert!(err.to_string().contains("is not a report"), "{err}");
    }
}
