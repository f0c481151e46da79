//! `mlb report`: its options, turned into the report's typed request
//! ([`mlb_judge::report::Request`]); the report against the target table it names (a
//! file, or the catalog's table of a GPU model: [`mlb_judge::targets::catalog`]),
//! and with `--db` each row of the report judged against the last runs of
//! the same system and config in the store ([`mlb_judge::report::history`]:
//! change, Welch's p-value, regression flag). Composed here, so that the
//! report imports neither the targets' catalog nor the store, and the store
//! no report's options.

use super::db::DbArg;
use super::output::OutputArgs;
use clap::Args;
use mlb_judge::report::history::{judge, Regressions};
use mlb_judge::report::{page, render, Grouping, Options, Report, ReportError, Request, Rule, Targets};
use mlb_present::{Format, Progress};
use mlb_store::store::query::regressions::{default_system, past_runs};
use mlb_store::store::query::QueryError;
use mlb_store::store::{Location, Store};
use std::path::PathBuf;

/// Parses a price: any finite number, as the original took any float (0
/// means no price, a negative price gives a negative RPP).
fn finite(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("`{text}` is not a price in USD (a number, e.g. 12000)")),
    }
}

/// Parses a number of runs: at least 1.
fn runs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(k) if k > 0 => Ok(k),
        _ => Err(format!("`{text}` is not a number of runs (1 or more)")),
    }
}

/// `mlb report`: statistics, targets and score of a set of report files.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Folder of report files (read with its sub-folders).
    #[arg(long, value_name = "DIR")]
    pub reports: PathBuf,

    /// Only reports of this suite: their `suite` field is NAME, or their file
    /// name matches the original's pattern `NAME[_.]*.json`.
    #[arg(long, value_name = "NAME")]
    pub suite: Option<String>,

    /// Compare with the target table of this GPU model (any case): a shipped
    /// one (V100, RTX, MI50), else `MODEL.csv` in the user's target folder,
    /// else in the installation's (`mlb targets list` shows them all).
    #[arg(long = "gpu-model", value_name = "MODEL", conflicts_with = "targets")]
    pub gpu_model: Option<String>,

    /// Compare with this target table (CSV `bench,target,perf_target,sd_target`).
    #[arg(long, value_name = "FILE")]
    pub targets: Option<PathBuf>,

    /// Price of the machine in USD: adds RPP = price / Score (0: no price,
    /// as the original; a negative price gives a negative RPP, as the original).
    #[arg(long, value_name = "USD", value_parser = finite, allow_negative_numbers = true)]
    pub price: Option<f64>,

    /// `--format`, `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,

    /// Also write a self-contained HTML page with tables and charts (old
    /// spelling of `--format html --output FILE`, which prints nothing else).
    #[arg(long, value_name = "FILE", hide = true)]
    pub html: Option<PathBuf>,

    /// Title of the HTML page (default: `mlb report: DIR`).
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,

    /// Compare each bench with the reports in this folder.
    #[arg(long, value_name = "DIR")]
    pub baseline: Option<PathBuf>,

    /// Compare with a baseline measured on another accelerator model (their
    /// `system.json` differ), which is refused otherwise.
    #[arg(long, requires = "baseline")]
    pub force: bool,

    /// Number of GPUs of the machine: the report notes when the single-GPU
    /// reports name a different number of devices.
    #[arg(long, value_name = "N")]
    pub gputotal: Option<usize>,

    /// Judge failures by mlb's stricter check instead of the original's: a
    /// NaN loss right after another failing entry, an infinite loss and a
    /// NaN, infinite or missing throughput also fail (by default they count,
    /// as in the original, with a warning).
    #[arg(long)]
    pub strict: bool,

    /// `--db [URL]`: compare each row with its history in this store.
    #[command(flatten)]
    pub store: DbArg,

    /// With `--db`: compare with at most this many earlier runs of the same
    /// system and config.
    #[arg(long = "history", value_name = "K", default_value_t = mlb_figures::regression::HISTORY_RUNS, requires = "db",
          value_parser = runs)]
    pub history: usize,

    /// With `--db`: the system's name in the store (default: the name `mlb db
    /// import` gives the folder: system.json's host name, else the reports').
    #[arg(long, value_name = "NAME", requires = "db")]
    pub system: Option<String>,

    /// Rows of the results, per-GPU and baseline tables: one per config
    /// (`convnet[arch=resnet18]`), or one per bench with every config pooled
    /// as the original did. The score always pools per bench.
    #[arg(long, value_enum, value_name = "ROWS", default_value_t = Grouping::Config)]
    pub rows: Grouping,

    /// The folder holds a run to quality (`mlb --jobs FILE --to-quality`):
    /// refuse a folder without one, and check each config's convergence
    /// against the reference convergence points (RCPs) of its problem.
    #[arg(long = "to-quality")]
    pub to_quality: bool,

    /// With `--to-quality`: the reference set (MLPerf's RCP JSON) to check
    /// against instead of the installed `configs/rcp/mlb.json`.
    #[arg(long, value_name = "FILE", requires = "to_quality")]
    pub rcp: Option<PathBuf>,

    /// Write one reference point per config of the run to quality in the
    /// folder into FILE (created, or merged: points of the same name
    /// replaced, the others kept) instead of printing the report.
    #[arg(long = "write-rcp", value_name = "FILE", conflicts_with = "to_quality")]
    pub write_rcp: Option<PathBuf>,
}

impl ReportArgs {
    /// What the report reads and how it judges it, against `targets` (the
    /// table `--targets` or `--gpu-model` names).
    pub fn request(&self, targets: Option<Targets>) -> Request {
        Request {
            reports: self.reports.clone(),
            baseline: self.baseline.clone(),
            options: Options {
                suite: self.suite.clone(),
                targets,
                // The original's `if args.price`: 0 is no price.
                price: self.price.filter(|p| *p != 0.0),
                gpu_total: self.gputotal,
                rule: Rule::strict_if(self.strict),
                grouping: self.rows,
                force: self.force,
            },
            to_quality: self.to_quality,
            rcp: self.rcp.clone(),
        }
    }
}

/// Runs `mlb report`: the report, or with `--write-rcp` the RCP file of its
/// runs, and with `--db URL` (`""`: the default store) the report with its
/// rows judged against their history; writes the HTML page when asked.
/// Returns what to print.
pub fn run(args: &ReportArgs) -> Result<String, QueryError> {
    if let Some(file) = &args.write_rcp {
        return Ok(mlb_judge::report::rcp::write(&args.reports, file)?);
    }
    let request = args.request(targets(args)?);
    let progress = Progress::on_stderr("mlb report", None, "report files");
    let mut report = mlb_judge::report::report(&request, &|| progress.tick())?;
    // The summary once the command has done all it was asked: a failure says why alone.
    let Some(db) = &args.store.db else {
        let shown = show(args, &report)?;
        progress.finish(None);
        return Ok(shown);
    };
    let location = Location::from_env(Some(db))?;
    let store = Store::open_existing(&location)?;
    let system = match &args.system {
        Some(name) => name.clone(),
        None => default_system(&args.reports)?,
    };
    let mut found = Regressions::new(location.to_string(), system, args.history);
    for row in &report.rows {
        let current: Vec<f64> = report.runs.iter().filter(|r| r.label == row.label).map(|r| r.value).collect();
        let past = past_runs(&store, &found.system, row, request.options.rule, &report.reports, args.history)?;
        if past.is_empty() {
            continue;
        }
        let (runs, values): (Vec<i64>, Vec<Vec<f64>>) = past.into_iter().unzip();
        found.rows.push(judge(&row.label, &current, &values.concat(), runs));
    }
    report.regressions = Some(found);
    let shown = show(args, &report)?;
    progress.finish(None);
    Ok(shown)
}

/// The target table `args` name: a file (`--targets`), else the catalog's
/// table of `--gpu-model`; `None` when neither is given.
fn targets(args: &ReportArgs) -> Result<Option<Targets>, ReportError> {
    match (&args.targets, &args.gpu_model) {
        (Some(path), _) => Targets::from_file(path).map(Some),
        (None, Some(model)) => {
            mlb_judge::targets::catalog::find(&mlb_judge::targets::Folders::from_env(), model).map(Some)
        }
        (None, None) => Ok(None),
    }
}

/// Writes the HTML page of `report` when `args` ask for one; returns what to
/// print: the report in `--format`.
fn show(args: &ReportArgs, report: &Report) -> Result<String, ReportError> {
    let title = || args.title.clone().unwrap_or_else(|| format!("mlb report: {}", args.reports.display()));
    if let Some(path) = &args.html {
        page::write(path, || render::html::page(report, &title()))?;
    }
    Ok(match args.output.format {
        Format::Text | Format::Markdown => args.output.render(&render::document(report)),
        Format::Json => render::json(report),
        Format::Csv => render::csv::render(report),
        Format::Html => render::html::page(report, &title()),
    })
}
