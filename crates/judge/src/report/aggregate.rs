//! From the entries read to the whole report: suite selection, the checks,
//! the rows (per config and per bench), the score, per-GPU tables, the
//! baseline comparison, warnings and notes.

use super::baseline::{compare, Comparison};
use super::energy::{
    energy, flagged, non_physical, sampled, ConditionFlag, EnergyTables, Sampled, MAX_JOULES_PER_ITEM,
};
use super::error::ReportError;
use super::groups::{groups, GroupRow};
use super::judge::{judge, Check, Rule};
use super::mfu::{mfu, MfuTables};
use super::per_gpu::{per_gpu, GpuTables};
use super::per_node::{per_node, NodeTables};
use super::profile::{self, ProfileScore};
use super::reproducibility::{instances, vote, Group};
use super::rows::{layout, rows, Grouping, Judged, Layout, Row};
use super::score::{is_multi_gpu, score, Score, MULTI_GPU};
use super::source::{Disk, Source};
use super::targets::Targets;
use mlb_record::contract::physical::FLOOR;
use mlb_record::contract::read::Entry;
use mlb_record::contract::read::{Reading, Unreadable};
use mlb_run::system::SystemDesc;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The unit of every throughput figure (`train_item.avg`).
pub const UNIT: &str = "items/s";

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
    /// Which checks decide failures: the original's (default) or mlb's stricter ones.
    pub rule: Rule,
    /// Rows of the native views: per config (default) or per bench.
    pub grouping: Grouping,
    /// Compare with a baseline of another accelerator model.
    pub force: bool,
}

/// A failed (or disputed) entry, listed with its file and cause.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailureRow {
    /// The report file.
    pub file: PathBuf,
    /// Bench name (`None` for a null name).
    pub bench: Option<String>,
    /// Visible device(s).
    pub vcd: Option<String>,
    /// The check it fails.
    pub check: Check,
    /// Cause (`failure.cause` of an mlb record, else the check's words).
    pub cause: String,
    /// What happened.
    pub message: String,
}

/// One counted run with a finite throughput, for the spread chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Row label.
    pub label: String,
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
    /// One comparison per row present on both sides.
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
    /// The unit of the throughput figures.
    pub unit: &'static str,
    /// Which checks decide failures.
    pub rule: Rule,
    /// How `rows` are grouped.
    pub grouping: Grouping,
    /// Files that could not be read, with the reason.
    pub unreadable: Vec<Unreadable>,
    /// The results table: one row per config (or per bench).
    pub rows: Vec<Row>,
    /// The score's table: one row per bench, every config pooled, as the original.
    pub benches: Vec<Row>,
    /// Score; none without targets, and for the reports of a score profile's
    /// suites ([`profile_score`](Self::profile_score)).
    pub score: Option<Score>,
    /// The score under the other rule (the original's with `--strict`, the
    /// stricter one without); none without targets.
    pub other_score: Option<Score>,
    /// The score of the profile whose suites the reports are of (the modern
    /// suite's: docs/targets.md, "Score profiles"); left out of the JSON
    /// for other reports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile_score: Option<ProfileScore>,
    /// Failed entries.
    pub failures: Vec<FailureRow>,
    /// Entries the original counts and mlb's stricter check fails.
    pub stricter: Vec<FailureRow>,
    /// Warnings: where mlb's stricter check disagrees with these figures.
    pub warnings: Vec<String>,
    /// Per-GPU relative tables and flags.
    pub per_gpu: GpuTables,
    /// Per-node relative tables and stragglers (reports from several nodes).
    pub per_node: NodeTables,
    /// Energy per item and items per watt, from the instances' telemetry.
    pub energy: EnergyTables,
    /// Achieved TFLOPS and MFU of the entries that state their FLOPs per
    /// item; left out of the JSON when none does.
    #[serde(skip_serializing_if = "MfuTables::is_empty")]
    pub mfu: MfuTables,
    /// Instances that throttled for more than 1% of their window or ran on
    /// a degraded link.
    pub conditions: Vec<ConditionFlag>,
    /// The run's `system.json`, when the reports folder holds one.
    pub system: Option<SystemDesc>,
    /// Instances whose telemetry timelines the HTML page draws (not serialised).
    #[serde(skip)]
    pub sampled: Vec<Sampled>,
    /// Data parallel groups: total throughput and scaling efficiency.
    pub groups: Vec<GroupRow>,
    /// The vote over the fingerprints of deterministic runs, per config,
    /// device and stack; left out of the JSON when no report has a
    /// `determinism` block.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reproducibility: Vec<Group>,
    /// Comparison with a baseline.
    pub baseline: Option<BaselineReport>,
    /// This run against its history in the results store (`--db`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regressions: Option<super::history::Regressions>,
    /// The run to quality the folder holds (`mlb --to-quality`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<super::quality::QualityTables>,
    /// Things the reader should know (missing targets, left-out entries...).
    pub notes: Vec<String>,
    /// Counted runs with a finite throughput (for charts; not serialised).
    #[serde(skip)]
    pub runs: Vec<Run>,
}

/// Entries kept for the report, and what was left out.
struct Selection {
    kept: Vec<Entry>,
    multi_gpu: usize,
    other_suites: BTreeSet<String>,
    /// Entries of other suites kept because their file name matches the
    /// original's pattern (`baselines_fp16.*` under `--suite baselines`), by suite.
    by_pattern: BTreeMap<String, usize>,
}

/// Keeps the entries of `suite` (by their `suite` field, or by the
/// original's file name pattern: [`original_pattern`]) and drops the
/// multi-GPU benches.
fn select(mut entries: Vec<Entry>, suite: Option<&str>) -> Selection {
    let (mut multi_gpu, mut other_suites, mut by_pattern) = (0, BTreeSet::new(), BTreeMap::new());
    // In place: the entries are the largest thing `mlb report` holds.
    entries.retain(|entry| {
        if let Some(wanted) = suite {
            if !in_suite(entry, wanted) {
                other_suites.insert(entry.suite.as_deref().unwrap_or("(none)").to_string());
                return false;
            }
            if let Some(other) = entry.suite.as_deref().filter(|s| *s != wanted) {
                *by_pattern.entry(other.to_string()).or_default() += 1;
            }
        }
        if entry.name.as_deref().is_some_and(is_multi_gpu) {
            multi_gpu += 1;
            return false;
        }
        true
    });
    Selection { kept: entries, multi_gpu, other_suites, by_pattern }
}

/// Whether `entry` is of `suite`: by its `suite` field, or by its file
/// name as the original read it ([`original_pattern`]).
pub fn in_suite(entry: &Entry, suite: &str) -> bool {
    entry.suite.as_deref() == Some(suite) || original_pattern(&entry.file, suite)
}

/// Whether the original's `--jobs suite` read `file`: its name matches the
/// glob pattern `<suite>[_.]*.json` (the suite, `_` or `.`, anything, even
/// nothing, then `.json`), so `baselines_fp16.vae.R0.D0.json` is one of
/// `baselines` and `baselines.json` is not. An entry is in the suite when
/// its file matches or its `suite` field is the suite.
fn original_pattern(file: &Path, suite: &str) -> bool {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    name.strip_prefix(suite)
        .is_some_and(|rest| rest.strip_prefix(['_', '.']).is_some_and(|tail| tail.ends_with(".json")))
}

/// The tables, score and lists of one rule, over judged entries.
struct Figures {
    rows: Vec<Row>,
    benches: Vec<Row>,
    score: Option<Score>,
    failures: usize,
}

/// The rows of the report's grouping and the per-bench ones of the score.
struct Layouts<'a> {
    rows: Layout<'a>,
    benches: Layout<'a>,
    /// The grouping of `rows`.
    grouping: Grouping,
}

impl<'a> Layouts<'a> {
    fn of(judged: &[Judged<'a>], grouping: Grouping) -> Self {
        let benches = layout(judged, Grouping::Bench);
        let rows = match grouping {
            Grouping::Bench => benches.clone(),
            Grouping::Config => layout(judged, Grouping::Config),
        };
        Layouts { rows, benches, grouping }
    }

    /// The rows of one config each, whatever the report's grouping (the
    /// vote never pools configs).
    fn configs(&self, judged: &[Judged<'a>]) -> Cow<'_, Layout<'a>> {
        match self.grouping {
            Grouping::Config => Cow::Borrowed(&self.rows),
            Grouping::Bench => Cow::Owned(layout(judged, Grouping::Config)),
        }
    }
}

fn figures(judged: &[Judged], layouts: &Layouts, opts: &Options, rule: Rule) -> Figures {
    let targets = opts.targets.as_ref();
    let benches = rows(judged, &layouts.benches, targets, rule);
    let rows = match opts.grouping {
        Grouping::Bench => benches.clone(),
        Grouping::Config => rows(judged, &layouts.rows, targets, rule),
    };
    let failures = judged.iter().filter(|j| rule.fails(j.check)).count();
    let score = targets.map(|_| score(&benches, judged.len(), failures, opts.price));
    Figures { rows, benches, score, failures }
}

/// Builds the report from what was read in `dir` (and in the baseline
/// folder). Errs when no entry is left to report on.
pub fn aggregate(
    dir: &Path,
    reading: Reading,
    baseline: Option<(&Path, Reading)>,
    opts: &Options,
) -> Result<Report, ReportError> {
    aggregate_from(dir, reading, baseline, opts, &Disk)
}

/// [`aggregate`], reading the system description and the timelines from `source`.
pub fn aggregate_from(
    dir: &Path,
    reading: Reading,
    baseline: Option<(&Path, Reading)>,
    opts: &Options,
    source: &dyn Source,
) -> Result<Report, ReportError> {
    let sel = select(reading.entries, opts.suite.as_deref());
    if sel.kept.is_empty() {
        return Err(empty(dir, reading.files, &reading.unreadable, &sel, opts));
    }
    let checks = judge(&sel.kept);
    let judged: Vec<Judged> = sel.kept.iter().zip(checks).map(|(entry, check)| Judged { entry, check }).collect();
    let rule = opts.rule;
    let layouts = Layouts::of(&judged, opts.grouping);
    let mut mine = figures(&judged, &layouts, opts, rule);
    let mut other = figures(&judged, &layouts, opts, rule.other());
    let profile = profile::for_suites(sel.kept.iter().map(|e| e.suite.as_deref()));
    let profile_score = profile.map(|p| {
        // The original score never sees the profile's benches.
        (mine.score, other.score) = (None, None);
        p.score(&mine.benches, &mfu(&judged, &layouts.benches, rule), judged.len(), mine.failures)
    });
    let failures = listed(&judged, |j| rule.fails(j.check));
    let stricter = listed(&judged, |j| j.disputed());
    let mut report = Report {
        reports: dir.to_path_buf(),
        suite: opts.suite.clone(),
        targets: opts.targets.as_ref().map(|t| t.source.clone()),
        files: reading.files,
        unit: UNIT,
        rule,
        grouping: opts.grouping,
        unreadable: reading.unreadable,
        warnings: warnings(&stricter, rule, mine.score.as_ref(), other.score.as_ref(), other.failures),
        failures,
        stricter,
        per_gpu: per_gpu(&judged, &layouts.rows, rule),
        per_node: per_node(&judged, &layouts.rows, rule),
        energy: energy(&judged, &layouts.rows, rule),
        mfu: mfu(&judged, &layouts.rows, rule),
        conditions: flagged(&judged, &layouts.rows, rule),
        system: source.system(dir),
        sampled: sampled(&judged, &layouts.rows, rule, source),
        groups: groups(&judged, rule),
        reproducibility: vote(instances(&judged, || layouts.configs(&judged), source)),
        baseline: None,
        regressions: None,
        quality: None,
        notes: Vec::new(),
        runs: runs(&judged, &layouts.rows, rule),
        rows: mine.rows,
        benches: mine.benches,
        score: mine.score,
        other_score: other.score,
        profile_score,
    };
    report.notes = notes(&report, &sel, opts);
    let unphysical = non_physical(&judged, &layouts.rows, rule);
    if !unphysical.is_empty() {
        let files: Vec<String> = unphysical.iter().map(|f| f.display().to_string()).collect();
        report.notes.push(format!(
            "{} instances have a non-physical energy per item (at or below {FLOOR:e}, or above {MAX_JOULES_PER_ITEM:e} J): \
             left out of the energy tables, their throughput counts: {}",
            files.len(),
            files.join(", ")
        ));
    }
    if let Some((base_dir, base_reading)) = baseline {
        let base_sel = select(base_reading.entries, opts.suite.as_deref());
        let base_checks = judge(&base_sel.kept);
        let base: Vec<Judged> =
            base_sel.kept.iter().zip(base_checks).map(|(entry, check)| Judged { entry, check }).collect();
        let comparisons = compare(&report.rows, &rows(&base, &layout(&base, opts.grouping), None, rule));
        if comparisons.is_empty() {
            report.notes.push(format!("the baseline {} has no row in common with this report", base_dir.display()));
        }
        report.baseline =
            Some(BaselineReport { reports: base_dir.to_path_buf(), unreadable: base_reading.unreadable, comparisons });
    }
    // Freed beside the rendering, on an idle reading thread: a hundred
    // thousand entries take longer to free than the report takes to render.
    drop(judged);
    rayon::spawn(move || drop(sel));
    Ok(report)
}

/// The entries `pick` selects, as failure rows sorted by file.
fn listed(judged: &[Judged], pick: impl Fn(&Judged) -> bool) -> Vec<FailureRow> {
    let mut out: Vec<FailureRow> = judged
        .iter()
        .filter(|j| pick(j))
        .filter_map(|j| {
            let check = j.check?;
            let e = j.entry;
            let (cause, message) = match (&e.failure, check) {
                (Some((cause, message)), Check::Incomplete) => (cause.clone(), message.clone()),
                _ => (check.label().to_string(), check.message().to_string()),
            };
            Some(FailureRow {
                file: e.file.to_path_buf(),
                bench: e.name.as_deref().map(str::to_string),
                vcd: e.vcd.as_deref().map(str::to_string),
                check,
                cause,
                message,
            })
        })
        .collect();
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

fn runs(judged: &[Judged], layout: &Layout, rule: Rule) -> Vec<Run> {
    judged
        .iter()
        .zip(&layout.of_entry)
        .filter_map(|(j, row)| {
            let value = j.value(rule).filter(|v| v.is_finite())?;
            Some(Run {
                label: layout.rows[(*row)?].label.clone(),
                vcd: j.entry.vcd.as_deref().map(str::to_string),
                value,
            })
        })
        .collect()
}

/// The warning lines: entries the two rules judge differently, and what
/// the other rule makes of the score.
fn warnings(
    stricter: &[FailureRow],
    rule: Rule,
    score: Option<&Score>,
    other: Option<&Score>,
    other_failures: usize,
) -> Vec<String> {
    if stricter.is_empty() {
        return Vec::new();
    }
    let mut kinds: BTreeMap<Check, usize> = BTreeMap::new();
    for f in stricter {
        *kinds.entry(f.check).or_default() += 1;
    }
    let kinds: Vec<String> = kinds.iter().map(|(c, n)| format!("{}: {n}", c.label())).collect();
    let n = stricter.len();
    let scores = match (score, other) {
        (Some(s), Some(o)) => format!(" (score {:.3} instead of {:.3})", o.score, s.score),
        _ => String::new(),
    };
    vec![match rule {
        Rule::Original => format!(
            "{n} entries count in these figures, as the original counts them, but fail mlb's stricter check \
             ({}): see the `stricter` column and *Stricter check*; --strict makes them failures \
             ({other_failures} failures in all){scores}",
            kinds.join(", ")
        ),
        Rule::Strict => format!(
            "--strict: {n} entries that the original counts are failures here ({}); the original's \
             figures have {other_failures} failures in all{scores}",
            kinds.join(", ")
        ),
    }]
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
    for (other, n) in &sel.by_pattern {
        let suite = opts.suite.as_deref().unwrap_or_default();
        notes.push(format!(
            "{n} entries of suite `{other}` are read as suite `{suite}`: their file names match the original's \
             pattern `{suite}[_.]*.json`, as the original read them"
        ));
    }
    let null_names = sel.kept.iter().filter(|e| e.name.is_none()).count();
    if null_names > 0 {
        notes.push(format!(
            "{null_names} entries have a null name (the original launcher's failure records without --name): \
             in no table but the per-GPU ones (their row `None`), and counted in results and failures, as the \
             original counted them"
        ));
    }
    if opts.price.is_some_and(|p| p < 0.0) {
        notes.push("the price is negative: so is RPP = price / Score, as the original printed it".into());
    }
    match &opts.targets {
        None => notes.push(
            "no target table: pass --gpu-model NAME (`mlb targets list`) or --targets FILE for perf, passes and the score".into(),
        ),
        Some(t) => {
            let found: BTreeSet<&str> = report.benches.iter().map(|b| b.bench.as_str()).collect();
            for row in report.benches.iter().filter(|b| b.target.is_none()) {
                notes.push(format!(
                    "bench `{}` has no target in {}: it fails perf_pass and sd%_pass and counts in PM and ST, \
                     as in the original",
                    row.bench, t.source
                ));
            }
            let missing: Vec<&str> =
                t.benches.keys().map(String::as_str).filter(|b| !found.contains(b) && !is_multi_gpu(b)).collect();
            if !missing.is_empty() {
                notes.push(format!("benches of {} without any report: {}", t.source, missing.join(", ")));
            }
            if report.score.as_ref().is_some_and(|s| s.pg_benches == 0) {
                notes.push("no bench has a perf: PG is 1, as the original computed it (an empty product)".into());
            }
        }
    }
    let (nodes, devices) = (&report.per_node.nodes, &report.per_gpu.devices);
    if !nodes.is_empty() && !devices.is_empty() && devices.iter().all(|d| d.node.is_none()) {
        notes.push(format!(
            "reports from {} hosts ({}) not run under Slurm: the per-GPU tables pool each device id across hosts, as the original did; the node table tells the hosts apart",
            nodes.len(),
            nodes.join(", ")
        ));
    }
    if devices.len() == 1 {
        notes.push(format!("one GPU ({}): no per-GPU relative tables", devices[0].label()));
    }
    if let Some(total) = opts.gpu_total {
        if devices.len() != total {
            let ids: Vec<String> = devices.iter().map(|d| d.label()).collect();
            notes.push(format!(
                "--gputotal {total}, but single-GPU reports name {} device(s): {}",
                devices.len(),
                ids.join(", ")
            ));
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
    use mlb_record::contract::read::Losses;
    use std::sync::Arc;

    fn entry(file: &str, suite: Option<&str>, name: &str) -> Entry {
        Entry {
            file: Arc::from(Path::new(file)),
            name: Some(name.into()),
            suite: suite.map(Into::into),
            vcd: Some("0".into()),
            gpu: None,
            slurm_node: None,
            hostname: None,
            completed: Some(true),
            failure: None,
            avg: Some(1.0),
            losses: Losses::default(),
            conditions: None,
            flops_per_item: None,
            probe_peak: None,
            args: vec![],
        }
    }

    #[test]
    fn suite_by_field_or_file_name() {
        let entries = vec![
            entry("d/fast.vae.R1.D0.json", Some("fast"), "vae"),
            entry("d/x.json", Some("slow"), "vae"),
            entry("d/fast_0.json", None, "wlm"),
            entry("d/faster_0.json", None, "wlm"),
            entry("d/fast.json", None, "wlm"),
            entry("d/fast_fp16.vae.R0.D0.json", Some("fast_fp16"), "vae"),
            entry("d/renamed.json", Some("fast"), "vae"),
            entry("d/fast.dcgan_all.json", Some("fast"), "dcgan_all"),
        ];
        let sel = select(entries, Some("fast"));
        let files: Vec<String> = sel.kept.iter().map(|e| e.file.display().to_string()).collect();
        assert_eq!(files, ["d/fast.vae.R1.D0.json", "d/fast_0.json", "d/fast_fp16.vae.R0.D0.json", "d/renamed.json"]);
        assert_eq!(sel.multi_gpu, 1);
        assert_eq!(sel.other_suites.into_iter().collect::<Vec<_>>(), ["(none)", "slow"]);
        assert_eq!(sel.by_pattern.into_iter().collect::<Vec<_>>(), [("fast_fp16".to_string(), 1)]);
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
        let err = aggregate(Path::new("d"), reading, None, &opts).unwrap_err();
        assert!(err.to_string().contains("none of suite `fast` (suites found: slow)"), "{err}");
        assert!(mlb_record::fix::Fix::fix(&err).is_some_and(|f| f.contains("--suite NAME")), "{err}");
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
                "bench `mystery` has no target in t.csv: it fails perf_pass and sd%_pass and counts in PM and ST, \
                 as in the original",
                "benches of t.csv without any report: wlm",
                "one GPU (0): no per-GPU relative tables",
                "--gputotal 8, but single-GPU reports name 1 device(s): 0",
            ]
        );
    }

    #[test]
    fn warnings_and_the_strict_rule() {
        let mut inf = entry("b.json", None, "vae");
        inf.losses.infinite = true;
        inf.avg = Some(3.0);
        let reading = Reading { files: 2, entries: vec![entry("a.json", None, "vae"), inf], unreadable: vec![] };
        let targets = Targets::parse("t.csv", "bench,target,perf_target,sd_target\nvae,1,0.5,0.1\n").unwrap();
        let opts = Options { targets: Some(targets), ..Options::default() };
        let report = aggregate(Path::new("d"), reading, None, &opts).unwrap();
        assert_eq!((report.failures.len(), report.stricter.len(), report.rows[0].stricter), (0, 1, 1));
        assert_eq!(report.rows[0].sample.mean, Some(2.0));
        assert_eq!(report.warnings.len(), 1);
        let w = &report.warnings[0];
        assert!(w.starts_with("1 entries count in these figures") && w.contains("(infinite loss: 1)"), "{w}");
        // BF 0 with --strict: 1 failure of 2.
        assert!(w.contains("(1 failures in all) (score 0.000 instead of"), "{w}");
        assert_eq!(report.other_score.as_ref().unwrap().bf, 0);
    }
}
