//! Loading a plugin library and checking its ABI.
//!
//! Libraries are loaded by absolute path and never unloaded: thread-local
//! destructors and libtorch's static destructors crash after `dlclose`.

use super::trust::{check_trusted, TrustError};
use mlb_plugin::abi::{EntryFn, PluginTable, StrRef, ABI_VERSION, ENTRY_SYMBOL, ENTRY_SYMBOL_PREFIX};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Highest ABI major version probed for when the expected symbol is missing.
const HIGHEST_PROBED_ABI: u32 = 64;

/// Why a file could not be loaded as a plugin.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Plugins are loaded by absolute path only.
    #[error("plugin path {0} is not absolute")]
    NotAbsolute(PathBuf),
    /// The file is not trusted.
    #[error(transparent)]
    Untrusted(#[from] TrustError),
    /// The dynamic loader refused the file (not a library, missing dependency...).
    #[error("{path} is not a loadable library: {reason}")]
    Open {
        /// The file.
        path: PathBuf,
        /// The loader's message.
        reason: String,
    },
    /// The library exports no mlb entry symbol at all.
    #[error("{path} is not an mlb plugin: it exports no `{ENTRY_SYMBOL}` symbol")]
    NotAPlugin {
        /// The file.
        path: PathBuf,
    },
    /// The library was built for another ABI major version.
    #[error("{path} was built for plugin ABI v{found}, this mlb speaks ABI v{ABI_VERSION}; fix: rebuild the plugin against mlb-plugin with ABI v{ABI_VERSION} (or use an mlb that speaks v{found})")]
    AbiMismatch {
        /// The file.
        path: PathBuf,
        /// The ABI version its symbol names.
        found: u32,
    },
    /// The table is malformed (null, too small, wrong version field, bad strings).
    #[error("{path} has a malformed plugin table: {reason}")]
    BadTable {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A plugin's self-description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PluginMeta {
    /// Workload name.
    pub name: String,
    /// Workload version.
    pub version: String,
    /// ABI version of its table.
    pub abi_version: u32,
    /// One-line description.
    pub description: String,
    /// Default arguments.
    pub default_args: serde_json::Value,
}

/// A loaded plugin. The library stays loaded for the life of the process.
pub struct Plugin {
    path: PathBuf,
    table: &'static PluginTable,
    meta: PluginMeta,
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin").field("path", &self.path).field("meta", &self.meta).finish()
    }
}

impl Plugin {
    /// Where the library was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The plugin's metadata.
    pub fn meta(&self) -> &PluginMeta {
        &self.meta
    }

    /// The raw function table.
    pub(crate) fn table(&self) -> &'static PluginTable {
        self.table
    }
}

/// Loads the plugin at an absolute `path`, after the trust check.
pub fn load(path: &Path) -> Result<Plugin, LoadError> {
    if !path.is_absolute() {
        return Err(LoadError::NotAbsolute(path.to_path_buf()));
    }
    check_trusted(path)?;
    let open_err = |e: libloading::Error| LoadError::Open { path: path.to_path_buf(), reason: e.to_string() };
    // SAFETY: loading a library runs its initialisers; the file passed the
    // trust check and comes from a configured plugin folder.
    let lib = unsafe { libloading::Library::new(path) }.map_err(open_err)?;
    // Never unloaded: see the module documentation.
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    let entry = match unsafe { lib.get::<EntryFn>(format!("{ENTRY_SYMBOL}\0").as_bytes()) } {
        Ok(entry) => *entry,
        Err(_) => return Err(other_abi(lib, path)),
    };
    let bad = |reason: String| LoadError::BadTable { path: path.to_path_buf(), reason };
    // SAFETY: the symbol has the ABI's entry signature by contract.
    let table = unsafe { entry().as_ref() }.ok_or_else(|| bad("entry returned null".into()))?;
    if table.size < std::mem::size_of::<PluginTable>() {
        return Err(bad(format!("table is {} bytes, ABI v1 needs {}", table.size, std::mem::size_of::<PluginTable>())));
    }
    if table.abi_version != ABI_VERSION {
        return Err(LoadError::AbiMismatch { path: path.to_path_buf(), found: table.abi_version });
    }
    // SAFETY: the table's strings are static in the (never unloaded) library.
    let text =
        |s: &StrRef, what: &str| unsafe { s.as_str() }.map(str::to_string).map_err(|e| bad(format!("{what}: {e}")));
    let default_args = text(&table.default_args, "default_args")?;
    let meta = PluginMeta {
        name: text(&table.name, "name")?,
        version: text(&table.version, "version")?,
        abi_version: table.abi_version,
        description: text(&table.description, "description")?,
        default_args: serde_json::from_str(&default_args).map_err(|e| bad(format!("default_args is not JSON: {e}")))?,
    };
    if meta.name.is_empty() {
        return Err(bad("empty name".into()));
    }
    Ok(Plugin { path: path.to_path_buf(), table, meta })
}

/// The error for a library without the v1 symbol: which other version it has.
fn other_abi(lib: &libloading::Library, path: &Path) -> LoadError {
    (0..=HIGHEST_PROBED_ABI)
        .filter(|v| *v != ABI_VERSION)
        .find(|v| unsafe { lib.get::<EntryFn>(format!("{ENTRY_SYMBOL_PREFIX}{v}\0").as_bytes()) }.is_ok())
        .map(|found| LoadError::AbiMismatch { path: path.to_path_buf(), found })
        .unwrap_or_else(|| LoadError::NotAPlugin { path: path.to_path_buf() })
}
