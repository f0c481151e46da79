//! The modern suite's CPU smoke test end to end: `mlb --jobs
//! configs/modern-smoke.json` through the real `mlb` binary and plugin
//! library (gpt and vit at tiny sizes, bf16), then `mlb report`: each bench
//! completes and states its FLOPs, the CPU probe gives the peak, and the
//! modern profile scores the run. Prints the MFU figures it measured.
//!
//! Build first in the same profile (`scripts/test-torch.sh` does).

use crate::common::binary::{artifact, plugin_dir, root_or_skip};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[test]
fn the_modern_smoke_suite_runs_on_a_cpu_and_reports_its_mfu_and_profile_score() {
    if !root_or_skip("the modern smoke suite") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let jobs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/modern-smoke.json");
    let plugins = plugin_dir();
    let run = Command::new(artifact("mlb"))
        .arg("--plugin-dir")
        .arg(plugins.path())
        .arg("--jobs")
        .arg(&jobs)
        .arg("--outdir")
        .arg(&out)
        .args(["--devices", "1", "--uid", "0"])
        .env("MLB_LOCK", dir.path().join("mlb.lock"))
        .env("NO_COLOR", "1")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "mlb --jobs modern-smoke failed:\n{text}");
    let report =
        Command::new(artifact("mlb")).args(["report", "--format", "json", "--reports"]).arg(&out).output().unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let json: Value = serde_json::from_slice(&report.stdout).unwrap();
    let rows = json["mfu"]["rows"].as_array().unwrap_or_else(|| panic!("no MFU table: {json}"));
    let benches: Vec<&str> = rows.iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(benches, ["gpt_124m", "gpt_350m", "vit_b16"], "{json}");
    for r in rows {
        assert_eq!((&r["precision"], &r["peak_of"]), (&Value::from("bf16"), &Value::from("probe")), "{r}");
        let (achieved, peak, mfu) = (&r["achieved_tflops"]["mean"], &r["peak_tflops"], &r["mfu"]["mean"]);
        assert!(mfu.as_f64().is_some_and(|m| m > 0.0 && m < 2.0), "{r}");
        println!("{}: achieved {achieved} TFLOPS, probe peak {peak} TFLOPS, MFU {mfu}", r["label"]);
    }
    let profile = &json["profile_score"];
    assert!(profile["profile"] == "modern" && json["score"].is_null(), "{json}");
    assert!(profile["mfu"].as_f64().is_some_and(|m| m > 0.0), "{profile}");
    println!("modern profile: weighted MFU {}", profile["mfu"]);
}
