//! `mlb report` end to end: the real binary on report folders written the
//! way `mlb worker` writes them, and on files of the original suite.

use crate::common;

use common::records::{write_report, Run};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn mlb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlb")).arg("report").args(args).output().unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "mlb report failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn run<'a>(bench: &'a str, run: u64, vcd: &'a str, items_per_sec: f64) -> Run<'a> {
    Run { suite: "fast", bench, run, vcd, items_per_sec, gpu: Some("Tesla V100-SXM2-16GB") }
}

/// Whether the text output has the pair line `label   value`.
fn pair(table: &str, label: &str, value: &str) -> bool {
    table.lines().any(|l| l.strip_prefix(label).is_some_and(|rest| rest.trim() == value))
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() <= 1e-9 * want.abs().max(1.0))
}

/// convnet: 200, 210, 220 (V100 target 215); vae: 7000, 7400, 7800 (target
/// 7500); plus a multi-GPU bench and a two-device run of convnet.
fn fixture(dir: &Path) {
    for (i, (vcd, v)) in [("0", 200.0), ("1", 210.0), ("2", 220.0)].into_iter().enumerate() {
        write_report(dir, &run("convnet", i as u64, vcd, v));
    }
    for (i, (vcd, v)) in [("0", 7000.0), ("1", 7400.0), ("2", 7800.0)].into_iter().enumerate() {
        write_report(&dir.join("run2"), &run("vae", i as u64, vcd, v));
    }
    write_report(dir, &run("dcgan_all", 0, "0,1,2", 999.0));
}

#[test]
fn hand_computed_figures_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let d = dir.path().to_str().unwrap();
    let json: Value = serde_json::from_str(&stdout(&mlb(&[
        "--reports",
        d,
        "--suite",
        "fast",
        "--gpu-model",
        "V100",
        "--price",
        "3000",
        "--format",
        "json",
    ])))
    .unwrap();
    let benches = json["benches"].as_array().unwrap();
    assert_eq!(benches.iter().map(|b| b["bench"].as_str().unwrap()).collect::<Vec<_>>(), ["convnet", "vae"]);
    let convnet = &benches[0];
    assert_eq!(convnet["sample"]["n"], 3);
    assert!(close(&convnet["sample"]["mean"], 210.0) && close(&convnet["sample"]["sd"], 10.0));
    // t(0.975, 2) = 4.302653: 210 -+ 4.302653 * 10 / sqrt(3) = [185.158623, 234.841377].
    assert!((convnet["sample"]["ci95"][0].as_f64().unwrap() - 185.158623).abs() < 1e-5);
    assert!((convnet["sample"]["ci95"][1].as_f64().unwrap() - 234.841377).abs() < 1e-5);
    assert!(close(&convnet["perf"], 210.0 / 215.0) && close(&convnet["sd_share"], 10.0 / 210.0));
    assert_eq!((convnet["perf_pass"].as_bool(), convnet["sd_pass"].as_bool()), (Some(true), Some(true)));
    let vae = &benches[1];
    assert!(close(&vae["sample"]["sd"], 400.0) && close(&vae["perf"], 7400.0 / 7500.0));
    assert!(close(&vae["sd_share"], 400.0 / 7400.0));
    assert_eq!(vae["sd_pass"].as_bool(), Some(false), "5.4% > 5%");
    let score = &json["score"];
    // PM 2/2, ST 1/2, PG sqrt(0.976744 * 0.986667) = 0.981693,
    // Score 2 + 0.5 + 5 * 0.981693 = 7.408464, RPP 3000 / 7.408464 = 404.9422.
    assert_eq!((score["bf"].as_u64(), score["pm"].as_f64(), score["st"].as_f64()), (Some(1), Some(1.0), Some(0.5)));
    assert!((score["pg"].as_f64().unwrap() - 0.9816929).abs() < 1e-6);
    assert!((score["score"].as_f64().unwrap() - 7.4084644).abs() < 1e-6);
    assert!((score["rpp"].as_f64().unwrap() - 404.94221).abs() < 1e-4);
    assert_eq!(json["per_gpu"]["devices"].as_array().unwrap().len(), 3);
    assert!(json["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("1 entries of the multi-GPU")));

    let csv = stdout(&mlb(&["--reports", d, "--gpu-model", "v100", "--format", "csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0],
        "config,bench,n,failures,stricter,mean,sd,sd_share,ci95_low,ci95_high,min,max,target,perf_target,sd_target,perf,perf_pass,sd_pass"
    );
    assert!(lines[1].starts_with("convnet,convnet,3,0,0,210,"), "{}", lines[1]);
    assert!(lines[1].ends_with(",215,0.5,0.05,0.9767441860465116,true,true"), "{}", lines[1]);

    let md = stdout(&mlb(&["--reports", d, "--gpu-model", "V100", "--format", "markdown"]));
    assert!(md.contains("## Results") && md.contains("## Score"), "{md}");
    assert!(
        md.lines().any(|l| l.starts_with("| convnet | 3 | 0 | 0 | 215.00 | 0.50 | 5.0% | 210.00 | 10.00 |")),
        "{md}"
    );
    assert!(md.lines().any(|l| l.starts_with("| convnet | 3 | 0 | 0 | 210.00 | 10.00 | 4.8% |")), "{md}");

    let table = stdout(&mlb(&["--reports", d, "--gpu-model", "V100"]));
    assert!(pair(&table, "Score = BF*(2*PM+ST+5*PG)", "7.408"), "{table}");
    assert!(table.contains("Relative GPU performance (max)"));
    // The unit is in the header and in the column names.
    assert!(pair(&table, "unit", "items/s (train_item.avg of each instance)"), "{table}");
    assert!(table.contains("mean (items/s)") && table.contains("target (items/s)"), "{table}");
}

#[test]
fn original_suite_files() {
    let dir = tempfile::tempdir().unwrap();
    let entry = |name: &str, vcd: &str, avg: &str, loss: &str| {
        format!("{{\"name\": \"{name}\", \"vcd\": \"{vcd}\", \"batch_loss\": [0.5, {loss}], \"train_item\": {{\"avg\": {avg}, \"range\": NaN}}}}")
    };
    // The oldest format: `[` then each report followed by `,`, never closed.
    let gpu0 = format!("[\n{},\n{},\n", entry("vae", "0", "100.0", "0.4"), entry("vae", "0", "110.0", "NaN"));
    std::fs::write(dir.path().join("baselines_0.json"), gpu0).unwrap();
    std::fs::create_dir(dir.path().join("host2")).unwrap();
    let gpu1 = format!("[\n{},\n{},\n", entry("vae", "1", "120.0", "0.4"), entry("wlm", "1", "Infinity", "-Infinity"));
    std::fs::write(dir.path().join("host2/baselines_1.json"), gpu1).unwrap();
    // A newer original report: one object with NaN tokens.
    std::fs::write(dir.path().join("baselines.vae.json"), entry("vae", "2", "140.0", "0.3")).unwrap();
    std::fs::write(dir.path().join("other_0.json"), format!("[{},", entry("vae", "0", "1.0", "0.1"))).unwrap();
    let d = dir.path().to_str().unwrap();
    let json: Value =
        serde_json::from_str(&stdout(&mlb(&["--reports", d, "--suite", "baselines", "--format", "json"]))).unwrap();
    let vae = &json["benches"][0];
    assert_eq!(
        (vae["bench"].as_str(), vae["results"].as_u64(), vae["failures"].as_u64()),
        (Some("vae"), Some(4), Some(1))
    );
    // 100, 120, 140: mean 120, sd 20.
    assert!(close(&vae["sample"]["mean"], 120.0) && close(&vae["sample"]["sd"], 20.0));
    // An infinite loss is no failure for the original: wlm counts, with a warning.
    let failures = json["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1);
    assert!(failures[0]["file"].as_str().unwrap().ends_with("baselines_0.json"));
    assert_eq!((failures[0]["cause"].as_str(), failures[0]["check"].as_str()), (Some("nan"), Some("nan_loss")));
    let stricter = json["stricter"].as_array().unwrap();
    assert_eq!(stricter.len(), 1);
    assert!(stricter[0]["file"].as_str().unwrap().ends_with("host2/baselines_1.json"));
    assert_eq!((stricter[0]["bench"].as_str(), stricter[0]["check"].as_str()), (Some("wlm"), Some("infinite_loss")));
    assert_eq!(json["benches"][1]["sample"]["n"], 1);
    assert!(json["score"].is_null(), "no target table given");
}

#[test]
fn empty_folder_is_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = mlb(&["--reports", dir.path().to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "refused: {err}");
    assert!(err.contains("no reports in") && err.contains("no *.json file") && err.contains("--reports DIR"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn unreadable_files_are_listed_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path(), &run("convnet", 0, "0", 200.0));
    std::fs::write(dir.path().join("fast.convnet.R9.D0.json"), "{\"name\": \"convnet\", \"train_").unwrap();
    let table = stdout(&mlb(&["--reports", dir.path().to_str().unwrap()]));
    assert!(table.contains("Unreadable files") && table.contains("fast.convnet.R9.D0.json"), "{table}");
    assert!(table.contains("EOF while parsing"), "{table}");
    assert!(table.contains("2 (1 unreadable)"), "{table}");
}

#[test]
fn failed_mlb_records_show_file_and_cause() {
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path(), &run("convnet", 0, "0", 200.0));
    let failed = serde_json::json!({"suite": "fast", "name": "convnet", "run_id": 1, "vcd": "1", "completed": false,
        "failure": {"cause": "oom", "message": "killed by the OOM killer at 4 GiB"}});
    mlb_record::contract::record::write_atomic(
        dir.path(),
        "fast.convnet.R1.D1.FAIL.20260101-000000-000000.json",
        &failed,
    )
    .unwrap();
    let table = stdout(&mlb(&["--reports", dir.path().to_str().unwrap(), "--gpu-model", "V100"]));
    assert!(table.contains("fast.convnet.R1.D1.FAIL.20260101-000000-000000.json"), "{table}");
    assert!(table.contains("oom") && table.contains("killed by the OOM killer at 4 GiB"), "{table}");
    assert!(pair(&table, "failures", "1 (50.00%)"), "{table}");
}

#[test]
fn baseline_verdicts() {
    let (now, before) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let series = |dir: &Path, bench: &str, values: [f64; 3]| {
        for (i, v) in values.into_iter().enumerate() {
            write_report(dir, &run(bench, i as u64, "0", v));
        }
    };
    series(before.path(), "convnet", [99.0, 100.0, 101.0]);
    series(now.path(), "convnet", [109.0, 110.0, 111.0]);
    series(before.path(), "vae", [99.0, 100.0, 101.0]);
    series(now.path(), "vae", [89.0, 90.0, 91.0]);
    series(before.path(), "wlm", [99.0, 100.0, 101.0]);
    series(now.path(), "wlm", [102.0, 103.0, 104.0]);
    let (n, b) = (now.path().to_str().unwrap(), before.path().to_str().unwrap());
    let json: Value =
        serde_json::from_str(&stdout(&mlb(&["--reports", n, "--baseline", b, "--format", "json"]))).unwrap();
    let rows = json["baseline"]["comparisons"].as_array().unwrap();
    let verdicts: Vec<(&str, &str)> =
        rows.iter().map(|r| (r["label"].as_str().unwrap(), r["verdict"].as_str().unwrap())).collect();
    assert_eq!(verdicts, [("convnet", "faster"), ("vae", "slower"), ("wlm", "no_difference")]);
    assert!(close(&rows[0]["ratio"], 1.1));
    let csv = stdout(&mlb(&["--reports", n, "--baseline", b, "--format", "csv"]));
    assert!(csv.lines().next().unwrap().ends_with(",baseline_mean,ratio,verdict"));
    assert!(csv.lines().nth(3).unwrap().ends_with(",no difference"), "{csv}");
}

#[test]
fn gpu_model_and_targets_conflict() {
    let out = mlb(&["--reports", ".", "--gpu-model", "V100", "--targets", "t.csv"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

#[test]
fn price_must_be_a_finite_number() {
    // 0 and negative prices are the original's (report_compat); NaN and
    // infinities are refused.
    for price in ["--price=abc", "--price=nan", "--price=inf"] {
        let out = mlb(&["--reports", ".", price]);
        assert_eq!(out.status.code(), Some(2), "{price}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("is not a price in USD"), "{price}");
    }
}

#[test]
fn bad_target_file_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path(), &run("convnet", 0, "0", 200.0));
    let targets = dir.path().join("mine.csv");
    std::fs::write(&targets, "bench,target,perf_target,sd_target\nconvnet,fast,0.5,0.05\n").unwrap();
    let out = mlb(&["--reports", dir.path().to_str().unwrap(), "--targets", targets.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "refused: {err}");
    assert!(err.contains("mine.csv") && err.contains("line 2") && err.contains("`fast`"), "{err}");
}

#[test]
fn data_parallel_groups_show_their_total_and_scaling_efficiency() {
    let dir = tempfile::tempdir().unwrap();
    // Two runs of a 2-rank group (each rank writes its report) and one rank alone.
    let reports =
        [("g0", 2, 0, 90.0), ("g1", 2, 1, 80.0), ("h0", 2, 0, 100.0), ("h1", 2, 1, 70.0), ("one", 1, 0, 100.0)];
    for (file, world, rank, avg) in reports {
        let text = format!(
            r#"{{"name": "convnet_ddp", "suite": "s", "vcd": "{rank}", "completed": true, "batch_size": 8,
                "world_size": {world}, "ddp": {{"rank": {rank}, "world_size": {world}}},
                "train_item": {{"avg": {avg}}}, "batch_loss": [2.0, 1.9]}}"#
        );
        std::fs::write(dir.path().join(format!("s.convnet_ddp.{file}.json")), text).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let json: Value = serde_json::from_str(&stdout(&mlb(&["--reports", d, "--format", "json"]))).unwrap();
    let groups = json["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{json}");
    let g = &groups[0];
    assert_eq!(
        (g["label"].as_str(), g["world"].as_u64(), g["per_rank"]["n"].as_u64()),
        (Some("convnet_ddp"), Some(2), Some(4))
    );
    assert!(close(&g["total"], 170.0) && close(&g["one_rank"], 100.0) && close(&g["efficiency"], 0.85), "{g}");
    let table = stdout(&mlb(&["--reports", d]));
    let section = table.split("Data parallel groups").nth(1).expect("the groups' table is shown");
    assert!(section.contains("170.00") && section.contains("85.0%"), "{section}");
}

#[test]
fn control_characters_in_argument_values_are_escaped_in_every_text_output() {
    // An argument value with a newline, a NUL and an escape sequence once
    // reached the table, Markdown and CSV raw: a forged line, a colour code.
    let dir = tempfile::tempdir().unwrap();
    let hostile = "a\nFORGED LINE\u{0}\u{1b}[31mred";
    for (i, arch) in ["resnet18", hostile].into_iter().enumerate() {
        let mut record = common::records::record(&run("convnet", i as u64, "0", 200.0 + i as f64));
        record["arch"] = arch.into();
        let name = common::records::file_name(&run("convnet", i as u64, "0", 0.0));
        mlb_record::contract::record::write_atomic(dir.path(), &name, &record).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    for format in ["text", "markdown", "csv"] {
        let text = stdout(&mlb(&["--reports", d, "--format", format]));
        assert!(!text.contains(['\0', '\u{1b}']), "{format}: no NUL nor escape byte: {text:?}");
        assert!(!text.lines().any(|l| l.trim_start_matches(['│', '|', ' ']).starts_with("FORGED")), "{format}: {text}");
        assert!(text.contains(r"a\nFORGED LINE\0\u{1b}[31mred"), "{format}: shown escaped: {text}");
    }
    // JSON keeps the value itself (JSON escapes it).
    let json: Value = serde_json::from_str(&stdout(&mlb(&["--reports", d, "--format", "json"]))).unwrap();
    assert!(json["rows"].as_array().unwrap().iter().any(|r| r["args"]["arch"] == hostile));
}

#[test]
fn mfu_per_config_and_gpu_in_every_format_and_nothing_new_without_flops() {
    let dir = tempfile::tempdir().unwrap();
    // gpt on two H100s (bf16, table peak 989.5) and vit on a CPU (probe peak).
    let reports = [
        ("a", "gpt_124m", "0", r#""gpu": "NVIDIA H100 80GB HBM3", "precision": "bf16""#, 1000.0, "null"),
        ("b", "gpt_124m", "1", r#""gpu": "NVIDIA H100 80GB HBM3", "precision": "bf16""#, 3000.0, "null"),
        ("c", "vit_b16", "0", r#""precision": "fp32", "peak_source": "probe""#, 10.0, "0.5"),
    ];
    for (file, name, vcd, extra, avg, probe) in reports {
        let text = format!(
            r#"{{"name": "{name}", "suite": "modern", "vcd": "{vcd}", "completed": true, "batch_size": 8, {extra},
                "flops_per_item": 1e11, "flops_formula": "6N", "peak_tflops": {probe},
                "train_item": {{"avg": {avg}}}, "batch_loss": [2.0, 1.9]}}"#
        );
        std::fs::write(dir.path().join(format!("modern.{name}.{file}.json")), text).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let json: Value = serde_json::from_str(&stdout(&mlb(&["--reports", d, "--format", "json"]))).unwrap();
    let rows = json["mfu"]["rows"].as_array().unwrap();
    let gpt = rows.iter().find(|r| r["label"] == "gpt_124m").unwrap();
    // 2000 items/s x 1e11 FLOPs = 200 TFLOPS of 989.5.
    assert!(close(&gpt["achieved_tflops"]["mean"], 200.0) && close(&gpt["peak_tflops"], 989.5), "{gpt}");
    assert!(close(&gpt["mfu"]["mean"], 200.0 / 989.5) && gpt["peak_of"] == "H100 SXM (peak table)", "{gpt}");
    let vit = rows.iter().find(|r| r["label"] == "vit_b16").unwrap();
    assert!(
        close(&vit["achieved_tflops"]["mean"], 1.0) && close(&vit["mfu"]["mean"], 2.0) && vit["peak_of"] == "probe"
    );
    assert_eq!(json["mfu"]["per_gpu"].as_array().unwrap().len(), 3);
    assert!(json["mfu"]["sources"][0]["source"].as_str().unwrap().contains("datasheet"));
    let table = stdout(&mlb(&["--reports", d]));
    let section = table.split("Model FLOPs utilisation").nth(1).expect("the MFU table is shown");
    assert!(section.contains("H100 SXM (peak table)") && section.contains("20.2%"), "{section}");
    assert!(table.contains("MFU per GPU") && table.contains("Peak table sources"), "{table}");
    assert!(stdout(&mlb(&["--reports", d, "--format", "markdown"])).contains("| gpt_124m | bf16 |"));
    let csv = stdout(&mlb(&["--reports", d, "--format", "csv"]));
    assert!(csv.lines().next().unwrap().ends_with("precision,flops_per_item,achieved_tflops,peak_tflops,peak_of,mfu"));
    assert!(
        csv.lines().any(|l| l.starts_with("gpt_124m,") && l.contains(",bf16,100000000000,200,989.5,H100 SXM")),
        "{csv}"
    );
    assert!(stdout(&mlb(&["--reports", d])).contains("Model FLOPs"));
    stdout(&mlb(&["--reports", d, "--format", "html", "--output", &format!("{d}/r.html")]));
    assert!(std::fs::read_to_string(dir.path().join("r.html")).unwrap().contains("MFU per GPU"));

    // The modern suite's reports are scored by its profile, not the original score.
    let targets = dir.path().join("t.csv");
    std::fs::write(&targets, "bench,target,perf_target,sd_target\ngpt_124m,1000,0.5,0.1\nvit_b16,20,0.5,0.1\n")
        .unwrap();
    let t = targets.to_str().unwrap();
    let json: Value =
        serde_json::from_str(&stdout(&mlb(&["--reports", d, "--targets", t, "--format", "json"]))).unwrap();
    let p = &json["profile_score"];
    assert!(json["score"].is_null() && p["profile"] == "modern", "{json}");
    // gpt_124m: perf 2000/1000 = 2 (weight 0.4); vit_b16: 10/20 = 0.5 (0.3).
    assert!(close(&p["score"], (0.4 / 0.7 * 2f64.ln() + 0.3 / 0.7 * 0.5f64.ln()).exp()), "{p}");
    assert!(close(&p["mfu"], (0.4 * 200.0 / 989.5 + 0.3 * 2.0) / 0.7), "{p}");
    let table = stdout(&mlb(&["--reports", d, "--targets", t]));
    assert!(table.contains("Score (profile modern") && table.contains("gpt_124m: weight 0.4, perf 2.000"), "{table}");

    // Reports without FLOPs: no MFU key, column or section.
    let old = tempfile::tempdir().unwrap();
    fixture(old.path());
    let o = old.path().to_str().unwrap();
    let json: Value = serde_json::from_str(&stdout(&mlb(&["--reports", o, "--format", "json"]))).unwrap();
    assert!(json.get("mfu").is_none());
    assert!(!stdout(&mlb(&["--reports", o, "--format", "csv"])).contains("mfu"));
    assert!(!stdout(&mlb(&["--reports", o])).contains("FLOPs"));
}
