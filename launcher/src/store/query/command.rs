//! `mlb db runs|systems|compare|history|export`: the command line, and what
//! each prints.

use super::args::{CompareArgs, ExportArgs, HistoryArgs, ListArgs};
use super::error::QueryError;
use super::render;
use crate::store::Store;
use clap::Subcommand;

/// The queries of `mlb db`.
#[derive(Debug, Subcommand)]
pub enum QueryCommand {
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

impl QueryCommand {
    /// The store the query reads.
    fn store(&self) -> &crate::store::command::DbArg {
        match self {
            QueryCommand::Runs(a) | QueryCommand::Systems(a) => &a.store,
            QueryCommand::Compare(a) => &a.store,
            QueryCommand::History(a) => &a.store,
            QueryCommand::Export(a) => &a.store,
        }
    }
}

/// Runs `mlb db ...`: returns what to print, after writing the chart when asked.
pub fn run(command: &QueryCommand) -> Result<String, QueryError> {
    let store = Store::open_existing(&command.store().location()?)?;
    match command {
        QueryCommand::Runs(list) => Ok(render::list::runs(&super::runs::runs(&store, &list.filters)?, list.format)),
        QueryCommand::Systems(list) => {
            Ok(render::list::systems(&super::systems::systems(&store, &list.filters)?, list.format))
        }
        QueryCommand::Compare(compare) => {
            Ok(render::compare::render(&super::compare::compare(&store, compare)?, compare.format))
        }
        QueryCommand::History(history) => {
            let found = super::history::fetch(&store, history)?;
            if let Some(path) = &history.svg {
                let chart = super::svg::chart(&found, history.scale)?;
                mlb_record::contract::record::write_output(path, chart.as_bytes())
                    .map_err(|source| QueryError::Write { path: path.clone(), source })?;
            }
            Ok(render::history::render(&found, history.format))
        }
        QueryCommand::Export(export) => {
            super::export::export(&store, export, &mut |text| crate::console::Console::Out.write(text))?;
            Ok(String::new())
        }
    }
}
