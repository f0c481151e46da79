//! `mlb --jobs FILE --db URL`: the run is imported when it ends; a store
//! that cannot be reached is a warning, not the run's failure.

use super::backend::{on_both, Kind, TestStore};
use crate::common::launcher::{wait_within, Launches};
use crate::common::text;
use std::time::Duration;

on_both!(a_run_is_imported_when_it_ends);

/// A spin job of two short configs.
const SPIN: &str =
    r#"[{"name": "spin", "plugin": "spin", "args": {"repeat": 2, "number": 1, "skip": 0, "size": [1, 2]}}]"#;

fn a_run_is_imported_when_it_ends(kind: Kind) {
    let store = TestStore::new(kind);
    let l = Launches::new("stored");
    let jobs = l.jobs(SPIN);
    let mut child = l.command(&jobs, &l.out(), &["--devices", "1", "--db", &store.url]).spawn().unwrap();
    let status = wait_within(&mut child, Duration::from_secs(120), "the launcher");
    let (stdout, stderr) = text(&child.wait_with_output().unwrap());
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("imported 2 reports of 1 run folder into "), "{stderr}");
    let out = l.out().display().to_string();
    let runs = store.texts("SELECT folder, jobs_hash, mlb_version FROM runs", &[]);
    let jobs_hash = mlb_record::digest::sha256(&std::fs::read(&jobs).unwrap());
    assert_eq!(runs, [[Some(out), Some(jobs_hash), Some(env!("CARGO_PKG_VERSION").to_string())]]);
    let benches = store.texts("SELECT bench, outcome, config FROM instances ORDER BY config", &[]);
    assert_eq!(benches.len(), 2, "{benches:?}");
    assert!(benches.iter().all(|r| r[0].as_deref() == Some("spin") && r[1].as_deref() == Some("completed")));
    assert!(store.count("SELECT COUNT(*) FROM metrics WHERE name = 'train_item.avg'") == 2);
}

#[test]
fn a_store_not_reached_is_a_warning_and_the_run_passes() {
    let l = Launches::new("unstored");
    let jobs = l.jobs(SPIN);
    let url = "postgres://mlb:hidden-pw@127.0.0.1:1/results";
    let mut child = l.command(&jobs, &l.out(), &["--devices", "1", "--db", url]).spawn().unwrap();
    let status = wait_within(&mut child, Duration::from_secs(120), "the launcher");
    let (stdout, stderr) = text(&child.wait_with_output().unwrap());
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("mlb: warning: the run was not stored: cannot open the store postgres://mlb:***@"),
        "{stderr}"
    );
    assert!(!format!("{stdout}{stderr}").contains("hidden-pw"), "{stderr}");
}
