//! `mlb serve [--db URL] [--bind ADDR] [--token-file F] [--allowed-signers F]`:
//! its options into the server's [`Settings`].

use super::db::DbArg;
use clap::Args;
use mlb_store::serve::{ServeError, Settings, DEFAULT_BIND};
use std::net::SocketAddr;
use std::path::PathBuf;

/// `mlb serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The store.
    #[command(flatten)]
    pub store: DbArg,
    /// The address and port to listen on (any address but a loopback one
    /// needs --token-file).
    #[arg(long, value_name = "ADDR:PORT", default_value = DEFAULT_BIND)]
    pub bind: SocketAddr,
    /// A file holding the token a request must carry (`Authorization:
    /// Bearer TOKEN`, or the cookie set by opening a page with `?token=TOKEN`).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The keys trusted to sign acceptance records (an allowed signers
    /// file, as `mlb accept --verify --allowed-signers` reads it): a run's
    /// page names the signer of its record by them.
    #[arg(long, value_name = "FILE")]
    pub allowed_signers: Option<PathBuf>,
}

/// Serves what `args` ask for until Ctrl-C or SIGTERM.
pub fn run(args: &ServeArgs) -> Result<(), ServeError> {
    mlb_store::serve::run(&Settings {
        store: args.store.location()?,
        bind: args.bind,
        token_file: args.token_file.clone(),
        allowed_signers: args.allowed_signers.clone(),
    })
}
