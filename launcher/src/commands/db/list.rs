//! `mlb db runs` and `mlb db systems`: the runs and systems the filters select.

use super::filters::FilterArgs;
use super::{store_format, DbArg};
use crate::commands::output::OutputArgs;
use crate::edge::MlbError;
use clap::Args;
use mlb_store::store::query::render;

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
pub fn runs(args: &ListArgs) -> Result<String, MlbError> {
    let format = store_format(&args.output, "mlb db runs")?;
    let store = args.store.open_existing()?;
    let runs = mlb_store::store::query::runs::runs(&store, &args.filters.filters())?;
    Ok(render::list::runs(&runs, format))
}

/// The systems of the runs `args` select, as `--format` asks.
pub fn systems(args: &ListArgs) -> Result<String, MlbError> {
    let format = store_format(&args.output, "mlb db systems")?;
    let store = args.store.open_existing()?;
    let systems = mlb_store::store::query::systems::systems(&store, &args.filters.filters())?;
    Ok(render::list::systems(&systems, format))
}
