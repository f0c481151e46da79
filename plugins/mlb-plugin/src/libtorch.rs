//! The libtorch a plugin library links: how a libtorch says its version, and
//! when two versions are the same release.
//!
//! A libtorch plugin declares in its manifest the version of the libtorch it
//! was built against ([`Workload::LIBTORCH`](crate::Workload::LIBTORCH)), as
//! that libtorch's version file writes it (`2.11.0+cu130`). mlb reads the
//! version file of the libtorch the library would load at run time and
//! refuses the library when the two are not the same release
//! ([`same_release`]). Both sides read a version with [`version_in`]: the
//! build script of the plugin (mlb-torch-build) and mlb.
//!
//! A libtorch's libraries lie in a folder (`lib/`) whose parent holds its
//! version: `version.py` in PyTorch's wheels (`torch/version.py`:
//! `__version__ = '2.11.0+cu130'`), `build-version` in a libtorch archive
//! (`libtorch/build-version`: `2.11.0+cu130`).

use std::path::{Path, PathBuf};

/// The library that makes a folder a libtorch's library folder.
pub const LIBRARY: &str = "libtorch.so";

/// Longest version text read from a version file (PyTorch's are about 20
/// bytes: `2.6.0a0+ecf3bae40a.nv25.01`).
const MAX_VERSION_LEN: usize = 64;

/// The files that may hold the version of the libtorch whose libraries are in
/// `lib_dir`, in the order they are read.
pub fn version_files(lib_dir: &Path) -> [PathBuf; 2] {
    let root = lib_dir.parent().unwrap_or(lib_dir);
    [root.join("version.py"), root.join("build-version")]
}

/// The version of the libtorch whose libraries are in `lib_dir`: what the
/// first of its [`version_files`] that `read` can read says. `None` when no
/// file is there to read, or the first one read holds no version.
pub fn version_in(lib_dir: &Path, read: impl Fn(&Path) -> std::io::Result<String>) -> Option<String> {
    let [py, build] = version_files(lib_dir);
    if let Ok(text) = read(&py) {
        return from_version_py(&text);
    }
    read(&build).ok().and_then(|text| checked(text.lines().next().unwrap_or_default()))
}

/// The version of a PyTorch `version.py`: its `__version__ = '...'` line.
fn from_version_py(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let value = line.strip_prefix("__version__")?.trim_start().strip_prefix('=')?.trim();
        let quote = value.chars().next().filter(|q| *q == '\'' || *q == '"')?;
        checked(value[1..].split(quote).next()?)
    })
}

/// `text` trimmed when it is a version: short, of the characters versions
/// use (digits, letters, `.`, `+`, `-`, `_`), and starting with a release.
fn checked(text: &str) -> Option<String> {
    let text = text.trim();
    let plain = text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-' | '_'));
    (plain && text.len() <= MAX_VERSION_LEN && release(text).is_some()).then(|| text.to_string())
}

/// The release a version names: its major, minor and patch numbers. The
/// local part (`+cu130`) and a pre-release or development suffix (`a0`,
/// `.dev20250101`) are not part of it; a missing patch number is 0. `None`
/// when the version does not start with `MAJOR.MINOR`.
pub fn release(version: &str) -> Option<[u64; 3]> {
    let public = version.split('+').next().unwrap_or_default();
    let mut parts = public.split('.').map(|part| {
        let digits = part.len() - part.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        part[..digits].parse::<u64>().ok()
    });
    let major = parts.next().flatten()?;
    let minor = parts.next().flatten()?;
    Some([major, minor, parts.next().flatten().unwrap_or(0)])
}

/// Whether `a` and `b` name the same [`release`] (both must name one).
pub fn same_release(a: &str, b: &str) -> bool {
    release(a).is_some_and(|r| release(b) == Some(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn releases_ignore_the_local_part_and_suffixes() {
        assert_eq!(release("2.11.0+cu130"), Some([2, 11, 0]));
        assert_eq!(release("2.6.0a0+ecf3bae40a.nv25.01"), Some([2, 6, 0]));
        assert_eq!(release("2.7.0.dev20250101"), Some([2, 7, 0]));
        assert_eq!(release("2.11"), Some([2, 11, 0]));
        for bad in ["", "2", "two.11.0", "+cu130", ".11.0"] {
            assert_eq!(release(bad), None, "{bad:?}");
        }
        assert!(same_release("2.11.0+cu130", "2.11.0+cpu"));
        assert!(same_release("2.11.0", "2.11.0a0"));
        assert!(!same_release("2.11.0+cu130", "2.11.1+cu130"));
        assert!(!same_release("9.9.9", "2.11.0"));
        assert!(!same_release("garbage", "garbage"), "no release: never the same");
    }

    /// A reader of the files `files` (path, text) holds.
    fn files(files: &[(&str, &str)]) -> impl Fn(&Path) -> std::io::Result<String> {
        let map: HashMap<PathBuf, String> = files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
        move |path| map.get(path).cloned().ok_or_else(|| std::io::ErrorKind::NotFound.into())
    }

    #[test]
    fn a_wheel_says_its_version_in_version_py_an_archive_in_build_version() {
        let wheel = "from typing import Optional\n\n__all__ = ['__version__', 'debug']\n__version__ = '2.11.0+cu130'\ndebug = False\n";
        let lib = Path::new("/site/torch/lib");
        assert_eq!(version_in(lib, files(&[("/site/torch/version.py", wheel)])).as_deref(), Some("2.11.0+cu130"));
        let double = "__version__ = \"2.5.1\"\n";
        assert_eq!(version_in(lib, files(&[("/site/torch/version.py", double)])).as_deref(), Some("2.5.1"));
        let archive = files(&[("/opt/libtorch/build-version", "2.11.0+cpu\n")]);
        assert_eq!(version_in(Path::new("/opt/libtorch/lib"), archive).as_deref(), Some("2.11.0+cpu"));
        assert_eq!(version_in(lib, files(&[])), None);
    }

    #[test]
    fn a_file_without_a_plain_version_gives_none() {
        let lib = Path::new("/t/lib");
        for text in [
            "__version__ = 2.11\n",
            "__version__ = 'not a version'\n",
            "__version__ = '2.11.0\x1b[2J'\n",
            "version = '2.11.0'\n",
            "",
        ] {
            assert_eq!(version_in(lib, files(&[("/t/version.py", text)])), None, "{text:?}");
        }
        let long = format!("2.11.0+{}", "x".repeat(MAX_VERSION_LEN));
        assert_eq!(version_in(lib, files(&[("/t/build-version", &long)])), None);
    }
}
