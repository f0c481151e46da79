//! `mlb report --write-rcp` and `mlb report --to-quality` with spin
//! (docs/quality.md, "Reference convergence points"): reference runs at two
//! batch sizes make a file of points holding the items their reports hold;
//! a submission of the same problem passes, one that converges in half the
//! items (a larger `lr`) fails, one between the two batch sizes is judged
//! against their interpolation, an unrelated one has no reference; a config
//! with a run that did not converge is refused as a reference.
//!
//! spin's `quality_jitter` spreads its items to converge over seeds, as
//! reference runs of a real workload spread.

use crate::common;

use common::launcher::Launches;
use serde_json::Value;
use std::path::Path;

/// spin converging after about 2303 items (10 % either way by seed), an
/// evaluation every 16 items; `extra` adds arguments.
fn job(name: &str, extra: &str) -> String {
    format!(
        r#"{{"name": "{name}", "plugin": "spin", "cgroup": "student",
            "args": {{"size": 4, "eval_every": 16, "quality_jitter": 0.1{extra}}}}}"#
    )
}

/// Runs `jobs` to quality `--runs 5` from run id `uid`.
fn run(l: &Launches, jobs: &[String], uid: &str) -> Vec<(String, Value)> {
    l.to_quality(&l.jobs(&format!("[{}]", jobs.join(", "))), &["--devices", "1", "--runs", "5", "--uid", uid])
}

/// `mlb report --reports DIR ARGS`: exit status, stdout and stderr.
fn report(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["report", "--reports", dir.to_str().unwrap()];
    all.extend(args);
    let out = common::run(&all);
    let (stdout, stderr) = common::text(&out);
    (out.status.code(), stdout, stderr)
}

#[test]
fn reference_runs_make_points_and_a_faster_submission_is_flagged() {
    let reference = Launches::new("rcpref");
    let reports = run(&reference, &[job("ref", r#", "batch_size": [16, 64]"#)], "0");
    assert_eq!(reports.len(), 10);
    let file = reference.dir().join("rcp.json");
    std::fs::write(
        &file,
        r#"{"kept": {"Benchmark": "other", "BS": 8, "Creator": "me", "Epochs to converge": [1, 2, 3]}}"#,
    )
    .unwrap();
    let (code, stdout, stderr) = report(&reference.out(), &["--write-rcp", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("2 reference point(s) written") && stdout.contains("ref_bs16"), "{stdout}");

    let set: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(set["kept"]["Creator"], "me", "other points are kept");
    for bs in [16, 64] {
        let point = &set[format!("ref_bs{bs}")];
        assert_eq!((point["Benchmark"].as_str(), point["BS"].as_u64()), (Some("spin"), Some(bs)), "{set:#}");
        assert_eq!(point["Hyperparams"]["target"], 0.9);
        assert!(point["Hyperparams"].get("batch_size").is_none() && point["Hyperparams"]["eval_every"] == 16);
        let mut items: Vec<u64> =
            point["samples to converge"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        let mut expected: Vec<u64> = reports
            .iter()
            .filter(|(_, r)| r["batch_size"] == bs)
            .map(|(_, r)| r["quality"]["items"].as_u64().unwrap())
            .collect();
        items.sort();
        expected.sort();
        assert_eq!(items, expected, "the items of the reports at BS {bs}");
        assert!(items.first() != items.last(), "the jitter spreads them: {items:?}");
    }
    let keys: Vec<&String> = set.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3);

    let submission = Launches::new("rcpsub");
    run(
        &submission,
        &[
            job("same", r#", "batch_size": 16"#),
            job("fast", r#", "batch_size": 16, "lr": 2"#),
            job("between", r#", "batch_size": 32"#),
            job("unrelated", r#", "batch_size": 16, "quality_scale": 500"#),
        ],
        "10",
    );
    let (code, stdout, stderr) =
        report(&submission.out(), &["--to-quality", "--rcp", file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0), "a failed check is shown, not an error:\n{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let check = &json["quality"]["rcp"];
    assert_eq!(check["set"], file.to_str().unwrap());
    let row = |config: &str| {
        check["rows"].as_array().unwrap().iter().find(|r| r["config"] == config).unwrap_or_else(|| panic!("{check:#}"))
    };
    let same = row("same");
    assert_eq!((same["status"].as_str(), same["message"].as_str()), (Some("passed"), Some("RCP found")), "{same:#}");
    assert_eq!(same["reference"], "ref_bs16");
    let fast = row("fast");
    assert_eq!(fast["status"], "failed", "half the items: {fast:#}");
    assert!(fast["submission_mean"].as_f64().unwrap() < fast["min_mean"].as_f64().unwrap());
    assert!(fast["norm_factor"].as_f64().unwrap() > 1.5);
    let between = row("between");
    assert_eq!(
        (between["message"].as_str(), between["reference"].as_str()),
        (Some("RCP Interpolation"), Some("spin_interp_32"))
    );
    let unrelated = row("unrelated");
    assert_eq!(unrelated["status"], "no_reference");
    assert!(
        unrelated["message"].as_str().unwrap().contains("quality_scale=500"),
        "names what was looked for: {unrelated:#}"
    );

    let (_, table, _) = report(&submission.out(), &["--to-quality", "--rcp", file.to_str().unwrap()]);
    assert!(
        table.contains("MLPerf's RCP check") && table.contains("FAIL") && table.contains("no reference"),
        "{table}"
    );
    let page = submission.dir().join("page.html");
    report(
        &submission.out(),
        &["--to-quality", "--rcp", file.to_str().unwrap(), "--format", "html", "--output", page.to_str().unwrap()],
    );
    assert!(std::fs::read_to_string(&page).unwrap().contains("RCP Interpolation"));

    let missing = submission.dir().join("missing.json");
    let (code, _, stderr) = report(&submission.out(), &["--to-quality", "--rcp", missing.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("cannot read the RCP file") && stderr.contains("fix: pass an RCP file"), "{stderr}");

    // Without --rcp, the installed set: empty, so no config has a reference.
    let (code, stdout, _) = report(&submission.out(), &["--to-quality", "--format", "json"]);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(code, Some(0));
    assert!(json["quality"]["rcp"]["rows"].as_array().unwrap().iter().all(|r| r["status"] == "no_reference"));
}

#[test]
fn a_config_with_a_run_that_did_not_converge_is_refused_as_a_reference_and_nothing_is_written() {
    let l = Launches::new("rcpnot");
    // Seeds 100 to 104: the bound of 2200 items stops the slower ones.
    run(&l, &[job("short", r#", "batch_size": 16, "max_items": 2200"#)], "0");
    let file = l.dir().join("rcp.json");
    let (code, stdout, stderr) = report(&l.out(), &["--write-rcp", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("config `short` cannot be a reference") && stderr.contains("did not converge"), "{stderr}");
    assert!(stderr.contains("nothing was written") && stderr.contains("fix: raise the bound"), "{stderr}");
    assert!(!file.exists());
}

#[test]
fn to_quality_on_a_throughput_folder_and_rcp_without_it_are_refused() {
    let l = Launches::new("rcpthr");
    let file = l.jobs(r#"[{"name": "t", "plugin": "spin", "args": {"size": 4, "repeat": 3, "number": 1, "skip": 1}}]"#);
    let out = l.command(&file, &l.out(), &["--no-cgroups"]).output().unwrap();
    assert!(out.status.success(), "{:?}", common::text(&out));
    let (code, _, stderr) = report(&l.out(), &["--to-quality"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no run to quality in") && stderr.contains("--to-quality` run"), "{stderr}");
    let (code, _, stderr) = report(&l.out(), &["--rcp", "x.json"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--to-quality"), "{stderr}");
}
