//! Two sites push to one server; what it stores reads as `mlb report`
//! reads their folders; a push again stores nothing twice; an embargo
//! hides a run from all but its key until its date; a share link shows
//! one run until revoked; a pull copies the public runs into another store
//! with the same comparison.

use super::{site_run, Collector};
use crate::store::backend::{on_both, Kind, TestStore};
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

on_both!(two_sites_push_and_the_store_reads_as_their_folders_and_a_pull_compares_the_same);

/// `mlb ARGS` on the store `url`: its stdout, which must come with exit status 0.
fn mlb_db(args: &[&str], url: &str) -> String {
    let out = Command::new(crate::common::mlb()).args(args).args(["--db", url]).output().unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    assert!(out.status.success(), "{args:?}: {stdout}\n{stderr}");
    stdout
}

/// `mlb report --format json` of `dir`.
fn report_of(dir: &std::path::Path) -> Value {
    let out = Command::new(crate::common::mlb())
        .args(["report", "--reports", dir.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The id of the run of `system` the server lists to `key`.
fn run_of(c: &Collector, key: Option<&str>, system: &str) -> Option<i64> {
    let answer = c.get_as(key, &format!("/api/runs?system={system}"));
    assert_eq!(answer.status, 200, "{}", answer.body);
    let runs: Value = serde_json::from_str(&answer.body).unwrap();
    runs["runs"].as_array().unwrap().first().map(|r| r["id"].as_i64().unwrap())
}

fn two_sites_push_and_the_store_reads_as_their_folders_and_a_pull_compares_the_same(kind: Kind) {
    let c = Collector::start(kind, &[("site-a", &["sysA"], 30), ("site-b", &["sysB"], 30)], &[]);
    let sites = tempfile::tempdir().unwrap();
    let (a, b) = (sites.path().join("a/run-1"), sites.path().join("b/run-1"));
    site_run(&a, "2026-03-01T10:00:00Z", 100.0);
    site_run(&b, "2026-03-01T11:00:00Z", 150.0);
    for (dir, key) in [(&a, "site-a"), (&b, "site-b")] {
        let (code, stdout, stderr) = c.push(dir, key, &[]);
        assert_eq!(code, Some(0), "{stdout}\n{stderr}");
        assert!(stdout.contains("3 reports new"), "{stdout}");
    }
    // The same folder again: nothing stored twice.
    let (code, stdout, _) = c.push(&a, "site-a", &[]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("0 reports new") && stdout.contains("3 report files already stored"), "{stdout}");
    assert_eq!(c.store.count("SELECT COUNT(*) FROM runs"), 2);
    assert_eq!(c.store.count("SELECT COUNT(*) FROM instances"), 6);
    let folders =
        c.store.texts("SELECT r.folder, s.name FROM runs r JOIN systems s ON s.id = r.system_id ORDER BY r.id", &[]);
    assert_eq!(folders[0], [Some("push://sysA/run-1".into()), Some("sysA".into())]);
    // Each run reads as `mlb report` reads its folder.
    for (dir, system) in [(&a, "sysA"), (&b, "sysB")] {
        let id = run_of(&c, None, system).unwrap();
        let page = c.server.json(&format!("/api/runs/{id}"));
        let report = report_of(dir);
        for key in ["rows", "benches", "failures", "per_gpu", "per_node", "energy", "groups"] {
            assert_eq!(page["report"][key], report[key], "{system} {key}");
        }
    }
    // The log: who, when, what, and the outcome.
    let log = mlb_db(&["db", "pushes", "--format", "json"], &c.store.url);
    let log: Value = serde_json::from_str(&log).unwrap();
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 3, "{log:?}");
    assert_eq!(
        (log[0]["key"].as_str(), log[0]["system"].as_str(), log[0]["status"].as_i64()),
        (Some("site-a"), Some("sysA"), Some(200))
    );
    assert!(log[2]["outcome"].as_str().unwrap().contains("stored 0 new reports of 3 files"), "{log:?}");
    // A pull into an empty store: the same comparison.
    let pulled = TestStore::new(Kind::Sqlite);
    let said = mlb_db(&["db", "pull", "--from", &c.url()], &pulled.url);
    assert!(said.contains("pulled 2 runs") && said.contains("6 reports new"), "{said}");
    let compare = ["db", "compare", "--systems", "sysA,sysB", "--format", "json"];
    assert_eq!(mlb_db(&compare, &pulled.url), mlb_db(&compare, &c.store.url));
    let again = mlb_db(&["db", "pull", "--from", &c.url()], &pulled.url);
    assert!(again.contains("0 reports new") && again.contains("6 report files already stored"), "{again}");
    assert_eq!(pulled.count("SELECT COUNT(*) FROM runs"), 2);
}

#[test]
fn a_run_under_embargo_is_seen_by_its_key_alone_until_its_date_then_by_all() {
    let c = Collector::start(Kind::Sqlite, &[("site-a", &["sysA"], 30), ("site-b", &["sysB"], 30)], &[]);
    let sites = tempfile::tempdir().unwrap();
    let (a, b) = (sites.path().join("a/run-1"), sites.path().join("b/run-1"));
    site_run(&a, "2026-03-01T10:00:00Z", 100.0);
    site_run(&b, "2026-03-01T11:00:00Z", 150.0);
    // Long enough for every check before it on a loaded machine (about a second here).
    let lifted = chrono::Utc::now() + chrono::Duration::seconds(15);
    let date = lifted.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    assert_eq!(c.push(&a, "site-a", &[]).0, Some(0));
    let (code, stdout, stderr) = c.push(&b, "site-b", &["--embargo", &date]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("under embargo until"), "{stdout}");
    let hidden = c.store.count("SELECT id FROM runs WHERE embargo_until IS NOT NULL");
    // Without the key (or with another site's): neither the run nor its system.
    for key in [None, Some("site-a")] {
        let runs: Value = serde_json::from_str(&c.get_as(key, "/api/runs").body).unwrap();
        assert_eq!(runs["total"], 1, "{key:?}: {runs}");
        for path in [format!("/api/runs/{hidden}"), format!("/runs/{hidden}"), format!("/api/runs/{hidden}/archive")] {
            assert_eq!(c.get_as(key, &path).status, 404, "{key:?} {path}");
        }
        let systems = c.get_as(key, "/api/systems").body;
        assert!(!systems.contains("sysB"), "{systems}");
        let compare = c.get_as(key, "/api/compare?systems=sysA,sysB");
        assert_eq!(compare.status, 400, "{}", compare.body);
        assert!(compare.body.contains("known: sysA)"), "{}", compare.body);
        assert!(!c.get_as(key, "/runs").body.contains("sysB"));
    }
    assert_eq!(run_of(&c, None, "sysB"), None);
    // Its key sees it, marked.
    assert_eq!(run_of(&c, Some("site-b"), "sysB"), Some(hidden));
    let page = c.get_as(Some("site-b"), &format!("/runs/{hidden}"));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("embargoed until"), "{}", page.body);
    // In a browser: the key once in the address, then its cookie.
    let login = c.server.get(&format!("/runs?token={}", c.key("site-b")), &[]);
    assert_eq!(login.status, 303, "{}", login.body);
    let cookie = login.header("set-cookie").unwrap().split(';').next().unwrap().to_string();
    assert_eq!(login.header("location"), Some("/runs"));
    let runs = c.server.get("/runs", &[("Cookie", &cookie)]).body;
    assert!(runs.contains("sysB") && runs.contains("class=\"fail\""), "{runs}");
    // `mlb db` on the store leaves it out unless asked.
    assert_eq!(mlb_db(&["db", "runs", "--format", "csv"], &c.store.url).lines().count(), 2);
    assert_eq!(mlb_db(&["db", "runs", "--format", "csv", "--embargoed"], &c.store.url).lines().count(), 3);
    // A share link shows it to anyone, until revoked.
    let link = mlb_db(&["db", "share", &hidden.to_string()], &c.store.url);
    let link = link.trim();
    assert!(link.starts_with("/share/mlbs_"), "{link}");
    let shown = c.get_as(None, link);
    assert_eq!(shown.status, 200);
    assert!(shown.body.contains("push://sysB/run-1"));
    mlb_db(&["db", "share", "--revoke", "1"], &c.store.url);
    assert_eq!(c.get_as(None, link).status, 404);
    assert!(chrono::Utc::now() < lifted, "the checks under embargo ran past its date: lengthen it");
    // Then the date comes: public, by itself.
    let wait = (lifted - chrono::Utc::now()).to_std().unwrap_or_default() + Duration::from_millis(1500);
    std::thread::sleep(wait);
    assert_eq!(run_of(&c, None, "sysB"), Some(hidden));
    assert_eq!(c.get_as(None, &format!("/api/runs/{hidden}")).status, 200);
    assert!(c.get_as(None, "/api/systems").body.contains("sysB"));
    // A revoked key reads nothing more.
    mlb_db(&["db", "keys", "revoke", "site-b"], &c.store.url);
    assert_eq!(c.get_as(Some("site-b"), "/api/runs").status, 401);
}

#[test]
fn a_run_whose_push_fails_keeps_its_folder_and_status_and_says_how_to_push_again() {
    let l = crate::common::launcher::Launches::new("pushed");
    let jobs =
        l.jobs(r#"[{"name": "spin", "plugin": "spin", "args": {"repeat": 2, "number": 1, "skip": 0, "size": [1]}}]"#);
    let keys = tempfile::tempdir().unwrap();
    let key = keys.path().join("k.key");
    std::fs::write(&key, "mlbk_0000\n").unwrap();
    // Nothing listens on port 1.
    let args = ["--devices", "1", "--push", "http://127.0.0.1:1", "--push-key-file", key.to_str().unwrap()];
    let mut child = l.command(&jobs, &l.out(), &args).spawn().unwrap();
    let status = crate::common::launcher::wait_within(&mut child, Duration::from_secs(120), "the launcher");
    let (stdout, stderr) = crate::common::text(&child.wait_with_output().unwrap());
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("mlb: warning: the run was not pushed: cannot reach http://127.0.0.1:1"), "{stderr}");
    let again = format!("mlb db push {} --to http://127.0.0.1:1 --key-file {}", l.out().display(), key.display());
    assert!(stderr.contains(&again), "{stderr}");
    let reports = std::fs::read_dir(l.out())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "json"))
        .count();
    assert!(reports >= 1, "the run's reports are kept");
}
