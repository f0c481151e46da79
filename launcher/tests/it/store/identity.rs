//! An instance is stored once, whatever version of its file it came in:
//! the original suite's per-host file, an array it appends to, imported,
//! grown and imported again once stored every entry twice; an mlb report
//! rewritten in place (telemetry attached) was kept in both versions. And
//! one NUL byte in a record kept its whole run out of a PostgreSQL store.

use super::backend::{import, on_both, Kind, TestStore};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

on_both!(
    an_appended_file_imported_again_stores_each_entry_once_with_mlb_reports_figures,
    a_report_rewritten_in_place_is_stored_once_as_it_is_now,
    a_nul_byte_is_stored_the_same_on_both_backends,
);

/// One entry as the original wrote it into its appended per-host file.
fn original(bench: &str, vcd: usize, items: f64) -> String {
    format!(
        "{{\"batch_loss\": [2.0, 1.0], \"batch_size\": 64, \"gpu\": \"V100\", \"name\": \"{bench}\", \
         \"run_id\": \"0\", \"suite\": \"baselines\", \"train_item\": {{\"avg\": {items:?}, \"unit\": \
         \"items/sec\"}}, \"vcd\": \"{vcd}\"}},\n"
    )
}

fn mlb(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(crate::common::mlb()).args(args).output().unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    (out.status.code(), stdout, stderr)
}

/// The store's per-bench figures of the system `name` equal `mlb report`'s of `dir`.
fn figures_are_mlb_reports(store: &TestStore, name: &str, dir: &Path) {
    let (code, stdout, stderr) = mlb(&["db", "compare", "--db", &store.url, "--systems", name, "--format", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let matrix: Value = serde_json::from_str(&stdout).unwrap();
    let (code, stdout, stderr) = mlb(&["report", "--reports", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    for bench in report["benches"].as_array().unwrap() {
        let row = matrix["rows"].as_array().unwrap().iter().find(|r| r["bench"] == bench["bench"]).unwrap();
        assert_eq!(row["cells"][0]["n"], bench["sample"]["n"], "{bench}");
        let (ours, theirs) = (row["cells"][0]["items_per_s"].as_f64().unwrap(), bench["sample"]["mean"].as_f64());
        assert!((ours - theirs.unwrap()).abs() < 1e-9, "{bench}: {ours}");
    }
}

fn an_appended_file_imported_again_stores_each_entry_once_with_mlb_reports_figures(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("baselines_0.json");
    // Two entries alike in every field: two instances, as mlb report counts them.
    let mut text = format!("[\n{}{}{}", original("vae", 0, 100.0), original("vae", 0, 100.0), original("wlm", 0, 10.0));
    std::fs::write(&file, &text).unwrap();
    let folder = dir.path().display().to_string();
    let (code, stdout, stderr) = import(&store, &[&folder, "--system", "A"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), 3);
    text.push_str(&original("vae", 0, 130.0));
    std::fs::write(&file, &text).unwrap();
    let (code, stdout, stderr) = import(&store, &[&folder, "--system", "A"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("imported 1 report of 1 run folder"), "{stdout}");
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), 4);
    assert_eq!(store.count("SELECT COUNT(*) FROM report_texts"), 1, "the file's text as it is now");
    figures_are_mlb_reports(&store, "A", dir.path());
    // Again, unchanged: nothing new.
    let (_, stdout, _) = import(&store, &[&folder, "--system", "A"]);
    assert!(stdout.starts_with("imported 0 reports of 0 run folders"), "{stdout}");
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), 4);
}

fn a_report_rewritten_in_place_is_stored_once_as_it_is_now(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.vae.R0.D0.20260102-030405-000000.json");
    let mut report = serde_json::json!({
        "name": "vae", "suite": "s", "run_id": 0, "vcd": "0", "completed": true, "hostname": "n1",
        "start_time": "2026-01-02 03:04:05.000000", "unique_id": "abc", "batch_size": 32,
        "train_item": {"avg": 50.0, "unit": "items/sec"}, "batch_loss": [2.0, 1.0],
    });
    std::fs::write(&file, report.to_string()).unwrap();
    let folder = dir.path().display().to_string();
    assert_eq!(import(&store, &[&folder, "--system", "A"]).0, Some(0));
    // Telemetry attached afterwards: the file rewritten with more in it.
    report["telemetry"] = serde_json::json!({"energy": {"joules_per_item": 2.5, "source": "gpu"}});
    report["train_item"]["avg"] = 55.0.into();
    std::fs::write(&file, report.to_string()).unwrap();
    let (code, stdout, stderr) = import(&store, &[&folder, "--system", "A"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), 1);
    assert_eq!(store.count("SELECT COUNT(*) FROM report_texts"), 1);
    assert_eq!(store.count("SELECT COUNT(*) FROM instances WHERE items_per_s = 55.0"), 1, "as it is now");
    assert_eq!(store.count("SELECT COUNT(*) FROM metrics WHERE name = 'energy.joules_per_item'"), 1);
    assert_eq!(store.count("SELECT COUNT(*) FROM metrics WHERE name = 'train_item.avg'"), 1);
    figures_are_mlb_reports(&store, "A", dir.path());
}

fn a_nul_byte_is_stored_the_same_on_both_backends(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    std::fs::write(dir.path().join("logs/x.log"), b"before\0after\n").unwrap();
    let record = serde_json::json!({
        "name": "a\u{0}b", "suite": "s\u{0}", "vcd": "0", "run_id": 0, "completed": false, "hostname": "n\u{0}1",
        "log": "logs/x.log", "x\u{0}y": "v\u{0}w",
        "failure": {"cause": "exit", "message": "crashed\u{0}here"},
    });
    std::fs::write(dir.path().join("s.a.R0.D0.json"), record.to_string()).unwrap();
    let folder = dir.path().display().to_string();
    let (code, stdout, stderr) = import(&store, &[&folder]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("imported 1 report of 1 run folder"), "{stdout}\n{stderr}");
    let row = store.texts("SELECT bench, suite, node, failure_message, config FROM instances", &[]);
    let r = |s: &str| Some(s.replace('\0', "\u{FFFD}"));
    let config = serde_json::json!({"x\u{0}y": "v\u{0}w"}).to_string();
    assert_eq!(row, [[r("a\0b"), r("s\0"), r("n\u{0}1"), r("crashed\0here"), Some(config)]]);
    assert_eq!(store.texts("SELECT tail FROM log_tails", &[]), [[r("before\0after\n")]]);
    assert_eq!(store.texts("SELECT host FROM systems", &[]), [[r("n\u{0}1")]]);
}
