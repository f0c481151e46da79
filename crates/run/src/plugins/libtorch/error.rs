//! Why a plugin library built against libtorch is refused before it is
//! loaded, and what to do about it.

use super::find::Found;
use mlb_plugin::libtorch::release;
use mlb_record::fix::Fix;
use std::path::PathBuf;

/// A library declares a libtorch, and the one it would load is another
/// release, says no version, or is not found; or, for a process about to
/// load it, lies where the loader does not look.
#[derive(Debug, thiserror::Error)]
pub enum LibtorchError {
    /// The libtorch found is another release, or says no version.
    #[error("{path} ({workloads}) was built for libtorch {wanted}, but the libtorch it would load{}", found_words(.found))]
    Other {
        /// The library.
        path: PathBuf,
        /// Its workloads declaring `wanted`, in words (`workloads a, b`).
        workloads: String,
        /// The version it was built against.
        wanted: String,
        /// The libtorch it would load.
        found: Box<Found>,
    },
    /// No libtorch is found.
    #[error("{path} ({workloads}) was built for libtorch {wanted}, and no libtorch was found: none in LD_LIBRARY_PATH, in its RUNPATH or in the torch package of python3")]
    NotFound {
        /// The library.
        path: PathBuf,
        /// Its workloads declaring `wanted`, in words.
        workloads: String,
        /// The version it was built against.
        wanted: String,
    },
    /// The libtorch is right but was found through python3, where the loader
    /// does not look: the process loading the library was not given it (a
    /// worker started by hand; the launcher gives it to its workers).
    #[error("{path} would load the libtorch in {} (found through {}), where the dynamic loader does not look", .found.dir.display(), .found.via)]
    OutOfReach {
        /// The library.
        path: PathBuf,
        /// The libtorch.
        found: Box<Found>,
    },
}

/// What the libtorch found is, in words.
fn found_words(found: &Found) -> String {
    let (dir, via) = (found.dir.display(), found.via);
    match &found.version {
        Some(version) => format!(" is {version}, in {dir} (found through {via})"),
        None => {
            format!(", in {dir} (found through {via}), says no version (no version.py nor build-version beside it)")
        }
    }
}

/// The release of `version` (`2.11.0`), or the version itself when it names
/// none.
fn release_words(version: &str) -> String {
    release(version).map_or_else(|| version.to_string(), |[a, b, c]| format!("{a}.{b}.{c}"))
}

impl Fix for LibtorchError {
    fn fix(&self) -> Option<String> {
        let point = |wanted: &str| {
            let wanted = release_words(wanted);
            format!("point LD_LIBRARY_PATH at the lib folder of a libtorch {wanted} (site-packages/torch/lib of a PyTorch {wanted})")
        };
        Some(match self {
            LibtorchError::Other { wanted, found, .. } => {
                let release = match &found.version {
                    Some(version) => format!("the mlb release built for libtorch {}", release_words(version)),
                    None => "an mlb release built for this libtorch".to_string(),
                };
                format!(
                    "install {release}, {}, or build mlb from source against the libtorch in {} (docs/workloads.md)",
                    point(wanted),
                    found.dir.display()
                )
            }
            LibtorchError::NotFound { wanted, .. } => {
                format!("{}, or install PyTorch {} for the python3 on PATH", point(wanted), release_words(wanted))
            }
            LibtorchError::OutOfReach { found, .. } => format!(
                "run it with LD_LIBRARY_PATH={} (mlb's launcher does so for the workers it starts)",
                found.dir.display()
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::libtorch::Via;
    use mlb_record::fix::one_line;

    #[test]
    fn a_refusal_names_the_file_its_workloads_both_versions_and_the_fix() {
        let other = LibtorchError::Other {
            path: "/p/libmlb_torch.so".into(),
            workloads: "workloads toy_reg, gpt".into(),
            wanted: "9.9.9+cu130".into(),
            found: Box::new(Found { version: Some("2.11.0+cu130".into()), dir: "/opt/t/lib".into(), via: Via::Python }),
        };
        assert_eq!(
            one_line(&other),
            "/p/libmlb_torch.so (workloads toy_reg, gpt) was built for libtorch 9.9.9+cu130, but the libtorch it \
             would load is 2.11.0+cu130, in /opt/t/lib (found through the torch package of python3); fix: install \
             the mlb release built for libtorch 2.11.0, point LD_LIBRARY_PATH at the lib folder of a libtorch 9.9.9 \
             (site-packages/torch/lib of a PyTorch 9.9.9), or build mlb from source against the libtorch in \
             /opt/t/lib (docs/workloads.md)"
        );
        let none = LibtorchError::NotFound {
            path: "/p/libx.so".into(),
            workloads: "workload x".into(),
            wanted: "2.11.0".into(),
        };
        let text = one_line(&none);
        assert!(text.starts_with("/p/libx.so (workload x) was built for libtorch 2.11.0, and no libtorch was found"));
        assert!(text.ends_with("or install PyTorch 2.11.0 for the python3 on PATH"), "{text}");
    }
}
