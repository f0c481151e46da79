//! `mlb report` on files in the original suite's shapes, one test per case
//! where it once gave another figure than the original's report tool, and
//! the views: one row per config, the unit, one GPU.

use crate::common;

use common::records::{file_name, record, Run};
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

fn mlb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlb")).arg("report").args(args).output().unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "mlb report failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn json_of(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--reports", dir.to_str().unwrap(), "--format", "json"];
    args.extend(extra);
    serde_json::from_str(&stdout(&mlb(&args))).unwrap()
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() <= 1e-9 * want.abs().max(1.0))
}

/// A report as the original wrote it (`json.dumps`, sorted keys, tokens).
fn original(name: &str, vcd: usize, avg: &str, loss: &str) -> String {
    format!(
        "{{\"batch_loss\": [0.9, {loss}, 0.7], \"batch_size\": 64, \"completed\": true, \"name\": \"{name}\", \
         \"run_id\": \"0\", \"suite\": \"baselines\", \"train_item\": {{\"avg\": {avg}, \"range\": NaN, \
         \"unit\": \"items/sec\"}}, \"vcd\": \"{vcd}\"}}"
    )
}

/// The original launcher's failure record of a run without `--name`.
const NULL_FAILURE: &str =
    "{\n    \"completed\": false,\n    \"name\": null,\n    \"run_id\": 0,\n    \"suite\": \"baselines\",\n    \"vcd\": \"0\"\n}";

fn targets(dir: &Path, rows: &str) -> String {
    let path = dir.join("targets.csv");
    std::fs::write(&path, format!("bench,target,perf_target,sd_target\n{rows}")).unwrap();
    path.display().to_string()
}

#[test]
fn null_name_failure_records_count_as_failures() {
    // Defect 1: 132 reports and 2 failure records with "name": null. The
    // original: 2 failures of 134 results (1.49%), BF 0, score 0.
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    for i in 0..132 {
        let (bench, base) = [("vae", 7400.0), ("convnet", 210.0)][i % 2];
        let text = original(bench, i % 4, &format!("{}", base + (i % 3) as f64), "0.8");
        std::fs::write(reports.join(format!("baselines.{bench}.R0.D{}.{i:04}.json", i % 4)), text).unwrap();
    }
    for i in 0..2 {
        std::fs::write(reports.join(format!("baselines.None.R0.D0.FAIL.{i}.json")), NULL_FAILURE).unwrap();
    }
    let t = targets(dir.path(), "vae,7500,0.5,0.05\nconvnet,215,0.5,0.05\n");
    let json = json_of(&reports, &["--targets", &t]);
    let s = &json["score"];
    assert_eq!((s["results"].as_u64(), s["failures"].as_u64(), s["bf"].as_u64()), (Some(134), Some(2), Some(0)));
    assert_eq!(s["score"].as_f64(), Some(0.0));
    // In no table, listed with their file.
    let benches: Vec<&str> = json["benches"].as_array().unwrap().iter().map(|b| b["bench"].as_str().unwrap()).collect();
    assert_eq!(benches, ["convnet", "vae"]);
    let failures = json["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2);
    assert!(failures.iter().all(|f| f["bench"].is_null() && f["check"] == "incomplete"));
    let table = stdout(&mlb(&["--reports", reports.to_str().unwrap(), "--targets", &t]));
    assert!(table.contains("baselines.None.R0.D0.FAIL.0.json") && table.contains("(null)"), "{table}");
    assert!(table.contains("2 entries have a null name"), "{table}");
    // One such record of 133: 0.75%, BF 1.
    std::fs::remove_file(reports.join("baselines.None.R0.D0.FAIL.1.json")).unwrap();
    let one = json_of(&reports, &["--targets", &t]);
    assert_eq!((one["score"]["bf"].as_u64(), one["score"]["failures"].as_u64()), (Some(1), Some(1)));
    assert!(one["score"]["score"].as_f64().unwrap() > 6.0);
}

#[test]
fn nan_handling_as_the_original() {
    // Defect 3, in the oldest format (one appended file per GPU, in order):
    // GPU 0: 100, then two adjacent NaN losses (110, 120), then 130;
    // GPU 1: 105, an infinite loss (115), a NaN throughput, 125.
    // Plus 200 entries of 100 so that one failure stays under 1%.
    let dir = tempfile::tempdir().unwrap();
    let tails = [
        [("100.0", "0.8"), ("110.0", "NaN"), ("120.0", "NaN"), ("130.0", "0.8")],
        [("105.0", "0.8"), ("115.0", "Infinity"), ("NaN", "0.8"), ("125.0", "0.8")],
    ];
    for (gpu, tail) in tails.iter().enumerate() {
        let entries = (0..100)
            .map(|_| original("vae", gpu, "100.0", "0.8"))
            .chain(tail.iter().map(|(avg, loss)| original("vae", gpu, avg, loss)));
        let text: String = std::iter::once("[\n".to_string()).chain(entries.map(|e| format!("{e},\n"))).collect();
        std::fs::write(dir.path().join(format!("baselines_{gpu}.json")), text).unwrap();
    }
    let t = targets(dir.path(), "vae,100,0.5,0.05\n");
    let json = json_of(dir.path(), &["--targets", &t]);
    // The original: only the 110 entry fails; 120 (skipped), 115 (inf loss)
    // and the NaN throughput count; n = 208 - 1; the mean is over the 206
    // values that are not NaN.
    let vae = &json["benches"][0];
    assert_eq!(
        (vae["results"].as_u64(), vae["failures"].as_u64(), vae["stricter"].as_u64()),
        (Some(208), Some(1), Some(3))
    );
    assert_eq!((vae["sample"]["n"].as_u64(), vae["sample"]["count"].as_u64()), (Some(207), Some(206)));
    let values: Vec<f64> = std::iter::repeat_n(100.0, 201).chain([120.0, 130.0, 105.0, 115.0, 125.0]).collect();
    let mean = values.iter().sum::<f64>() / 206.0;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 205.0).sqrt();
    assert!(close(&vae["sample"]["mean"], mean) && close(&vae["sample"]["sd"], sd), "{vae}");
    let s = &json["score"];
    // 1 failure of 208 (0.48%): BF 1. PM 1, ST 1 (sd 4.1%), PG = mean / 100.
    assert_eq!(
        (s["failures"].as_u64(), s["bf"].as_u64(), s["pm"].as_f64(), s["st"].as_f64()),
        (Some(1), Some(1), Some(1.0), Some(1.0))
    );
    assert!(close(&s["score"], 3.0 + 5.0 * mean / 100.0), "{s}");
    let checks: Vec<&str> = json["stricter"].as_array().unwrap().iter().map(|s| s["check"].as_str().unwrap()).collect();
    let mut sorted = checks.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["infinite_loss", "no_throughput", "skipped_nan_loss"]);
    // The default output states it: a warning line and its own column.
    let table = stdout(&mlb(&["--reports", dir.path().to_str().unwrap(), "--targets", &t]));
    assert!(table.contains("warning: 3 entries count in these figures, as the original counts them"), "{table}");
    assert!(table.contains("(nan (the original skipped it): 1, infinite loss: 1, no finite throughput: 1)"), "{table}");
    assert!(table.contains("┆ stricter ┆"), "{table}");
    assert!(table.contains("Stricter check"), "{table}");
    // --strict: 4 failures of 208 (1.92%), BF 0; the statistics leave them out.
    let strict = json_of(dir.path(), &["--targets", &t, "--strict"]);
    let vae = &strict["benches"][0];
    assert_eq!((vae["failures"].as_u64(), vae["sample"]["n"].as_u64()), (Some(4), Some(204)));
    assert_eq!((strict["score"]["bf"].as_u64(), strict["score"]["score"].as_f64()), (Some(0), Some(0.0)));
    assert!(close(&strict["other_score"]["score"], 3.0 + 5.0 * mean / 100.0));
    let strict_table = stdout(&mlb(&["--reports", dir.path().to_str().unwrap(), "--targets", &t, "--strict"]));
    assert!(strict_table.contains("warning: --strict: 3 entries that the original counts are failures here"));
}

#[test]
fn a_bench_missing_from_the_target_table_fails_pm_and_st() {
    // Defect 4: vae 7000, 7400, 7800 against V100 (target 7500): perf 0.98667
    // passes, sd 5.4% fails. mystery has no target: in the table, failing
    // both. PM 1/2, ST 0/2, PG 0.98667: 1 + 0 + 4.93333 = 5.93333.
    let dir = tempfile::tempdir().unwrap();
    for (i, (bench, avg)) in
        [("vae", 7000.0), ("vae", 7400.0), ("vae", 7800.0), ("mystery", 5.0), ("mystery", 6.0)].into_iter().enumerate()
    {
        let text = original(bench, i % 2, &format!("{avg:?}"), "0.8");
        std::fs::write(dir.path().join(format!("baselines.{bench}.R0.D0.{i}.json")), text).unwrap();
    }
    let json = json_of(dir.path(), &["--gpu-model", "V100"]);
    let mystery = &json["benches"][0];
    assert_eq!(mystery["bench"], "mystery");
    assert!(mystery["perf"].is_null() && mystery["target"].is_null());
    assert_eq!((mystery["perf_pass"].as_bool(), mystery["sd_pass"].as_bool()), (Some(false), Some(false)));
    let s = &json["score"];
    assert_eq!(
        (s["benches"].as_u64(), s["pg_benches"].as_u64(), s["pm"].as_f64(), s["st"].as_f64()),
        (Some(2), Some(1), Some(0.5), Some(0.0))
    );
    assert!(close(&s["pg"], 7400.0 / 7500.0) && close(&s["score"], 1.0 + 5.0 * 7400.0 / 7500.0), "{s}");
    let table = stdout(&mlb(&["--reports", dir.path().to_str().unwrap(), "--gpu-model", "V100"]));
    assert!(table.contains("bench `mystery` has no target in configs/targets/v100.csv: it fails perf_pass"), "{table}");
}

/// The smoke suite's convnet sweep: five archs on two GPUs, two runs each,
/// written as `mlb worker` writes them.
fn sweep(dir: &Path) {
    let archs = ["resnet18", "resnet34", "resnet50", "resnet101", "resnet152"];
    for (a, arch) in archs.iter().enumerate() {
        for vcd in ["0", "1"] {
            for run in 0..2u64 {
                let v = 400.0 / (a + 1) as f64 + run as f64;
                let r = Run { suite: "smoke", bench: "convnet", run, vcd, items_per_sec: v, gpu: Some("V100") };
                let mut rec = record(&r);
                rec["arch"] = json!(arch);
                let name = file_name(&r).replace(".json", &format!(".{arch}.json"));
                mlb_record::contract::record::write_atomic(dir, &name, &rec).unwrap();
            }
        }
    }
    let r = Run { suite: "smoke", bench: "vae", run: 0, vcd: "0", items_per_sec: 7000.0, gpu: Some("V100") };
    mlb_record::contract::record::write_atomic(dir, &file_name(&r), &record(&r)).unwrap();
}

#[test]
fn one_row_per_config_in_every_view() {
    let dir = tempfile::tempdir().unwrap();
    sweep(dir.path());
    let d = dir.path().to_str().unwrap();
    let json = json_of(dir.path(), &["--gpu-model", "V100"]);
    let rows = json["rows"].as_array().unwrap();
    let labels: Vec<&str> = rows.iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "convnet[arch=resnet101]",
            "convnet[arch=resnet152]",
            "convnet[arch=resnet18]",
            "convnet[arch=resnet34]",
            "convnet[arch=resnet50]",
            "vae"
        ]
    );
    assert_eq!(rows[2]["args"], json!({"arch": "resnet18"}));
    // resnet18: 400, 401 on two GPUs: n 4, mean 400.5.
    assert_eq!(rows[2]["sample"]["n"], 4);
    assert!(close(&rows[2]["sample"]["mean"], 400.5));
    // The score keeps the original's grouping: one convnet of 20 entries.
    let convnet = &json["benches"][0];
    assert_eq!((convnet["bench"].as_str(), convnet["sample"]["n"].as_u64()), (Some("convnet"), Some(20)));
    // Per-GPU tables and flags follow the rows.
    let gpu_rows: Vec<&str> =
        json["per_gpu"]["rows"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(gpu_rows, labels);

    let csv = stdout(&mlb(&["--reports", d, "--gpu-model", "V100", "--format", "csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("config,bench,arch,n,failures,stricter,mean,"), "{}", lines[0]);
    assert!(lines[3].starts_with("convnet[arch=resnet18],convnet,resnet18,4,0,0,400.5,"), "{}", lines[3]);
    assert!(lines[6].starts_with("vae,vae,,1,0,0,7000,"), "{}", lines[6]);

    let table = stdout(&mlb(&["--reports", d, "--gpu-model", "V100"]));
    assert!(table.contains("Results (one row per config)") && table.contains("convnet[arch=resnet152]"), "{table}");
    assert!(table.contains("Score table (one row per bench, its configs pooled, as the original)"), "{table}");
    let md = stdout(&mlb(&["--reports", d, "--gpu-model", "V100", "--format", "markdown"]));
    assert!(md.lines().any(|l| l.starts_with("| convnet[arch=resnet50] | 4 | 0 | 0 |")), "{md}");
    let html_path = dir.path().join("r.html");
    stdout(&mlb(&["--reports", d, "--gpu-model", "V100", "--format", "html", "--output", html_path.to_str().unwrap()]));
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.contains("<td class=\"l\">convnet[arch=resnet34]</td>"), "results row");
    assert!(html.contains("<figure data-bench=\"convnet[arch=resnet34]\">"), "a per-GPU chart per config");

    // --rows bench: the original's grouping everywhere.
    let pooled = json_of(dir.path(), &["--gpu-model", "V100", "--rows", "bench"]);
    let labels: Vec<&str> = pooled["rows"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["convnet", "vae"]);
    assert_eq!(pooled["score"], json["score"]);
}

#[test]
fn unit_in_the_header_and_no_relative_tables_for_one_gpu() {
    let dir = tempfile::tempdir().unwrap();
    for (i, v) in [200.0, 210.0, 220.0].into_iter().enumerate() {
        let r = Run { suite: "fast", bench: "convnet", run: i as u64, vcd: "0", items_per_sec: v, gpu: Some("V100") };
        common::records::write_report(dir.path(), &r);
    }
    let d = dir.path().to_str().unwrap();
    let table = stdout(&mlb(&["--reports", d, "--gpu-model", "V100"]));
    assert!(table.lines().any(|l| l.starts_with("unit") && l.ends_with("items/s (train_item.avg of each instance)")));
    assert!(table.contains("mean (items/s)") && table.contains("sd (items/s)"), "{table}");
    assert!(!table.contains("Relative GPU performance"), "{table}");
    assert!(table.contains("one GPU (0): no per-GPU relative tables"), "{table}");
    let md = stdout(&mlb(&["--reports", d, "--format", "markdown"]));
    assert!(md.contains("| config | n | fail | stricter | mean (items/s) |") && !md.contains("Relative GPU"), "{md}");
    let json = json_of(dir.path(), &[]);
    assert_eq!(json["unit"], "items/s");
}
