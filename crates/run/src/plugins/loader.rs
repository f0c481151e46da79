//! Loading a plugin library and checking its ABI and its manifest.
//!
//! Libraries are loaded by absolute path and never unloaded: thread-local
//! destructors and libtorch's static destructors crash after `dlclose`.
//!
//! Before loading, the file must pass the trust check, and its manifest (when
//! it has one) is read: a corrupt manifest, one naming another ABI, or one
//! naming a libtorch other than the one the file would load (or one the
//! loader would not find: [`super::libtorch`]) refuses the file without
//! running any of its code. After loading, every workload
//! table must agree with the manifest (name, version, ABI version,
//! description, default args, quality); the argument kinds and the libtorch,
//! which only the manifest lists, are then taken from it.
//!
//! A table may be shorter than this mlb's [`PluginTable`]: fields appended to
//! ABI v1 (the evaluation entry and the quality) are read only when its size
//! covers them, so a plugin built before them loads and runs as it did.

use super::libtorch::{self, LibtorchError};
use super::manifest::{self, ManifestReadError};
use super::trust::{check_trusted, TrustError};
use mlb_plugin::abi::{
    EntryFn, PluginTable, StrRef, WorkloadList, WorkloadsFn, ABI_VERSION, ENTRY_SYMBOL, ENTRY_SYMBOL_PREFIX,
    WORKLOADS_SYMBOL,
};
use mlb_plugin::manifest::{PluginMeta, MAX_WORKLOADS, SECTION};
use mlb_plugin::QualitySpec;
use mlb_record::fix::Fix;
use std::collections::BTreeMap;
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
    /// The file's manifest cannot be read or is corrupt.
    #[error(transparent)]
    Manifest(#[from] ManifestReadError),
    /// The file was built for another libtorch than the one it would load.
    #[error(transparent)]
    Libtorch(#[from] LibtorchError),
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
    #[error("{path} was built for plugin ABI v{found}, this mlb speaks ABI v{ABI_VERSION}")]
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
    /// The manifest section says something else than the library's tables.
    #[error("{path}: its plugin manifest (section {SECTION}) does not match its plugin table: {difference}; the file was changed after it was built")]
    ManifestMismatch {
        /// The file.
        path: PathBuf,
        /// The first difference found.
        difference: String,
    },
    /// The library has no workload of the requested name.
    #[error("{path} exports no workload `{name}` (it exports: {available})")]
    NoSuchWorkload {
        /// The file.
        path: PathBuf,
        /// The name asked for.
        name: String,
        /// The names it exports, comma-separated.
        available: String,
    },
    /// The library exports several workloads and none was named.
    #[error("{path} exports several workloads ({available})")]
    Ambiguous {
        /// The file.
        path: PathBuf,
        /// The names it exports, comma-separated.
        available: String,
    },
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

/// Loads the plugin at an absolute `path`, after the trust check: its only
/// workload (see [`load_workload`] for a library that exports several).
pub fn load(path: &Path) -> Result<Plugin, LoadError> {
    load_workload(path, None)
}

/// Loads the workload `name` of the library at an absolute `path` (`None`:
/// the library must export exactly one), after the trust check and the
/// manifest check.
pub fn load_workload(path: &Path, name: Option<&str>) -> Result<Plugin, LoadError> {
    let mut workloads = open(path)?;
    let names = || workloads.iter().map(|(_, m)| m.name.as_str()).collect::<Vec<_>>().join(", ");
    let index =
        match name {
            Some(name) => workloads.iter().position(|(_, m)| m.name == name).ok_or_else(|| {
                LoadError::NoSuchWorkload { path: path.to_path_buf(), name: name.to_string(), available: names() }
            })?,
            None if workloads.len() == 1 => 0,
            None => return Err(LoadError::Ambiguous { path: path.to_path_buf(), available: names() }),
        };
    let (table, meta) = workloads.swap_remove(index);
    Ok(Plugin { path: path.to_path_buf(), table, meta })
}

/// Loads the library at an absolute `path` (trust, manifest and table
/// checks as [`load_workload`]) and returns the metadata of every workload it
/// exports, in its order: what `mlb worker --describe` prints.
pub fn describe(path: &Path) -> Result<Vec<PluginMeta>, LoadError> {
    Ok(open(path)?.into_iter().map(|(_, meta)| meta).collect())
}

/// Checks, loads and cross-checks a library: its workloads' tables and metadata.
fn open(path: &Path) -> Result<Vec<(&'static PluginTable, PluginMeta)>, LoadError> {
    if !path.is_absolute() {
        return Err(LoadError::NotAbsolute(path.to_path_buf()));
    }
    // The real path (symlinks resolved) is what was checked: read and load that.
    let real = check_trusted(path)?;
    let manifest = manifest::read(&real)?;
    if let Some(found) = manifest.iter().flatten().map(|m| m.abi_version).find(|v| *v != ABI_VERSION) {
        return Err(LoadError::AbiMismatch { path: path.to_path_buf(), found });
    }
    if let Some(metas) = &manifest {
        // Found through python3 only when this process was not started by
        // the launcher, which puts that libtorch on LD_LIBRARY_PATH.
        if let Some(found) = libtorch::check(&real, metas)?.filter(|f| f.library_path().is_some()) {
            return Err(LibtorchError::OutOfReach { path: real, found: Box::new(found) }.into());
        }
    }
    let open_err = |e: libloading::Error| LoadError::Open { path: path.to_path_buf(), reason: e.to_string() };
    // SAFETY: loading a library runs its initialisers; the file passed the
    // trust check and comes from a configured plugin folder.
    let lib = unsafe { libloading::Library::new(&real) }.map_err(open_err)?;
    // Never unloaded: see the module documentation.
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    let mut workloads = tables(lib, path)?
        .into_iter()
        .map(|table| Ok((table, table_meta(table, path)?)))
        .collect::<Result<Vec<_>, LoadError>>()?;
    for (i, (_, meta)) in workloads.iter().enumerate() {
        if workloads[..i].iter().any(|(_, m)| m.name == meta.name) {
            return Err(LoadError::BadTable {
                path: path.to_path_buf(),
                reason: format!("workload `{}` is exported twice", meta.name),
            });
        }
    }
    if let Some(manifest) = manifest {
        let tables: Vec<&PluginMeta> = workloads.iter().map(|(_, m)| m).collect();
        if let Some(difference) = difference(&manifest, &tables) {
            return Err(LoadError::ManifestMismatch { path: path.to_path_buf(), difference });
        }
        for ((_, meta), listed) in workloads.iter_mut().zip(manifest) {
            meta.arg_kinds = listed.arg_kinds;
            meta.arg_help = listed.arg_help;
            meta.libtorch = listed.libtorch;
        }
    }
    Ok(workloads)
}

/// The tables the library exports: its workload list, else its one entry.
fn tables(lib: &'static libloading::Library, path: &Path) -> Result<Vec<&'static PluginTable>, LoadError> {
    let bad = |reason: String| LoadError::BadTable { path: path.to_path_buf(), reason };
    // SAFETY: the symbols have the ABI's signatures by contract.
    if let Ok(list_fn) = unsafe { lib.get::<WorkloadsFn>(format!("{WORKLOADS_SYMBOL}\0").as_bytes()) } {
        let list = unsafe { list_fn().as_ref() }.ok_or_else(|| bad("workload list is null".into()))?;
        if list.size < size_of::<WorkloadList>() {
            let need = size_of::<WorkloadList>();
            return Err(bad(format!("workload list is {} bytes, ABI v1 needs {need}", list.size)));
        }
        if list.count == 0 || list.count > MAX_WORKLOADS as usize || list.tables.is_null() {
            return Err(bad(format!("workload list of {} tables at {:?}", list.count, list.tables)));
        }
        // SAFETY: the plugin promises `count` table pointers at `tables`, static.
        let pointers = unsafe { std::slice::from_raw_parts(list.tables, list.count) };
        return pointers
            .iter()
            .enumerate()
            .map(|(i, t)| unsafe { t.as_ref() }.ok_or_else(|| bad(format!("workload {i}'s table is null"))))
            .collect();
    }
    let entry = match unsafe { lib.get::<EntryFn>(format!("{ENTRY_SYMBOL}\0").as_bytes()) } {
        Ok(entry) => *entry,
        Err(_) => return Err(other_abi(lib, path)),
    };
    // SAFETY: the symbol has the ABI's entry signature by contract.
    let table = unsafe { entry().as_ref() }.ok_or_else(|| bad("entry returned null".into()))?;
    Ok(vec![table])
}

/// Checks one table and reads its metadata.
fn table_meta(table: &'static PluginTable, path: &Path) -> Result<PluginMeta, LoadError> {
    let bad = |reason: String| LoadError::BadTable { path: path.to_path_buf(), reason };
    if table.size < PluginTable::V1_FIRST_SIZE {
        return Err(bad(format!("table is {} bytes, ABI v1 needs {}", table.size, PluginTable::V1_FIRST_SIZE)));
    }
    if table.abi_version != ABI_VERSION {
        return Err(LoadError::AbiMismatch { path: path.to_path_buf(), found: table.abi_version });
    }
    // SAFETY: the table's strings are static in the (never unloaded) library.
    let text =
        |s: &StrRef, what: &str| unsafe { s.as_str() }.map(str::to_string).map_err(|e| bad(format!("{what}: {e}")));
    let default_args = text(&table.default_args, "default_args")?;
    let quality = match table.quality_info() {
        None => None,
        Some(q) => Some(QualitySpec {
            metric: text(&q.metric, "quality metric")?,
            unit: text(&q.unit, "quality unit")?,
            higher_is_better: q.higher_is_better != 0,
            target: q.target,
        }),
    };
    let meta = PluginMeta {
        name: text(&table.name, "name")?,
        version: text(&table.version, "version")?,
        abi_version: table.abi_version,
        description: text(&table.description, "description")?,
        default_args: serde_json::from_str(&default_args).map_err(|e| bad(format!("default_args is not JSON: {e}")))?,
        arg_kinds: BTreeMap::new(),
        arg_help: BTreeMap::new(),
        quality,
        libtorch: None,
        deterministic: table.fingerprint_entry().is_some(),
        checkpoint: table.save_entry().is_some() && table.restore_entry().is_some(),
    };
    if meta.name.is_empty() {
        return Err(bad("empty name".into()));
    }
    Ok(meta)
}

/// The first difference between what the manifest lists and what the tables
/// say, in words.
fn difference(manifest: &[PluginMeta], tables: &[&PluginMeta]) -> Option<String> {
    let names = |n: &mut dyn Iterator<Item = &str>| n.collect::<Vec<_>>().join(", ");
    if manifest.len() != tables.len() {
        return Some(format!(
            "the manifest lists {} workload(s) ({}), the library exports {} ({})",
            manifest.len(),
            names(&mut manifest.iter().map(|m| m.name.as_str())),
            tables.len(),
            names(&mut tables.iter().map(|m| m.name.as_str())),
        ));
    }
    manifest.iter().zip(tables).find_map(|(m, t)| {
        let quality =
            |q: &Option<QualitySpec>| q.as_ref().map_or("none".into(), |q| format!("{} ({})", q.summary(), q.unit));
        let fields: [(&str, String, String); 8] = [
            ("name", m.name.clone(), t.name.clone()),
            ("version", m.version.clone(), t.version.clone()),
            ("ABI version", m.abi_version.to_string(), t.abi_version.to_string()),
            ("description", m.description.clone(), t.description.clone()),
            ("default args", m.default_args.to_string(), t.default_args.to_string()),
            ("quality", quality(&m.quality), quality(&t.quality)),
            ("deterministic", m.deterministic.to_string(), t.deterministic.to_string()),
            ("checkpoint", m.checkpoint.to_string(), t.checkpoint.to_string()),
        ];
        fields
            .into_iter()
            .find(|(_, a, b)| a != b)
            .map(|(field, a, b)| format!("workload `{}`: {field} is `{a}` in the manifest, `{b}` in the table", t.name))
    })
}

/// The error for a library without the v1 symbol: which other version it has.
fn other_abi(lib: &libloading::Library, path: &Path) -> LoadError {
    (0..=HIGHEST_PROBED_ABI)
        .filter(|v| *v != ABI_VERSION)
        .find(|v| unsafe { lib.get::<EntryFn>(format!("{ENTRY_SYMBOL_PREFIX}{v}\0").as_bytes()) }.is_ok())
        .map(|found| LoadError::AbiMismatch { path: path.to_path_buf(), found })
        .unwrap_or_else(|| LoadError::NotAPlugin { path: path.to_path_buf() })
}

impl Fix for LoadError {
    fn fix(&self) -> Option<String> {
        match self {
            LoadError::Untrusted(e) => e.fix(),
            LoadError::Manifest(e) => e.fix(),
            LoadError::Libtorch(e) => e.fix(),
            LoadError::AbiMismatch { found, .. } => Some(format!(
                "rebuild the plugin against mlb-plugin with ABI v{ABI_VERSION} (or use an mlb that speaks v{found})"
            )),
            LoadError::ManifestMismatch { .. } => {
                Some("rebuild the plugin (`export_workload!` writes both) and reinstall it".into())
            }
            LoadError::NoSuchWorkload { name, .. } => {
                Some(format!("run `mlb plugins list --verify` to see which file holds `{name}`"))
            }
            LoadError::Ambiguous { .. } => Some("name the one to run (`mlb worker --workload NAME`)".into()),
            LoadError::NotAbsolute(_)
            | LoadError::Open { .. }
            | LoadError::NotAPlugin { .. }
            | LoadError::BadTable { .. } => None,
        }
    }
}
