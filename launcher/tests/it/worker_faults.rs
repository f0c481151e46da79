//! Every spin fault mode, through the real `mlb worker`, gives its documented
//! outcome: exit code or signal, and the record (or none, for a crash).

use crate::common;

use common::{only_report, reports, run_spin};
use nix::sys::signal::Signal;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Exit code, signal, records written and stderr of one run.
type Outcome = (Option<i32>, Option<i32>, Vec<(String, serde_json::Value)>, String);

/// Runs spin with `config`.
fn outcome(config: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let out = run_spin(config, dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), out.status.signal(), reports(dir.path()), stderr)
}

fn assert_failed(config: &str, code: i32, cause: &str, message: &str) {
    let (exit, signal, records, stderr) = outcome(config);
    assert_eq!((exit, signal), (Some(code), None), "{config}: {stderr}");
    assert_eq!(records.len(), 1, "{config}: one FAIL record");
    let (name, r) = &records[0];
    assert!(name.contains(".FAIL."), "{name}");
    assert_eq!(r["completed"], false);
    assert_eq!(r["failure"]["cause"], cause, "{r}");
    let got = r["failure"]["message"].as_str().unwrap();
    assert!(got.contains(message), "{config}: message {got:?} lacks {message:?}");
    for key in ["suite", "name", "run_id", "vcd", "unique_id", "provenance"] {
        assert!(!r[key].is_null(), "{config}: failure record lacks {key}");
    }
}

#[test]
fn a_clean_run_completes() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_spin(r#"{"repeat": 12, "number": 3, "size": 8}"#, dir.path(), &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().filter(|l| l.starts_with('[')).count(), 12, "one ETA line per observation");
    assert!(stdout.contains("[ 12/ 12] | ETA:   0.00 min | Batch Loss"), "{stdout}");
    let (name, r) = only_report(dir.path());
    assert!(!name.contains("FAIL"));
    assert_eq!(r["completed"], true);
    assert_eq!(r["train"]["count"], 2, "12 observations less the 10 of warm-up");
    assert_eq!(r["items"], 24.0, "3 steps of 8 rows per observation");
}

#[test]
fn error_fails_the_instance() {
    assert_failed(r#"{"repeat": 12, "number": 3, "error_at": 5}"#, 3, "error", "error requested at step 5");
}

#[test]
fn panic_is_caught() {
    assert_failed(r#"{"repeat": 12, "number": 3, "panic_at": 2}"#, 4, "panic", "panic requested at step 2");
}

#[test]
fn nan_loss_fails_the_instance() {
    assert_failed(r#"{"repeat": 12, "number": 3, "nan_at": 4}"#, 5, "nan", "loss is NaN at step 4");
    let (_, _, records, _) = outcome(r#"{"repeat": 12, "number": 3, "nan_at": 4}"#);
    let losses = records[0].1["batch_loss"].as_array().unwrap().clone();
    assert_eq!(losses.len(), 4, "losses up to the failing step are kept");
    assert!(losses[3].is_null(), "NaN is written as null: strict JSON");
}

#[test]
fn setup_error_and_bad_config_fail_cleanly() {
    assert_failed(r#"{"repeat": 12, "number": 3, "setup_error": ""}"#, 3, "error", "setup failed");
    assert_failed(r#"{"repeat": 10, "number": 3}"#, 8, "config", "set `skip` explicitly");
    assert_failed(r#"{"repeat": 12, "number": 3, "size": "big"}"#, 3, "error", "argument `size`");
}

#[test]
fn abort_and_segfault_die_by_signal_without_record() {
    for (config, signal) in [
        (r#"{"repeat": 12, "number": 3, "abort_at": 2}"#, Signal::SIGABRT as i32),
        (r#"{"repeat": 12, "number": 3, "segfault_at": 2}"#, Signal::SIGSEGV as i32),
    ] {
        let (exit, sig, records, _) = outcome(config);
        assert_eq!((exit, sig), (None, Some(signal)), "{config}");
        assert!(records.is_empty(), "a crash leaves the record to the launcher");
    }
}

#[test]
fn alloc_touches_memory_and_sleep_slows_steps() {
    let dir = tempfile::tempdir().unwrap();
    let config = r#"{"repeat": 2, "skip": 1, "number": 2, "size": 0, "alloc_mb": 64, "sleep_ms": 30}"#;
    let out = run_spin(config, dir.path(), &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (_, r) = only_report(dir.path());
    assert_eq!(r["ballast_mb"], 64);
    assert!(r["train"]["min"].as_f64().unwrap() >= 0.060, "2 steps of 30 ms: {}", r["train"]);
}

#[test]
fn hang_never_returns() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(common::mlb())
        .arg("worker")
        .arg("--plugin")
        .arg(common::spin_plugin())
        .args(["--config", r#"{"repeat": 12, "number": 1, "hang_at": 3}"#, "--outdir"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < deadline {
        assert!(child.try_wait().unwrap().is_none(), "a hanging step must not return");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(reports(dir.path()).is_empty());
}

#[test]
fn a_refused_command_line_records_nothing_and_exits_with_usage() {
    let dir = tempfile::tempdir().unwrap();
    let worker = |name: &[&str]| run_spin(r#"{"repeat": 11, "number": 1}"#, dir.path(), name);
    // `-x` as a separate word is an option to the parser: refused.
    let out = worker(&["--name", "-x"]);
    assert_eq!(out.status.code(), Some(mlb_record::contract::exit::USAGE), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        mlb_record::contract::exit::cause_of(mlb_record::contract::exit::USAGE),
        None,
        "the launcher must record it"
    );
    assert!(reports(dir.path()).is_empty());
    // In the option's own word, as the launcher passes it, it is a name.
    let out = worker(&["--name=-x"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (name, r) = only_report(dir.path());
    assert!(name.starts_with("test.-x.R0.D"), "{name}");
    assert_eq!(r["name"], "-x");
}

/// The launcher's record of an instance that died without a record names
/// the same arguments and configuration id as the worker's report of the
/// same plugin config: the plugin's defaults under the job's arguments, keys
/// normalised, the seed included. The same jobs file is launched twice: once
/// killed by `--timeout` (the launcher writes the record), once to its end.
#[test]
fn a_launcher_failure_record_carries_the_workers_arguments_and_id() {
    let launches = common::launcher::Launches::new("failrecord");
    let jobs = launches.jobs(
        r#"[{"name": "slow", "plugin": "spin", "args": {"repeat": 12, "number": 1, "sleep_ms": 250, "size": 4}}]"#,
    );
    let launch = |out: &std::path::Path, extra: &[&str]| {
        let output = launches.command(&jobs, out, extra).output().unwrap();
        let records = reports(out);
        assert_eq!(records.len(), 1, "{extra:?}: one record in {records:?}; {}", common::text(&output).1);
        records.into_iter().next().unwrap().1
    };
    let failed = launch(&launches.dir().join("killed"), &["--timeout", "1"]);
    assert_eq!((failed["completed"].clone(), failed["failure"]["cause"].clone()), (false.into(), "timeout".into()));
    assert_eq!(failed["provenance"]["written_by"], "launcher", "{failed}");
    let completed = launch(&launches.out(), &[]);
    assert_eq!(completed["completed"], true, "{completed}");
    assert_eq!(failed["unique_id"], completed["unique_id"]);
    // Each argument of the record is the worker's, with its value; the
    // job's own are there.
    let arguments: Vec<(&String, &serde_json::Value)> =
        failed.as_object().unwrap().iter().filter(|(k, _)| mlb_record::contract::keys::is_argument(k)).collect();
    for (key, value) in &arguments {
        assert_eq!(completed.get(*key), Some(*value), "{key}: the record's value against the worker's");
    }
    for key in ["repeat", "number", "sleep_ms", "size", "seed"] {
        assert!(arguments.iter().any(|(k, _)| *k == key), "the record lacks {key}: {failed}");
    }
    assert_eq!(failed["seed"], completed["seed"]);
}
