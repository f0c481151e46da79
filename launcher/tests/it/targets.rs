//! `mlb targets derive` and `mlb targets list`, and `--gpu-model NAME`
//! finding derived tables: the real binary on report folders written the way
//! `mlb worker` writes them, and on a generated set of the original's files.

use crate::common::records::{write_report, Run};
use crate::report_gen;
use mlb_record::contract::record::write_atomic;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

const V100: &str = "Tesla V100-SXM2-16GB";

/// `mlb ARGS` with `XDG_CONFIG_HOME` set to `config` (HOME too, so that no
/// folder of the machine's user is read).
fn mlb(config: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .env("HOME", config)
        .output()
        .unwrap()
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "mlb failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn series(dir: &Path, bench: &str, gpu: &str, values: &[f64]) {
    for (i, v) in values.iter().enumerate() {
        let vcd = i.to_string();
        write_report(dir, &Run { suite: "fast", bench, run: i as u64, vcd: &vcd, items_per_sec: *v, gpu: Some(gpu) });
    }
}

/// convnet 200, 210, 220 (sd 10); vae 7000, 7400, 7800 (sd 400); cart 1000,
/// 1001 (a spread under the floor).
fn clean(dir: &Path) {
    series(dir, "convnet", V100, &[200.0, 210.0, 220.0]);
    series(&dir.join("run2"), "vae", V100, &[7000.0, 7400.0, 7800.0]);
    series(dir, "cart", V100, &[1000.0, 1001.0]);
}

/// The data lines of a derived table.
fn rows(csv: &str) -> Vec<&str> {
    csv.lines().filter(|l| !l.starts_with('#')).collect()
}

#[test]
fn derived_from_a_clean_run_by_the_documented_rule() {
    let (run, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    clean(run.path());
    let d = run.path().to_str().unwrap();
    let csv = ok(&mlb(config.path(), &["targets", "derive", "--reports", d, "--gpu-model", "V100"]));
    // target = mean; sd_target = max(1.5 x sd/mean, 0.05), 6 significant digits:
    // convnet 1.5 x 10/210 = 0.0714286; vae 1.5 x 400/7400 = 0.0810811; cart
    // 1.5 x 0.707107/1000.5 = 0.00106 -> 0.05.
    assert_eq!(
        rows(&csv),
        [
            "bench,target,perf_target,sd_target",
            "cart,1000.5,0.9,0.05",
            "convnet,210,0.9,0.0714286",
            "vae,7400,0.9,0.0810811"
        ],
        "{csv}"
    );
    assert!(csv.contains("target = mean throughput of the run"), "the rule is in the file: {csv}");
    let csv = ok(&mlb(config.path(), &["targets", "derive", "--reports", d, "--gpu-model", "V100", "--perf", "0.8"]));
    assert_eq!(rows(&csv)[2], "convnet,210,0.8,0.0714286");
    let out = mlb(config.path(), &["targets", "derive", "--reports", d, "--gpu-model", "V100", "--perf", "1.5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a share of the target in (0, 1]"));
}

#[test]
fn derived_from_the_original_s_files_the_targets_are_the_report_s_means() {
    let (run, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    report_gen::write_set(run.path(), 2000, 3, 7);
    let d = run.path().to_str().unwrap();
    let args = ["targets", "derive", "--reports", d, "--gpu-model", "V100", "--suite", "baselines"];
    let refused = mlb(config.path(), &args);
    assert_eq!(refused.status.code(), Some(2), "the set has failures");
    let csv = ok(&mlb(config.path(), &[&args[..], &["--force"]].concat()));
    assert!(csv.contains("# derived with --force although: "), "{csv}");
    let report: Value = serde_json::from_str(&ok(&mlb(
        config.path(),
        &["report", "--reports", d, "--suite", "baselines", "--rows", "bench", "--format", "json"],
    )))
    .unwrap();
    let table = mlb::report::Targets::parse("derived", &csv).unwrap();
    let benches = report["benches"].as_array().unwrap();
    let with_mean: Vec<&Value> =
        benches.iter().filter(|b| b["sample"]["mean"].as_f64().is_some_and(|m| m > 0.0)).collect();
    assert!(with_mean.len() >= 15, "{}", with_mean.len());
    assert_eq!(table.benches.len(), with_mean.len());
    for b in with_mean {
        let mean = b["sample"]["mean"].as_f64().unwrap();
        let t = table.get(b["bench"].as_str().unwrap()).unwrap();
        assert!((t.target - mean).abs() <= 1e-5 * mean, "{}: {} vs {mean}", b["bench"], t.target);
        assert!(t.sd_target >= 0.05 && t.perf_target == 0.9);
        if let Some(sd) = b["sample"]["sd"].as_f64() {
            let want = (1.5 * sd / mean).max(0.05);
            assert!((t.sd_target - want).abs() <= 1e-5 * want, "{}", b["bench"]);
        }
    }
}

/// `mlb targets derive` on `dir`: refused with exit 2, the folder, `reason`
/// and the fix named, nothing written; then written with `--force`.
fn refused_then_forced(dir: &Path, name: &str, reason: &str) {
    let config = tempfile::tempdir().unwrap();
    let out = config.path().join("t.csv");
    let (d, o) = (dir.to_str().unwrap(), out.to_str().unwrap());
    let args = ["targets", "derive", "--reports", d, "--gpu-model", name, "--output", o];
    let refused = mlb(config.path(), &args);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("cannot derive targets from {d}")) && stderr.contains(reason), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert!(!out.exists(), "nothing is written");
    let said = ok(&mlb(config.path(), &[&args[..], &["--force"]].concat()));
    assert!(said.starts_with(&format!("wrote {o} (")), "{said}");
    let shipped = name.eq_ignore_ascii_case("V100");
    assert_eq!(
        said.contains(&format!("note: `--gpu-model V100` finds the shipped table first; pass --targets {o}")),
        shipped,
        "{said}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("# derived with --force although: ") && text.contains(reason), "{text}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o644);
}

#[test]
fn a_run_with_a_failure_is_refused_unless_forced() {
    let run = tempfile::tempdir().unwrap();
    clean(run.path());
    let failure = json!({"completed": false, "name": "vae", "run_id": 9, "suite": "fast", "vcd": "0"});
    write_atomic(run.path(), "fast.vae.R9.D0.FAIL.json", &failure).unwrap();
    refused_then_forced(run.path(), "V100", "1 failed entries");
}

#[test]
fn a_bench_with_one_result_is_refused_unless_forced() {
    let run = tempfile::tempdir().unwrap();
    clean(run.path());
    series(run.path(), "wlm", V100, &[1600.0]);
    refused_then_forced(run.path(), "V100", "bench `wlm` has 1 usable result(s), and a target needs at least 2");
}

#[test]
fn mixed_gpu_models_are_refused_unless_forced() {
    let run = tempfile::tempdir().unwrap();
    clean(run.path());
    series(&run.path().join("other"), "wlm", "NVIDIA A100-SXM4-40GB", &[1600.0, 1610.0]);
    refused_then_forced(run.path(), "V100", "several GPU models (NVIDIA A100-SXM4-40GB, Tesla V100-SXM2-16GB)");
    let run = tempfile::tempdir().unwrap();
    clean(run.path());
    let desc = json!({"system_name": "node7", "number_of_nodes": 1, "accelerator_model_name": V100,
        "accelerators_per_node": 2, "host_processor_model_name": "EPYC", "operating_system": "Debian 12"});
    write_atomic(run.path(), "system.json", &desc).unwrap();
    refused_then_forced(
        run.path(),
        "H100",
        "its system.json names the accelerator `Tesla V100-SXM2-16GB`, which is not `H100`",
    );
    let config = tempfile::tempdir().unwrap();
    let d = run.path().to_str().unwrap();
    ok(&mlb(config.path(), &["targets", "derive", "--reports", d, "--gpu-model", "v100"]));
}

#[test]
fn a_derived_table_in_the_user_folder_is_found_by_report_and_list() {
    let (run, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    clean(run.path());
    // The folder is made by the first table written into it.
    let folder = config.path().join("mlb/targets");
    let file = folder.join("h100.csv");
    let (d, f) = (run.path().to_str().unwrap(), file.to_str().unwrap());
    ok(&mlb(config.path(), &["targets", "derive", "--reports", d, "--gpu-model", "H100", "--output", f]));
    let report: Value = serde_json::from_str(&ok(&mlb(
        config.path(),
        &["report", "--reports", d, "--gpu-model", "H100", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(report["targets"].as_str(), Some(f));
    // Each bench at its own mean: perf 1 >= 0.9 and sd% within 1.5 x itself.
    assert_eq!(report["score"]["pm"].as_f64(), Some(1.0));
    assert_eq!(report["score"]["st"].as_f64(), Some(1.0));
    let list = ok(&mlb(config.path(), &["targets", "list", "--format", "csv"]));
    assert!(list.contains(&format!("h100,user {f},3,\"cart, convnet, vae\"\n")), "{list}");
    assert!(list.lines().any(|l| l.starts_with("V100,built-in,20,")), "{list}");
    assert!(list.contains(&format!("user,{}\n", folder.display())), "{list}");
    let text = ok(&mlb(config.path(), &["targets", "list"]));
    assert!(text.lines().any(|l| l.starts_with("h100") || l.contains("│ h100 ")), "{text}");
}

#[test]
fn an_unknown_model_is_refused_with_the_known_ones() {
    let (run, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    clean(run.path());
    let d = run.path().to_str().unwrap();
    let out = mlb(config.path(), &["report", "--reports", d, "--gpu-model", "B200"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no target table for GPU model `B200` (known: V100, RTX, MI50)"), "{stderr}");
    assert!(stderr.contains("mlb targets derive --gpu-model B200"), "{stderr}");
    // The shipped names in any case, as before.
    let json: Value = serde_json::from_str(&ok(&mlb(
        config.path(),
        &["report", "--reports", d, "--gpu-model", "v100", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(json["targets"].as_str(), Some("configs/targets/v100.csv"));
}

#[test]
fn a_table_that_cannot_be_written_fails_and_leaves_nothing() {
    let (run, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    clean(run.path());
    let blocker = config.path().join("file");
    std::fs::write(&blocker, "not a folder").unwrap();
    let out = blocker.join("h100.csv");
    let (d, o) = (run.path().to_str().unwrap(), out.to_str().unwrap());
    let failed = mlb(config.path(), &["targets", "derive", "--reports", d, "--gpu-model", "H100", "--output", o]);
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("cannot write the target table {o}")) && stderr.contains("--output"), "{stderr}");
    assert_eq!(std::fs::read_dir(config.path()).unwrap().count(), 1, "no temporary file is left");
}
