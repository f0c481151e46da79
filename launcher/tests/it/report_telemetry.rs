//! `mlb report` on reports with telemetry blocks (docs/telemetry.md) and a
//! `system.json`: energy per item and items per watt, instances flagged for
//! throttling or a degraded link, the system section, and `--baseline`
//! refused across accelerator models without `--force`. The reports are
//! written as `mlb worker` and the sampler write them (no GPU here: the
//! figures are set, the reading and the arithmetic are what is tested).

use crate::common;

use common::records::{file_name, record, Run};
use mlb_record::contract::record::write_atomic;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

fn mlb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlb")).arg("report").args(args).output().unwrap()
}

/// A report of `vcd` at 100 items/s whose telemetry says `telemetry`.
fn write(dir: &Path, run: u64, vcd: &str, telemetry: Value) {
    let r = Run { suite: "fast", bench: "convnet", run, vcd, items_per_sec: 100.0, gpu: Some("H100") };
    let mut report = record(&r);
    report["telemetry"] = telemetry;
    write_atomic(dir, &file_name(&r), &report).unwrap();
}

fn block(joules_per_item: f64, throttled: f64, degraded: bool) -> Value {
    json!({"sample_hz": 10.0, "samples": 50, "window_seconds": 5.0, "items": 500,
        "energy": {"joules": joules_per_item * 500.0, "joules_per_item": joules_per_item, "source": "gpu"},
        "gpus": [{"device": "0", "throttled_fraction": throttled, "degraded_link": degraded}],
        "slot": {"cpu_throttled_fraction": null}, "throttled": throttled > 0.01, "degraded_link": degraded,
        "timeline": {"t": [0.5, 1.5], "gpu0.power_w": [300.0, 280.0], "gpu0.sm_clock_mhz": [1980.0, 1400.0],
            "gpu0.temperature_c": [60.0, 83.0], "gpu0.throttled": [0.0, throttled]}})
}

fn system(dir: &Path, accelerator: &str) {
    let desc = json!({"system_name": "node7", "number_of_nodes": 1, "accelerator_model_name": accelerator,
        "accelerators_per_node": 2, "host_processor_model_name": "EPYC", "operating_system": "Debian 12"});
    write_atomic(dir, "system.json", &desc).unwrap();
}

#[test]
fn energy_per_item_items_per_watt_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), 0, "0", block(2.0, 0.0, false));
    write(dir.path(), 1, "0", block(4.0, 0.005, false)); // 0.5% throttled: not flagged
    write(dir.path(), 2, "1", block(1.0, 0.3, true));
    write(dir.path(), 3, "1", json!("not a block"));
    let mut xid = block(2.0, 0.0, false);
    xid["gpus"][0]["totals"] = json!({"xid_events": 2.0});
    write(dir.path(), 4, "2", xid);
    system(dir.path(), "NVIDIA H100 80GB HBM3");
    let d = dir.path().to_str().unwrap();
    let out = mlb(&["--reports", d, "--rows", "bench", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &json["energy"]["rows"][0];
    assert_eq!((row["label"].as_str(), row["joules_per_item"]["count"].as_u64()), (Some("convnet"), Some(4)));
    assert!((row["joules_per_item"]["mean"].as_f64().unwrap() - 9.0 / 4.0).abs() < 1e-12, "{row}");
    assert!((row["items_per_watt"]["mean"].as_f64().unwrap() - (0.5 + 0.25 + 1.0 + 0.5) / 4.0).abs() < 1e-12, "{row}");
    let per_gpu: Vec<(&str, f64)> = json["energy"]["per_gpu"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["device"].as_str().unwrap(), r["joules_per_item"]["mean"].as_f64().unwrap()))
        .collect();
    assert_eq!(per_gpu, [("0", 3.0), ("1", 1.0), ("2", 2.0)]);
    let flags = json["conditions"].as_array().unwrap();
    assert_eq!(flags.len(), 2, "{flags:?}");
    assert_eq!((flags[0]["device"].as_str(), flags[0]["throttled_share"].as_f64()), (Some("1"), Some(0.3)));
    assert_eq!((flags[0]["degraded_link"].as_bool(), flags[0]["xid_events"].as_f64()), (Some(true), Some(0.0)));
    assert_eq!((flags[1]["device"].as_str(), flags[1]["xid_events"].as_f64()), (Some("2"), Some(2.0)));
    assert_eq!(json["system"]["accelerator_model_name"], "NVIDIA H100 80GB HBM3");
    assert_eq!(json["files"], 5, "system.json is no report");
    // The flagged instance's timeline is drawn; it was read while the report
    // was aggregated, before the page was rendered.
    let page = dir.path().join("page.html");
    let out = mlb(&["--reports", d, "--format", "html", "--output", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("convnet on GPU 1: power (W)") && html.contains("convnet on GPU 1: clock (MHz)"), "{html}");
    let text = mlb(&["--reports", d]);
    let text = String::from_utf8(text.stdout).unwrap();
    for part in ["System (system.json)", "NVIDIA H100 80GB HBM3", "Energy (timed window)", "Energy per GPU", "degraded"]
    {
        assert!(text.contains(part), "{part}:\n{text}");
    }
}

#[test]
fn a_baseline_of_another_accelerator_is_refused_without_force() {
    let (now, base) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(now.path(), 0, "0", block(2.0, 0.0, false));
    write(base.path(), 0, "0", block(2.0, 0.0, false));
    system(now.path(), "NVIDIA H100 80GB HBM3");
    system(base.path(), "Tesla V100-SXM2-16GB");
    let (n, b) = (now.path().to_str().unwrap(), base.path().to_str().unwrap());
    let out = mlb(&["--reports", n, "--baseline", b]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("Tesla V100-SXM2-16GB") && err.contains("--force"), "{err}");
    let forced = mlb(&["--reports", n, "--baseline", b, "--force"]);
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
    system(base.path(), "NVIDIA H100 80GB HBM3");
    assert!(mlb(&["--reports", n, "--baseline", b]).status.success(), "same model: compared");
    std::fs::remove_file(base.path().join("system.json")).unwrap();
    assert!(mlb(&["--reports", n, "--baseline", b]).status.success(), "no description: compared as before");
}

#[test]
fn non_physical_energies_are_left_out_of_the_means_with_a_note() {
    // -1 J and 1e308 J per item once entered the mean (which became 1e307).
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), 0, "0", block(2.0, 0.0, false));
    write(dir.path(), 1, "0", block(4.0, 0.0, false));
    write(dir.path(), 2, "1", block(-1.0, 0.0, false));
    write(dir.path(), 3, "1", block(1e308, 0.0, false));
    write(dir.path(), 4, "1", block(0.0, 0.0, false));
    let d = dir.path().to_str().unwrap();
    let out = mlb(&["--reports", d, "--rows", "bench", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &json["energy"]["rows"][0];
    assert_eq!(row["joules_per_item"]["count"].as_u64(), Some(2), "{row}");
    assert_eq!(row["joules_per_item"]["mean"].as_f64(), Some(3.0), "{row}");
    assert_eq!(json["energy"]["per_gpu"].as_array().unwrap().len(), 1, "device 1 has no physical figure");
    let notes: Vec<&str> = json["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    let note = notes.iter().find(|n| n.contains("non-physical")).expect("a note");
    assert!(note.starts_with("3 instances") && note.contains(".R2.") && note.contains(".R3."), "{note}");
    // The throughput of those instances still counts.
    assert_eq!(json["rows"][0]["sample"]["n"].as_u64(), Some(5));
}

#[test]
fn a_timeline_of_200000_points_is_drawn_from_a_few_thousand() {
    // Once every point was drawn: 200,000-point timelines gave a page of
    // hundreds of MB. Each series is now cut into buckets keeping each
    // bucket's min and max, so that a one-sample spike stays drawn.
    let dir = tempfile::tempdir().unwrap();
    let n = 200_000;
    let t: Vec<f64> = (0..n).map(|i| i as f64 * 0.01 + 0.005).collect();
    let power: Vec<f64> = (0..n).map(|i| if i == 123_457 { 987.0 } else { 300.0 + (i % 7) as f64 }).collect();
    // Throttled in one slice of three over the second half: a shaded span each.
    let throttled: Vec<f64> = (0..n).map(|i| if i >= n / 2 && i % 3 == 0 { 1.0 } else { 0.0 }).collect();
    let mut b = block(2.0, 0.0, false);
    b["timeline"] = json!({"t": t, "gpu0.power_w": power, "gpu0.sm_clock_mhz": vec![1980.0; n],
        "gpu0.temperature_c": vec![60.0; n], "gpu0.throttled": throttled});
    write(dir.path(), 0, "0", b);
    let page = dir.path().join("page.html");
    let d = dir.path().to_str().unwrap();
    let out = mlb(&["--reports", d, "--format", "html", "--output", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let size = std::fs::metadata(&page).unwrap().len();
    eprintln!("page of a 200,000-slice timeline: {size} bytes");
    assert!(size < 3 << 20, "a page of {size} bytes");
    let html = std::fs::read_to_string(&page).unwrap();
    // The spike is among the points the power chart draws.
    assert!(html.contains(",987.0]}"), "the spike is still drawn");
}
