//! The quality suite end to end (docs/quality.md, "The quality suite"): the
//! libtorch quality workloads of the shipped `configs/quality.json`, on the
//! sets of `mlb prepare --scale small`, each reach their documented target
//! within their documented time (`max_seconds`) through `mlb --jobs FILE
//! --to-quality`; the same jobs with a broken optimizer (`lr: 0`) reach none,
//! and `mlb report` names every one of them as not converged. The MLLOG
//! files of both runs pass MLPerf's compliance checker.
//!
//! They need the release build of the libtorch plugin (`cargo xtask build
//! --torch`) and the PyTorch venv (the checker runs in its python): the torch
//! tier (`.config/nextest.toml`).

use crate::common::{self, python};

use common::launcher::Launches;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The shipped jobs file of the quality suite.
fn suite_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/quality.json")
}

/// The jobs of [`suite_file`]: each job's name and its arguments.
fn suite_jobs() -> Vec<(String, Map<String, Value>)> {
    let text = std::fs::read_to_string(suite_file()).unwrap();
    let jobs: Vec<Value> = serde_json::from_str(&text).unwrap();
    jobs.iter().map(|j| (j["name"].as_str().unwrap().to_string(), j["args"].as_object().unwrap().clone())).collect()
}

/// Launches of the libtorch plugin, and the base folder (`--base`) of the
/// small sets the suite reads: prepared once into the tests' target folder
/// and kept there (`mlb prepare` checks and skips sets already present, and
/// `--wait`s for another test preparing them); the time is printed.
fn launches(name: &str) -> (Launches, PathBuf) {
    let l = Launches::with_plugins(name, common::torch_plugin_dir("the quality suite runs the libtorch workloads"));
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("quality-suite");
    let started = Instant::now();
    let suite = suite_file();
    let out = common::prepare::run(&base, &["--jobs", suite.to_str().unwrap(), "--scale", "small", "--wait"]);
    assert!(out.status.success(), "mlb prepare failed: {:?}", common::text(&out));
    eprintln!("prepared the suite's small sets in {:.1} s", started.elapsed().as_secs_f64());
    (l, base)
}

/// `mlb --jobs JOBS --to-quality` into the test's output folder, on the
/// sets in `base`, checked to succeed; the reports, by job name (one
/// instance, one run each).
fn run_to_quality(l: &Launches, jobs: &Path, base: &Path) -> Vec<(String, Value)> {
    let started = Instant::now();
    let reports = l.to_quality(jobs, &["--devices", "1", "--base", base.to_str().unwrap()]);
    eprintln!("ran {} to quality in {:.1} s", jobs.display(), started.elapsed().as_secs_f64());
    reports.into_iter().map(|(_, r)| (r["name"].as_str().unwrap().to_string(), r)).collect()
}

/// Whether `value` is at `target` in the direction of the report's metric.
fn reaches(quality: &Value, value: f64) -> bool {
    let target = quality["target"].as_f64().unwrap();
    if quality["higher_is_better"].as_bool().unwrap() {
        value >= target
    } else {
        value <= target
    }
}

/// The values of a report's quality curve.
fn curve(quality: &Value) -> Vec<f64> {
    quality["curve"].as_array().unwrap().iter().map(|p| p["value"].as_f64().unwrap()).collect()
}

/// Every MLLOG file of the reports passes MLPerf's compliance checker.
fn compliant(out: &Path, reports: &[(String, Value)]) {
    for (name, r) in reports {
        let file = out.join(r["quality"]["mllog"].as_str().unwrap());
        let (passed, said) = python::compliance_check(&file);
        assert!(passed, "{name}: {}: {said}", file.display());
    }
}

/// The job's argument `key` as a whole number.
fn count(args: &Map<String, Value>, name: &str, key: &str) -> u64 {
    args.get(key).and_then(Value::as_u64).unwrap_or_else(|| panic!("job `{name}` of the suite has no `{key}`"))
}

#[test]
fn every_workload_of_the_suite_reaches_its_target_within_its_documented_time() {
    let (l, base) = launches("qsuite");
    let jobs = suite_jobs();
    let reports = run_to_quality(&l, &suite_file(), &base);
    assert_eq!(reports.len(), jobs.len(), "one report per job: {:?}", reports.iter().map(|r| &r.0).collect::<Vec<_>>());
    for (name, args) in &jobs {
        let (_, r) = reports.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no report of `{name}`"));
        let q = &r["quality"];
        let documented = count(args, name, "max_seconds") as f64;
        let values = curve(q);
        eprintln!(
            "{name}: {} {} after {} items, {:.1} s on the clock (documented {documented} s), init {:.1} s",
            q["metric"].as_str().unwrap(),
            values.last().unwrap(),
            q["items"],
            q["seconds"].as_f64().unwrap(),
            q["init_seconds"].as_f64().unwrap(),
        );
        assert_eq!(r["completed"], true, "{name}: {r:#}");
        if let Some(target) = args.get("target") {
            assert_eq!(q["target"].as_f64(), target.as_f64(), "{name}: the job's target");
        }
        assert_eq!(q["converged"], true, "{name} did not reach its target: {q:#}");
        let ttq = q["time_to_quality"].as_f64().unwrap();
        assert!(ttq <= documented, "{name}: {ttq} s to quality, documented {documented} s");
        let (last, before) = values.split_last().unwrap();
        assert!(reaches(q, *last), "{name}: the curve ends at {last}, not at its target: {q:#}");
        assert!(!before.iter().any(|v| reaches(q, *v)), "{name}: the clock stops at the first reach: {values:?}");
        assert_eq!(q["eval_every"].as_u64(), Some(count(args, name, "eval_every")), "{name}");
    }
    compliant(&l.out(), &reports);
}

#[test]
fn with_a_learning_rate_of_zero_no_workload_converges_and_the_report_says_so() {
    let (l, base) = launches("qsuite0");
    // The shipped jobs with `lr: 0`, bounded to two evaluations of four
    // batches each: a broken optimizer, quickly told apart.
    let jobs = suite_jobs();
    let text = std::fs::read_to_string(suite_file()).unwrap();
    let mut broken: Vec<Value> = serde_json::from_str(&text).unwrap();
    for job in &mut broken {
        let args = job["args"].as_object_mut().unwrap();
        let batch = args["batch_size"].as_u64().unwrap();
        args.insert("lr".into(), 0.into());
        args.insert("eval_every".into(), (2 * batch).into());
        args.insert("max_items".into(), (4 * batch).into());
    }
    let file = l.jobs(&serde_json::to_string(&broken).unwrap());
    let reports = run_to_quality(&l, &file, &base);
    assert_eq!(reports.len(), jobs.len());
    for (name, r) in &reports {
        let q = &r["quality"];
        let bound = q["bound"]["items"].as_u64().unwrap();
        assert_eq!((q["converged"].as_bool(), q["time_to_quality"].is_null()), (Some(false), true), "{name}: {q:#}");
        assert_eq!(q["items"].as_u64(), Some(bound), "{name}: stopped at its bound of items");
        let values = curve(q);
        assert_eq!(values.len(), 2, "{name}: {values:?}");
        assert!(!values.iter().any(|v| reaches(q, *v)), "{name}: {values:?} against {}", q["target"]);
    }

    let report = |args: &[&str]| common::report(&l.out(), args);
    let json: Value = serde_json::from_str(&report(&["--format", "json"])).unwrap();
    let rows = json["quality"]["configs"].as_array().unwrap();
    assert_eq!(rows.len(), jobs.len(), "{rows:#?}");
    let table = report(&[]);
    assert!(table.contains("Not converged"), "{table}");
    for (name, _) in &jobs {
        let row = rows.iter().find(|r| r["config"] == name.as_str()).unwrap_or_else(|| panic!("no row of {name}"));
        assert_eq!((row["runs"].as_u64(), row["converged"].as_u64()), (Some(1), Some(0)), "{row:#}");
        assert_eq!(row["not_converged"].as_array().unwrap().len(), 1, "{row:#}");
        assert!(table.contains(&format!("{name}: run 0, instance 0")), "{name} not named as not converged:\n{table}");
    }
    compliant(&l.out(), &reports);
}
