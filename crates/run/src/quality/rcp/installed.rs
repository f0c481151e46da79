//! The reference set mlb ships, `configs/rcp/mlb.json`: what `mlb report
//! --to-quality` checks against without `--rcp`. It is looked up as the
//! installed suites are: `share/mlb/configs/rcp/mlb.json` beside the
//! binary's folder, `configs/rcp/mlb.json` beside the binary, else the copy
//! built into mlb.

use super::set::{RcpError, RcpSet};
use std::path::{Path, PathBuf};

/// The set's path below a folder of installed configs.
pub const FILE: &str = "rcp/mlb.json";

/// The copy built into the binary.
const BUILT_IN: &str = include_str!("../../../../../configs/rcp/mlb.json");

/// Where the installed set was found: a file, or the built-in copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A file beside the binary.
    File(PathBuf),
    /// The copy built into mlb.
    BuiltIn,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File(path) => write!(f, "{}", path.display()),
            Origin::BuiltIn => write!(f, "configs/{FILE} (built into mlb)"),
        }
    }
}

/// The installed set for this binary.
pub fn find() -> Result<(RcpSet, Origin), RcpError> {
    find_for(&std::env::current_exe().unwrap_or_default())
}

/// The installed set for the binary `exe`.
fn find_for(exe: &Path) -> Result<(RcpSet, Origin), RcpError> {
    for dir in crate::jobs::suite::folders(exe) {
        let path = dir.join(FILE);
        if path.is_file() {
            return Ok((RcpSet::read(&path)?, Origin::File(path)));
        }
    }
    let origin = Origin::BuiltIn;
    Ok((RcpSet::parse(BUILT_IN, &origin.to_string())?, origin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_file_wins_over_the_built_in_set() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("bin/mlb");
        let (set, origin) = find_for(&exe).unwrap();
        assert_eq!(origin, Origin::BuiltIn);
        assert_eq!(set, RcpSet::parse(BUILT_IN, "built in").unwrap(), "the shipped set parses");
        let file = dir.path().join("share/mlb/configs").join(FILE);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, r#"{"p": {"Benchmark": "spin", "BS": 16, "samples to converge": [1, 2, 3]}}"#).unwrap();
        let (set, origin) = find_for(&exe).unwrap();
        assert_eq!((set.points.len(), origin), (1, Origin::File(file)));
    }
}
