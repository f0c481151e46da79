//! The RCP check of `mlb report --to-quality` and the reference points of
//! `mlb report --write-rcp` (docs/quality.md, "Reference convergence
//! points"): each config's runs to quality, counted in items, against the
//! points of the same problem ([`mlb_run::quality::rcp::matching`]).
//!
//! A config's runs are every instance of every run; the ranks of a process
//! group (`world_size` above 1) train one model, so a group's run is one run:
//! its first rank's items times the ranks, at the global batch size (the
//! config's `batch_size` times the ranks).

use super::error::ReportError;
use super::quality::{QualityInstance, QualityTables};
use mlb_figures::olympic::MIN_RUNS;
use mlb_record::contract::record::Output;
use mlb_run::quality::rcp::installed;
use mlb_run::quality::rcp::matching::{self, Problem};
use mlb_run::quality::rcp::reference::{self, ConfigRuns, Run};
use mlb_run::quality::rcp::{Checker, Pass, RcpSet};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The report key of a rank's index in its group.
const RANK: &str = "rank";

/// What the check found for a config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// No faster than the reference allows.
    Passed,
    /// Converged statistically faster than the reference (or the package's
    /// other failures: a batch size above every point, two runs not converged).
    Failed,
    /// No point of its benchmark and problem: nothing to compare with.
    NoReference,
    /// Fewer runs than an olympic mean needs: no verdict.
    TooFewRuns,
}

/// The check of one config.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RcpRow {
    /// The config.
    pub config: String,
    /// Its global batch size.
    pub batch_size: Option<f64>,
    /// Its runs (a group's run counts once).
    pub runs: usize,
    /// The verdict.
    pub status: Status,
    /// The package's message (`RCP found`, `RCP Interpolation`, ...), or why
    /// there is no reference, naming what was looked for.
    pub message: String,
    /// The point compared with (an interpolated one is `BENCH_interp_BS`).
    pub reference: Option<String>,
    /// The reference's olympic mean, items.
    pub reference_mean: Option<f64>,
    /// The smallest submission mean the reference accepts, items.
    pub min_mean: Option<f64>,
    /// The olympic mean of the config's runs, items.
    pub submission_mean: Option<f64>,
    /// The reference's mean over the submission's, when above 1 (MLPerf
    /// scales a score by it); else 1.
    pub norm_factor: Option<f64>,
}

/// The RCP check of every config of a run to quality.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RcpCheck {
    /// The reference set: the `--rcp` file, or the installed set.
    pub set: String,
    /// One row per config.
    pub rows: Vec<RcpRow>,
}

/// The global batch size of an instance's config: its `batch_size` times
/// the ranks of its group.
fn batch_size(i: &QualityInstance, world: u64) -> Option<f64> {
    i.args.get("batch_size").and_then(|b| b.as_f64()).map(|b| b * world as f64)
}

/// The ranks of an instance's group (1 alone).
fn world(i: &QualityInstance) -> u64 {
    i.args.get(super::groups::WORLD_SIZE).and_then(|w| w.as_u64()).unwrap_or(1).max(1)
}

/// The runs of each config of `t`, in the order of its rows.
pub fn configs(t: &QualityTables) -> Vec<ConfigRuns> {
    let mut by_config: BTreeMap<&str, Vec<&QualityInstance>> = BTreeMap::new();
    for i in &t.instances {
        by_config.entry(&i.config).or_default().push(i);
    }
    by_config
        .into_iter()
        .map(|(config, instances)| {
            let first = instances[0];
            let world = world(first);
            let leads = instances
                .iter()
                .filter(|i| world == 1 || i.args.get(RANK).and_then(|r| r.as_u64()).unwrap_or(u64::from(i.jr_id)) == 0);
            let runs = leads
                .map(|i| Run {
                    label: i.label(),
                    items: i.record.converged.then_some(i.record.items as f64 * world as f64),
                })
                .collect();
            let data = first.args.get_key_value(matching::DATA);
            let hyperparams = matching::hyperparams(
                first.args.iter().filter(|(k, _)| mlb_record::contract::keys::Key::of(k).splits_configs()).chain(data),
                first.record.goal.target,
            );
            ConfigRuns {
                config: config.to_string(),
                job: first.job.clone(),
                problem: Problem::new(&first.benchmark, &serde_json::Value::Object(hyperparams.clone())),
                hyperparams,
                goal: first.record.goal.summary(),
                batch_size: batch_size(first, world),
                runs,
            }
        })
        .collect()
}

/// The verdict on one config's runs against the points of `set`.
fn row(c: &ConfigRuns, set: &RcpSet) -> RcpRow {
    let items: Vec<Option<f64>> = c.runs.iter().map(|r| r.items).collect();
    let empty = RcpRow {
        config: c.config.clone(),
        batch_size: c.batch_size,
        runs: c.runs.len(),
        status: Status::NoReference,
        message: String::new(),
        reference: None,
        reference_mean: None,
        min_mean: None,
        submission_mean: None,
        norm_factor: None,
    };
    let Some(bs) = c.batch_size else {
        return RcpRow { message: "no reference: the config has no `batch_size`".into(), ..empty };
    };
    let points: Vec<_> =
        set.points.iter().filter(|p| Problem::new(&p.benchmark, &p.hyperparams) == c.problem).cloned().collect();
    if points.is_empty() {
        return RcpRow { message: format!("no reference: no point of {}", c.problem), ..empty };
    }
    if c.runs.len() < MIN_RUNS {
        let message = format!(
            "{} run(s): the olympic mean needs at least {MIN_RUNS}; run with --runs {MIN_RUNS} or more",
            c.runs.len()
        );
        return RcpRow { status: Status::TooFewRuns, message, ..empty };
    }
    let verdict = Checker::new(&RcpSet { points }, c.runs.len()).check(bs, &items, Pass::Pruned);
    let reference = verdict.reference.as_ref();
    RcpRow {
        status: if verdict.passed { Status::Passed } else { Status::Failed },
        message: verdict.outcome.to_string(),
        reference: reference.map(|p| p.name.clone()),
        reference_mean: reference.map(|p| p.mean),
        min_mean: reference.map(|p| p.min_mean),
        submission_mean: verdict.submission_mean,
        norm_factor: Some(verdict.norm_factor),
        ..empty
    }
}

/// The check of every config of `t` against `set` (named `origin`).
pub fn check(t: &QualityTables, set: &RcpSet, origin: String) -> RcpCheck {
    RcpCheck { set: origin, rows: configs(t).iter().map(|c| row(c, set)).collect() }
}

/// The reference set: the file `rcp`, else the installed one; and its name.
pub fn load(rcp: Option<&Path>) -> Result<(RcpSet, String), ReportError> {
    match rcp {
        Some(path) => Ok((RcpSet::read(path)?, path.display().to_string())),
        None => {
            let (set, origin) = installed::find()?;
            Ok((set, origin.to_string()))
        }
    }
}

/// `mlb report --reports DIR --write-rcp FILE`: one point per config of the
/// run to quality in `dir`, merged into `file` (created when absent); what
/// to print.
pub fn write(dir: &Path, file: &Path) -> Result<String, ReportError> {
    let write_error = |source| ReportError::RcpWrite { path: file.to_path_buf(), source };
    let output = Output::at(file).map_err(write_error)?;
    let tables = super::quality::read(dir).ok_or_else(|| ReportError::NoQualityRun { path: dir.to_path_buf() })?;
    let configs = configs(&tables);
    let mut set = if file.exists() { RcpSet::read(file)? } else { RcpSet::default() };
    let names = reference::merge(&mut set, &configs)?;
    output.put(set.to_json().as_bytes()).map_err(write_error)?;
    let mut out = format!("{} reference point(s) written to {}:\n", names.len(), file.display());
    for (c, name) in configs.iter().zip(&names) {
        let bs = c.batch_size.map(|b| b.to_string()).unwrap_or_default();
        out.push_str(&format!("  {name}: {}, BS {bs}, {} runs ({})\n", c.problem, c.runs.len(), c.goal));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_record::contract::quality::fixtures::record;
    use mlb_record::contract::record::Identity;
    use mlb_record::contract::report::PluginBuild;
    use mlb_record::contract::{Provenance, Report};
    use serde_json::json;

    /// A report of instance `jr_id` of run `run` of job `name` with `args`,
    /// converged after `items` (`None`: not converged).
    fn report(name: &str, run: u64, jr_id: u32, args: serde_json::Value, items: Option<u64>) -> Report {
        let id = Identity { suite: "s".into(), name: name.into(), run_id: run, jr_id, vcd: jr_id.to_string() };
        let quality = mlb_record::contract::quality::QualityRecord {
            converged: items.is_some(),
            items: items.unwrap_or(5000),
            ..record()
        };
        let plugin = PluginBuild { name: "convnet".into(), version: "1".into(), build: "b".into() };
        Report {
            completed: true,
            args: args.as_object().unwrap().clone(),
            provenance: Some(Provenance { plugin: Some(plugin), ..Default::default() }),
            quality: Some(quality),
            ..Report::new(&id)
        }
    }

    #[test]
    fn a_configs_runs_hold_its_items_its_problem_and_its_batch_size() {
        let args = json!({"arch": "resnet18", "batch_size": 32, "lr": 0.1, "seed": 100, "data": "/d/ImageNet"});
        let reports: Vec<Report> = [Some(2000), None, Some(2400)]
            .iter()
            .enumerate()
            .map(|(run, &items)| report("cn", run as u64, 0, args.clone(), items))
            .collect();
        let c = &configs(&super::super::quality::tables(&reports))[0];
        assert_eq!((c.config.as_str(), c.job.as_str(), c.batch_size), ("cn", "cn", Some(32.0)));
        assert_eq!(c.runs.iter().map(|r| r.items).collect::<Vec<_>>(), [Some(2000.0), None, Some(2400.0)]);
        assert_eq!(c.runs[1].label, "run 1, instance 0 (GPU 0)");
        assert_eq!(c.problem.to_string(), "convnet with arch=\"resnet18\" data=\"ImageNet\" target=0.5");
        assert_eq!(
            serde_json::Value::Object(c.hyperparams.clone()),
            json!({"arch": "resnet18", "data": "ImageNet", "target": 0.5})
        );
    }

    #[test]
    fn a_group_run_counts_once_with_the_global_items_and_batch_size() {
        let rank = |run, r| {
            report("ddp", run, r, json!({"batch_size": 16, "world_size": 2, "rank": r, "master": "h:1"}), Some(1000))
        };
        let reports: Vec<Report> = (0..3).flat_map(|run| [rank(run, 0), rank(run, 1)]).collect();
        let c = &configs(&super::super::quality::tables(&reports))[0];
        assert_eq!(c.batch_size, Some(32.0));
        assert_eq!(c.runs.iter().map(|r| r.items).collect::<Vec<_>>(), [Some(2000.0); 3]);
    }

    #[test]
    fn a_config_is_judged_against_the_points_of_its_problem_only() {
        let args = json!({"arch": "resnet18", "batch_size": 32});
        let runs = |job: &str, args: &serde_json::Value, items: [u64; 5]| -> Vec<Report> {
            items.iter().enumerate().map(|(run, &i)| report(job, run as u64, 0, args.clone(), Some(i))).collect()
        };
        let mut reports = runs("same", &args, [2000, 2100, 1900, 2050, 1950]);
        reports.extend(runs(
            "fast",
            &json!({"arch": "resnet18", "batch_size": 32, "lr": 9}),
            [900, 1000, 950, 1020, 980],
        ));
        reports.extend(runs("other", &json!({"arch": "resnet50", "batch_size": 32}), [2000; 5]));
        let set = RcpSet::parse(
            r#"{"cn_bs32": {"Benchmark": "convnet", "BS": 32, "Hyperparams": {"arch": "resnet18", "target": 0.5},
                            "samples to converge": [2000, 2100, 1900, 2050, 1950]},
                "elsewhere": {"Benchmark": "convnet", "BS": 32, "Hyperparams": {"arch": "resnet18", "target": 0.7},
                            "samples to converge": [1, 1, 1]}}"#,
            "t",
        )
        .unwrap();
        let check = check(&super::super::quality::tables(&reports), &set, "t".into());
        let by = |config: &str| check.rows.iter().find(|r| r.config == config).unwrap();
        let same = by("same");
        assert_eq!(
            (same.status, same.message.as_str(), same.reference.as_deref()),
            (Status::Passed, "RCP found", Some("cn_bs32"))
        );
        assert_eq!(
            (same.reference_mean, same.submission_mean, same.norm_factor),
            (Some(2000.0), Some(2000.0), Some(1.0))
        );
        assert!(same.min_mean.unwrap() < 2000.0);
        let fast = by("fast");
        assert_eq!((fast.status, fast.submission_mean), (Status::Failed, Some(976.6666666666666)));
        assert!(fast.norm_factor.unwrap() > 2.0);
        let two = super::check(&super::super::quality::tables(&reports[..2]), &set, "t".into());
        assert_eq!(two.rows[0].status, Status::TooFewRuns, "{:?}", two.rows[0]);
        assert!(two.rows[0].message.contains("--runs 3"));
        let other = by("other");
        assert_eq!(other.status, Status::NoReference);
        assert_eq!(other.message, "no reference: no point of convnet with arch=\"resnet50\" target=0.5");
    }
}
