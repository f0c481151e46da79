//! Reading a plugin's manifest from its file, without loading the library.
//!
//! The manifest (format: `mlb_plugin::manifest`, docs/plugins.md) is the
//! metadata of every workload of a library, written at compile time by
//! `export_workload!` into the section `.mlb_manifest` (Mach-O:
//! `__DATA,__mlb_manifest`). Only the file's headers and that section are read.

use super::loader::PluginMeta;
use mlb_plugin::manifest::{self as format, ManifestError, WorkloadManifest};
use object::{BinaryFormat, Object, ObjectSection};
use std::path::{Path, PathBuf};

/// A manifest section that is present but cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ManifestReadError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The section is there but damaged or inconsistent.
    #[error("{path} has a corrupt plugin manifest (section {section}): {source}; fix: rebuild the plugin with mlb-plugin's `export_workload!` and reinstall it (`mlb plugins list --verify` shows what the library itself says)")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The section's name.
        section: &'static str,
        /// What is wrong.
        source: ManifestError,
    },
}

/// The section name mlb looks for in a file of this format.
fn section_name(format: BinaryFormat) -> &'static str {
    match format {
        BinaryFormat::MachO => format::MACHO_SECTION,
        _ => format::SECTION,
    }
}

/// The workloads a library's manifest lists, in its order.
///
/// `Ok(None)` when the file has no manifest to go by: not an ELF or Mach-O
/// file, no manifest section (an older build, a plugin written in C), or a
/// manifest format this mlb does not know. The caller then asks the library
/// itself (the probe). Trust is the caller's business: check it first.
pub fn read(path: &Path) -> Result<Option<Vec<PluginMeta>>, ManifestReadError> {
    let file =
        std::fs::File::open(path).map_err(|source| ManifestReadError::Io { path: path.to_path_buf(), source })?;
    // Reads only the ranges asked for: the headers and the one section.
    let cache = object::ReadCache::new(file);
    let Ok(object) = object::File::parse(&cache) else {
        return Ok(None);
    };
    let section = section_name(object.format());
    let Some(data) = object.section_by_name(section) else {
        return Ok(None);
    };
    let corrupt = |source: ManifestError| ManifestReadError::Corrupt { path: path.to_path_buf(), section, source };
    let bytes = data.data().map_err(|e| corrupt(ManifestError::Invalid(format!("section not readable: {e}"))))?;
    match format::decode(bytes) {
        Ok(workloads) => workloads.into_iter().map(meta).collect::<Result<Vec<_>, _>>().map(Some).map_err(corrupt),
        Err(ManifestError::UnknownFormat { .. }) => Ok(None),
        Err(e) => Err(corrupt(e)),
    }
}

fn meta(w: WorkloadManifest) -> Result<PluginMeta, ManifestError> {
    let default_args = serde_json::from_str(&w.default_args)
        .map_err(|e| ManifestError::Invalid(format!("default args of `{}` are not JSON: {e}", w.name)))?;
    Ok(PluginMeta {
        name: w.name,
        version: w.version,
        abi_version: w.abi_version,
        description: w.description,
        default_args,
    })
}
