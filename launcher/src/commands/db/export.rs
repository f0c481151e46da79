//! `mlb db export`: a run in Bencher Metric Format, or the long metrics
//! table as CSV, streamed to stdout ([`mlb_store::store::query::export`]).

use super::filters::FilterArgs;
use super::DbArg;
use clap::Args;
use mlb_store::store::query::export::{export, ExportFormat, ExportOptions};
use mlb_store::store::query::QueryError;

/// `mlb db export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The store.
    #[command(flatten)]
    pub store: DbArg,
    /// What to write: `bencher` (Bencher Metric Format JSON of one run) or
    /// `csv` (the long metrics table).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub to: ExportFormat,
    /// With `bencher`: the run (its id in `mlb db runs`; default: the newest run the filters select).
    #[arg(long, value_name = "ID")]
    pub run: Option<i64>,
    /// Which runs.
    #[command(flatten)]
    pub filters: FilterArgs,
}

/// Writes the export `args` ask for to stdout; returns nothing more to print.
pub fn run(args: &ExportArgs) -> Result<String, QueryError> {
    let store = args.store.open_existing()?;
    let options = ExportOptions { format: args.to, run: args.run, filters: args.filters.filters() };
    export(&store, &options, &mut |text| mlb_run::console::Console::Out.write(text))?;
    Ok(String::new())
}
