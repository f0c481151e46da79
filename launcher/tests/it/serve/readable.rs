//! Output people read: the relative GPU tables of `mlb report` on eight
//! GPUs were 240 characters wide (and wider than a run's page); the served
//! and written history charts put benches of 2 and 300,000 items/s on one
//! linear axis, where a 15% drop of the slow one was invisible.

use super::server::{report, Server};
use crate::common::records::{write_report, Run};
use crate::store::backend::{import, Kind, TestStore};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A run of `benches` on eight H100s, into `dir`.
fn eight_gpus(dir: &Path, benches: &[&str]) {
    let vcds: Vec<String> = (0..8).map(|d| d.to_string()).collect();
    for bench in benches {
        for (d, vcd) in vcds.iter().enumerate() {
            let speed = 1000.0 * (1.0 - 0.02 * d as f64);
            let run = Run {
                suite: "fast",
                bench,
                run: d as u64,
                vcd,
                items_per_sec: speed,
                gpu: Some("NVIDIA H100 80GB HBM3"),
            };
            write_report(dir, &run);
        }
    }
}

/// The lines of the tables of `text` (those drawn with box characters).
fn table_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with(['│', '┌', '├', '└', '╞', '╭', '╰'])).collect()
}

#[test]
fn the_report_tables_of_eight_gpus_fit_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    eight_gpus(dir.path(), &["convnet", "vae"]);
    // Piped without COLUMNS: 100 columns.
    for (columns, width) in [(None, 100), (Some("120"), 120), (Some("60"), 60)] {
        let mut command = Command::new(crate::common::mlb());
        command.args(["report", "--reports"]).arg(dir.path()).env_remove("COLUMNS");
        if let Some(c) = columns {
            command.env("COLUMNS", c);
        }
        let out = command.output().unwrap();
        let (text, stderr) = crate::common::text(&out);
        assert!(out.status.success(), "{stderr}");
        let relative = text.split("Relative GPU performance (mean)").nth(1).expect("a relative table");
        let relative = relative.split("Relative GPU performance (min)").next().unwrap();
        for d in 0..8 {
            assert!(relative.contains(&format!(" {d} ")), "device {d} has its column:\n{relative}");
        }
        let widest = table_lines(&text).iter().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= width, "COLUMNS {columns:?}: a table line of {widest} characters:\n{text}");
    }
}

#[test]
fn a_run_page_keeps_its_tables_in_their_box() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("A").join("r1");
    eight_gpus(&runs, &["convnet"]);
    let store = TestStore::new(Kind::Sqlite);
    let (code, stdout, stderr) = import(&store, &[runs.to_str().unwrap(), "--system", "A"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let server = Server::start(&store.url, &[]);
    let id = server.json("/api/runs")["runs"][0]["id"].as_i64().unwrap();
    let page = server.get(&format!("/runs/{id}"), &[]).body;
    let at = page.find("Relative GPU performance (mean)").expect("the relative table");
    let after = &page[at..];
    let table = after.find("<table").unwrap();
    assert!(
        after[..table].ends_with("<div class=\"scroll\">"),
        "the table scrolls in its box: {}",
        &after[..table + 40]
    );
    assert!(page.contains(".scroll{max-width:100%;overflow-x:auto}"), "the box's style");
}

/// A store of system `A`: six runs of `fast` (300,000 items/s) and `slow`
/// (2 items/s), the slow one 15% slower in the last run.
fn fast_and_slow() -> (TestStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    for run in 0..6 {
        let folder = dir.path().join("A").join(format!("r{run}"));
        let start = format!("2026-01-0{}T10:00:00Z", run + 1);
        report(&folder, "fast", 0, &start, Some(300_000.0));
        report(&folder, "slow", 1, &start, Some(if run == 5 { 1.7 } else { 2.0 }));
    }
    let store = TestStore::new(Kind::Sqlite);
    let (code, stdout, stderr) = import(&store, &[dir.path().join("A").to_str().unwrap(), "--system", "A"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    (store, dir)
}

#[test]
fn the_written_history_chart_shows_a_drop_of_a_slow_bench_beside_a_fast_one() {
    let (store, dir) = fast_and_slow();
    let page = dir.path().join("history.html");
    let history = |extra: &[&str]| {
        let out = Command::new(crate::common::mlb())
            .args(["db", "history", "--db", &store.url, "--system", "A", "--format", "html", "--output"])
            .arg(&page)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", crate::common::text(&out).1);
        chart_in(&std::fs::read_to_string(&page).unwrap())
    };
    let relative = history(&[]);
    assert_eq!(relative["option"]["yAxis"]["name"], "relative to the bench's median", "{relative}");
    let slow = values(&relative, "slow");
    assert!((slow[5] - 0.85).abs() < 1e-9, "the slow bench's 15% drop: {slow:?}");
    assert_eq!(values(&history(&["--scale", "absolute"]), "slow")[5], 1.7, "absolute values, as asked");
}

/// The JSON of the (first) chart of the page `html`.
fn chart_in(html: &str) -> Value {
    let start = html.find("<script type=\"application/json\">").expect("a chart") + 32;
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

/// The chart of the history page at `path`: its JSON.
fn chart_of(server: &Server, path: &str) -> Value {
    let page = server.get(path, &[]);
    assert_eq!(page.status, 200, "{}", page.body);
    chart_in(&page.body)
}

/// The y values of the series `name` of `chart`.
fn values(chart: &Value, name: &str) -> Vec<f64> {
    let series = chart["option"]["series"].as_array().unwrap();
    let s = series.iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no {name}: {chart}"));
    s["data"].as_array().unwrap().iter().map(|p| p["value"][1].as_f64().unwrap()).collect()
}

#[test]
fn the_history_page_draws_each_bench_relative_to_its_median() {
    let (store, _dir) = fast_and_slow();
    let server = Server::start(&store.url, &[]);
    let chart = chart_of(&server, "/history?system=A");
    assert_eq!(chart["option"]["yAxis"]["name"], "relative to the bench's median", "{chart}");
    assert_eq!(values(&chart, "fast"), [1.0; 6]);
    let slow = values(&chart, "slow");
    assert!((slow[5] - 0.85).abs() < 1e-9 && slow[..5].iter().all(|v| *v == 1.0), "{slow:?}");
    let absolute = chart_of(&server, "/history?system=A&scale=absolute");
    assert_eq!(values(&absolute, "slow")[5], 1.7);
    assert_eq!(absolute["option"]["yAxis"]["name"], "items/s");
    // The API's figures are as they are, whatever the chart.
    let api = server.json("/api/history?system=A&scale=relative");
    assert_eq!(api["series"][1]["points"][5]["value"], 1.7);
    assert_eq!(server.get("/api/history?system=A&scale=log", &[]).status, 400);
}
