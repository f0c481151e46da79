//! The libtorch a plugin library will load, checked before it is loaded.
//!
//! A library built against libtorch declares its version in its manifest
//! (`mlb_plugin::libtorch`). Before mlb lists such a library as usable,
//! resolves a workload to it or loads it, it finds the libtorch the library
//! would load ([`find`]) and compares releases (major.minor.patch, the local
//! part `+cu130` ignored): a library built for another release is refused,
//! naming its workloads and both versions, and so is one for which no
//! libtorch (or no version of it) is found ([`LibtorchError`]). A library
//! that declares none (spin, a plugin built before the field) is not
//! checked.
//!
//! A libtorch found only through python3's torch package is one the loader
//! would not find: the launcher puts its folder in front of the
//! `LD_LIBRARY_PATH` of the workers (and probes) it starts for the library
//! ([`Found::library_path`]). A worker that still finds it so (one started
//! by hand) refuses the library before loading it, saying which
//! `LD_LIBRARY_PATH` to run it with ([`LibtorchError::OutOfReach`]).

mod error;
mod find;
mod python;
mod runpath;

pub use error::LibtorchError;
pub use find::{Found, Via};

use mlb_plugin::libtorch::same_release;
use mlb_plugin::manifest::PluginMeta;
use std::path::Path;

/// The libtorch the library at `path` (its real path), whose manifest lists
/// `metas`, would load: `Ok(None)` when no workload declares one, an error
/// when one declares a release other than the one found, or none is found.
pub fn check(path: &Path, metas: &[PluginMeta]) -> Result<Option<Found>, LibtorchError> {
    let mut declared = metas.iter().filter_map(|m| m.libtorch.as_deref()).peekable();
    if declared.peek().is_none() {
        return Ok(None);
    }
    let found = find::find(path);
    let fits =
        |wanted: &str| found.as_ref().and_then(|f| f.version.as_deref()).is_some_and(|v| same_release(wanted, v));
    let Some(wanted) = declared.find(|wanted| !fits(wanted)) else { return Ok(found) };
    let names: Vec<&str> =
        metas.iter().filter(|m| m.libtorch.as_deref() == Some(wanted)).map(|m| m.name.as_str()).collect();
    let workloads = format!("workload{} {}", if names.len() == 1 { "" } else { "s" }, names.join(", "));
    let (path, wanted) = (path.to_path_buf(), wanted.to_string());
    Err(match found {
        Some(found) => LibtorchError::Other { path, workloads, wanted, found: Box::new(found) },
        None => LibtorchError::NotFound { path, workloads, wanted },
    })
}
