//! `mlb db runs|systems|compare|history|export`: the command line, and what
//! each prints.

use super::args::{CompareArgs, ExportArgs, HistoryArgs, ListArgs};
use super::error::QueryError;
use super::render;
use crate::store::{Location, Store};
use clap::{Args, Subcommand};

/// `mlb db ...`: the store and what to do with it.
#[derive(Debug, Args)]
pub struct DbArgs {
    /// The store: `sqlite:PATH` or `postgres://USER@HOST/DB` (default: `MLB_DB`,
    /// else `$XDG_DATA_HOME/mlb/results.db`).
    #[arg(long, global = true, value_name = "URL")]
    pub db: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub command: DbCommand,
}

/// The queries of `mlb db`.
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// The runs stored, oldest first, with their system, ids and tags.
    Runs(ListArgs),
    /// The systems stored, with their runs.
    Systems(ListArgs),
    /// Benches x systems, normalised to a reference, with a score per system
    /// and its items/s per dollar and per watt.
    Compare(CompareArgs),
    /// One system's figures over time, a line per bench (and an SVG chart).
    History(HistoryArgs),
    /// A run in Bencher Metric Format, or the long metrics table as CSV.
    Export(ExportArgs),
}

/// Runs `mlb db ...`: returns what to print, after writing the chart when asked.
pub fn run(args: &DbArgs) -> Result<String, QueryError> {
    let store = Store::open(&Location::from_env(args.db.as_deref())?)?;
    match &args.command {
        DbCommand::Runs(list) => Ok(render::list::runs(&super::runs::runs(&store, &list.filters)?, list.format)),
        DbCommand::Systems(list) => {
            Ok(render::list::systems(&super::systems::systems(&store, &list.filters)?, list.format))
        }
        DbCommand::Compare(compare) => {
            Ok(render::compare::render(&super::compare::compare(&store, compare)?, compare.format))
        }
        DbCommand::History(history) => {
            let found = super::history::fetch(&store, history)?;
            if let Some(path) = &history.svg {
                let chart = super::svg::chart(&found)?;
                std::fs::write(path, chart).map_err(|source| QueryError::Write { path: path.clone(), source })?;
            }
            Ok(render::history::render(&found, history.format))
        }
        DbCommand::Export(export) => super::export::export(&store, export),
    }
}
