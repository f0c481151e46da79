//! The built binaries the tests that run `mlb` itself need: `mlb` and the
//! plugin library of this profile, and whether the cgroup tests may run.

use std::path::{Path, PathBuf};

/// `target/<profile>`, the folder of this test binary's `deps/`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).expect("test binary lives in target/<profile>/deps").to_path_buf()
}

/// The built file `name` of this profile (`mlb`, `libmlb_torch.so`).
pub fn artifact(name: &str) -> PathBuf {
    let path = profile_dir().join(name);
    assert!(path.is_file(), "{} is not built: run scripts/test-torch.sh first", path.display());
    path
}

/// A folder holding only the plugin library (`--plugin-dir`).
pub fn plugin_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(artifact("libmlb_torch.so"), dir.path().join("libmlb_torch.so")).unwrap();
    dir
}

/// Whether the cgroup tests may run: as root, unless `MLB_SKIP_CGROUP_TESTS` is set.
pub fn root_or_skip(what: &str) -> bool {
    if std::env::var_os("MLB_SKIP_CGROUP_TESTS").is_some() {
        eprintln!("MLB_SKIP_CGROUP_TESTS is set: skipping {what}");
        return false;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let euid = status.lines().find_map(|l| l.strip_prefix("Uid:")).and_then(|l| l.split_whitespace().nth(1));
    assert_eq!(euid, Some("0"), "{what} needs root (real cgroups); set MLB_SKIP_CGROUP_TESTS=1 to skip it");
    true
}
