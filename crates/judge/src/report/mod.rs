//! `mlb report`: reads a folder of report files (mlb's and the original
//! suite's, through [`mlb_record::contract::read`]), computes the per-bench statistics, the score against a target
//! table (docs/report.md, "Algorithm"), per-GPU and per-node tables, the MFU of workloads that state their FLOPs, data parallel groups, the
//! vote over the fingerprints of deterministic runs, an
//! optional comparison with a baseline,
//! and prints them as a table, JSON, CSV or Markdown, with an optional HTML
//! page with charts.

mod aggregate;
mod baseline;
mod downsample;
mod energy;
mod error;
mod groups;
pub mod history;
mod judge;
mod mfu;
pub mod page;
mod per_gpu;
mod per_node;
mod profile;
pub mod quality;
pub mod rcp;
mod relative;
pub mod render;
pub mod reproducibility;
mod rows;
mod score;
pub mod source;
mod targets;

pub use aggregate::{aggregate, aggregate_from, in_suite, BaselineReport, FailureRow, Options, Report, Run, UNIT};
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

use mlb_record::contract::read::{read_folder_told, FolderError};
use std::path::PathBuf;

/// What `mlb report` is asked to read and how to judge it.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The folder of report files.
    pub reports: PathBuf,
    /// The folder of a baseline run, each bench compared with it.
    pub baseline: Option<PathBuf>,
    /// The aggregation's options (suite, targets, price, rule, rows).
    pub options: Options,
    /// The folder holds a run to quality: refuse one without, and check
    /// each config's convergence against the reference points.
    pub to_quality: bool,
    /// The reference set to check against instead of the installed one.
    pub rcp: Option<PathBuf>,
}

/// The report `request` asks for, before it is printed; `file_read` is
/// called as each report file is read ([`read_folder_told`]).
pub fn report(request: &Request, file_read: &(dyn Fn() + Sync)) -> Result<Report, ReportError> {
    let mut report = build(&request.reports, request.baseline.as_deref(), &request.options, file_read)?;
    report.quality = quality::read(&request.reports);
    if request.to_quality {
        let no_run = || ReportError::NoQualityRun { path: request.reports.clone() };
        let tables = report.quality.as_mut().ok_or_else(no_run)?;
        let (set, origin) = rcp::load(request.rcp.as_deref())?;
        tables.rcp = Some(rcp::check(tables, &set, origin));
    }
    Ok(report)
}

/// Reads `dir` (and `baseline`), calling `file_read` as each file is read,
/// and aggregates the report.
pub fn build(
    dir: &std::path::Path,
    baseline: Option<&std::path::Path>,
    opts: &Options,
    file_read: &(dyn Fn() + Sync),
) -> Result<Report, ReportError> {
    let reading = read_folder_told(dir, file_read).map_err(folder_error)?;
    let base = match baseline {
        Some(b) => {
            same_accelerator(dir, b, opts.force)?;
            Some((b, read_folder_told(b, file_read).map_err(folder_error)?))
        }
        None => None,
    };
    aggregate(dir, reading, base, opts)
}

/// A reports folder that cannot be listed, with how to fix it.
pub fn folder_error(FolderError { path, source }: FolderError) -> ReportError {
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
    let model = |d: &std::path::Path| mlb_run::system::read(d).map(|s| s.accelerator_model_name);
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
