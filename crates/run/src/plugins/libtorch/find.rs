//! Where the libtorch a plugin library will load is: the first folder holding
//! `libtorch.so` in the order the dynamic loader searches the library's
//! dependencies, then python3's torch package.
//!
//! The loader's order: the library's `DT_RPATH` (only when it has no
//! `DT_RUNPATH`), the folders of `LD_LIBRARY_PATH`, the library's
//! `DT_RUNPATH` ([`super::runpath`]). Its system folders (`ld.so.cache`)
//! are not looked in (PyTorch's wheels and libtorch's archives are not
//! installed there; `LD_LIBRARY_PATH` points at one that is). When none of these
//! holds one (a release unpacked on a host whose PyTorch lies elsewhere than
//! where it was built), the libtorch of the torch package of the `python3`
//! on `PATH` is taken ([`super::python`]), which the launcher then puts in
//! front of its workers' `LD_LIBRARY_PATH` ([`Found::library_path`]).

use super::{python, runpath};
use mlb_plugin::libtorch::{version_in, LIBRARY};
use mlb_record::contract::env::LD_LIBRARY_PATH;
use mlb_record::reading::read_limited;
use serde::Serialize;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Longest version file read (PyTorch's `version.py` is under 400 bytes).
const VERSION_FILE_LIMIT: u64 = 64 << 10;

/// Where a libtorch was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// The library's `DT_RPATH`.
    Rpath,
    /// A folder of `LD_LIBRARY_PATH`.
    LdLibraryPath,
    /// The library's `DT_RUNPATH`.
    Runpath,
    /// The torch package of the `python3` on `PATH`: not a folder the
    /// loader searches.
    Python,
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Via::Rpath => "its RPATH",
            Via::LdLibraryPath => "LD_LIBRARY_PATH",
            Via::Runpath => "its RUNPATH",
            Via::Python => "the torch package of python3",
        })
    }
}

/// The libtorch a library will load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// Its version, as its version file says (`None`: it says none).
    pub version: Option<String>,
    /// Its library folder (holding `libtorch.so`).
    pub dir: PathBuf,
    /// Where it was found.
    pub via: Via,
}

impl Found {
    /// The folder a worker loading the library must have in front of its
    /// `LD_LIBRARY_PATH`: this libtorch's, when the loader would not find
    /// it by itself (found through python3).
    pub fn library_path(&self) -> Option<&Path> {
        (self.via == Via::Python).then_some(self.dir.as_path())
    }
}

/// The libtorch the library at `path` (its real path) will load, with the
/// `LD_LIBRARY_PATH` of this process; `None` when none is found.
pub fn find(path: &Path) -> Option<Found> {
    let own = runpath::read(path);
    let library_path = std::env::var_os(LD_LIBRARY_PATH);
    let (dir, via) = first(&own, library_path.as_deref(), python::torch_package)?;
    let version = version_in(&dir, |file| read_limited(file, VERSION_FILE_LIMIT));
    Some(Found { version, dir, via })
}

/// The first folder holding `libtorch.so`: in the loader's order for a
/// library searching `own` with `library_path` as `LD_LIBRARY_PATH`, then
/// the `lib` folder of the torch package `python` gives (asked only then).
fn first(
    own: &runpath::OwnPath,
    library_path: Option<&OsStr>,
    python: impl FnOnce() -> Option<PathBuf>,
) -> Option<(PathBuf, Via)> {
    let rpath = if own.runpath.is_empty() { own.rpath.as_slice() } else { &[] };
    let env: Vec<PathBuf> =
        library_path.map(std::env::split_paths).into_iter().flatten().filter(|d| !d.as_os_str().is_empty()).collect();
    let loader = [(rpath, Via::Rpath), (env.as_slice(), Via::LdLibraryPath), (own.runpath.as_slice(), Via::Runpath)];
    let holds = |dir: &Path| dir.join(LIBRARY).is_file();
    let in_loader = loader.into_iter().find_map(|(dirs, via)| dirs.iter().find(|d| holds(d)).map(|d| (d.clone(), via)));
    in_loader.or_else(|| python().map(|torch| torch.join("lib")).filter(|d| holds(d)).map(|d| (d, Via::Python)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Folders `names` under a temporary folder, those in `with` holding a
    /// `libtorch.so`.
    fn folders(names: &[&str], with: &[&str]) -> (tempfile::TempDir, Vec<PathBuf>) {
        let root = tempfile::tempdir().unwrap();
        let dirs: Vec<PathBuf> = names.iter().map(|n| root.path().join(n)).collect();
        for (name, dir) in names.iter().zip(&dirs) {
            std::fs::create_dir_all(dir).unwrap();
            if with.contains(name) {
                std::fs::write(dir.join(LIBRARY), "").unwrap();
            }
        }
        (root, dirs)
    }

    #[test]
    fn ld_library_path_comes_before_runpath_before_python() {
        let names = ["env_empty", "env", "run", "torch/lib"];
        let (_root, d) = folders(&names, &["env", "run", "torch/lib"]);
        let own = runpath::OwnPath { rpath: vec![], runpath: vec![d[2].clone()] };
        let torch = d[3].parent().unwrap().to_path_buf();
        let env = std::env::join_paths([&d[0], &d[1]]).unwrap();
        let python = || Some(torch.clone());
        assert_eq!(first(&own, Some(&env), python), Some((d[1].clone(), Via::LdLibraryPath)));
        assert_eq!(first(&own, Some(d[0].as_os_str()), python), Some((d[2].clone(), Via::Runpath)));
        let stale = runpath::OwnPath { rpath: vec![], runpath: vec![d[0].clone()] };
        assert_eq!(first(&stale, None, python), Some((d[3].clone(), Via::Python)));
        assert_eq!(first(&stale, None, || None), None);
        let asked = std::cell::Cell::new(false);
        first(&own, None, || {
            asked.set(true);
            None
        });
        assert!(!asked.get(), "python3 is asked only when the loader's folders hold no libtorch");
    }

    #[test]
    fn rpath_comes_first_and_only_without_runpath() {
        let (_root, d) = folders(&["rpath", "env", "run"], &["rpath", "env", "run"]);
        let env = d[1].as_os_str();
        let old = runpath::OwnPath { rpath: vec![d[0].clone()], runpath: vec![] };
        assert_eq!(first(&old, Some(env), || None), Some((d[0].clone(), Via::Rpath)));
        let both = runpath::OwnPath { rpath: vec![d[0].clone()], runpath: vec![d[2].clone()] };
        assert_eq!(first(&both, None, || None), Some((d[2].clone(), Via::Runpath)), "RPATH is ignored");
    }

    #[test]
    fn only_a_libtorch_found_through_python_is_given_to_workers() {
        let found = |via| Found { version: None, dir: PathBuf::from("/t/lib"), via };
        assert_eq!(found(Via::Python).library_path(), Some(Path::new("/t/lib")));
        for via in [Via::Rpath, Via::LdLibraryPath, Via::Runpath] {
            assert_eq!(found(via).library_path(), None);
        }
    }
}
