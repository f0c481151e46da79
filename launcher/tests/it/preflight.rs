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

/// A record of this host's last burn at `time`, slot 0 passed or not.
fn burnt(l: &Launches, time: i64, passed: bool) {
    use mlb::doctor::burn_record::{self as record, Record, SlotRecord};
    let slot = SlotRecord {
        slot: "0".into(),
        gpu: None,
        passed,
        reason: (!passed).then(|| "gemm 0.010 TFLOPS, 40% of the best slot's 0.025 (at least 90%)".into()),
    };
    let burn = l.dir().join("burn").join("burn.json");
    record::write(&l.burns(), &[Record { host: record::this_host(), time, burn, slots: vec![slot] }]).unwrap();
}

#[test]
fn a_slot_that_failed_its_last_burn_is_refused_and_a_stale_burn_only_said() {
    if !root_or_skip("the pre-flight test") {
        return;
    }
    let l = Launches::new("burnt");
    let jobs = l.jobs(r#"[{"name": "b", "plugin": "spin", "cgroup": "student", "args": {"repeat": 2, "skip": 1, "number": 1, "size": 8}}]"#);
    let run = |name: &str| {
        let out = l.dir().join(name);
        let output = l.command(&jobs, &out, &["--devices", "1", "--strict-preflight"]).output().unwrap();
        let (stdout, stderr) = text(&output);
        (output.status.code(), format!("{stdout}\n{stderr}"), out)
    };
    let now = chrono::Utc::now().timestamp();

    burnt(&l, now - 60, false);
    let (code, said, out) = run("refused");
    assert_eq!(code, Some(2), "{said}");
    let burn_file = l.dir().join("burn").join("burn.json");
    for want in
        ["slot 0 failed its last burn", burn_file.to_str().unwrap(), "gemm 0.010 TFLOPS", "fix: repair or replace"]
    {
        assert!(said.contains(want), "{want:?} in:\n{said}");
    }
    assert!(common::reports(&out).is_empty(), "nothing ran");

    burnt(&l, now - 60, true);
    let (code, said, _) = run("passed");
    assert_eq!(code, Some(0), "{said}");

    burnt(&l, now - 8 * 24 * 3600, false);
    let (code, said, _) = run("stale");
    assert_eq!(code, Some(0), "a stale burn refuses nothing:\n{said}");
    assert!(said.contains("mlb: warning: pre-flight: warn  burn") && said.contains("h old"), "{said}");

    std::fs::remove_dir_all(l.burns()).unwrap();
    let (code, said, _) = run("absent");
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("no burn recorded"), "{said}");

    // A FIFO in the place of the record once blocked the launcher, the
    // host lock held, until SIGKILL: it is said and refuses nothing.
    std::fs::create_dir_all(l.burns()).unwrap();
    let record = l.burns().join(format!("{}.json", mlb::doctor::burn_record::this_host()));
    nix::unistd::mkfifo(&record, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let (code, said, _) = run("fifo");
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("a FIFO, not a regular file"), "{said}");
}

#[test]
fn doctor_writes_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::run(&["doctor", "--outdir", dir.path().to_str().unwrap(), "--format", "json"]);
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

/// `mlb doctor --diag --outdir DIR/out` with the stand-in `tool` (the
/// script `body`) first on `PATH`: the folder DIR and the doctor's output.
fn doctor_with(tool: &str, body: &str) -> (tempfile::TempDir, std::process::Output) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let script = common::write(&bin, tool, body);
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out_dir = dir.path().join("out");
    let out = std::process::Command::new(common::mlb())
        .args(["doctor", "--diag", "--outdir", out_dir.to_str().unwrap()])
        .env("PATH", path)
        .output()
        .unwrap();
    (dir, out)
}

/// A stand-in for NVIDIA's `dcgmi` (this host has no DCGM): a script on
/// `PATH` printing what `dcgmi diag -r 1 -j` prints, with the GPU Memory
/// test failed on GPU 1, and exiting 0 as the real one can with a failed test.
const DCGMI_STANDIN: &str = r#"#!/bin/sh
[ "$1 $2 $3 $4" = "diag -r 1 -j" ] || { echo "stand-in dcgmi: unexpected arguments: $*" >&2; exit 9; }
cat <<'JSON'
{"DCGM GPU Diagnostic": {"test_categories": [
  {"category": "Deployment", "tests": [{"name": "Denylist", "results": [{"status": "Pass"}]}]},
  {"category": "Hardware", "tests": [{"name": "GPU Memory", "results": [
    {"gpu_id": "0", "status": "Pass"},
    {"gpu_id": "1", "status": "Fail", "warnings": [{"warning": "Pending page retirements", "error_id": 36}]}]}]},
  {"category": "Integration", "tests": [{"name": "PCIe", "results": [{"gpu_id": "0", "status": "Skip"}]}]}
]}, "version": "3.3.5"}
JSON
exit 0
"#;

#[test]
fn a_failed_test_of_a_standin_dcgmi_fails_the_doctor_by_name_though_dcgmi_exits_0() {
    let (dir, out) = doctor_with("dcgmi", DCGMI_STANDIN);
    let out_dir = dir.path().join("out");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let words = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("dcgmi GPU Memory gpu1") && words.contains("FAIL"), "{stdout}");
    assert!(words.contains("Fail: Pending page retirements"), "{stdout}");
    let verdict = json(&out_dir.join("doctor.json"));
    let failed: Vec<&str> = verdict["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail" && c["name"].as_str().unwrap().starts_with("dcgmi"))
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["dcgmi GPU Memory gpu1"], "{verdict:#}");
    // Every test's own result is kept, in doctor.json and in system.json.
    for file in ["doctor.json", "system.json"] {
        let kept = json(&out_dir.join(file));
        let diagnostic = &kept["diagnostics"][0];
        assert_eq!((&diagnostic["tool"], &diagnostic["exit_status"]), (&"dcgmi".into(), &0.into()), "{file}");
        let tests: Vec<(String, String)> = diagnostic["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["name"].as_str().unwrap().to_string(), t["status"].as_str().unwrap().to_string()))
            .collect();
        let want = [("Denylist", "Pass"), ("GPU Memory", "Pass"), ("GPU Memory", "Fail"), ("PCIe", "Skip")];
        assert_eq!(tests, want.map(|(n, s)| (n.to_string(), s.to_string())), "{file}");
    }
}

/// A stand-in for AMD's `rvs` (this host has no ROCm): a script on `PATH`
/// that, asked `rvs -r 1 -j FILE`, writes the JSON log the real one writes
/// with the GST action failed on GPU 1, and exits 0 as the real one does.
const RVS_STANDIN: &str = r#"#!/bin/sh
[ "$1 $2 $3" = "-r 1 -j" ] && [ -n "$4" ] || { echo "stand-in rvs: unexpected arguments: $*" >&2; exit 9; }
cat > "$4" <<'JSON'
{"version": "1.1.0",
 "gst": {"gst-1215Tflops-4K4K8K-rand-fp8": [
   {"action": "gst-1215Tflops-4K4K8K-rand-fp8", "module": "gst", "gpu_id": "28851", "gpu_index": "0",
    "target": "1215000", "dtype": "fp8", "gflops": "1301000", "pass": "true"},
   {"action": "gst-1215Tflops-4K4K8K-rand-fp8", "module": "gst", "gpu_id": "28852", "gpu_index": "1",
    "target": "1215000", "dtype": "fp8", "gflops": "402000", "pass": "false"}]},
 "peqt": {"pcie_act_1": [{"action": "pcie_act_1", "module": "peqt", "gpu_id": "28851", "pass": "true"}]}}
JSON
echo "json log file is $4"
exit 0
"#;

#[test]
fn a_failed_test_of_a_standin_rvs_fails_the_doctor_by_name_though_rvs_exits_0() {
    let (dir, out) = doctor_with("rvs", RVS_STANDIN);
    let out_dir = dir.path().join("out");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let words = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("rvs gst-1215Tflops-4K4K8K-rand-fp8 gpu1") && words.contains("FAIL"), "{stdout}");
    assert!(words.contains("Fail: dtype fp8, gflops 402000, target 1215000"), "{stdout}");
    for file in ["doctor.json", "system.json"] {
        let kept = json(&out_dir.join(file));
        let diagnostic = kept["diagnostics"].as_array().unwrap().iter().find(|d| d["tool"] == "rvs").unwrap();
        assert_eq!(diagnostic["exit_status"], 0, "{file}");
        let tests: Vec<(&str, &str)> = diagnostic["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["category"].as_str().unwrap(), t["status"].as_str().unwrap()))
            .collect();
        assert_eq!(tests, [("gst", "Pass"), ("gst", "Fail"), ("peqt", "Pass")], "{file}");
    }
}
