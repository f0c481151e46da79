//! `mlb db history`: one system over time ([`mlb_store::store::query::history`]);
//! `--format html` is its chart (the one `mlb serve`'s history page draws)
//! as a self-contained page.

use super::filters::FilterArgs;
use super::{show, DbArg};
use crate::commands::output::OutputArgs;
use clap::Args;
use mlb_present::Format;
use mlb_store::store::query::history::{fetch, HistoryOptions};
use mlb_store::store::query::render;
use mlb_store::store::query::scale::Scale;
use mlb_store::store::query::{Metric, QueryError};
use std::path::PathBuf;

/// `mlb db history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The store.
    #[command(flatten)]
    pub store: DbArg,
    /// Which runs (`--system` is required).
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Only this bench (or config).
    #[arg(long, value_name = "NAME")]
    pub bench: Option<String>,
    /// What the points show (`score`: items/s over the first run's).
    #[arg(long, value_enum, default_value_t = Metric::ItemsPerSecond)]
    pub metric: Metric,
    /// Judge failures by mlb's stricter check (as `mlb report --strict`).
    #[arg(long)]
    pub strict: bool,
    /// Also write the history's chart as a page into FILE (deprecated: use
    /// `--format html --output FILE`).
    #[arg(long, value_name = "FILE", hide = true)]
    pub svg: Option<PathBuf>,
    /// With `--format html`: the chart's y axis, each bench relative to its
    /// own median (a drop of any bench shows, whatever its items/s), or the
    /// values as they are.
    #[arg(long, value_enum, value_name = "SCALE", default_value_t = Scale::Relative)]
    pub scale: Scale,
    /// `--format`, `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl HistoryArgs {
    /// The history asked for.
    pub fn options(&self) -> HistoryOptions {
        HistoryOptions {
            filters: self.filters.filters(),
            bench: self.bench.clone(),
            metric: self.metric,
            strict: self.strict,
        }
    }
}

/// The history `args` ask for, as `--format` asks, after writing the chart when asked.
pub fn run(args: &HistoryArgs) -> Result<String, QueryError> {
    let store = args.store.open_existing()?;
    let found = fetch(&store, &args.options())?;
    if let Some(path) = &args.svg {
        let chart = mlb_store::store::query::chart::page(&found, args.scale);
        mlb_record::contract::record::write_output(path, chart.as_bytes())
            .map_err(|source| QueryError::Write { path: path.clone(), source })?;
    }
    if args.output.format == Format::Html {
        return Ok(mlb_store::store::query::chart::page(&found, args.scale));
    }
    Ok(show(&args.output, || render::history::document(&found), |format| render::history::render(&found, format)))
}
