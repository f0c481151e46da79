//! `mlb db pull --from URL [--system S]`: the public runs of another mlb
//! server copied into this store ([`mlb_store::collect::pull`]).

use super::DbArg;
use clap::Args;
use mlb_present::Progress;
use mlb_store::collect::client::Client;
use mlb_store::collect::pull::pull;
use mlb_store::store::query::QueryError;
use mlb_store::store::Store;
use std::path::PathBuf;

/// `mlb db pull --from URL`
#[derive(Debug, Args)]
pub struct PullArgs {
    /// The server to copy from (`https://results.example.org`).
    #[arg(long, value_name = "URL")]
    pub from: String,
    /// Only the runs of this system.
    #[arg(long, value_name = "NAME")]
    pub system: Option<String>,
    /// A file holding the server's token, when it needs one.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    #[command(flatten)]
    pub store: DbArg,
}

/// Pulls what `args` ask for; returns what was done.
pub fn run(args: &PullArgs) -> Result<String, QueryError> {
    let token = args.token_file.as_deref().map(super::keys::read_key).transpose()?;
    let client = Client::new(&args.from)?;
    let store = Store::open(&args.store.location()?)?;
    let progress = Progress::on_stderr("mlb db pull", None, "runs");
    let pulled = pull(&store, &client, token.as_deref(), args.system.as_deref(), &|n| progress.add(n))?;
    progress.finish(None);
    Ok(pulled.render(client.url(), &store))
}
