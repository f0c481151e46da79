//! `mlb db vote`: the vote over deterministic runs' fingerprints across the
//! stored runs and a run folder not imported ([`mlb_store::store::query::vote`]).

use super::filters::FilterArgs;
use super::{show, DbArg};
use crate::commands::output::OutputArgs;
use clap::Args;
use mlb_present::Progress;
use mlb_store::store::query::render;
use mlb_store::store::query::vote::{votes, VoteOptions};
use mlb_store::store::query::QueryError;
use std::path::PathBuf;

/// `mlb db vote`.
#[derive(Debug, Args)]
pub struct VoteArgs {
    /// The store.
    #[command(flatten)]
    pub store: DbArg,
    /// Folder of report files (read with its sub-folders).
    ///
    /// A run's reports, voted with the stored runs as `mlb report` reads
    /// them; they are not imported.
    #[arg(long, value_name = "DIR")]
    pub reports: Option<PathBuf>,
    /// Which stored runs.
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Only this bench (or config).
    #[arg(long, value_name = "NAME")]
    pub bench: Option<String>,
    /// `--format`, `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl VoteArgs {
    /// The vote asked for.
    pub fn options(&self) -> VoteOptions {
        VoteOptions { filters: self.filters.filters(), bench: self.bench.clone(), reports: self.reports.clone() }
    }
}

/// The vote `args` ask for, as `--format` asks, and the exit status: 1 when
/// a group has outliers or is not reproducible, else 0.
pub fn run(args: &VoteArgs) -> Result<(String, i32), QueryError> {
    let store = args.store.open_existing()?;
    // The run folder's files, as `mlb report` counts them; nothing without one.
    let progress = args.reports.as_ref().map(|_| Progress::on_stderr("mlb db vote", None, "report files"));
    let found = votes(&store, &args.options(), &|| progress.iter().for_each(Progress::tick))?;
    if let Some(progress) = progress {
        progress.finish(None);
    }
    let shown = show(&args.output, || render::vote::document(&found), |format| render::vote::render(&found, format));
    Ok((shown, found.exit_code()))
}
