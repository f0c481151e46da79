//! `mlb --jobs FILE --to-quality` with spin (docs/quality.md): two
//! instances on two slots train to spin's quality target on the clock, and
//! their reports and MLLOG files hold the run; a run that never learns is
//! reported not converged within its bound; `mlb report` gives the time to
//! quality of each config, its olympic mean over `--runs`, and the runs that
//! did not converge.

use crate::common::{self, python};

use common::launcher::Launches;
use common::report;
use mlb::quality::mllog::PREFIX;
use serde_json::Value;
use std::path::Path;

/// spin's quality reaches its target (0.9) after 2303 items: 144 steps of
/// 16 items, 9 evaluations of 256 items.
const LEARNS: &str = r#"{"name": "learns", "plugin": "spin", "cgroup": "student",
  "args": {"size": 16, "eval_every": 256}}"#;

/// `lr: 0`: the quality stays 0; the bound is 2000 items.
const FROZEN: &str = r#"{"name": "frozen", "plugin": "spin", "cgroup": "student",
  "args": {"size": 16, "lr": 0, "eval_every": 500, "max_items": 2000}}"#;

/// Runs the jobs `jobs` to quality with `extra` options; the reports.
fn run_to_quality(l: &Launches, jobs: &[&str], extra: &[&str]) -> Vec<(String, Value)> {
    l.to_quality(&l.jobs(&format!("[{}]", jobs.join(", "))), extra)
}

/// The MLLOG lines of `file`, parsed; their JSON keys are checked to come in
/// the `mlperf-logging` package's order.
fn mllog(dir: &Path, file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    text.lines()
        .map(|line| {
            let body = line.strip_prefix(PREFIX).unwrap_or_else(|| panic!("not an MLLOG line: {line}"));
            let at: Vec<usize> = ["namespace", "time_ms", "event_type", "key", "value", "metadata"]
                .iter()
                .map(|k| body.find(&format!("\"{k}\":")).unwrap_or_else(|| panic!("no {k}: {body}")))
                .collect();
            assert!(at.windows(2).all(|w| w[0] < w[1]), "keys out of order: {body}");
            serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
        })
        .collect()
}

#[test]
fn two_slots_reach_the_target_and_their_reports_and_logs_hold_the_run() {
    let l = Launches::new("quality2");
    let reports = run_to_quality(&l, &[LEARNS], &["--devices", "2"]);
    assert_eq!(reports.len(), 2, "one report per slot: {reports:?}");
    let mut seeds = Vec::new();
    for (name, r) in &reports {
        let q = &r["quality"];
        assert_eq!(r["completed"], true, "{name}");
        assert_eq!((q["metric"].as_str(), q["target"].as_f64()), (Some("quality"), Some(0.9)), "{name}");
        assert_eq!(q["converged"], true, "{name}: {q:#}");
        let ttq = q["time_to_quality"].as_f64().unwrap();
        assert!(ttq > 0.0 && ttq == q["seconds"].as_f64().unwrap());
        assert!(q["init_seconds"].as_f64().unwrap() >= 0.0);
        assert!(q["stopped_at"].as_f64().unwrap() >= q["started_at"].as_f64().unwrap() + ttq - 1e-6);
        assert!(q["page_cache"]["dropped"].is_boolean(), "{q:#}");
        let curve = q["curve"].as_array().unwrap();
        let items: Vec<u64> = curve.iter().map(|p| p["items"].as_u64().unwrap()).collect();
        assert_eq!(items, (1..=9).map(|k| k * 256).collect::<Vec<_>>(), "an evaluation every 256 items");
        let last = curve.last().unwrap()["value"].as_f64().unwrap();
        assert!(last >= 0.9 && curve[7]["value"].as_f64().unwrap() < 0.9, "stopped at the first reach");
        assert_eq!(q["seed"], r["seed"]);
        seeds.push(q["seed"].as_u64().unwrap());

        let log = mllog(&l.out(), q["mllog"].as_str().unwrap());
        for line in &log {
            assert_eq!(line.as_object().unwrap().len(), 6, "{line}");
            assert!(line["metadata"]["file"].is_string() && line["metadata"]["lineno"].is_u64());
        }
        let keys: Vec<&str> = log.iter().map(|l| l["key"].as_str().unwrap()).collect();
        let at = |k: &str| keys.iter().position(|x| *x == k).unwrap_or_else(|| panic!("no {k} in {keys:?}"));
        assert!(at("submission_benchmark") < at("cache_clear") && at("cache_clear") < at("init_start"));
        assert!(at("init_start") < at("seed") && at("seed") < at("init_stop") && at("init_stop") < at("run_start"));
        assert!(at("run_start") < at("block_start") && at("eval_accuracy") < at("run_stop"));
        assert_eq!(keys.iter().filter(|k| **k == "eval_accuracy").count(), 9);
        let stop = &log[at("run_stop")];
        assert_eq!(
            (stop["event_type"].as_str(), stop["metadata"]["status"].as_str()),
            (Some("INTERVAL_END"), Some("success"))
        );
        assert_eq!(log[at("seed")]["value"], q["seed"]);
        assert_eq!(log[at("cache_clear")]["value"], q["page_cache"]["dropped"]);
        let times: Vec<u64> = log.iter().map(|l| l["time_ms"].as_u64().unwrap()).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "in time order");
    }
    seeds.sort();
    seeds.dedup();
    assert_eq!(seeds.len(), 2, "each instance its own seed");

    // The concurrent-instance metric of this two-slot run: from the first
    // instance's clock start to the last one's stop, as their reports give them.
    let clock = |key: &'static str| reports.iter().map(move |(_, r)| r["quality"][key].as_f64().unwrap());
    let first_start = clock("started_at").fold(f64::INFINITY, f64::min);
    let last_stop = clock("stopped_at").fold(f64::NEG_INFINITY, f64::max);
    let json: Value = serde_json::from_str(&report(&l.out(), &["--format", "json"])).unwrap();
    let rows = json["quality"]["concurrent"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "one run: {rows:?}");
    assert_eq!((rows[0]["instances"].as_u64(), rows[0]["converged"].as_u64()), (Some(2), Some(2)), "{rows:?}");
    let seconds = rows[0]["seconds"].as_f64().unwrap();
    assert!((seconds - (last_stop - first_start)).abs() < 1e-6, "{seconds} against {}", last_stop - first_start);
    // Unix seconds as f64 resolve about 0.24 µs today, and a stop is written as
    // its start plus the clock: a difference of the two can come out an ulp short.
    let longest = clock("seconds").fold(0.0, f64::max);
    assert!(seconds >= longest - 1e-6, "at least the longer instance's clock: {seconds} against {longest}");
}

#[test]
fn a_run_that_never_learns_is_not_converged_at_its_bound() {
    let l = Launches::new("quality0");
    let reports = run_to_quality(&l, &[FROZEN], &["--devices", "1"]);
    let (name, r) = &reports[0];
    let q = &r["quality"];
    assert_eq!((q["converged"].as_bool(), q["time_to_quality"].is_null()), (Some(false), true), "{name}: {q:#}");
    assert_eq!(q["items"], 2000, "stopped at the items bound");
    assert_eq!(q["bound"]["items"], 2000);
    assert!(q["curve"].as_array().unwrap().iter().all(|p| p["value"] == 0.0));
    let log = mllog(&l.out(), q["mllog"].as_str().unwrap());
    let stop = log.iter().find(|l| l["key"] == "run_stop").unwrap();
    assert_eq!(stop["metadata"]["status"], "aborted");
}

#[test]
fn five_runs_give_an_olympic_mean_and_the_report_names_the_runs_that_did_not_converge() {
    let l = Launches::new("quality5");
    let reports = run_to_quality(&l, &[LEARNS], &["--devices", "1", "--runs", "5"]);
    assert_eq!(reports.len(), 5);
    let mut times: Vec<f64> = reports.iter().map(|(_, r)| r["quality"]["time_to_quality"].as_f64().unwrap()).collect();
    times.sort_by(f64::total_cmp);
    let olympic = times[1..4].iter().sum::<f64>() / 3.0;

    let json: Value = serde_json::from_str(&report(&l.out(), &["--format", "json"])).unwrap();
    let row = &json["quality"]["configs"][0];
    assert_eq!(
        (row["config"].as_str(), row["runs"].as_u64(), row["converged"].as_u64()),
        (Some("learns"), Some(5), Some(5))
    );
    assert!((row["olympic_mean"].as_f64().unwrap() - olympic).abs() < 1e-9, "{row:#} against {olympic}");
    assert_eq!(json["quality"]["concurrent"].as_array().unwrap().len(), 5, "one row per run");
    let table = report(&l.out(), &[]);
    assert!(table.contains("Time to quality") && table.contains("quality >= 0.9"), "{table}");
    let page = l.dir().join("page.html");
    report(&l.out(), &["--format", "html", "--output", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("id=\"quality\"") && html.contains("learns: quality on the clock"));

    // A run that does not learn is named.
    let frozen = Launches::new("quality5f");
    run_to_quality(&frozen, &[FROZEN], &["--devices", "1"]);
    let table = report(&frozen.out(), &[]);
    assert!(table.contains("Not converged") && table.contains("frozen: run 0, instance 0"), "{table}");
}

#[test]
fn the_mllog_files_pass_mlperfs_compliance_checker() {
    let check = python::compliance_check;
    let l = Launches::new("qualitycc");
    let reports = run_to_quality(&l, &[LEARNS, FROZEN], &["--devices", "2"]);
    assert_eq!(reports.len(), 4);
    for (_, r) in &reports {
        let file = l.out().join(r["quality"]["mllog"].as_str().unwrap());
        let (passed, said) = check(&file);
        assert!(passed, "{}: {said}", file.display());
    }
    // The checker does fail a log without its run_stop.
    let (_, r) = &reports[0];
    let text = std::fs::read_to_string(l.out().join(r["quality"]["mllog"].as_str().unwrap())).unwrap();
    let broken = l.dir().join("broken.mllog");
    std::fs::write(&broken, text.lines().filter(|l| !l.contains("run_stop")).collect::<Vec<_>>().join("\n")).unwrap();
    let (passed, said) = check(&broken);
    assert!(!passed && said.contains("run_stop"), "{said}");
}

#[test]
fn a_config_the_clock_would_refuse_is_refused_before_anything_starts() {
    let l = Launches::new("qualitybad");
    let jobs =
        l.jobs(r#"[{"name": "never", "plugin": "spin", "cgroup": "student", "args": {"size": 16, "eval_every": 0}}]"#);
    let out = l.command(&jobs, &l.out(), &["--to-quality", "--no-cgroups"]).output().unwrap();
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "refused:\n{stdout}\n{stderr}");
    assert!(stderr.contains("job #1 `never`") && stderr.contains("`eval_every` = 0"), "{stderr}");
    assert!(stderr.contains("fix: give `eval_every` a positive integer"), "{stderr}");
    assert!(!l.out().exists(), "nothing ran, nothing was written");
    // The same config times a fixed number of steps without --to-quality.
    let out = l.command(&jobs, &l.out(), &["--no-cgroups"]).output().unwrap();
    assert!(out.status.success(), "{:?}", common::text(&out));
}
