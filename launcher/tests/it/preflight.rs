//! The pre-flight checks before `mlb --jobs` (a warning, or a refusal with
//! `--strict-preflight`), their verdict and the system description in the
//! output folder, and `mlb doctor`. Real runs of spin on this host.

use crate::common;

use common::launcher::{root_or_skip, Launches};
use common::text;
use serde_json::Value;

fn json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

#[test]
fn missing_data_warns_or_refuses_and_the_verdict_and_system_are_written() {
    if !root_or_skip("the pre-flight test") {
        return;
    }
    let l = Launches::new("preflight");
    let base = l.dir().join("base");
    std::fs::create_dir_all(base.join("data")).unwrap();
    let jobs = l.jobs(
        r#"[{"name": "d", "plugin": "spin", "cgroup": "student",
             "args": {"repeat": 2, "skip": 1, "number": 1, "size": 8, "data_path": "${DATA_DIRECTORY}/absent"}}]"#,
    );
    let base_arg = base.to_str().unwrap();

    let refused = l.command(&jobs, &l.out(), &["--base", base_arg, "--strict-preflight"]).output().unwrap();
    let (_, stderr) = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("pre-flight") && stderr.contains("absent") && stderr.contains("fix:"), "{stderr}");
    let verdict = json(&l.out().join("doctor.json"));
    let data = verdict["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("data "))
        .unwrap();
    assert_eq!(data["status"], "fail");
    assert!(common::reports(&l.out()).is_empty(), "nothing ran");

    let warned = l.command(&jobs, &l.out(), &["--base", base_arg]).output().unwrap();
    let (stdout, stderr) = text(&warned);
    assert!(warned.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("mlb: warning: pre-flight: FAIL  data") && stderr.contains("absent"), "{stderr}");
    let system = json(&l.out().join("system.json"));
    assert_eq!(system["number_of_nodes"], 1);
    assert!(system["host_processor_vcpu_count"].as_u64().unwrap() >= 1);
    assert!(
        !system["kernel"].as_str().unwrap().is_empty()
            && !system["host_processor_model_name"].as_str().unwrap().is_empty()
    );
    assert_eq!(system["accelerator_model_name"], "none");
}

#[test]
fn doctor_writes_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::run(&["doctor", "--outdir", dir.path().to_str().unwrap(), "--json"]);
    let (stdout, stderr) = text(&out);
    let verdict = json(&dir.path().join("doctor.json"));
    let checks = verdict["checks"].as_array().unwrap();
    assert!(
        checks.iter().any(|c| c["name"] == "cgroups") && checks.iter().any(|c| c["name"] == "disk space"),
        "{verdict}"
    );
    assert!(
        checks.iter().all(|c| c["status"] == "pass" || !c["fix"].as_str().unwrap_or("").is_empty()),
        "each problem has its fix: {verdict}"
    );
    let failed = checks.iter().any(|c| c["status"] == "fail");
    assert_eq!(out.status.code(), Some(if failed { 1 } else { 0 }), "{stdout}\n{stderr}");
}
