//! `mlb db import` of a folder a vendor handed over: the store keeps what
//! `mlb serve` shows to every viewer, so nothing may come into it from
//! outside the run folder. A failed record's `log` once named any file
//! (`/etc/passwd`, `../..`, `/proc/self/environ`) and its tail was stored;
//! a FIFO hung the import; a link named `acceptance.json`, `system.json` or
//! a report was followed. Each path a report names is now read inside its
//! run folder only, with no link followed and no special file read.

use crate::store::backend::{Kind, TestStore};
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A text no file inside a run folder holds: found in the store, it came
/// from outside.
const SECRET: &str = "SECRET-OUTSIDE-THE-RUN-FOLDER";

/// `mlb db import ARGS` into `store`, killed when it takes longer than 60 s
/// (a FIFO read would block it); returns its status, stdout and stderr.
fn import_within(store: &TestStore, args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(crate::common::mlb())
        .args(["db", "import", "--db", &store.url])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("the import hung (a FIFO or a device read)");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// A failed launcher's record of `bench` on device `vcd`, naming `log`.
fn failed(folder: &Path, bench: &str, vcd: usize, log: &str) {
    let record = serde_json::json!({
        "name": bench, "suite": "s", "vcd": vcd.to_string(), "run_id": 0, "completed": false,
        "hostname": "node1", "log": log,
        "failure": {"cause": "exit", "message": "exited with status 1"},
    });
    std::fs::write(folder.join(format!("s.{bench}.R0.D{vcd}.json")), record.to_string()).unwrap();
}

/// Every text the store keeps that a viewer may see: log tails, documents,
/// report texts' file names, systems.
fn kept(store: &TestStore) -> String {
    let mut all = String::new();
    for sql in [
        "SELECT log || ' ' || tail FROM log_tails",
        "SELECT name || ' ' || body FROM run_documents",
        "SELECT file FROM report_texts",
        "SELECT name || ' ' || host || ' ' || COALESCE(description, '') FROM systems",
        "SELECT bench || ' ' || COALESCE(failure_message, '') FROM instances",
    ] {
        for row in store.texts(sql, &[]) {
            all.push_str(row[0].as_deref().unwrap_or_default());
            all.push('\n');
        }
    }
    all
}

#[test]
fn a_log_a_record_names_is_read_inside_its_run_folder_only() {
    let store = TestStore::new(Kind::Sqlite);
    let dir = tempfile::tempdir().unwrap();
    let (outside, run) = (dir.path().join("outside"), dir.path().join("import/run"));
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(run.join("logs")).unwrap();
    std::fs::write(outside.join("secret.log"), SECRET).unwrap();
    std::fs::write(run.join("logs/own.log"), "the own log's end\n").unwrap();
    std::fs::write(run.join("logs/moved.log"), "a log of a folder moved since\n").unwrap();
    symlink(outside.join("secret.log"), run.join("logs/link.log")).unwrap();
    symlink(&outside, run.join("linked")).unwrap();
    nix::unistd::mkfifo(&run.join("logs/fifo.log"), nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap();
    let secret = outside.join("secret.log").display().to_string();
    let hostile = [
        secret.as_str(),
        "/etc/passwd",
        "/proc/self/environ",
        "/dev/zero",
        "../../outside/secret.log",
        "logs/../../../outside/secret.log",
        "logs/link.log",
        "linked/secret.log",
        "logs/fifo.log",
        "logs",
    ];
    for (vcd, log) in hostile.iter().enumerate() {
        failed(&run, "bad", vcd, log);
    }
    // mlb's own records name their log by its absolute path under the
    // run's folder; a folder moved since still has it in `logs/`.
    failed(&run, "own", 0, &run.join("logs/own.log").display().to_string());
    failed(&run, "moved", 0, "/somewhere/else/run/logs/moved.log");
    let import = dir.path().join("import").display().to_string();
    let (code, stdout, stderr) = import_within(&store, &[&import, "--system", "lab"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), hostile.len() as i64 + 2);
    let kept = kept(&store);
    assert!(!kept.contains(SECRET) && !kept.contains("root:"), "{kept}");
    let tails = store.texts("SELECT tail FROM log_tails ORDER BY tail", &[]);
    let tails: Vec<&str> = tails.iter().map(|r| r[0].as_deref().unwrap()).collect();
    assert_eq!(tails, ["a log of a folder moved since\n", "the own log's end\n"]);
}

#[test]
fn links_and_special_files_in_a_run_folder_are_neither_read_nor_stored() {
    let store = TestStore::new(Kind::Sqlite);
    let dir = tempfile::tempdir().unwrap();
    let (outside, import) = (dir.path().join("outside"), dir.path().join("import"));
    let (run, other) = (import.join("run"), import.join("other"));
    for folder in [&outside, &run, &other] {
        std::fs::create_dir_all(folder).unwrap();
    }
    let report = |bench: &str, host: &str| {
        serde_json::json!({"name": bench, "suite": "s", "vcd": "0", "hostname": host, "completed": true,
            "train_item": {"avg": 10.0}, "batch_loss": [1.0]})
        .to_string()
    };
    std::fs::write(run.join("s.good.R0.D0.json"), report("good", "node1")).unwrap();
    std::fs::write(other.join("s.good.R0.D1.json"), report("good", "node2")).unwrap();
    // Outside: an acceptance record, a system description, reports.
    std::fs::write(outside.join("acceptance.json"), format!("{{\"verdict\": \"{SECRET}\"}}")).unwrap();
    std::fs::write(outside.join("system.json"), format!("{{\"system_name\": \"{SECRET}\"}}")).unwrap();
    std::fs::write(outside.join("s.outside.R0.D0.json"), report(SECRET, SECRET)).unwrap();
    symlink(outside.join("acceptance.json"), run.join("acceptance.json")).unwrap();
    symlink(outside.join("system.json"), run.join("system.json")).unwrap();
    symlink(outside.join("s.outside.R0.D0.json"), run.join("s.linked.R0.D1.json")).unwrap();
    symlink(&outside, run.join("sub")).unwrap();
    // Special files in the places of the documents: none may block.
    let fifo = |p: &Path| nix::unistd::mkfifo(p, nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap();
    fifo(&other.join("acceptance.json"));
    fifo(&other.join("system.json"));
    fifo(&other.join("s.fifo.R0.D2.json"));
    let (code, stdout, stderr) = import_within(&store, &[import.to_str().unwrap(), "--system", "lab"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let kept = kept(&store);
    assert!(!kept.contains(SECRET), "{kept}");
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), 2, "{kept}");
    assert_eq!(store.count("SELECT COUNT(*) FROM run_documents"), 0);
    assert!(stdout.contains("symbolic link"), "the links left out are named: {stdout}");
}
