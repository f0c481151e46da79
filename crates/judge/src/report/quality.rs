//! `mlb report` on the reports of a run to quality (docs/quality.md, "The
//! report"): per config, the time to quality of every instance of every run,
//! their olympic mean and spread ([`mlb_figures::olympic`]), the runs that
//! did not converge; per run of a config, the concurrent-instance metric
//! ([`mlb_run::quality::concurrent`]); the quality curve of every instance.
//!
//! A folder holds a run to quality when an `*.mllog` file lies in it (each
//! instance writes one beside its report): only then are its reports read
//! whole, so a throughput folder costs a listing.

use super::rcp::RcpCheck;
use mlb_figures::olympic::{olympic, spread, Olympic, Spread};
use mlb_record::contract::quality::QualityRecord;
use mlb_record::contract::quality::Span;
use mlb_record::contract::read::read_folder;
use mlb_record::contract::Report;
use mlb_run::quality::concurrent::concurrent;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// One instance's run to quality.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QualityInstance {
    /// Its config's label: the job's name, with its batch size and its id
    /// when the job has configs of several.
    pub config: String,
    /// The job's name.
    #[serde(skip)]
    pub job: String,
    /// Run id.
    pub run_id: u64,
    /// Instance index.
    pub jr_id: u32,
    /// Visible devices.
    pub vcd: String,
    /// Its run.
    #[serde(skip)]
    pub record: QualityRecord,
    /// The workload that ran (the plugin's name).
    #[serde(skip)]
    pub benchmark: String,
    /// Its report's workload keys (arguments and the plugin's report keys).
    #[serde(skip)]
    pub args: Map<String, Value>,
}

impl QualityInstance {
    /// `run R, instance J (GPU V)`.
    pub fn label(&self) -> String {
        format!("run {}, instance {} (GPU {})", self.run_id, self.jr_id, self.vcd)
    }
}

/// A config's time to quality over its runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QualityRow {
    /// The config.
    pub config: String,
    /// The metric and its direction and target: `top1 >= 0.75`.
    pub goal: String,
    /// Instance runs in all (every instance of every run).
    pub runs: usize,
    /// Those that reached the target.
    pub converged: usize,
    /// The olympic mean, seconds (`None`: see `why_no_mean`).
    pub olympic_mean: Option<f64>,
    /// Why there is no olympic mean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_no_mean: Option<String>,
    /// The spread of the converged runs.
    #[serde(skip)]
    pub spread: Option<Spread>,
    /// The runs that did not converge.
    pub not_converged: Vec<String>,
}

/// A run of M instances of a config at once: the concurrent-instance metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConcurrentRow {
    /// The config.
    pub config: String,
    /// Run id.
    pub run_id: u64,
    /// Instances at once.
    pub instances: usize,
    /// Those that converged.
    pub converged: usize,
    /// From the first instance's clock start to the last one's stop, seconds.
    pub seconds: f64,
}

/// Everything `mlb report` says of a run to quality.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QualityTables {
    /// Per config.
    pub configs: Vec<QualityRow>,
    /// Per run of a config.
    pub concurrent: Vec<ConcurrentRow>,
    /// Every instance (for the curves).
    #[serde(skip)]
    pub instances: Vec<QualityInstance>,
    /// The RCP check of each config (`mlb report --to-quality`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rcp: Option<RcpCheck>,
}

/// Whether `dir` (or a folder below) holds an `*.mllog` file.
fn has_mllog(dir: &Path) -> bool {
    let Ok(listing) = std::fs::read_dir(dir) else { return false };
    listing.flatten().any(|e| {
        let path = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => has_mllog(&path),
            _ => path.extension().is_some_and(|x| x == "mllog"),
        }
    })
}

/// The run to quality in `dir`; `None` for a folder without one.
pub fn read(dir: &Path) -> Option<QualityTables> {
    if !has_mllog(dir) {
        return None;
    }
    let reading = read_folder(dir).ok()?;
    let mut files: Vec<&Path> = reading.entries.iter().map(|e| &*e.file).collect();
    files.dedup();
    let reports: Vec<Report> = files.into_iter().filter_map(|f| Report::load_all(f).ok()).flatten().collect();
    let tables = tables(&reports);
    (!tables.instances.is_empty()).then_some(tables)
}

/// The tables of the completed reports among `reports` that hold a run to quality.
pub fn tables(reports: &[Report]) -> QualityTables {
    let with: Vec<(&Report, &QualityRecord)> =
        reports.iter().filter(|r| r.completed).filter_map(|r| r.quality.as_ref().map(|q| (r, q))).collect();
    // Configs by job name, id and batch size (which the id leaves out); a
    // job of several configs shows what tells them apart.
    let batch = |r: &Report| r.args.get("batch_size").filter(|b| !b.is_null()).map(Value::to_string);
    let mut ids: BTreeMap<&str, (Vec<&str>, Vec<Option<String>>)> = BTreeMap::new();
    for (r, _) in &with {
        let (id, sizes) = ids.entry(r.name.as_str()).or_default();
        let uid = r.unique_id.as_deref().unwrap_or("");
        if !id.contains(&uid) {
            id.push(uid);
        }
        if !sizes.contains(&batch(r)) {
            sizes.push(batch(r));
        }
    }
    let label = |r: &Report| {
        let (id, sizes) = &ids[r.name.as_str()];
        let mut label = r.name.clone();
        if let (true, Some(bs)) = (sizes.len() > 1, batch(r)) {
            label.push_str(&format!("[batch_size={bs}]"));
        }
        if let (true, Some(uid)) = (id.len() > 1, r.unique_id.as_deref()) {
            label.push_str(&format!(" ({uid})"));
        }
        label
    };
    let mut instances: Vec<QualityInstance> = with
        .iter()
        .map(|(r, q)| QualityInstance {
            config: label(r),
            job: r.name.clone(),
            run_id: r.run_id,
            jr_id: r.jr_id,
            vcd: r.vcd.clone(),
            record: (*q).clone(),
            benchmark: benchmark(r),
            args: r.args.clone(),
        })
        .collect();
    instances.sort_by(|a, b| (&a.config, a.run_id, a.jr_id).cmp(&(&b.config, b.run_id, b.jr_id)));
    let mut by_config: BTreeMap<&str, Vec<&QualityInstance>> = BTreeMap::new();
    for i in &instances {
        by_config.entry(&i.config).or_default().push(i);
    }
    let configs = by_config.iter().map(|(config, runs)| row(config, runs)).collect();
    let mut by_run: BTreeMap<(&str, u64), Vec<&QualityInstance>> = BTreeMap::new();
    for i in &instances {
        by_run.entry((&i.config, i.run_id)).or_default().push(i);
    }
    let concurrent = by_run
        .iter()
        .filter_map(|((config, run_id), at_once)| {
            let spans: Vec<Span> = at_once.iter().map(|i| i.record.span()).collect();
            Some(ConcurrentRow {
                config: config.to_string(),
                run_id: *run_id,
                instances: at_once.len(),
                converged: at_once.iter().filter(|i| i.record.converged).count(),
                seconds: concurrent(&spans)?,
            })
        })
        .collect();
    QualityTables { configs, concurrent, instances, rcp: None }
}

/// The workload a report ran: its plugin's name, else the first word of its
/// `version`, else the job's name.
fn benchmark(r: &Report) -> String {
    let plugin = r.provenance.as_ref().and_then(|p| p.plugin.as_ref()).map(|p| p.name.clone());
    let version = || r.version.as_deref().and_then(|v| v.split_whitespace().next()).map(str::to_string);
    plugin.or_else(version).unwrap_or_else(|| r.name.clone())
}

/// The row of one config's runs.
fn row(config: &str, runs: &[&QualityInstance]) -> QualityRow {
    let times: Vec<Option<f64>> = runs.iter().map(|i| i.record.time_to_quality).collect();
    let converged: Vec<f64> = times.iter().flatten().copied().collect();
    let result: Result<Olympic, _> = olympic(&times);
    let goal = &runs[0].record.goal;
    QualityRow {
        config: config.to_string(),
        goal: goal.summary(),
        runs: runs.len(),
        converged: converged.len(),
        olympic_mean: result.as_ref().ok().map(|o| o.mean),
        why_no_mean: result.err().map(|e| mlb_record::fix::one_line(&e)),
        spread: spread(&converged),
        not_converged: runs.iter().filter(|i| !i.record.converged).map(|i| i.label()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_record::contract::quality::fixtures::record;
    use mlb_record::contract::record::Identity;

    /// A completed report of instance `jr_id` of run `run_id` of job `name`,
    /// its clock from `started_at` to `stopped_at`, converged or not.
    fn report(name: &str, run_id: u64, jr_id: u32, started_at: f64, stopped_at: f64, converged: bool) -> Report {
        let id = Identity { suite: "s".into(), name: name.into(), run_id, jr_id, vcd: jr_id.to_string() };
        let seconds = stopped_at - started_at;
        let quality = QualityRecord {
            started_at,
            stopped_at,
            seconds,
            converged,
            time_to_quality: converged.then_some(seconds),
            ..record()
        };
        Report { completed: true, unique_id: Some("u".into()), quality: Some(quality), ..Report::new(&id) }
    }

    #[test]
    fn a_two_slot_run_measures_from_the_first_start_to_the_last_stop() {
        // Slot 0 starts first and stops last but one; slot 1 stops last.
        let reports = [report("learns", 7, 0, 1000.0, 1030.0, true), report("learns", 7, 1, 1000.5, 1034.5, true)];
        let t = tables(&reports);
        assert_eq!(t.concurrent.len(), 1);
        let c = &t.concurrent[0];
        assert_eq!((c.run_id, c.instances, c.converged), (7, 2, 2));
        assert_eq!(c.seconds, 34.5, "from 1000.0 to 1034.5");
        assert_eq!(t.configs[0].why_no_mean.as_deref().map(|w| w.contains("at least 3")), Some(true));
    }

    #[test]
    fn five_runs_give_the_olympic_mean_and_name_the_run_that_did_not_converge() {
        let times = [(0, 40.0, true), (1, 10.0, true), (2, 30.0, true), (3, 20.0, true), (4, 99.0, false)];
        let mut reports: Vec<Report> = times
            .iter()
            .map(|&(run, s, ok)| report("learns", run, 0, 100.0 * run as f64, 100.0 * run as f64 + s, ok))
            .collect();
        // A failed record and a throughput report are no runs to quality.
        reports.push(Report { completed: false, ..report("learns", 5, 0, 0.0, 1.0, true) });
        reports.push(Report { quality: None, ..report("other", 0, 0, 0.0, 1.0, true) });
        let t = tables(&reports);
        assert_eq!(t.configs.len(), 1);
        let row = &t.configs[0];
        assert_eq!((row.runs, row.converged), (5, 4));
        assert_eq!(row.olympic_mean, Some(30.0), "10 dropped as the fastest, the failure as the slowest: (20+30+40)/3");
        assert_eq!(row.not_converged, ["run 4, instance 0 (GPU 0)"]);
        assert_eq!(row.goal, "top1 >= 0.5");
        let spread = row.spread.unwrap();
        assert_eq!((spread.min, spread.max), (10.0, 40.0));
        assert_eq!(t.concurrent.len(), 5, "one per run");
    }

    #[test]
    fn configs_of_one_job_apart_by_their_batch_size_are_rows_of_their_own() {
        let sized = |run, bs: u64| {
            let mut r = report("learns", run, 0, 0.0, 1.0, true);
            r.args.insert("batch_size".into(), bs.into());
            r
        };
        let t = tables(&[sized(0, 16), sized(1, 16), sized(0, 64)]);
        let labels: Vec<&str> = t.configs.iter().map(|c| c.config.as_str()).collect();
        assert_eq!(labels, ["learns[batch_size=16]", "learns[batch_size=64]"], "the id leaves the batch size out");
        assert_eq!(t.configs[0].runs, 2);
        assert_eq!(t.instances[0].job, "learns");
    }

    #[test]
    fn two_non_converged_runs_leave_no_mean_and_say_why() {
        let reports: Vec<Report> = (0..4).map(|run| report("x", run, 0, 0.0, 5.0 + run as f64, run < 2)).collect();
        let row = &tables(&reports).configs[0];
        assert_eq!(row.olympic_mean, None);
        assert!(row.why_no_mean.as_deref().unwrap().contains("2 of 4 runs did not converge"));
    }

    #[test]
    fn only_a_folder_with_mllog_files_is_read() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), None);
        let r = report("learns", 0, 0, 0.0, 3.0, true);
        r.write(dir.path()).unwrap();
        assert_eq!(read(dir.path()), None, "no MLLOG file: a throughput folder");
        std::fs::create_dir(dir.path().join("node1")).unwrap();
        std::fs::write(dir.path().join("node1/x.mllog"), "").unwrap();
        let t = read(dir.path()).unwrap();
        assert_eq!(t.instances.len(), 1);
        assert_eq!(t.configs[0].olympic_mean, None);
    }
}
