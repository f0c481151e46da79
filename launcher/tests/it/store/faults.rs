//! Faults of an import: killed half way, and run twice at once.

use super::backend::{on_both, write_runs, Kind, TestStore};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

on_both!(a_killed_import_leaves_whole_runs_and_a_rerun_finishes, two_imports_at_once_both_land_without_duplicates,);

/// Starts `mlb db import DIR --db URL`.
fn start(store: &TestStore, dir: &Path) -> Child {
    Command::new(crate::common::mlb())
        .args(["db", "import", "--db", &store.url])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Every run stored has all its reports (each folder holds `per_folder`),
/// and no report is stored twice; returns the runs stored.
fn whole_runs(store: &TestStore, per_folder: i64) -> i64 {
    let partial = store.count(&format!(
        "SELECT COUNT(*) FROM (SELECT run_id FROM instances GROUP BY run_id HAVING COUNT(*) <> {per_folder}) AS p"
    ));
    assert_eq!(partial, 0, "a run stored in part");
    let empty = store.count("SELECT COUNT(*) FROM runs WHERE id NOT IN (SELECT run_id FROM instances)");
    assert_eq!(empty, 0, "a run stored without its reports");
    let twice = store.count(
        "SELECT COUNT(*) FROM (SELECT report_hash FROM instances GROUP BY report_hash HAVING COUNT(*) > 1) AS t",
    );
    assert_eq!(twice, 0, "a report stored twice");
    store.count("SELECT COUNT(*) FROM runs")
}

fn a_killed_import_leaves_whole_runs_and_a_rerun_finishes(kind: Kind) {
    let store = TestStore::new(kind);
    drop(store.open()); // the schema, before the import starts
    let dir = tempfile::tempdir().unwrap();
    // More reports than two transactions take (5,000 each): the first
    // batch of folders is in while the rest are read.
    let (folders, per_folder) = (300, 40);
    write_runs(dir.path(), folders, per_folder);
    let mut child = start(&store, dir.path());
    // Killed once some runs are in, well before the end.
    let limit = Instant::now() + Duration::from_secs(60);
    while store.count("SELECT COUNT(*) FROM runs") == 0 {
        assert!(Instant::now() < limit, "nothing imported within a minute");
        std::thread::sleep(Duration::from_millis(5));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::SIGKILL).unwrap();
    child.wait().unwrap();
    let stored = whole_runs(&store, per_folder as i64);
    assert!(stored < folders as i64, "the import was killed before its end ({stored} runs stored)");
    let out = start(&store, dir.path()).wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout);
    let rest = (folders as i64 - stored) * per_folder as i64;
    assert!(said.starts_with(&format!("imported {rest} reports of {} run folders", folders as i64 - stored)), "{said}");
    assert_eq!(whole_runs(&store, per_folder as i64), folders as i64);
}

fn two_imports_at_once_both_land_without_duplicates(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    let (folders, per_folder) = (30, 20);
    write_runs(dir.path(), folders, per_folder);
    // Both on a new store: they race for its schema too.
    let (a, b) = (start(&store, dir.path()), start(&store, dir.path()));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    for out in [&a, &b] {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(whole_runs(&store, per_folder as i64), folders as i64);
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), (folders * per_folder) as i64);
    assert_eq!(store.count("SELECT COUNT(*) FROM systems"), 1);
    let reported: i64 = [&a, &b]
        .iter()
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stdout);
            text.split_whitespace().nth(1).and_then(|n| n.parse::<i64>().ok()).unwrap()
        })
        .sum();
    assert_eq!(reported, (folders * per_folder) as i64, "each report counted by the import that wrote it");
}
