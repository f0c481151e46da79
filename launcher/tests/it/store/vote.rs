//! `mlb db vote`: the vote over deterministic runs' fingerprints across the
//! runs the store keeps and a new run folder, with `mlb report`'s vote and
//! words; each instance named with its run (stored, or new), the exit
//! status 1 on an outlier; a store without deterministic reports; and the
//! served run page's *Reproducibility* section of a stored run.

use super::backend::{import, on_both, Kind, TestStore};
use super::queries::mlb;
use crate::common::records::{deterministic_record, file_name, write_report, Run};
use crate::serve::server::Server;
use mlb_record::contract::record::write_atomic;
use serde_json::Value;
use std::path::Path;

on_both!(
    a_new_run_leaving_the_fleet_is_named_with_its_run_and_step,
    a_clean_new_run_agrees_with_the_fleet,
    a_store_without_deterministic_reports_has_nothing_to_vote,
    the_run_page_shows_the_vote_of_a_stored_run,
);

/// Writes the run folder `dir` of node `host`: the deterministic spin on
/// slots 0 and 1, five fingerprints each; slot 1 computes `odd` when given.
fn node_run(dir: &Path, host: &str, odd: Option<&str>) {
    std::fs::create_dir_all(dir).unwrap();
    for vcd in ["0", "1"] {
        let r = Run { suite: "fast", bench: "spin", run: 0, vcd, items_per_sec: 100.0, gpu: None };
        let prints = odd.filter(|_| vcd == "1").unwrap_or("aaaaa");
        write_atomic(dir, &file_name(&r), &deterministic_record(&r, host, prints)).unwrap();
    }
}

/// Imports `folder` into `store`.
fn imported(store: &TestStore, folder: &Path) {
    let (code, stdout, stderr) = import(store, &[folder.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
}

/// A store holding the bit-identical runs of nodes n1, n2 and n3 (one a
/// run, each its own system), their folders under `dir`.
fn fleet(kind: Kind, dir: &Path) -> TestStore {
    let store = TestStore::new(kind);
    for host in ["n1", "n2", "n3"] {
        let folder = dir.join(host);
        node_run(&folder, host, None);
        imported(&store, &folder);
    }
    store
}

/// `mlb db vote --db URL ARGS`: status, stdout, stderr.
fn vote(store: &TestStore, args: &[&str]) -> (Option<i32>, String, String) {
    mlb(&[&["db", "vote", "--db", &store.url], args].concat())
}

/// `mlb db vote ... --format json`, which must exit with `code`.
fn vote_json(store: &TestStore, args: &[&str], code: i32) -> Value {
    let (status, stdout, stderr) = vote(store, &[args, &["--format", "json"]].concat());
    assert_eq!(status, Some(code), "{stdout}\n{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// Text with every run of white space one space (a table wraps its cells).
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn a_new_run_leaving_the_fleet_is_named_with_its_run_and_step(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let store = fleet(kind, dir.path());
    let new = dir.path().join("new");
    node_run(&new, "n4", Some("aabbb"));

    // Alone, its two slots cannot say which is wrong; against the fleet, slot 1 is the outlier.
    let json = vote_json(&store, &["--reports", s(&new)], 1);
    assert_eq!((json["stored_runs"].as_u64(), json["stored_instances"].as_u64()), (Some(3), Some(6)), "{json:#}");
    assert_eq!(json["new_instances"], 2);
    let group = &json["reproducibility"][0];
    assert_eq!((group["verdict"].as_str(), group["config"].as_str()), (Some("outliers"), Some("spin")), "{json:#}");
    assert_eq!((group["nodes"].as_u64(), group["last_step"].as_u64()), (Some(4), Some(50)));
    let outlier = &group["outliers"][0];
    assert_eq!(outlier["step"], 30);
    assert_eq!((outlier["instance"]["node"].as_str(), outlier["instance"]["vcd"].as_str()), (Some("n4"), Some("1")));
    let named = format!("run 0 node n4 vcd 1 (new run {})", new.display());
    let statement = format!("{named} differs from step 30; the other 7 of 8 agree over 50 steps");
    assert_eq!(outlier["instance"]["origin"].as_str(), Some(&*format!("new run {}", new.display())));
    let origins: Vec<&str> =
        group["instances"].as_array().unwrap().iter().map(|i| i["origin"].as_str().unwrap()).collect();
    assert!(origins.iter().any(|o| o.starts_with("stored run ") && o.ends_with(" of system n2")), "{origins:?}");

    let (code, text, stderr) = vote(&store, &["--reports", s(&new), "--wide"]);
    assert_eq!(code, Some(1), "{text}\n{stderr}");
    assert!(text.contains("Reproducibility"), "{text}");
    assert!(flat(&text).contains(&statement), "{text}");
    assert!(flat(&text).contains("each is a suspect device"), "{text}");
    let (code, csv, _) = vote(&store, &["--reports", s(&new), "--format", "csv"]);
    assert_eq!(code, Some(1));
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("config,bench,device,stack,instances,nodes,last_step,verdict,detail"));
    assert!(lines.next().unwrap().ends_with(&format!(",8,4,50,outliers,{statement}")), "{csv}");
    let (code, md, _) = vote(&store, &["--reports", s(&new), "--format", "markdown"]);
    assert_eq!(code, Some(1));
    assert!(md.contains("| spin ") && md.contains("outliers"), "{md}");

    // One stored run against the new one: 3 of 4 agree.
    let json = vote_json(&store, &["--reports", s(&new), "--system", "n1"], 1);
    assert_eq!(json["stored_runs"], 1);
    assert_eq!(json["reproducibility"][0]["majority"], 3, "{json:#}");

    // Imported, the run is a stored one: named so, and never voted twice.
    imported(&store, &new);
    let json = vote_json(&store, &[], 1);
    let outlier = &json["reproducibility"][0]["outliers"][0];
    let origin = outlier["instance"]["origin"].as_str().unwrap();
    assert!(origin.starts_with("stored run ") && origin.ends_with(" of system n4"), "{json:#}");
    let json = vote_json(&store, &["--reports", s(&new)], 1);
    assert_eq!((json["stored_instances"].as_u64(), json["new_instances"].as_u64()), (Some(6), Some(2)), "{json:#}");
}

fn a_clean_new_run_agrees_with_the_fleet(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let store = fleet(kind, dir.path());
    let (code, text, stderr) = vote(&store, &[]);
    assert_eq!(code, Some(0), "{text}\n{stderr}");
    assert!(flat(&text).contains("6 instances on 3 nodes, bit-identical over 50 steps"), "{text}");
    let new = dir.path().join("new");
    node_run(&new, "n4", None);
    let (code, text, stderr) = vote(&store, &["--reports", s(&new)]);
    assert_eq!(code, Some(0), "{text}\n{stderr}");
    assert!(flat(&text).contains("8 instances on 4 nodes, bit-identical over 50 steps"), "{text}");
    let json = vote_json(&store, &["--reports", s(&new), "--bench", "spin"], 0);
    assert_eq!(json["reproducibility"][0]["verdict"], "bit_identical", "{json:#}");
}

fn a_store_without_deterministic_reports_has_nothing_to_vote(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let store = TestStore::new(kind);
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    write_report(&plain, &Run { suite: "fast", bench: "spin", run: 0, vcd: "0", items_per_sec: 1.0, gpu: None });
    imported(&store, &plain);
    let nothing = "no deterministic instance in the store";
    let fix = "run a config with `deterministic: true`";
    for args in [&[][..], &["--reports", s(&plain)]] {
        let (code, stdout, stderr) = vote(&store, args);
        assert_eq!(code, Some(2), "{stdout}\n{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(stderr.contains(nothing) && stderr.contains("nothing to vote") && stderr.contains(fix), "{stderr}");
    }
    // A deterministic new run is voted alone, and says so.
    let new = dir.path().join("new");
    node_run(&new, "n4", None);
    let (code, text, stderr) = vote(&store, &["--reports", s(&new)]);
    assert_eq!(code, Some(0), "{text}\n{stderr}");
    let text = flat(&text);
    assert!(text.contains("2 instances on 1 node, bit-identical over 50 steps"), "{text}");
    assert!(text.contains("the store holds no deterministic instance the filters select"), "{text}");
    // Filters that select none of a fleet's runs.
    let fleet = fleet(kind, &dir.path().join("fleet"));
    let (code, _, stderr) = vote(&fleet, &["--bench", "other"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(nothing), "{stderr}");
}

fn the_run_page_shows_the_vote_of_a_stored_run(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let store = TestStore::new(kind);
    let run = dir.path().join("n1");
    node_run(&run, "n1", Some("aabbb"));
    imported(&store, &run);
    let (code, runs, stderr) = mlb(&["db", "runs", "--db", &store.url, "--format", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let id = serde_json::from_str::<Value>(&runs).unwrap()[0]["id"].as_i64().unwrap();
    let server = Server::start(&store.url, &[]);
    let page = server.json(&format!("/api/runs/{id}"));
    let group = &page["report"]["reproducibility"][0];
    assert_eq!(group["verdict"], "not_reproducible", "{page:#}");
    assert_eq!(group["first_difference"], 30);
    let html = server.get(&format!("/runs/{id}"), &[]);
    assert_eq!(html.status, 200);
    assert!(html.body.contains("Reproducibility"), "{}", html.body);
    assert!(html.body.contains("2 instances first differ at step 30"), "{}", html.body);
}
