//! From the entries read to the whole report: suite selection, failures,
//! per-bench table, score, per-GPU tables, baseline comparison and notes.

use super::baseline::{compare, Comparison};
use super::entry::{Entry, Outcome};
use super::error::ReportError;
use super::per_gpu::{per_gpu, GpuTables};
use super::read::{Reading, Unreadable};
use super::score::{bench_rows, is_multi_gpu, score, BenchRow, Score, MULTI_GPU};
use super::targets::Targets;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What the report is asked for, besides the folder.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Only entries of this suite.
    pub suite: Option<String>,
    /// The target table.
    pub targets: Option<Targets>,
    /// Price of the machine (USD), for RPP.
    pub price: Option<f64>,
    /// The number of GPUs the machine has, checked against the devices found.
    pub gpu_total: Option<usize>,
}

/// A failed entry, listed with its file and cause.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailureRow {
    /// The report file.
    pub file: PathBuf,
    /// Bench name.
    pub bench: String,
    /// Visible device(s).
    pub vcd: Option<String>,
    /// Cause (`failure.cause`, or `nan`, `incomplete`, `no_throughput`).
    pub cause: String,
    /// What happened.
    pub message: String,
}

/// One successful run, for the spread chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Bench name.
    pub bench: String,
    /// Visible device(s).
    pub vcd: Option<String>,
    /// `train_item.avg`.
    pub value: f64,
}

/// The comparison with `--baseline DIR`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BaselineReport {
    /// The baseline folder.
    pub reports: PathBuf,
    /// Files of it that could not be read.
    pub unreadable: Vec<Unreadable>,
    /// One row per bench present on both sides.
    pub comparisons: Vec<Comparison>,
}

/// Everything `mlb report` shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The reports folder.
    pub reports: PathBuf,
    /// The suite selected, if any.
    pub suite: Option<String>,
    /// The target table used, if any.
    pub targets: Option<String>,
    /// Report files found.
    pub files: usize,
    /// Files that could not be read, with the reason.
    pub unreadable: Vec<Unreadable>,
    /// Failed entries.
    pub failures: Vec<FailureRow>,
    /// Per-bench table.
    pub benches: Vec<BenchRow>,
    /// Score; none without targets.
    pub score: Option<Score>,
    /// Per-GPU relative tables and flags.
    pub per_gpu: GpuTables,
    /// Comparison with a baseline.
    pub baseline: Option<BaselineReport>,
    /// Things the reader should know (missing targets, left-out entries...).
    pub notes: Vec<String>,
    /// Successful runs (for charts; not serialised).
    #[serde(skip)]
    pub runs: Vec<Run>,
}

/// Entries kept for the report, and what was left out.
struct Selection {
    kept: Vec<Entry>,
    multi_gpu: usize,
    other_suites: BTreeSet<String>,
}

/// Keeps the entries of `suite` (by their `suite` field, or for reports
/// without one by a file name starting with `<suite>.` or `<suite>_`) and
/// drops the multi-GPU benches.
fn select(entries: Vec<Entry>, suite: Option<&str>) -> Selection {
    let mut sel = Selection { kept: Vec::with_capacity(entries.len()), multi_gpu: 0, other_suites: BTreeSet::new() };
    for entry in entries {
        if let Some(wanted) = suite {
            if !in_suite(&entry, wanted) {
                sel.other_suites.insert(entry.suite.clone().unwrap_or_else(|| "(none)".into()));
                continue;
            }
        }
        if is_multi_gpu(&entry.name) {
            sel.multi_gpu += 1;
        } else {
            sel.kept.push(entry);
        }
    }
    sel
}

fn in_suite(entry: &Entry, suite: &str) -> bool {
    match &entry.suite {
        Some(s) => s == suite,
        None => {
            entry.file.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.strip_prefix(suite).is_some_and(|rest| rest.starts_with('.') || rest.starts_with('_'))
            })
        }
    }
}

/// Builds the report from what was read in `dir` (and in the baseline
/// folder). Errs when no entry is left to report on.
pub fn aggregate(
    dir: &Path,
    reading: Reading,
    baseline: Option<(&Path, Reading)>,
    opts: &Options,
) -> Result<Report, ReportError> {
    let sel = select(reading.entries, opts.suite.as_deref());
    if sel.kept.is_empty() {
        return Err(empty(dir, reading.files, &reading.unreadable, &sel, opts));
    }
    let kept: Vec<&Entry> = sel.kept.iter().collect();
    let benches = bench_rows(&kept, opts.targets.as_ref());
    let mut report = Report {
        reports: dir.to_path_buf(),
        suite: opts.suite.clone(),
        targets: opts.targets.as_ref().map(|t| t.source.clone()),
        files: reading.files,
        unreadable: reading.unreadable,
        failures: failures(&kept),
        score: score(&benches, opts.price),
        per_gpu: per_gpu(&kept),
        baseline: None,
        notes: Vec::new(),
        runs: kept
            .iter()
            .filter_map(|e| e.throughput().map(|value| Run { bench: e.name.clone(), vcd: e.vcd.clone(), value }))
            .collect(),
        benches,
    };
    report.notes = notes(&report, &sel, opts);
    if let Some((base_dir, base_reading)) = baseline {
        let base_sel = select(base_reading.entries, opts.suite.as_deref());
        let base_entries: Vec<&Entry> = base_sel.kept.iter().collect();
        let comparisons = compare(&report.benches, &bench_rows(&base_entries, None));
        if comparisons.is_empty() {
            report.notes.push(format!("the baseline {} has no bench in common with this report", base_dir.display()));
        }
        report.baseline =
            Some(BaselineReport { reports: base_dir.to_path_buf(), unreadable: base_reading.unreadable, comparisons });
    }
    Ok(report)
}

fn failures(entries: &[&Entry]) -> Vec<FailureRow> {
    entries
        .iter()
        .filter_map(|e| match &e.outcome {
            Outcome::Ok(_) => None,
            Outcome::Failed { cause, message } => Some(FailureRow {
                file: e.file.to_path_buf(),
                bench: e.name.clone(),
                vcd: e.vcd.clone(),
                cause: cause.clone(),
                message: message.clone(),
            }),
        })
        .collect()
}

fn notes(report: &Report, sel: &Selection, opts: &Options) -> Vec<String> {
    let mut notes = Vec::new();
    if sel.multi_gpu > 0 {
        notes.push(format!(
            "{} entries of the multi-GPU benches ({}) are left out",
            sel.multi_gpu,
            MULTI_GPU.join(", ")
        ));
    }
    match &opts.targets {
        None => notes.push(
            "no target table: pass --gpu-model V100|RTX|MI50 or --targets FILE for perf, passes and the score".into(),
        ),
        Some(t) => {
            let found: BTreeSet<&str> = report.benches.iter().map(|b| b.bench.as_str()).collect();
            for row in report.benches.iter().filter(|b| b.target.is_none()) {
                notes.push(format!("bench `{}` has no target in {}: left out of the score", row.bench, t.source));
            }
            let missing: Vec<&str> =
                t.benches.keys().map(String::as_str).filter(|b| !found.contains(b) && !is_multi_gpu(b)).collect();
            if !missing.is_empty() {
                notes.push(format!("benches of {} without any report: {}", t.source, missing.join(", ")));
            }
        }
    }
    if let Some(total) = opts.gpu_total {
        let found = report.per_gpu.devices.len();
        if found != total {
            let ids: Vec<&str> = report.per_gpu.devices.iter().map(|d| d.id.as_str()).collect();
            notes
                .push(format!("--gputotal {total}, but single-GPU reports name {found} device(s): {}", ids.join(", ")));
        }
    }
    notes
}

/// The error for a folder with nothing to report on, saying what was found.
fn empty(dir: &Path, files: usize, unreadable: &[Unreadable], sel: &Selection, opts: &Options) -> ReportError {
    let mut detail = String::new();
    let mut hint = String::new();
    if files == 0 {
        detail.push_str(": no *.json file in it or its sub-folders");
    } else {
        detail.push_str(&format!(": {files} report file(s)"));
        if !unreadable.is_empty() {
            let first = &unreadable[0];
            detail.push_str(&format!(
                ", {} unreadable (first: {}: {})",
                unreadable.len(),
                first.path.display(),
                first.reason
            ));
        }
        if let (Some(suite), false) = (&opts.suite, sel.other_suites.is_empty()) {
            let others: Vec<&str> = sel.other_suites.iter().map(String::as_str).collect();
            detail.push_str(&format!(", none of suite `{suite}` (suites found: {})", others.join(", ")));
            hint.push_str(" and the right --suite NAME");
        }
        if sel.multi_gpu > 0 {
            detail.push_str(&format!(", only multi-GPU benches ({} entries, left out)", sel.multi_gpu));
        }
    }
    ReportError::Empty { path: dir.to_path_buf(), detail, hint }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn entry(file: &str, suite: Option<&str>, name: &str) -> Entry {
        Entry {
            file: Arc::from(Path::new(file)),
            name: name.into(),
            suite: suite.map(str::to_string),
            vcd: Some("0".into()),
            gpu: None,
            outcome: Outcome::Ok(1.0),
        }
    }

    #[test]
    fn suite_by_field_or_file_name() {
        let entries = vec![
            entry("d/fast.vae.R1.D0.json", Some("fast"), "vae"),
            entry("d/x.json", Some("slow"), "vae"),
            entry("d/fast_0.json", None, "wlm"),
            entry("d/faster_0.json", None, "wlm"),
            entry("d/fast.dcgan_all.json", Some("fast"), "dcgan_all"),
        ];
        let sel = select(entries, Some("fast"));
        let files: Vec<String> = sel.kept.iter().map(|e| e.file.display().to_string()).collect();
        assert_eq!(files, ["d/fast.vae.R1.D0.json", "d/fast_0.json"]);
        assert_eq!(sel.multi_gpu, 1);
        assert_eq!(sel.other_suites.into_iter().collect::<Vec<_>>(), ["(none)", "slow"]);
    }

    #[test]
    fn empty_folder_message() {
        let dir = tempfile::tempdir().unwrap();
        let err = aggregate(dir.path(), Reading::default(), None, &Options::default()).unwrap_err().to_string();
        assert!(err.contains("no reports in") && err.contains("no *.json file"), "{err}");
        assert!(err.contains(&dir.path().display().to_string()));
    }

    #[test]
    fn wrong_suite_message_lists_the_suites_found() {
        let reading = Reading { files: 1, entries: vec![entry("d/a.json", Some("slow"), "vae")], unreadable: vec![] };
        let opts = Options { suite: Some("fast".into()), ..Options::default() };
        let err = aggregate(Path::new("d"), reading, None, &opts).unwrap_err().to_string();
        assert!(err.contains("none of suite `fast` (suites found: slow)") && err.contains("--suite NAME"), "{err}");
    }

    #[test]
    fn notes_and_gputotal() {
        let reading = Reading {
            files: 2,
            entries: vec![entry("a", None, "vae"), entry("b", None, "mystery")],
            unreadable: vec![],
        };
        let targets = Targets::parse(
            "t.csv",
            "bench,target,perf_target,sd_target\nvae,1,0.5,0.1\nwlm,1,0.5,0.1\ndcgan_all,1,0.5,0.1\n",
        )
        .unwrap();
        let opts = Options { targets: Some(targets), gpu_total: Some(8), ..Options::default() };
        let report = aggregate(Path::new("d"), reading, None, &opts).unwrap();
        assert_eq!(
            report.notes,
            [
                "bench `mystery` has no target in t.csv: left out of the score",
                "benches of t.csv without any report: wlm",
                "--gputotal 8, but single-GPU reports name 1 device(s): 0",
            ]
        );
    }
}
