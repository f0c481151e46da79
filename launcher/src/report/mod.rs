//! `mlb report`: reads a folder of report files (mlb's and the original
//! suite's), computes the per-bench statistics, the score against a target
//! table (compat §6), per-GPU tables, data parallel groups, an optional comparison with a baseline,
//! and prints them as a table, JSON, CSV or Markdown, with an optional HTML
//! page with charts.

mod aggregate;
mod args;
mod baseline;
mod entry;
mod error;
mod groups;
mod judge;
mod per_gpu;
mod read;
pub mod render;
mod rows;
mod score;
mod stats;
mod targets;
mod tolerant;

pub use aggregate::{aggregate, BaselineReport, FailureRow, Options, Report, Run, UNIT};
pub use args::{Format, ReportArgs};
pub use baseline::{Comparison, Verdict};
pub use entry::{Entry, Losses};
pub use error::ReportError;
pub use groups::GroupRow;
pub use judge::{judge, Check, Rule};
pub use per_gpu::{Device, GpuTables, FLAG_BELOW};
pub use read::{read_file, read_folder, Reading, Unreadable};
pub use rows::{Grouping, Row};
pub use score::{Score, MULTI_GPU};
pub use stats::{geometric_mean, t_quantile, Sample};
pub use targets::{GpuModel, Target, Targets};

/// Runs `mlb report`: returns what to print on stdout, after writing the
/// HTML page when asked.
pub fn run(args: &ReportArgs) -> Result<String, ReportError> {
    let targets = match (&args.targets, args.gpu_model) {
        (Some(path), _) => Some(Targets::from_file(path)?),
        (None, Some(model)) => Some(Targets::shipped(model)),
        (None, None) => None,
    };
    let opts = Options {
        suite: args.suite.clone(),
        targets,
        price: args.price,
        gpu_total: args.gputotal,
        rule: if args.strict { Rule::Strict } else { Rule::Original },
        grouping: args.rows,
    };
    let report = build(&args.reports, args.baseline.as_deref(), &opts)?;
    if let Some(path) = &args.html {
        let title = args.title.clone().unwrap_or_else(|| format!("mlb report: {}", args.reports.display()));
        let page = render::html::page(&report, &title);
        std::fs::write(path, page).map_err(|source| ReportError::Html { path: path.clone(), source })?;
    }
    Ok(match args.format {
        Format::Table => render::table::render(&report),
        Format::Json => render::json(&report),
        Format::Csv => render::csv::render(&report),
        Format::Markdown => render::markdown::render(&report),
    })
}

/// Reads `dir` (and `baseline`) and aggregates the report.
pub fn build(dir: &std::path::Path, baseline: Option<&std::path::Path>, opts: &Options) -> Result<Report, ReportError> {
    let reading = read_folder(dir)?;
    let base = match baseline {
        Some(b) => Some((b, read_folder(b)?)),
        None => None,
    };
    aggregate(dir, reading, base, opts)
}
