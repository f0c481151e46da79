//! `mlb db import [--reports DIR]... [DIR]...`: run folders into the store
//! ([`mlb_store::store::import`]).

use super::DbArg;
use mlb_present::Progress;
use mlb_store::store::import::{import, Labels};
use mlb_store::store::query::filters::tag;
use mlb_store::store::query::QueryError;
use mlb_store::store::Store;
use std::path::PathBuf;

/// `mlb db import [--reports DIR]... [DIR]...`
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Folder of report files (read with its sub-folders).
    #[arg(long, value_name = "DIR", required_unless_present = "dirs")]
    pub reports: Vec<PathBuf>,
    /// More folders to import, as `--reports` (repeatable).
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    #[command(flatten)]
    pub store: DbArg,
    /// Store the runs under this system name instead of their host's (at
    /// most 200 characters, no control character).
    #[arg(long, value_name = "NAME", value_parser = super::systems::parse_name)]
    pub system: Option<String>,
    /// Label every run imported `KEY=VALUE` (repeatable).
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = tag)]
    pub labels: Vec<(String, String)>,
}

/// Imports what `args` name; returns what was imported.
pub fn run(args: &ImportArgs) -> Result<String, QueryError> {
    let store = Store::open(&args.store.location()?)?;
    let labels = Labels { system: args.system.clone(), tags: args.labels.clone(), ..Labels::default() };
    let dirs: Vec<PathBuf> = args.reports.iter().chain(&args.dirs).cloned().collect();
    let progress = Progress::on_stderr("mlb db import", None, "report files");
    let imported = import(&store, &dirs, &labels, &|files| progress.add(files))?;
    progress.finish(Some(&imported.summary()));
    Ok(imported.render(&store))
}
