//! `mlb db import DIR...`: run folders into the store ([`mlb_store::store::import`]).

use super::DbArg;
use mlb_present::Progress;
use mlb_store::store::import::{import, Labels};
use mlb_store::store::query::filters::tag;
use mlb_store::store::query::QueryError;
use mlb_store::store::Store;
use std::path::PathBuf;

/// `mlb db import DIR...`
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Folders to import (searched at any depth).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    #[command(flatten)]
    pub store: DbArg,
    /// Store the runs under this system name instead of their host's (at
    /// most 200 characters, no control character).
    #[arg(long, value_name = "NAME", value_parser = super::systems::parse_name)]
    pub system: Option<String>,
    /// Label every run imported (repeatable).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag)]
    pub tags: Vec<(String, String)>,
}

/// Imports what `args` name; returns what was imported.
pub fn run(args: &ImportArgs) -> Result<String, QueryError> {
    let store = Store::open(&args.store.location()?)?;
    let labels = Labels { system: args.system.clone(), tags: args.tags.clone(), jobs_hash: None };
    let progress = Progress::on_stderr("mlb db import", None, "report files");
    let imported = import(&store, &args.dirs, &labels, &|files| progress.add(files))?;
    progress.finish(Some(&imported.summary()));
    Ok(imported.render(&store))
}
