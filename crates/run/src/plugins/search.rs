//! The plugin search path.
//!
//! Order: every `--plugin-dir`, then each folder of `MLB_PLUGIN_PATH`
//! (colon-separated), then the folders next to the `mlb` binary: its own
//! folder, `plugins/` beside it and `../lib/mlb/plugins`. The first plugin of
//! a given name wins; later ones are listed as shadowed.

use std::path::{Path, PathBuf};

/// Environment variable holding extra plugin folders (colon-separated).
pub const PLUGIN_PATH_ENV: &str = "MLB_PLUGIN_PATH";

/// A plugin search path could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The running binary's own path is unknown.
    #[error("cannot find the mlb binary's own folder: {0}")]
    CurrentExe(#[source] std::io::Error),
}

impl mlb_record::exit::Classify for SearchError {
    /// The search path is built before any plugin is looked at.
    fn kind(&self) -> mlb_record::exit::Kind {
        match self {
            SearchError::CurrentExe(_) => mlb_record::exit::Kind::Refused,
        }
    }
}

/// The ordered folders in which plugins are searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchPath {
    dirs: Vec<PathBuf>,
}

impl SearchPath {
    /// Builds the search path from `--plugin-dir` values, `MLB_PLUGIN_PATH`
    /// and the binary's location.
    pub fn from_env(cli_dirs: &[PathBuf]) -> Result<Self, SearchError> {
        let exe = std::env::current_exe().map_err(SearchError::CurrentExe)?;
        let env = std::env::var_os(PLUGIN_PATH_ENV);
        Ok(Self::new(cli_dirs, env.as_deref().map(std::env::split_paths).into_iter().flatten(), &exe))
    }

    /// Builds the search path from explicit parts (testable form of `from_env`).
    pub fn new(cli_dirs: &[PathBuf], env_dirs: impl IntoIterator<Item = PathBuf>, exe: &Path) -> Self {
        let mut dirs: Vec<PathBuf> = cli_dirs.to_vec();
        dirs.extend(env_dirs.into_iter().filter(|d| !d.as_os_str().is_empty()));
        if let Some(bin) = exe.parent() {
            dirs.push(bin.to_path_buf());
            dirs.push(bin.join("plugins"));
            dirs.push(bin.join("../lib/mlb/plugins"));
        }
        let mut seen = Vec::new();
        let dirs = dirs
            .into_iter()
            .map(|d| absolute(&d))
            .filter(|d| {
                let key = d.canonicalize().unwrap_or_else(|_| d.clone());
                let fresh = !seen.contains(&key);
                seen.push(key);
                fresh
            })
            .collect();
        SearchPath { dirs }
    }

    /// The folders, in search order.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Candidate plugin files (`*.so`, `*.dylib`) in search order; folders that
    /// do not exist are skipped.
    pub fn candidates(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for dir in &self.dirs {
            let Ok(read) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut files: Vec<PathBuf> =
                read.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| is_library_name(p) && p.is_file()).collect();
            files.sort();
            out.extend(files);
        }
        out
    }
}

fn is_library_name(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("so" | "dylib"))
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_cli_then_env_then_binary_folders() {
        let exe = Path::new("/opt/mlb/bin/mlb");
        let sp = SearchPath::new(&[PathBuf::from("/a")], vec![PathBuf::from("/b"), PathBuf::new()], exe);
        let dirs: Vec<_> = sp.dirs().iter().map(|d| d.to_string_lossy().into_owned()).collect();
        assert_eq!(dirs, ["/a", "/b", "/opt/mlb/bin", "/opt/mlb/bin/plugins", "/opt/mlb/bin/../lib/mlb/plugins"]);
    }

    #[test]
    fn duplicates_are_dropped_and_relative_dirs_made_absolute() {
        let exe = Path::new("/opt/mlb/bin/mlb");
        let sp = SearchPath::new(&[PathBuf::from("rel"), PathBuf::from("/opt/mlb/bin")], vec![], exe);
        assert!(sp.dirs()[0].is_absolute());
        assert_eq!(sp.dirs().iter().filter(|d| d.as_path() == Path::new("/opt/mlb/bin")).count(), 1);
    }
}
