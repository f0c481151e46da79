//! `mlb db ...`: the results store's subcommands, a file each, each turning
//! its arguments into the store's typed options ([`mlb_store::store::query`]),
//! which `mlb serve` builds from a request the same way.

pub mod compare;
pub mod export;
pub mod filters;
pub mod history;
pub mod import;
pub mod list;
pub mod systems;

use clap::{Args, Subcommand};
use mlb_store::store::query::QueryError;
use mlb_store::store::{Location, Store, StoreError};

/// `mlb db ...`
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Imports mlb's run folders and the original suite's report folders
    /// (report files at any depth; each folder holding reports is a run).
    /// A run folder whose reports are all stored (by content hash) is
    /// skipped, one with a new or changed report is written again as it is
    /// now; each run folder is stored whole or not at all.
    Import(import::ImportArgs),
    /// Renames a system (onto a name taken, the two are one system).
    RenameSystem(systems::RenameSystemArgs),
    /// Removes a system with all its runs.
    RemoveSystem(systems::RemoveSystemArgs),
    /// The runs stored, oldest first, with their system, ids and tags.
    Runs(list::ListArgs),
    /// The systems stored, with their runs.
    Systems(list::ListArgs),
    /// Benches x systems, normalised to a reference, with a score per system
    /// and its items/s per dollar and per watt.
    Compare(compare::CompareArgs),
    /// One system's figures over time, a line per bench (and an SVG chart).
    History(history::HistoryArgs),
    /// A run in Bencher Metric Format, or the long metrics table as CSV.
    Export(export::ExportArgs),
}

/// Where the store is: `--db URL`, else `MLB_DB`, else the default file.
#[derive(Debug, Clone, Args)]
pub struct DbArg {
    /// The store: `sqlite:PATH` or `postgres://USER@HOST/DB` (default:
    /// `MLB_DB`, else `$XDG_DATA_HOME/mlb/results.db`).
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
}

impl DbArg {
    /// The store this names.
    pub fn location(&self) -> Result<Location, StoreError> {
        Location::from_env(self.db.as_deref())
    }

    /// The store this names, opened; one that does not exist yet is an
    /// error (only an import makes a store).
    pub fn open_existing(&self) -> Result<Store, StoreError> {
        Store::open_existing(&self.location()?)
    }
}

/// Runs `command`; returns what to print.
pub fn run(command: &DbCommand) -> Result<String, QueryError> {
    match command {
        DbCommand::Import(args) => import::run(args),
        DbCommand::RenameSystem(args) => systems::rename(args),
        DbCommand::RemoveSystem(args) => systems::remove(args),
        DbCommand::Runs(args) => list::runs(args),
        DbCommand::Systems(args) => list::systems(args),
        DbCommand::Compare(args) => compare::run(args),
        DbCommand::History(args) => history::run(args),
        DbCommand::Export(args) => export::run(args),
    }
}
