//! `mlb db import`: run folders at any depth, once; labels; hostile names;
//! the original suite's report sets, judged as `mlb report` judges them.

use super::backend::{import, on_both, write_runs, Kind, TestStore};
use crate::report_gen;

on_both!(
    a_folder_tree_is_imported_once_and_again_adds_nothing,
    labels_name_the_system_and_tag_the_runs,
    hostile_names_are_stored_and_read_back_as_they_are,
    an_original_suite_set_is_stored_as_mlb_report_judges_it,
    stderr_piped_gets_one_summary_line_of_the_counts,
);

fn a_folder_tree_is_imported_once_and_again_adds_nothing(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    let files = write_runs(&dir.path().join("campaign/deeper"), 3, 10);
    let folder = dir.path().display().to_string();
    let (code, stdout, stderr) = import(&store, &[&folder]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with(&format!("imported {files} reports of 3 run folders into ")), "{stdout}");
    assert!(stdout.contains("0 report files already stored"), "{stdout}");
    let counts =
        || ["runs", "instances", "systems", "metrics"].map(|t| store.count(&format!("SELECT COUNT(*) FROM {t}")));
    // Each report: train's 5 numbers, train_item's 3, the first and last loss.
    assert_eq!(counts(), [3, files as i64, 1, files as i64 * 10]);
    let run = &store.texts("SELECT folder, run_ids, started_at, nodes FROM runs ORDER BY folder", &[])[0];
    assert!(run[0].as_deref().unwrap().ends_with("campaign/deeper/run000"), "{run:?}");
    assert_eq!(run[1..], [Some("0".into()), Some("2026-01-01T10:00:00.000000Z".into()), Some("host-a".into())]);
    let instance = &store.texts(
        "SELECT bench, config, device, gpu, outcome, fails_check, file FROM instances \
         WHERE file LIKE $1",
        &["%.R1.D1.%-000001.json"],
    )[0];
    assert_eq!(
        instance[..6],
        [
            Some("bench1".into()),
            Some(r#"{"batch_size":33}"#.into()),
            Some("1".into()),
            Some("Model X".into()),
            Some("completed".into()),
            None
        ]
    );
    let value = store.count("SELECT COUNT(*) FROM instances WHERE items_per_s = 111.0 AND loss = 1.0");
    assert_eq!(value, 1, "run 1's second report: 100 + 10 + 1 items/s, last loss 1.0");
    let (code, stdout, _) = import(&store, &[&folder]);
    assert_eq!(code, Some(0));
    assert!(stdout.starts_with("imported 0 reports of 0 run folders"), "{stdout}");
    assert!(stdout.contains(&format!("{files} report files already stored")), "{stdout}");
    assert_eq!(counts(), [3, files as i64, 1, files as i64 * 10]);
    // A report added to a run folder later joins its run.
    write_runs(&dir.path().join("campaign/deeper"), 1, 11);
    let (_, stdout, _) = import(&store, &[&folder]);
    assert!(stdout.starts_with("imported 1 report of 1 run folder"), "{stdout}");
    assert_eq!(counts()[..2], [3, files as i64 + 1]);
}

/// stderr not a terminal: no bar, one line at the end naming the counts;
/// stdout holds the import's own lines only.
fn stderr_piped_gets_one_summary_line_of_the_counts(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    let files = write_runs(dir.path(), 2, 5);
    std::fs::write(dir.path().join("run000/bad.json"), "{").unwrap();
    let folder = dir.path().display().to_string();
    for (imported, stored) in [(files, 0), (0, files)] {
        let (code, stdout, stderr) = import(&store, &[&folder]);
        assert_eq!(code, Some(0), "{stdout}\n{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        let runs = if imported > 0 { 2 } else { 0 };
        let said = format!(
            "mlb db import: {} files, {imported} reports imported of {runs} run folders (0 updated), \
             {stored} files already stored, 1 left out in ",
            files + 1
        );
        assert!(stderr.starts_with(&said) && stderr.ends_with(" s\n"), "{said:?} in {stderr:?}");
        assert!(!stdout.contains("mlb db import:"), "{stdout}");
    }
}

fn labels_name_the_system_and_tag_the_runs(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    write_runs(dir.path(), 2, 4);
    let folder = dir.path().display().to_string();
    let (code, stdout, stderr) =
        import(&store, &[&folder, "--system", "lab-b", "--label", "driver=550", "--label", "site=north"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert_eq!(
        store.texts("SELECT name, host, gpu_model FROM systems", &[]),
        [[Some("lab-b".to_string()), Some("host-a".into()), Some("Model X".into())]]
    );
    let tags = store.texts("SELECT key, value FROM tags ORDER BY key, value", &[]);
    let pairs: Vec<(String, String)> =
        tags.into_iter().map(|r| (r[0].clone().unwrap(), r[1].clone().unwrap())).collect();
    assert_eq!(pairs.iter().filter(|p| p.0 == "driver" && p.1 == "550").count(), 2);
    assert_eq!(pairs.iter().filter(|p| p.0 == "site" && p.1 == "north").count(), 2);
    let (code, _, stderr) = import(&store, &[&folder, "--label", "novalue"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("KEY=VALUE"), "{stderr}");
}

/// A name with quotes, a statement separator, a comment and unicode.
const HOSTILE: &str = "a'b\"c; DROP TABLE runs; -- ü 試験 \\ %_";

fn hostile_names_are_stored_and_read_back_as_they_are(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    let report = serde_json::json!({
        "name": HOSTILE, "vcd": "0", "suite": HOSTILE, "hostname": HOSTILE, "gpu": HOSTILE,
        HOSTILE: HOSTILE, "train_item": {"avg": 5.0}, "batch_loss": [1.0],
    });
    std::fs::write(dir.path().join("r.json"), report.to_string()).unwrap();
    let folder = dir.path().display().to_string();
    let tag = format!("{HOSTILE}={HOSTILE}");
    let (code, stdout, stderr) = import(&store, &[&folder, "--system", HOSTILE, "--label", &tag]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let rows = store.texts("SELECT bench, suite, node, gpu, config FROM instances WHERE bench = $1", &[HOSTILE]);
    let config = serde_json::json!({HOSTILE: HOSTILE}).to_string();
    let h = Some(HOSTILE.to_string());
    assert_eq!(rows, [[h.clone(), h.clone(), h.clone(), h.clone(), Some(config)]]);
    assert_eq!(store.texts("SELECT name, host FROM systems WHERE name = $1", &[HOSTILE]), [[h.clone(), h.clone()]]);
    assert_eq!(store.texts("SELECT key, value FROM tags", &[]), [[h.clone(), h]]);
    assert_eq!(store.count("SELECT COUNT(*) FROM runs"), 1, "the runs table is still there");
}

fn an_original_suite_set_is_stored_as_mlb_report_judges_it(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    let counts = report_gen::write_set(dir.path(), 600, 3, 11);
    let (code, stdout, stderr) = import(&store, &[&dir.path().display().to_string()]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    // The other suite's files are reports too: stored, with their suite.
    let baselines = store.count("SELECT COUNT(*) FROM instances WHERE suite = 'baselines'");
    assert_eq!(baselines, counts.entries as i64);
    assert_eq!(store.count("SELECT COUNT(*) FROM runs"), report_gen::HOSTS.len() as i64);
    let check = |c: &str| store.count(&format!("SELECT COUNT(*) FROM instances WHERE fails_check = '{c}'"));
    assert_eq!(check("incomplete"), (counts.null_names + counts.incomplete) as i64);
    assert_eq!(store.count("SELECT COUNT(*) FROM instances WHERE bench = '(null)'"), counts.null_names as i64);
    assert_eq!(check("infinite_loss"), counts.infinite_losses as i64);
    // Every check as `mlb report` judges the folder (the other suite's
    // files, the same bytes in each folder, are stored once).
    let reading = mlb_record::contract::read::read_folder(dir.path()).unwrap();
    let judged = mlb::report::judge(&reading.entries);
    let ours = |e: &mlb_record::contract::read::Entry| e.suite.as_deref() == Some("baselines");
    for want in judged.iter().flatten() {
        let name = serde_json::to_value(want).unwrap().as_str().unwrap().to_string();
        let count = reading.entries.iter().zip(&judged).filter(|(e, c)| ours(e) && **c == Some(*want)).count();
        let stored = store
            .count(&format!("SELECT COUNT(*) FROM instances WHERE fails_check = '{name}' AND suite = 'baselines'"));
        assert_eq!(stored, count as i64, "{name}");
    }
    let kinds: std::collections::BTreeSet<_> = judged.iter().flatten().collect();
    assert!(kinds.len() >= 4, "the set holds most cases: {kinds:?}");
}
