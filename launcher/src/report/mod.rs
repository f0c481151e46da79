//! `mlb report`: reads a folder of report files (mlb's and the original
//! suite's, through [`mlb_record::contract::read`]), computes the per-bench statistics, the score against a target
//! table (docs/report.md, "Algorithm"), per-GPU and per-node tables, the MFU of workloads that state their FLOPs, data parallel groups, an
//! optional comparison with a baseline,
//! and prints them as a table, JSON, CSV or Markdown, with an optional HTML
//! page with charts.

mod aggregate;
mod args;
mod baseline;
mod downsample;
mod energy;
mod error;
mod groups;
pub mod history;
mod judge;
mod mfu;
mod page;
mod per_gpu;
mod per_node;
mod profile;
pub mod quality;
pub mod rcp;
mod relative;
pub mod render;
mod rows;
mod score;
pub mod source;
mod targets;

pub use aggregate::{aggregate, aggregate_from, in_suite, BaselineReport, FailureRow, Options, Report, Run, UNIT};
pub use args::{Format, ReportArgs};
pub use baseline::{Comparison, Verdict};
pub use energy::{ConditionFlag, EnergyRow, EnergyTables, Sampled, MAX_JOULES_PER_ITEM};
pub use error::ReportError;
pub use groups::GroupRow;
pub use judge::{judge, Check, Judge, Rule};
pub use mfu::{MfuRow, MfuTables, PeakSource};
pub use per_gpu::{device_order, Device, GpuTables};
pub use per_node::NodeTables;
pub use profile::{ProfileBench, ProfileScore};
pub use relative::{Row as RelativeRow, FLAG_BELOW};
pub use rows::{Grouping, Row};
pub use score::{Score, MAX_FAILURE_SHARE, MULTI_GPU};
pub use targets::{GpuModel, Target, Targets};

use mlb_record::contract::read::{read_folder, FolderError};

/// The report `args` ask for, against `targets` (the table `--targets`
/// or `--gpu-model` names, which the command finds), before it is printed.
pub fn report(args: &ReportArgs, targets: Option<Targets>) -> Result<Report, ReportError> {
    let opts = Options {
        suite: args.suite.clone(),
        targets,
        // The original's `if args.price`: 0 is no price.
        price: args.price.filter(|p| *p != 0.0),
        gpu_total: args.gputotal,
        rule: Rule::strict_if(args.strict),
        grouping: args.rows,
        force: args.force,
    };
    let mut report = build(&args.reports, args.baseline.as_deref(), &opts)?;
    report.quality = quality::read(&args.reports);
    if args.to_quality {
        let no_run = || ReportError::NoQualityRun { path: args.reports.clone() };
        let tables = report.quality.as_mut().ok_or_else(no_run)?;
        let (set, origin) = rcp::load(args.rcp.as_deref())?;
        tables.rcp = Some(rcp::check(tables, &set, origin));
    }
    Ok(report)
}

/// Writes the HTML page of `report` when `args` ask for one; returns what to
/// print on stdout.
pub fn show(args: &ReportArgs, report: &Report) -> Result<String, ReportError> {
    if let Some(path) = &args.html {
        let title = args.title.clone().unwrap_or_else(|| format!("mlb report: {}", args.reports.display()));
        page::write(path, || render::html::page(report, &title))?;
    }
    Ok(match args.format {
        Format::Table => render::table::render(report),
        Format::Json => render::json(report),
        Format::Csv => render::csv::render(report),
        Format::Markdown => render::markdown::render(report),
    })
}

/// Reads `dir` (and `baseline`) and aggregates the report.
pub fn build(dir: &std::path::Path, baseline: Option<&std::path::Path>, opts: &Options) -> Result<Report, ReportError> {
    let reading = read_folder(dir).map_err(folder_error)?;
    let base = match baseline {
        Some(b) => {
            same_accelerator(dir, b, opts.force)?;
            Some((b, read_folder(b).map_err(folder_error)?))
        }
        None => None,
    };
    aggregate(dir, reading, base, opts)
}

/// A reports folder that cannot be listed, with how to fix it.
pub(crate) fn folder_error(FolderError { path, source }: FolderError) -> ReportError {
    ReportError::Folder { path, source }
}

/// Refuses to compare `dir` with a `baseline` whose `system.json` names
/// another accelerator model, unless `force`. Folders without a
/// description (the original's) are compared as they are.
pub(crate) fn same_accelerator(
    dir: &std::path::Path,
    baseline: &std::path::Path,
    force: bool,
) -> Result<(), ReportError> {
    let model = |d: &std::path::Path| crate::system::read(d).map(|s| s.accelerator_model_name);
    match (model(dir), model(baseline)) {
        (Some(current), Some(base)) if current != base && !force => Err(ReportError::OtherAccelerator {
            reports: dir.to_path_buf(),
            current,
            baseline: baseline.to_path_buf(),
            base,
        }),
        _ => Ok(()),
    }
}
