//! `mlb db runs` and `mlb db systems`: the runs and systems the filters select.

use super::filters::FilterArgs;
use super::{show, DbArg};
use crate::commands::output::OutputArgs;
use clap::Args;
use mlb_store::store::query::render::list;
use mlb_store::store::query::QueryError;

/// `mlb db runs` and `mlb db systems`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The store.
    #[command(flatten)]
    pub store: DbArg,
    /// Which runs.
    #[command(flatten)]
    pub filters: FilterArgs,
    /// `--format`, `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The runs `args` select, as `--format` asks.
pub fn runs(args: &ListArgs) -> Result<String, QueryError> {
    let store = args.store.open_existing()?;
    let runs = mlb_store::store::query::runs::runs(&store, &args.filters.filters())?;
    Ok(show(&args.output, || list::runs_document(&runs), |format| list::runs(&runs, format)))
}

/// The systems of the runs `args` select, as `--format` asks.
pub fn systems(args: &ListArgs) -> Result<String, QueryError> {
    let store = args.store.open_existing()?;
    let systems = mlb_store::store::query::systems::systems(&store, &args.filters.filters())?;
    Ok(show(&args.output, || list::systems_document(&systems), |format| list::systems(&systems, format)))
}
