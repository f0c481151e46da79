//! `mlb serve`: a read-only web server over the results store
//! (docs/serve.md), started with its [`Settings`].
//!
//! - [`data`]: each page's data, one function per page (the API's and the
//!   pages' one source);
//! - [`api`]: the JSON and CSV API under `/api/`;
//! - [`pages`]: the HTML pages, rendered from the same data;
//! - [`auth`]: the token, when the server listens beyond this host;
//! - [`headers`]: the security headers of every answer;
//! - [`push`]: `POST /api/push`, with `--accept-push`: runs pushed by other sites;
//! - [`server`]: the routes, limits and the listening loop;
//! - [`connections`]: the connections held, bounded, idle ones closed;
//! - [`error`]: why it did not start, with the fix.

pub mod api;
pub mod auth;
pub mod connections;
pub mod data;
pub mod error;
pub mod headers;
pub mod pages;
pub mod push;
pub mod server;

pub use error::ServeError;

use std::sync::Arc;

/// The address served when `--bind` is not given: this host only.
pub const DEFAULT_BIND: &str = "127.0.0.1:8537";

/// What `mlb serve` serves, and to whom.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The store, read-only.
    pub store: crate::store::Location,
    /// The address and port to listen on (any address but a loopback one
    /// needs a token).
    pub bind: std::net::SocketAddr,
    /// A file holding the token a request must carry.
    pub token_file: Option<std::path::PathBuf>,
    /// The keys trusted to sign acceptance records (an allowed signers file).
    pub allowed_signers: Option<std::path::PathBuf>,
    /// With `--accept-push`: the bounds on each push (the server then
    /// writes the store, pushes only).
    pub accept_push: Option<crate::collect::limits::Limits>,
}

/// Runs `mlb serve` until Ctrl-C or SIGTERM.
pub fn run(args: &Settings) -> Result<(), ServeError> {
    let token = match &args.token_file {
        Some(path) => Some(auth::Token::read(path)?),
        None if !args.bind.ip().is_loopback() => return Err(ServeError::NeedsToken { addr: args.bind }),
        None => None,
    };
    let signers = args.allowed_signers.as_deref().map(mlb_judge::accept::record::AllowedSigners::read).transpose()?;
    // One runtime: the server's tasks and the store's connections.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| ServeError::Bind { addr: args.bind, source })?;
    let folders = mlb_judge::targets::Folders::from_env();
    let (reader, receiver) = match args.accept_push {
        Some(limits) => {
            let store = crate::store::Store::open_existing_on(&args.store, runtime.handle().clone())?;
            let reader = Arc::new(data::Reader::over(store, folders, signers));
            (Arc::clone(&reader), Some(Arc::new(push::Receiver::new(reader, limits))))
        }
        None => (Arc::new(data::Reader::open(&args.store, folders, signers, runtime.handle().clone())?), None),
    };
    let mode = if receiver.is_some() { "read-only, and pushes at /api/push" } else { "read-only" };
    let location = reader.store().location().to_string();
    // Held here (and dropped before the runtime) so that the store is
    // closed once the server has stopped, outside the runtime's tasks (its
    // closing blocks, which a task may not).
    let _store = Arc::clone(&reader);
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .map_err(|source| ServeError::Bind { addr: args.bind, source })?;
        let addr = listener.local_addr().unwrap_or(args.bind);
        mlb_run::console::Console::Err.line(&format!("mlb serve: http://{addr}/ over the store {location} ({mode})"));
        server::serve(listener, server::app(reader, token, receiver), server::interrupted()).await;
        Ok(())
    })
}
