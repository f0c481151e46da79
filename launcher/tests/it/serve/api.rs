//! The API's answers on the known store: the figures of `mlb db` and `mlb
//! report`, the filters and pages, CSV equal to JSON, and a run imported
//! before the store kept report texts.

use super::server::{known_store, Server};
use crate::store::backend::{import, Kind, TestStore};
use serde_json::Value;
use std::process::Command;

/// `mlb db SUB --db URL ARGS --format json`, parsed.
fn db_json(store: &TestStore, sub: &str, args: &[&str]) -> Value {
    let out = Command::new(crate::common::mlb())
        .args(["db", sub, "--db", &store.url, "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    assert!(out.status.success(), "mlb db {sub}: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// The id of the run of `system` started at `day` (`2026-01-03`).
fn run_id(server: &Server, system: &str, day: &str) -> i64 {
    let runs = server.json(&format!("/api/runs?system={system}&since={day}&until={day}"));
    assert_eq!(runs["total"], 1, "{runs}");
    runs["runs"][0]["id"].as_i64().unwrap()
}

#[test]
fn systems_and_runs_are_listed_filtered_and_paged() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    let server = Server::start(&store.url, &[]);
    let systems = server.json("/api/systems");
    let names: Vec<&str> = systems["systems"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["A", "B"]);
    let a = &systems["systems"][0];
    assert_eq!(a["runs"], 3);
    assert_eq!(a["last_run"]["id"].as_i64(), Some(run_id(&server, "A", "2026-01-03")));
    assert_eq!(a["last_run"]["started"], "2026-01-03T10:00:00.000000Z");
    assert_eq!(a["gpu_model"], "Model X");

    let all = server.json("/api/runs");
    assert_eq!((all["total"].as_u64(), all["pages"].as_u64(), all["page"].as_u64()), (Some(4), Some(1), Some(1)));
    let started: Vec<&str> = all["runs"].as_array().unwrap().iter().map(|r| r["started"].as_str().unwrap()).collect();
    assert!(started.windows(2).all(|w| w[0] >= w[1]), "newest first: {started:?}");
    let listed = db_json(&store, "runs", &[]);
    assert_eq!(listed.as_array().unwrap().len(), 4);

    let failed = server.json("/api/runs?outcome=failed");
    assert_eq!(failed["total"], 1);
    assert_eq!((failed["runs"][0]["failed"].as_i64(), failed["runs"][0]["instances"].as_i64()), (Some(1), Some(4)));
    assert_eq!(server.json("/api/runs?outcome=completed")["total"], 3);
    assert_eq!(server.json("/api/runs?system=A&bench=wlm")["total"], 1);
    assert_eq!(server.json("/api/runs?system=B")["total"], 1);
    assert_eq!(server.json("/api/runs?tag=site%3Dlab")["total"], 0);
    let beyond = server.json("/api/runs?page=2");
    assert_eq!((beyond["total"].as_u64(), beyond["runs"].as_array().unwrap().len()), (Some(4), 0));
}

#[test]
fn a_run_shows_what_mlb_report_shows_with_its_log_tails_and_acceptance() {
    let store = TestStore::new(Kind::Sqlite);
    let runs = known_store(&store);
    let server = Server::start(&store.url, &[]);
    let id = run_id(&server, "A", "2026-01-03");
    let page = server.json(&format!("/api/runs/{id}"));
    let folder = runs.path().join("A/a3");
    let out = Command::new(crate::common::mlb())
        .args(["report", "--reports", folder.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["rows", "benches", "failures", "per_gpu", "per_node", "energy", "groups"] {
        assert_eq!(page["report"][key], report[key], "{key}");
    }
    let vae = page["report"]["rows"].as_array().unwrap().iter().find(|r| r["label"] == "vae").unwrap();
    assert_eq!(vae["sample"]["mean"], 81.0);
    assert_eq!(page["run"]["failed"], 1);
    assert_eq!(page["gpu_model"], "Model X");
    let tails = page["log_tails"].as_array().unwrap();
    assert_eq!(tails.len(), 1, "{page}");
    assert_eq!((tails[0]["bench"].as_str(), tails[0]["log"].as_str()), (Some("wlm"), Some("logs/wlm.log")));
    assert!(tails[0]["tail"].as_str().unwrap().contains("Traceback: out of memory"));
    assert_eq!(page["acceptance"]["verdict"], "accepted");
    let timelines = page["timelines"].as_array().unwrap();
    assert!(!timelines.is_empty(), "{page}");
    assert_eq!(timelines[0]["timeline"]["gpu0.power_w"], serde_json::json!([100.0, 110.0, 120.0]));
    // The other system's run has no failure and no acceptance record.
    let b = server.json(&format!("/api/runs/{}", run_id(&server, "B", "2026-01-02")));
    assert_eq!((b["log_tails"].as_array().unwrap().len(), &b["acceptance"]), (0, &Value::Null));
    let missing = server.get("/api/runs/999999", &[]);
    assert_eq!(missing.status, 404, "{}", missing.body);
    assert!(missing.body.contains("no run 999999"), "{}", missing.body);
}

#[test]
fn compare_and_history_give_the_figures_of_mlb_db() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    let server = Server::start(&store.url, &[]);
    let matrix = server.json("/api/compare?systems=A,B&reference=B");
    assert_eq!(matrix, db_json(&store, "compare", &["--systems", "A,B", "--reference", "B"]));
    let only = server.json("/api/compare?systems=A,B&benches=v*&metric=score");
    let benches: Vec<&str> = only["rows"].as_array().unwrap().iter().map(|r| r["bench"].as_str().unwrap()).collect();
    assert_eq!(benches, ["vae"]);
    assert_eq!(only, db_json(&store, "compare", &["--systems", "A,B", "--benches", "v*", "--metric", "score"]));
    // No systems named: every system, the first the reference.
    assert_eq!(server.json("/api/compare")["systems"], serde_json::json!(["A", "B"]));
    let unknown = server.get("/api/compare?systems=A,Nope", &[]);
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    assert!(unknown.body.contains("Nope"), "{}", unknown.body);

    let history = server.json("/api/history?system=A&bench=vae");
    let cli = db_json(&store, "history", &["--system", "A", "--bench", "vae"]);
    assert_eq!(history["series"], cli["series"]);
    let regressions = history["regressions"].as_array().unwrap();
    assert_eq!(regressions.len(), 1, "{history}");
    assert_eq!(regressions[0]["run"].as_i64(), Some(run_id(&server, "A", "2026-01-03")));
    let last = server.json("/api/history?system=A&last=1");
    assert!(last["series"].as_array().unwrap().iter().all(|s| s["points"].as_array().unwrap().len() == 1));
    assert_eq!(server.get("/api/history", &[]).status, 400);
}

/// The CSV lines of `text`, split on commas (the figures hold none).
fn csv(text: &str) -> Vec<Vec<String>> {
    text.lines().map(|l| l.split(',').map(str::to_string).collect()).collect()
}

/// The column `name` of `rows` (the first row its header).
fn column<'a>(rows: &'a [Vec<String>], name: &str) -> Vec<&'a str> {
    let at = rows[0].iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}: {:?}", rows[0]));
    rows[1..].iter().map(|r| r[at].as_str()).collect()
}

/// The number `value` as CSV writes it.
fn number(value: &Value) -> String {
    value.as_f64().map(|v| v.to_string()).unwrap_or_default()
}

#[test]
fn csv_downloads_hold_the_figures_of_the_json() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    let server = Server::start(&store.url, &[]);
    let download = server.get("/api/runs?format=csv", &[]);
    assert_eq!(download.status, 200);
    assert_eq!(download.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(download.header("content-disposition"), Some("attachment; filename=\"runs.csv\""));

    let runs = server.json("/api/runs");
    let rows = csv(&download.body);
    let ids: Vec<String> = runs["runs"].as_array().unwrap().iter().map(|r| r["id"].to_string()).collect();
    assert_eq!(column(&rows, "id"), ids);
    let failed: Vec<String> = runs["runs"].as_array().unwrap().iter().map(|r| r["failed"].to_string()).collect();
    assert_eq!(column(&rows, "failed"), failed);

    let systems = server.json("/api/systems");
    let rows = csv(&server.get("/api/systems?format=csv", &[]).body);
    let last: Vec<String> =
        systems["systems"].as_array().unwrap().iter().map(|s| s["last_run"]["id"].to_string()).collect();
    assert_eq!(column(&rows, "last_run"), last);
    assert_eq!(column(&rows, "runs"), ["3", "1"]);

    let matrix = server.json("/api/compare?systems=A,B");
    let rows = csv(&server.get("/api/compare?systems=A,B&format=csv", &[]).body);
    // A row per bench, then the summaries.
    assert_eq!(column(&rows, "bench")[..3], ["conv", "vae", "(score)"]);
    for (k, system) in ["A", "B"].iter().enumerate() {
        let values: Vec<String> =
            matrix["rows"].as_array().unwrap().iter().map(|r| number(&r["cells"][k]["value"])).collect();
        assert_eq!(column(&rows, system)[..2], values, "{system}");
        assert_eq!(column(&rows, system)[2], number(&matrix["summaries"][k]["score"]), "{system}");
    }

    let history = server.json("/api/history?system=A&bench=vae");
    let rows = csv(&server.get("/api/history?system=A&bench=vae&format=csv", &[]).body);
    let values: Vec<String> =
        history["series"][0]["points"].as_array().unwrap().iter().map(|p| number(&p["value"])).collect();
    assert_eq!(column(&rows, "value"), values);
    assert_eq!(column(&rows, "regression"), ["false", "false", "true"]);

    let id = run_id(&server, "A", "2026-01-03");
    let page = server.json(&format!("/api/runs/{id}"));
    let rows = csv(&server.get(&format!("/api/runs/{id}?format=csv"), &[]).body);
    let means: Vec<String> =
        page["report"]["rows"].as_array().unwrap().iter().map(|r| number(&r["sample"]["mean"])).collect();
    assert_eq!(column(&rows, "mean"), means);
}

#[test]
fn a_run_imported_before_the_store_kept_its_reports_says_so_until_imported_again() {
    let store = TestStore::new(Kind::Sqlite);
    let runs = known_store(&store);
    // As a store migrated from schema 2 holds its runs: figures, no texts.
    let opened = store.open();
    for table in ["report_texts", "log_tails", "run_documents"] {
        opened.block_on(sqlx::query(&format!("DELETE FROM {table}")).execute(opened.pool())).unwrap();
    }
    drop(opened);
    let instances = store.count("SELECT COUNT(*) FROM instances");
    let server = Server::start(&store.url, &[]);
    let id = run_id(&server, "A", "2026-01-03");
    let page = server.json(&format!("/api/runs/{id}"));
    assert_eq!(page["report"], Value::Null);
    assert_eq!(page["run"]["instances"], 4, "what the store has is shown");
    let notes = page["notes"].to_string();
    assert!(notes.contains("mlb db import"), "{notes}");
    // Imported again: the texts are added, no instance twice.
    let (code, stdout, stderr) = import(&store, &[runs.path().join("A").to_str().unwrap(), "--system", "A"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), instances);
    let page = server.json(&format!("/api/runs/{id}"));
    assert_eq!(page["log_tails"].as_array().unwrap().len(), 1, "{page}");
    assert!(page["report"]["rows"].is_array(), "{page}");
    // And a third import skips every file.
    let (_, stdout, _) = import(&store, &[runs.path().join("A").to_str().unwrap(), "--system", "A"]);
    assert!(stdout.contains("imported 0 reports") && stdout.contains("10 report files already stored"), "{stdout}");
}
