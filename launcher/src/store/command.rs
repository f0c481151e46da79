//! `mlb db ...`: the results store's subcommands.

use super::import::{self, Labels};
use super::{Location, Store, StoreError};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// `mlb db ...`
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Imports mlb's run folders and the original suite's report folders
    /// (report files at any depth; each folder holding reports is a run).
    /// A run folder whose reports are all stored (by content hash) is
    /// skipped, one with a new or changed report is written again as it is
    /// now; each run folder is written in one transaction.
    Import(ImportArgs),
    /// Renames a system (onto a name taken, the two are one system).
    RenameSystem(RenameSystemArgs),
    /// Removes a system with all its runs.
    RemoveSystem(RemoveSystemArgs),
    /// The queries: runs, systems, compare, history, export.
    #[command(flatten)]
    Query(super::query::command::QueryCommand),
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
}

/// `mlb db import DIR...`
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Folders to import (searched at any depth).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    #[command(flatten)]
    pub store: DbArg,
    /// Store the runs under this system name instead of their host's (at
    /// most 200 characters, no control character).
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub system: Option<String>,
    /// Label every run imported (repeatable).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = parse_tag)]
    pub tags: Vec<(String, String)>,
}

/// `mlb db rename-system OLD NEW`
#[derive(Debug, Args)]
pub struct RenameSystemArgs {
    /// The system's name now.
    #[arg(value_name = "OLD")]
    pub old: String,
    /// Its new name (at most 200 characters, no control character).
    #[arg(value_name = "NEW", value_parser = parse_name)]
    pub new: String,
    #[command(flatten)]
    pub store: DbArg,
}

/// `mlb db remove-system NAME`
#[derive(Debug, Args)]
pub struct RemoveSystemArgs {
    /// The system to remove, with its runs.
    #[arg(value_name = "NAME")]
    pub name: String,
    #[command(flatten)]
    pub store: DbArg,
}

/// A name the store keeps ([`super::name::check`]).
pub fn parse_name(text: &str) -> Result<String, String> {
    super::name::check(text).map(str::to_string).map_err(|e| e.to_string())
}

/// `KEY=VALUE`, the key not empty.
fn parse_tag(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("{text:?} is not KEY=VALUE")),
    }
}

/// Runs `command`; returns what to print.
pub fn run(command: &DbCommand) -> Result<String, super::query::QueryError> {
    match command {
        DbCommand::Query(query) => super::query::command::run(query),
        DbCommand::Import(args) => {
            let store = Store::open(&args.store.location()?)?;
            let labels = Labels { system: args.system.clone(), tags: args.tags.clone(), jobs_hash: None };
            Ok(import::import(&store, &args.dirs, &labels)?.render(&store))
        }
        DbCommand::RenameSystem(args) => {
            Store::open_existing(&args.store.location()?)?.rename_system(&args.old, &args.new)
        }
        DbCommand::RemoveSystem(args) => Store::open_existing(&args.store.location()?)?.remove_system(&args.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_key_equals_value() {
        assert_eq!(parse_tag("site=lab b=c").unwrap(), ("site".to_string(), "lab b=c".to_string()));
        assert_eq!(parse_tag("empty=").unwrap(), ("empty".to_string(), String::new()));
        assert!(parse_tag("=v").is_err() && parse_tag("novalue").is_err());
    }
}
