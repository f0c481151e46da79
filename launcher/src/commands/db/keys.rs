//! `mlb db keys add|list|revoke` and `mlb db pushes`: the push keys of a
//! collecting store ([`mlb_store::collect::keys`]) and the log of their
//! pushes ([`mlb_store::collect::log`]).

use super::{show, DbArg};
use crate::commands::output::OutputArgs;
use clap::{Args, Subcommand};
use mlb_store::collect::keys::{KeyBounds, PER_MINUTE};
use mlb_store::collect::secret;
use mlb_store::collect::CollectError;
use mlb_store::store::query::render::collect;
use mlb_store::store::query::QueryError;
use mlb_store::store::Store;
use std::path::{Path, PathBuf};

/// `mlb db keys ...`
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Makes a push key for a submitting site: the systems it may push for,
    /// and how often. The key is shown once (or written to --key-file);
    /// the store keeps its hash.
    Add(AddArgs),
    /// The push keys, revoked or not (never the keys themselves).
    List(KeysListArgs),
    /// Revokes a push key: it pushes nothing more, and sees no run under embargo.
    Revoke(RevokeArgs),
}

/// `mlb db keys add NAME --system S...`
#[derive(Debug, Args)]
pub struct AddArgs {
    /// Who holds the key (a site, a vendor).
    #[arg(value_name = "NAME", value_parser = super::systems::parse_name)]
    pub name: String,
    /// A system it may push for (repeatable); its runs are stored under that name.
    #[arg(long = "system", value_name = "SYSTEM", required = true, value_parser = super::systems::parse_name)]
    pub systems: Vec<String>,
    /// The most pushes it may make in a minute.
    #[arg(long, value_name = "N", default_value_t = PER_MINUTE)]
    pub per_minute: u32,
    /// The most bytes one of its pushes may send (below the server's
    /// --push-max-bytes; default: the server's).
    #[arg(long, value_name = "BYTES")]
    pub max_bytes: Option<u64>,
    /// The most files one of its pushes may unpack to (below the server's
    /// --push-max-files; default: the server's).
    #[arg(long, value_name = "N")]
    pub max_files: Option<u64>,
    /// Write the key into this new file (readable by you only) instead of
    /// printing it.
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    #[command(flatten)]
    pub store: DbArg,
}

/// `mlb db keys list`
#[derive(Debug, Args)]
pub struct KeysListArgs {
    #[command(flatten)]
    pub store: DbArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `mlb db keys revoke NAME`
#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// The key's name.
    #[arg(value_name = "NAME")]
    pub name: String,
    #[command(flatten)]
    pub store: DbArg,
}

/// `mlb db pushes [--key NAME]`
#[derive(Debug, Args)]
pub struct PushesArgs {
    /// Only the pushes of this key.
    #[arg(long, value_name = "NAME")]
    pub key: Option<String>,
    #[command(flatten)]
    pub store: DbArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Runs `command`; returns what to print.
pub fn run(command: &KeysCommand) -> Result<String, QueryError> {
    match command {
        KeysCommand::Add(args) => add(args),
        KeysCommand::List(args) => {
            let keys = args.store.open_existing()?.keys()?;
            Ok(show(&args.output, || collect::keys_document(&keys), |format| collect::keys(&keys, format)))
        }
        KeysCommand::Revoke(args) => {
            let store = args.store.open_existing()?;
            let key = store.revoke_key(&args.name)?;
            Ok(format!(
                "revoked the push key `{}` ({}) in {}\n",
                key.name,
                key.revoked_at.unwrap_or_default(),
                store.location()
            ))
        }
    }
}

/// `mlb db keys add`: the key on stdout (alone, for a script to take), or
/// in the new file `--key-file`.
fn add(args: &AddArgs) -> Result<String, QueryError> {
    let store = Store::open(&args.store.location()?)?;
    let file_error = |path: &PathBuf, why| CollectError::KeyFile { path: path.clone(), why };
    // Made before the key, so that a file in the way costs no key.
    let file = match &args.key_file {
        Some(path) => Some((secret::new_file(path).map_err(|why| file_error(path, why))?, path)),
        None => None,
    };
    let bounds = KeyBounds { max_bytes: args.max_bytes, max_files: args.max_files };
    let (key, secret) = store.add_key(&args.name, &args.systems, args.per_minute, bounds)?;
    if let Some((file, path)) = file {
        secret::write(file, &secret).map_err(|why| file_error(path, why))?;
        return Ok(format!(
            "made the push key `{}` for {} in {}; the key is in {} (the store keeps only its hash)\n",
            key.name,
            key.systems.join(", "),
            store.location(),
            path.display()
        ));
    }
    mlb_run::console::Console::Err.line(&format!(
        "mlb db keys: made the push key `{}` for {}; it is shown once, below (the store keeps only its hash)",
        key.name,
        key.systems.join(", ")
    ));
    Ok(format!("{secret}\n"))
}

/// `mlb db pushes`.
pub fn pushes(args: &PushesArgs) -> Result<String, QueryError> {
    let pushes = args.store.open_existing()?.pushes(args.key.as_deref())?;
    Ok(show(&args.output, || collect::pushes_document(&pushes), |format| collect::pushes(&pushes, format)))
}

/// The key in the file `path` (`--key-file`).
pub fn read_key(path: &Path) -> Result<String, CollectError> {
    let text = mlb_record::reading::read_input(path)
        .map_err(|e| CollectError::KeyFile { path: path.to_path_buf(), why: e.to_string() })?;
    let key = text.trim();
    if key.is_empty() {
        return Err(CollectError::KeyFile { path: path.to_path_buf(), why: "it is empty".into() });
    }
    Ok(key.to_string())
}
