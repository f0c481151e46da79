//! One number, computed once: on one store filled from the same runs, the
//! figures and regression flags of `mlb report --db`, `mlb db compare`,
//! `mlb db history`, `/api/compare`, `/api/history` and `/api/runs/{id}`
//! are equal, value for value, including a 6% drop within the noise, which
//! the served page's old rule (5% under the mean of the last five points)
//! flagged and `mlb report --db` did not.

use super::backend::{on_both, Kind, TestStore};
use super::queries::{db_json, import_as, mlb, report};
use crate::serve::server::Server;
use serde_json::Value;
use std::path::Path;

on_both!(
    every_view_of_a_store_gives_the_same_figures_and_flags,
    the_figures_a_run_keeps_at_import_are_those_its_stored_instances_give,
);

/// The benches of each run, and the items/s of its four instances on
/// day `day` (7 is the run judged): steady; a 6% drop within a noise of
/// ±15% on the last day; a 20% drop beyond the noise on the last day.
fn instances(bench: &str, day: usize) -> [f64; 4] {
    let wobble = (day % 3) as f64 - 1.0;
    match (bench, day) {
        ("steady", _) => [99.0 + wobble, 100.0, 100.5, 101.0 - wobble],
        ("noisy", 7) => [80.0, 90.0, 98.0, 108.0],
        ("noisy", _) => [86.0 + wobble, 96.0, 104.0, 114.0 - wobble],
        ("dropped", 7) => [79.0, 80.0, 80.5, 81.0],
        ("dropped", _) => [99.0 + wobble, 100.0, 100.5, 101.0 - wobble],
        _ => unreachable!(),
    }
}

const BENCHES: [&str; 3] = ["dropped", "noisy", "steady"];

/// Writes the run of `day` into `dir` (joules per item about 2).
fn run(dir: &Path, day: usize) {
    let start = format!("2026-05-{day:02}T10:00:00Z");
    for bench in BENCHES {
        for (vcd, items) in instances(bench, day).into_iter().enumerate() {
            report(dir, bench, vcd, &start, items, Some(2.0 + 0.01 * (day + vcd) as f64));
        }
    }
}

/// The element of the array `list` whose `key` is `name`.
fn named<'a>(list: &'a Value, key: &str, name: &str) -> &'a Value {
    list.as_array().unwrap().iter().find(|v| v[key] == name).unwrap_or_else(|| panic!("no {key} {name} in {list}"))
}

fn every_view_of_a_store_gives_the_same_figures_and_flags(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    for day in 1..=7 {
        let folder = dir.path().join(format!("day{day}"));
        run(&folder, day);
        import_as(&store, &folder, "A", &[]);
    }
    let last = dir.path().join("day7");
    let report = |args: &[&str]| -> Value {
        let (code, stdout, stderr) = mlb(&[&["report", "--format", "json", "--reports"], args].concat());
        assert_eq!(code, Some(0), "{stderr}");
        serde_json::from_str(&stdout).unwrap()
    };
    // The last run against its history, and every run pooled (as the
    // store's comparison pools a system's runs).
    let (all, report) = (
        report(&[dir.path().to_str().unwrap()]),
        report(&[last.to_str().unwrap(), "--db", &store.url, "--system", "A"]),
    );
    let compare = db_json(&store, "compare", &["--systems", "A"]);
    let history = db_json(&store, "history", &["--system", "A"]);

    let server = Server::start(&store.url, &[]);
    assert_eq!(server.json("/api/compare?systems=A"), compare);
    let served = server.json("/api/history?system=A");
    assert_eq!((&served["series"], &served["regressions"]), (&history["series"], &history["regressions"]));
    let run = named(&history["series"], "label", "steady")["points"][6]["run"].as_i64().unwrap();
    let page = server.json(&format!("/api/runs/{run}"));
    assert_eq!(page["report"]["rows"], report["rows"]);
    assert_eq!(page["report"]["energy"], report["energy"]);

    for bench in BENCHES {
        // Every run pooled: mlb report of the folders and the comparison.
        let pooled = &named(&all["benches"], "bench", bench)["sample"];
        let cell = &named(&compare["rows"], "bench", bench)["cells"][0];
        assert!(pooled["mean"].is_f64(), "{bench}: {pooled}");
        assert_eq!((&cell["items_per_s"], &cell["n"]), (&pooled["mean"], &pooled["n"]), "{bench}: items/s and n");
        let energy = &named(&all["energy"]["rows"], "label", bench)["joules_per_item"]["mean"];
        assert_eq!(&cell["joules_per_item"], energy, "{bench}: joules per item");

        // The last run: mlb report of its folder and the history's point.
        let row = named(&report["rows"], "label", bench);
        let points = named(&history["series"], "label", bench)["points"].as_array().unwrap();
        let point = &points[6];
        assert_eq!(point["run"], run, "{bench}: the last point is the run judged");
        let mean = &row["sample"]["mean"];
        assert!(mean.is_f64(), "{bench}: {row}");
        assert_eq!((&point["value"], &point["n"]), (mean, &row["sample"]["n"]), "{bench}: the last point");

        // The regression flags: mlb report --db's row, and the history's
        // mark of the same run in the CLI and the API.
        let judged = named(&report["regressions"]["rows"], "config", bench);
        let marked = history["regressions"].as_array().unwrap().iter().find(|r| r["label"] == bench && r["run"] == run);
        assert_eq!(judged["regression"].as_bool(), Some(marked.is_some()), "{bench}: {judged} against {marked:?}");
        if let Some(marked) = marked {
            assert_eq!(
                (&marked["change_percent"], &marked["p_value"]),
                (&judged["change_percent"], &judged["p_value"])
            );
        }
        let before: Vec<f64> = points[1..6].iter().map(|p| p["value"].as_f64().unwrap()).collect();
        let old_rule = point["value"].as_f64().unwrap() < 0.95 * before.iter().sum::<f64>() / 5.0;
        let flagged = judged["regression"].as_bool().unwrap();
        match bench {
            "dropped" => assert!(flagged && old_rule, "{judged}"),
            "noisy" => assert!(!flagged && old_rule && judged["p_value"].as_f64().unwrap() > 0.05, "{judged}"),
            _ => assert!(!flagged && !old_rule, "{judged}"),
        }
    }
    // No earlier point of the history regressed.
    assert_eq!(history["regressions"].as_array().unwrap().len(), 1, "{}", history["regressions"]);
}

/// The figures each run keeps (what compare and history read) as the
/// import writes them from the reports, and as a migrated store keeps them
/// from the instances it holds: the same bytes. Imported again with a
/// report changed, a run keeps the new figures.
fn the_figures_a_run_keeps_at_import_are_those_its_stored_instances_give(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    for day in 1..=3 {
        let folder = dir.path().join(format!("day{day}"));
        run(&folder, day);
        import_as(&store, &folder, "A", &[]);
    }
    let hex = |column: &str| match kind {
        Kind::Sqlite => format!("hex({column})"),
        Kind::Postgres => format!("upper(encode({column}, 'hex'))"),
    };
    let sql = format!(
        "SELECT CAST(run_id AS TEXT), CAST(strict AS TEXT), bench, config, {}, {} FROM run_figures \
         ORDER BY run_id, strict, bench, config",
        hex("speeds"),
        hex("joules")
    );
    let imported = store.texts(&sql, &[]);
    assert_eq!(imported.len(), 3 * 2 * BENCHES.len(), "a row per run, rule and bench: {imported:?}");
    // The first row: day 1's `dropped` under the original's rule, its four instances bit for bit.
    let mut kept = values(&imported[0][4]);
    kept.sort_by(|a, b| a.total_cmp(b));
    assert_eq!(kept, instances("dropped", 1));
    let db = store.open();
    for forget in ["DELETE FROM run_figures", "DELETE FROM store_info WHERE key = 'run_figures'"] {
        db.block_on(sqlx::query(forget).execute(db.pool())).unwrap();
    }
    drop(db);
    assert_eq!(store.texts(&sql, &[]), imported, "kept again from the stored instances");
    // A report of day 1 rewritten: its run keeps the new figure.
    let folder = dir.path().join("day1");
    let file = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("s.dropped.R0.D0."))
        .expect("the report of dropped on device 0, day 1");
    let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    report["train_item"]["avg"] = 42.5.into();
    std::fs::write(&file, report.to_string()).unwrap();
    import_as(&store, &folder, "A", &[]);
    let again = store.texts(&sql, &[]);
    assert_eq!(again.len(), imported.len());
    for (now, before) in again.iter().zip(&imported) {
        match (now[0] == imported[0][0], now[2].as_deref()) {
            // Under either rule.
            (true, Some("dropped")) => assert!(values(&now[4]).contains(&42.5), "{now:?}"),
            _ => assert_eq!(now, before, "the other rows are as they were"),
        }
    }
}

/// The values of a run_figures list, from its upper-case hexadecimal.
fn values(hex: &Option<String>) -> Vec<f64> {
    let hex = hex.as_deref().unwrap();
    let bytes: Vec<u8> = (0..hex.len() / 2).map(|k| u8::from_str_radix(&hex[2 * k..2 * k + 2], 16).unwrap()).collect();
    bytes.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect()
}
