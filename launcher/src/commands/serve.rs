//! `mlb serve [--db URL] [--bind ADDR] [--token-file F] [--allowed-signers F]
//! [--accept-push [--push-max-bytes N] [--push-max-files N] [--push-max-unpacked N]]`:
//! its options into the server's [`Settings`].

use super::db::DbArg;
use clap::Args;
use mlb_store::collect::limits::Limits;
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
    /// Also take runs pushed by other sites (`mlb db push`) at /api/push,
    /// each with a push key of this store (`mlb db keys add`); the server
    /// then writes the store.
    #[arg(long)]
    pub accept_push: bool,
    /// With --accept-push: the most bytes one push may send (compressed).
    #[arg(long, value_name = "BYTES", requires = "accept_push", default_value_t = Limits::default().body_bytes)]
    pub push_max_bytes: u64,
    /// With --accept-push: the most files one push may unpack to.
    #[arg(long, value_name = "N", requires = "accept_push", default_value_t = Limits::default().files)]
    pub push_max_files: u64,
    /// With --accept-push: the most bytes one push may unpack to (a
    /// decompression bomb stops there).
    #[arg(long, value_name = "BYTES", requires = "accept_push", default_value_t = Limits::default().unpacked_bytes)]
    pub push_max_unpacked: u64,
}

/// Serves what `args` ask for until Ctrl-C or SIGTERM.
pub fn run(args: &ServeArgs) -> Result<(), ServeError> {
    mlb_store::serve::run(&Settings {
        store: args.store.location()?,
        bind: args.bind,
        token_file: args.token_file.clone(),
        allowed_signers: args.allowed_signers.clone(),
        accept_push: args.accept_push.then(|| Limits {
            body_bytes: args.push_max_bytes,
            files: args.push_max_files,
            unpacked_bytes: args.push_max_unpacked,
            file_bytes: Limits::default().file_bytes.min(args.push_max_unpacked),
        }),
    })
}
