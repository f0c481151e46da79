//! `mlb db share RUN`, `--list`, `--revoke ID`: links that show one run
//! without the server's token ([`mlb_store::collect::shares`]).

use super::{show, DbArg};
use crate::commands::output::OutputArgs;
use clap::Args;
use mlb_store::store::query::render::collect;
use mlb_store::store::query::QueryError;

/// `mlb db share RUN | --list | --revoke ID`
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["run", "list", "revoke"])))]
pub struct ShareArgs {
    /// The run to show (its id in `mlb db runs --embargoed`).
    #[arg(value_name = "RUN")]
    pub run: Option<i64>,
    /// The links made, revoked or not (never their secrets).
    #[arg(long)]
    pub list: bool,
    /// Revoke the link of this id.
    #[arg(long, value_name = "ID")]
    pub revoke: Option<i64>,
    /// The server's address, to print the whole link (`https://results.example.org`).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    #[command(flatten)]
    pub store: DbArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Does what `args` ask; returns what to print.
pub fn run(args: &ShareArgs) -> Result<String, QueryError> {
    let store = args.store.open_existing()?;
    if let Some(id) = args.revoke {
        let share = store.revoke_share(id)?;
        return Ok(format!("revoked the link {} to run {}\n", share.id, share.run_id));
    }
    if let Some(run) = args.run {
        let (share, secret) = store.share(run)?;
        let base = args.url.as_deref().unwrap_or_default().trim_end_matches('/');
        mlb_run::console::Console::Err.line(&format!(
            "mlb db share: link {} shows run {run} to whoever holds it, until `mlb db share --revoke {}`",
            share.id, share.id
        ));
        return Ok(format!("{base}/share/{secret}\n"));
    }
    let shares = store.shares()?;
    Ok(show(&args.output, || collect::shares_document(&shares), |format| collect::shares(&shares, format)))
}
