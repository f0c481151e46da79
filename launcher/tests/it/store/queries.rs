//! `mlb db runs|systems|compare|history|export` and `mlb report --db` on
//! stores filled by `mlb db import`: the figures of `mlb report`, the
//! normalisation, prices and energy, history order and its chart, the
//! regression flag, the exports, the filters.

use super::backend::{import, on_both, Kind, TestStore};
use crate::report_gen;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

on_both!(
    compare_gives_the_per_bench_figures_of_mlb_report,
    compare_normalises_to_the_reference_with_prices_and_energy,
    history_is_oldest_first_with_run_ids_and_its_chart_is_a_page,
    a_slower_run_is_a_regression_against_its_history_and_noise_is_not,
    exports_are_bencher_json_and_the_long_csv,
    runs_and_systems_are_filtered_by_system_tag_date_and_config,
    hostile_system_names_are_compared_as_they_are,
);

/// Runs `mlb ARGS`; returns status, stdout, stderr.
pub(super) fn mlb(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(crate::common::mlb()).args(args).output().unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    (out.status.code(), stdout, stderr)
}

/// Runs `mlb db SUB --db URL ARGS`, which must succeed; returns stdout.
pub(super) fn db(store: &TestStore, sub: &str, args: &[&str]) -> String {
    let (code, stdout, stderr) = mlb(&[&["db", sub, "--db", &store.url], args].concat());
    assert_eq!(code, Some(0), "mlb db {sub} {args:?}: {stderr}");
    stdout
}

/// `mlb db SUB ... --format json`, parsed.
pub(super) fn db_json(store: &TestStore, sub: &str, args: &[&str]) -> Value {
    serde_json::from_str(&db(store, sub, &[args, &["--format", "json"]].concat())).unwrap()
}

/// Imports `dir` under the system `name` with `extra` arguments (tags).
pub(super) fn import_as(store: &TestStore, dir: &Path, name: &str, extra: &[&str]) {
    let (code, stdout, stderr) = import(store, &[&[dir.to_str().unwrap(), "--system", name], extra].concat());
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
}

/// One report of `bench` on device `vcd` in `dir`, started at `start`
/// (`2026-01-02T03:04:05Z`), with `items` items/s and maybe an energy.
pub(super) fn report(dir: &Path, bench: &str, vcd: usize, start: &str, items: f64, joules: Option<f64>) {
    std::fs::create_dir_all(dir).unwrap();
    let mut r = json!({
        "name": bench, "suite": "s", "vcd": vcd.to_string(), "run_id": 0, "completed": true,
        "hostname": "host-a", "gpu": "Model X", "start_time": start, "batch_size": 64,
        "train_item": {"avg": items, "unit": "items/sec"}, "batch_loss": [1.0, 0.5],
    });
    if let Some(j) = joules {
        r["telemetry"] = json!({"energy": {"joules_per_item": j, "source": "gpu"}});
    }
    let stamp: String = start.chars().filter(char::is_ascii_digit).collect();
    let file = format!("s.{bench}.R0.D{vcd}.{}-{}-000000.json", &stamp[..8], &stamp[8..14]);
    std::fs::write(dir.join(file), r.to_string()).unwrap();
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs().max(1.0))
}

fn compare_gives_the_per_bench_figures_of_mlb_report(kind: Kind) {
    let store = TestStore::new(kind);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    report_gen::write_set(a.path(), 2_000, 6, 11);
    report_gen::write_set(b.path(), 1_000, 3, 12);
    import_as(&store, a.path(), "A", &[]);
    import_as(&store, b.path(), "B", &[]);
    let matrix = db_json(&store, "compare", &["--systems", "B,A", "--reference", "B"]);
    let columns: Vec<&str> = matrix["systems"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    assert_eq!(columns, ["B", "A"]);
    for (col, dir) in [(1, a.path()), (0, b.path())] {
        let (code, stdout, stderr) = mlb(&["report", "--reports", dir.to_str().unwrap(), "--format", "json"]);
        assert_eq!(code, Some(0), "{stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let benches = report["benches"].as_array().unwrap();
        assert!(benches.len() >= 15, "{benches:?}");
        for bench in benches {
            let name = bench["bench"].as_str().unwrap();
            let row = matrix["rows"].as_array().unwrap().iter().find(|r| r["bench"] == name);
            let cell = &row.unwrap_or_else(|| panic!("{name} not compared"))["cells"][col];
            assert_eq!(cell["n"], bench["sample"]["n"], "{name}: n");
            let mean = bench["sample"]["mean"].as_f64();
            match mean {
                Some(m) => assert!(close(&cell["items_per_s"], m), "{name}: {} against {m}", cell["items_per_s"]),
                None => assert!(cell["items_per_s"].is_null(), "{name}"),
            }
        }
    }
    // The same figures through the text of the CSV: rows benches, columns systems.
    let csv = db(&store, "compare", &["--systems", "B,A", "--format", "csv"]);
    assert!(csv.starts_with("bench,B,A\n"), "{csv}");
    assert!(csv.lines().any(|l| l.starts_with("(score),1,")), "{csv}");
}

fn compare_normalises_to_the_reference_with_prices_and_energy(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    let at = "2026-01-02T03:04:05Z";
    // A: vae 100 items/s at 2 J/item, wlm 10 at 4 J/item. B: vae twice as
    // fast at half the energy, wlm four times as fast at the same energy.
    for vcd in 0..2 {
        report(&dir.path().join("a"), "vae", vcd, at, 100.0, Some(2.0));
        report(&dir.path().join("a"), "wlm", vcd, at, 10.0, Some(4.0));
        report(&dir.path().join("b"), "vae", vcd, at, 200.0, Some(1.0));
        report(&dir.path().join("b"), "wlm", vcd, at, 40.0, Some(4.0));
    }
    // A non-physical energy figure is left out of the mean, as mlb report leaves it out.
    report(&dir.path().join("b"), "vae", 2, at, 200.0, Some(-1.0));
    import_as(&store, &dir.path().join("a"), "A", &[]);
    import_as(&store, &dir.path().join("b"), "B", &[]);
    let m = db_json(&store, "compare", &["--systems", "A,B", "--price", "A=10000,B=40000"]);
    let vae = &m["rows"][0];
    assert_eq!(vae["bench"], "vae");
    assert!(close(&vae["cells"][1]["normalised"], 2.0) && close(&vae["cells"][1]["joules_per_item"], 1.0), "{vae}");
    assert!(close(&vae["cells"][1]["items_per_s_per_dollar"], 200.0 / 40000.0), "{vae}");
    let b = &m["summaries"][1];
    // Score sqrt(2 * 4); per dollar: four times the price; per watt: vae 2x, wlm 1x.
    assert!(close(&b["score"], 8f64.sqrt()) && close(&b["per_dollar"], 8f64.sqrt() / 4.0), "{b}");
    assert!(close(&b["per_watt"], 2f64.sqrt()) && b["benches"] == 2, "{b}");
    assert!(close(&m["summaries"][0]["score"], 1.0));
    let energy = db_json(&store, "compare", &["--systems", "A,B", "--metric", "energy/item"]);
    assert!(
        close(&energy["rows"][0]["cells"][1]["value"], 1.0) && close(&energy["rows"][0]["cells"][1]["normalised"], 2.0)
    );
    let score = db(&store, "compare", &["--systems", "A,B", "--metric", "score", "--format", "csv"]);
    assert_eq!(score.lines().nth(2), Some("wlm,1,4"), "{score}");
    let md = db(&store, "compare", &["--systems", "A,B", "--format", "markdown"]);
    assert!(md.contains("| vae | 100.0 (1.000x) | 200.0 (2.000x) |"), "{md}");
    // Unknown systems and a reference not compared are refused, naming the names.
    let (code, _, stderr) = mlb(&["db", "compare", "--db", &store.url, "--systems", "A,C"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no system `C`") && stderr.contains("known: A, B"), "{stderr}");
    let (code, _, stderr) = mlb(&["db", "compare", "--db", &store.url, "--systems", "A", "--reference", "B"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("`B` is not one of the systems compared"), "{stderr}");
}

fn history_is_oldest_first_with_run_ids_and_its_chart_is_a_page(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    // Imported newest first: the history still reads oldest first.
    for (day, items) in [(5, 150.0), (1, 100.0), (3, 120.0)] {
        let run = dir.path().join(format!("day{day}"));
        for vcd in 0..2 {
            report(&run, "vae", vcd, &format!("2026-03-0{day}T10:00:00Z"), items + vcd as f64, None);
            report(&run, "wlm", vcd, &format!("2026-03-0{day}T10:00:00Z"), items / 10.0, None);
        }
        import_as(&store, &run, "node7", &[]);
    }
    report(&dir.path().join("other"), "vae", 0, "2026-03-02T10:00:00Z", 1.0, None);
    import_as(&store, &dir.path().join("other"), "node8", &[]);
    let page = dir.path().join("history.html");
    let h = db_json(&store, "history", &["--system", "node7", "--bench", "vae"]);
    let args = ["--system", "node7", "--bench", "vae", "--format", "html", "--output", page.to_str().unwrap()];
    db(&store, "history", &args);
    assert_eq!(h["series"].as_array().unwrap().len(), 1);
    let points = h["series"][0]["points"].as_array().unwrap();
    let started: Vec<&str> = points.iter().map(|p| p["started"].as_str().unwrap()).collect();
    assert!(started[0].starts_with("2026-03-01") && started[1].starts_with("2026-03-03"), "{started:?}");
    assert!(started[2].starts_with("2026-03-05"));
    assert!(close(&points[0]["value"], 100.5) && close(&points[2]["value"], 150.5) && points[0]["n"] == 2);
    let runs = db_json(&store, "runs", &["--system", "node7"]);
    let oldest = runs.as_array().unwrap().iter().find(|r| r["started"].as_str().unwrap().starts_with("2026-03-01"));
    assert_eq!(points[0]["run"], oldest.unwrap()["id"]);
    let chart = std::fs::read_to_string(&page).unwrap();
    assert!(chart.starts_with("<!DOCTYPE html>") && chart.trim_end().ends_with("</html>"), "{chart}");
    assert!(chart.contains("<div class=\"chart\"><script type=\"application/json\">"), "the served page's chart");
    assert!(chart.contains("node7") && chart.contains("\"name\":\"vae\""));
    // Every bench without --bench, in a table.
    let text = db(&store, "history", &["--system", "node7"]);
    assert_eq!(text.matches("2026-03-0").count(), 6, "{text}");
    let score = db_json(&store, "history", &["--system", "node7", "--bench", "wlm", "--metric", "score"]);
    assert!(close(&score["series"][0]["points"][1]["value"], 1.2));
    let (code, _, stderr) = mlb(&["db", "history", "--db", &store.url]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--system NAME"), "{stderr}");
}

/// Writes a run of `bench` on 8 devices around `mean` items/s (±1%) at `day`.
fn noisy_run(dir: &Path, day: usize, mean: f64, seed: u64) {
    let mut rng = report_gen::Rng::new(seed);
    for vcd in 0..8 {
        let items = mean * (1.0 + 0.01 * (rng.unit() * 2.0 - 1.0));
        report(dir, "vae", vcd, &format!("2026-04-{day:02}T10:00:00Z"), items, None);
    }
}

fn a_slower_run_is_a_regression_against_its_history_and_noise_is_not(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    for day in 1..=7 {
        let run = dir.path().join(format!("history/day{day}"));
        noisy_run(&run, day, 100.0, day as u64);
        import_as(&store, &run, "node7", &[]);
    }
    let judge = |folder: &Path, extra: &[&str]| {
        let args = [&["report", "--reports", folder.to_str().unwrap(), "--db", &store.url, "--system", "node7"], extra]
            .concat();
        let (code, stdout, stderr) = mlb(&[&args[..], &["--format", "json"]].concat());
        assert_eq!(code, Some(0), "{stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        report["regressions"].clone()
    };
    let slower = dir.path().join("slower");
    noisy_run(&slower, 20, 90.0, 100);
    let r = judge(&slower, &[]);
    let row = &r["rows"][0];
    assert_eq!((row["config"].as_str(), row["regression"].as_bool()), (Some("vae"), Some(true)), "{r}");
    assert!(row["change_percent"].as_f64().unwrap() < -8.0 && row["p_value"].as_f64().unwrap() < 0.001, "{row}");
    // The last 5 runs (the default), 8 instances each.
    assert_eq!((row["runs"].as_array().unwrap().len(), row["history"]["n"].as_u64()), (5, Some(40)), "{row}");
    assert_eq!(judge(&slower, &["--history", "2"])["rows"][0]["runs"].as_array().unwrap().len(), 2);
    let noise = dir.path().join("noise");
    noisy_run(&noise, 21, 99.8, 200);
    let r = judge(&noise, &[]);
    assert_eq!(r["rows"][0]["regression"], false, "{r}");
    // Imported itself, the run is not its own history.
    import_as(&store, &slower, "node7", &[]);
    let row = &judge(&slower, &[])["rows"][0];
    assert_eq!((row["regression"].as_bool(), row["history"]["n"].as_u64()), (Some(true), Some(40)), "{row}");
    // The table names the flag and the threshold.
    let args = ["report", "--reports", slower.to_str().unwrap(), "--db", &store.url, "--system", "node7"];
    let (_, table, _) = mlb(&args);
    // The title wraps between words to the width: read it as words.
    let words = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("REGRESSION") && words.contains("over 5% slower, p < 0.05"), "{table}");
}

fn exports_are_bencher_json_and_the_long_csv(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    for (day, items) in [(1, 100.0), (2, 200.0)] {
        let run = dir.path().join(format!("day{day}"));
        report(&run, "vae", 0, &format!("2026-05-0{day}T10:00:00Z"), items, Some(0.5));
        report(&run, "vae", 1, &format!("2026-05-0{day}T10:00:00Z"), items + 10.0, Some(1.5));
        import_as(&store, &run, "A", &[]);
    }
    let bmf: Value = serde_json::from_str(&db(&store, "export", &["--to", "bencher"])).unwrap();
    let (key, benchmark) = bmf.as_object().unwrap().iter().next().unwrap();
    assert!(key.contains("64"), "the config names the benchmark: {key}");
    assert_eq!(benchmark["throughput"], json!({"value": 205.0, "lower_value": 200.0, "upper_value": 210.0}));
    assert_eq!(benchmark["energy-per-item"], json!({"value": 1.0, "lower_value": 0.5, "upper_value": 1.5}));
    let first = db_json(&store, "runs", &[])[0]["id"].to_string();
    let old: Value = serde_json::from_str(&db(&store, "export", &["--to", "bencher", "--run", &first])).unwrap();
    assert_eq!(old.as_object().unwrap().values().next().unwrap()["throughput"]["value"], 105.0);
    let csv = db(&store, "export", &["--format", "csv"]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("system,run,run_ids,started,bench,config,instance,device,node,outcome,metric,value,unit")
    );
    let rows: Vec<&str> = lines.collect();
    assert!(rows.iter().any(|l| l.contains(",train_item.avg,210,")), "{csv}");
    assert!(rows.iter().all(|l| l.starts_with("A,")), "{csv}");
    let metrics = store.count("SELECT COUNT(*) FROM metrics");
    assert_eq!(rows.len() as i64, metrics);
    let (code, _, stderr) = mlb(&["db", "export", "--db", &store.url, "--to", "bencher", "--run", "9999"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no run in the store matches the id 9999"), "{stderr}");
}

fn runs_and_systems_are_filtered_by_system_tag_date_and_config(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    report(&dir.path().join("r1"), "vae", 0, "2026-06-01T10:00:00Z", 1.0, None);
    report(&dir.path().join("r2"), "wlm", 0, "2026-06-10T10:00:00Z", 1.0, None);
    report(&dir.path().join("r3"), "vae", 0, "2026-06-20T10:00:00Z", 1.0, None);
    import_as(&store, &dir.path().join("r1"), "A", &["--label", "driver=550"]);
    import_as(&store, &dir.path().join("r2"), "A", &["--label", "driver=560"]);
    import_as(&store, &dir.path().join("r3"), "B", &["--label", "driver=560"]);
    let days = |args: &[&str]| -> Vec<String> {
        db_json(&store, "runs", args)
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["started"].as_str().unwrap()[5..10].to_string())
            .collect()
    };
    assert_eq!(days(&[]), ["06-01", "06-10", "06-20"]);
    assert_eq!(days(&["--system", "A"]), ["06-01", "06-10"]);
    assert_eq!(days(&["--label", "driver=560"]), ["06-10", "06-20"]);
    assert_eq!(days(&["--label", "driver=560", "--system", "A"]), ["06-10"]);
    assert_eq!(days(&["--since", "2026-06-10", "--until", "2026-06-19"]), ["06-10"]);
    assert_eq!(days(&["--until", "2026-06-10"]), ["06-01", "06-10"]);
    assert_eq!(days(&["--config", "vae"]), ["06-01", "06-20"]);
    assert_eq!(days(&["--config", r#"{"batch_size":64}"#]).len(), 3);
    let runs = db_json(&store, "runs", &["--system", "A"]);
    assert_eq!(runs[0]["tags"], json!({"driver": "550"}));
    let systems = db_json(&store, "systems", &[]);
    let names: Vec<(&str, i64)> = systems
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["runs"].as_i64().unwrap()))
        .collect();
    assert_eq!(names, [("A", 2), ("B", 1)]);
    assert_eq!(db_json(&store, "systems", &["--label", "driver=560", "--since", "2026-06-15"])[0]["name"], "B");
    let text = db(&store, "runs", &[]);
    assert!(text.contains("driver=550") && text.contains("06-20"), "{text}");
}

fn hostile_system_names_are_compared_as_they_are(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    let names = ["it's; DROP TABLE runs; --", "ünï \"cödé\""];
    for (k, name) in names.iter().enumerate() {
        let run = dir.path().join(format!("r{k}"));
        report(&run, "vae'; --", 0, "2026-07-01T10:00:00Z", 100.0 * (k + 1) as f64, None);
        import_as(&store, &run, name, &[]);
    }
    let m = db_json(&store, "compare", &["--systems", &names.join(","), "--reference", names[0]]);
    assert_eq!(m["systems"], json!(names));
    assert_eq!(m["rows"][0]["bench"], "vae'; --");
    assert!(close(&m["summaries"][1]["score"], 2.0), "{m}");
    let csv = db(&store, "compare", &["--systems", &names.join(","), "--format", "csv"]);
    assert_eq!(csv.lines().next(), Some("bench,it's; DROP TABLE runs; --,\"ünï \"\"cödé\"\"\""));
    let h = db_json(&store, "history", &["--system", names[1]]);
    assert_eq!(h["system"], names[1]);
    assert_eq!(store.count("SELECT COUNT(*) FROM runs"), 2);
}
