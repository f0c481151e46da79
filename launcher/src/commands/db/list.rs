//! `mlb db runs`, `mlb db systems` and `mlb db interference`: the runs,
//! systems and interference cells of the runs the filters select.

use super::filters::FilterArgs;
use super::{show, DbArg};
use crate::commands::output::OutputArgs;
use clap::Args;
use mlb_store::store::query::render::list;
use mlb_store::store::query::QueryError;

/// `mlb db runs`, `mlb db systems` and `mlb db interference`.
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

/// The interference cells of the runs `args` select, as `--format` asks.
pub fn interference(args: &ListArgs) -> Result<String, QueryError> {
    let store = args.store.open_existing()?;
    let cells = mlb_store::store::query::interference::interference(&store, &args.filters.filters())?;
    Ok(show(&args.output, || list::cells_document(&cells), |format| list::cells(&cells, format)))
}
