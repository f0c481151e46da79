//! `mlb db rename-system OLD NEW` and `mlb db remove-system NAME`
//! ([`mlb_store::store::system_edit`]).

use super::DbArg;
use clap::Args;
use mlb_store::store::query::QueryError;

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

/// A name the store keeps ([`mlb_store::store::name::check`]).
pub fn parse_name(text: &str) -> Result<String, String> {
    mlb_store::store::name::check(text).map(str::to_string).map_err(|e| e.to_string())
}

/// Renames the system; returns what was done.
pub fn rename(args: &RenameSystemArgs) -> Result<String, QueryError> {
    args.store.open_existing()?.rename_system(&args.old, &args.new)
}

/// Removes the system; returns what was done.
pub fn remove(args: &RemoveSystemArgs) -> Result<String, QueryError> {
    args.store.open_existing()?.remove_system(&args.name)
}
