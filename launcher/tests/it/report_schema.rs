//! The report file (docs/worker.md, "Report files"), pinned: its keys and value types (snapshot),
//! its formatting, and the `unique_id` rule.

use crate::common;

use common::{only_report, run_spin, spin_command};
use mlb::isolation::Isolation;
use serde_json::{Map, Value};

/// Replaces every value by its JSON type, keeping the key structure.
fn shape(v: &Value) -> Value {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        Value::Array(items) => {
            let kinds: std::collections::BTreeSet<String> =
                items.iter().map(|i| shape(i).as_str().unwrap_or("object").to_string()).collect();
            format!("array<{}>", kinds.into_iter().collect::<Vec<_>>().join("|")).into()
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect::<Map<_, _>>()),
    }
}

fn run(config: &str, extra: &[&str]) -> (String, Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = run_spin(config, dir.path(), extra);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (name, value) = only_report(dir.path());
    let text = std::fs::read_to_string(dir.path().join(&name)).unwrap();
    (name, value, text)
}

#[test]
fn schema_is_pinned() {
    let (name, report, text) =
        run(r#"{"repeat": 11, "number": 2, "size": 4, "batch_size": 4, "seed": 100}"#, &["--name", "spin"]);
    let mut shape = shape(&report);
    // Whether the test itself runs under a memory cgroup depends on the machine.
    shape["provenance"]["memory_limit_bytes"] = "number|null".into();
    shape["provenance"]["cgroup"] = "string|null".into();
    insta::assert_json_snapshot!("spin_report_shape", shape);
    // File name: <suite>.<name>.R<uid>.D<vcd>.<UTC yyyymmdd-HHMMSS-micro>.json
    let parts: Vec<&str> = name.split('.').collect();
    assert_eq!(parts[..4], ["test", "spin", "R0", "D0"]);
    assert!(parts[4].len() == 22 && parts[4].as_bytes()[8] == b'-' && parts[4].as_bytes()[15] == b'-', "{name}");
    // Strict JSON, sorted keys, 4-space indent.
    assert!(!text.contains("NaN") && !text.contains("Infinity"));
    assert!(text.starts_with("{\n    \"ballast_mb\""), "{}", &text[..40]);
    let keys: Vec<&String> = report.as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    // Throughput is items over time.
    let (items, avg) = (report["items"].as_f64().unwrap(), report["train"]["avg"].as_f64().unwrap());
    assert!((report["train_item"]["avg"].as_f64().unwrap() - items / avg).abs() < 1e-6 * items / avg);
    assert_eq!(report["jr_id"], "0");
    assert_eq!(report["provenance"]["isolation"], Isolation::None.name());
}

#[test]
fn provenance_reports_this_process_affinity() {
    let (_, report, _) = run(r#"{"repeat": 11, "number": 1, "size": 0}"#, &[]);
    let cpus = report["provenance"]["cpu_count"].as_u64().unwrap();
    assert_eq!(cpus as usize, mlb::linux::cpulist::affinity().len());
    assert_eq!(report["cpu_cores"], cpus);
}

#[test]
fn unique_id_is_stable_across_instances_and_runs_and_differs_across_configs() {
    let id = |config: &str, extra: &[&str]| run(config, extra).1["unique_id"].as_str().unwrap().to_string();
    let base = id(r#"{"repeat": 11, "number": 1, "size": 2, "seed": 100}"#, &[]);
    let other_instance =
        id(r#"{"repeat": 11, "number": 1, "size": 2, "seed": 200}"#, &["--jr-id", "1", "--vcd", "1", "--run-id", "7"]);
    assert_eq!(base, other_instance, "same config on another GPU and run");
    assert_ne!(base, id(r#"{"repeat": 11, "number": 1, "size": 3, "seed": 100}"#, &[]), "another config");
}

#[test]
fn heap_policy_is_recorded_and_the_users_choice_wins() {
    let heap = |env: &[(&str, &str)]| {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = spin_command(r#"{"repeat": 2, "skip": 1, "number": 1, "size": 0}"#, dir.path(), &[]);
        // Whatever heap choice the test's own environment carries is not this test's.
        for (var, _) in mlb_record::contract::env::heap_choice_vars(|name| std::env::var(name).ok()) {
            cmd.env_remove(var);
        }
        let out = cmd.envs(env.iter().copied()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        only_report(dir.path()).1["provenance"]["heap"].as_str().unwrap().to_string()
    };
    assert_eq!(heap(&[]), "keep-freed");
    assert_eq!(heap(&[("MLB_HEAP", "libc")]), "libc");
    assert_eq!(heap(&[("MALLOC_TRIM_THRESHOLD_", "131072")]), "environment");
}

#[test]
fn the_isolation_the_worker_is_told_is_recorded_and_only_slurm_records_the_task() {
    let provenance = |env: &[(&str, &str)]| {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = spin_command(r#"{"repeat": 2, "skip": 1, "number": 1, "size": 0}"#, dir.path(), &[]);
        cmd.env_remove(mlb_record::contract::env::ISOLATION);
        for var in mlb_record::contract::SlurmTask::VARIABLES {
            cmd.env_remove(var);
        }
        let out = cmd.envs(env.iter().copied()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        only_report(dir.path()).1["provenance"].clone()
    };
    let step = [("SLURM_STEP_ID", "0"), ("SLURMD_NODENAME", "n1")];
    for isolation in Isolation::ALL {
        let mut env = vec![(mlb_record::contract::env::ISOLATION, isolation.name())];
        env.extend(step);
        let p = provenance(&env);
        assert_eq!(p["isolation"], isolation.name(), "{p}");
        assert_eq!(p.get("slurm").is_some(), isolation == Isolation::Slurm, "{p}");
    }
    assert_eq!(provenance(&[])["isolation"], Isolation::None.name(), "unset: none");
    // A worker started by hand with a text mlb never writes records it as given.
    let p = provenance(&[(mlb_record::contract::env::ISOLATION, "cgroup"), step[0]]);
    assert_eq!((p["isolation"].as_str(), p.get("slurm")), (Some("cgroup"), None), "{p}");
}
