//! The torch package of the `python3` on `PATH`: where a site's PyTorch
//! keeps its libtorch (`site-packages/torch/lib`), found without importing
//! torch.
//!
//! `python3` prints its module search path (`sys.path` as `site` makes it:
//! `PYTHONPATH`, the user's and the venv's or system's site-packages), and
//! the first of its folders holding a `torch` package (`torch/__init__.py`)
//! is the one `import torch` would take. That is one start of python3 that
//! imports nothing (12 ms on the tests' machine, where importing torch takes
//! seconds and asking `importlib.util.find_spec` 20 ms), made at most once
//! per mlb process. A python3 that does not answer within [`TIMEOUT`] counts
//! as none.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// What python3 runs: its search path, one folder a line.
const SCRIPT: &str = "import sys; print('\\n'.join(sys.path))";

/// How long python3 may take to answer.
const TIMEOUT: Duration = Duration::from_secs(5);

/// Most of python3's answer read (a search path is a few hundred bytes).
const MAX_ANSWER: u64 = 64 << 10;

/// The folder of the torch package `import torch` would take in the
/// `python3` on `PATH` (`.../site-packages/torch`); `None` when there is no
/// python3, it does not answer, or has no torch. Asked once per process.
pub fn torch_package() -> Option<PathBuf> {
    static ASKED: OnceLock<Option<PathBuf>> = OnceLock::new();
    ASKED.get_or_init(|| search_path(Path::new("python3")).and_then(|path| first_torch(&path))).clone()
}

/// What `python` says its search path is, when it says it within [`TIMEOUT`].
fn search_path(python: &Path) -> Option<String> {
    let mut child = Command::new(python)
        .args(["-c", SCRIPT])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    // Read on a thread of its own, so that a python3 that hangs is given up
    // at the timeout (its pipe ends when it is killed).
    std::thread::spawn(move || {
        let mut answer = String::new();
        let read = stdout.take(MAX_ANSWER).read_to_string(&mut answer);
        let _ = tx.send(read.map(|_| answer));
    });
    let answer = rx.recv_timeout(TIMEOUT);
    if answer.is_err() {
        let _ = child.kill();
    }
    let exited = child.wait().ok()?;
    answer.ok()?.ok().filter(|_| exited.success())
}

/// The first `torch` package in the folders of `search_path` (one a line);
/// relative entries (`''`: the current folder of python3's caller) are
/// passed over.
fn first_torch(search_path: &str) -> Option<PathBuf> {
    search_path
        .lines()
        .map(Path::new)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("torch"))
        .find(|torch| torch.join("__init__.py").is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_first_folder_holding_a_torch_package_wins() {
        let dir = tempfile::tempdir().unwrap();
        let [a, b, c] = ["a", "b", "c"].map(|n| dir.path().join(n));
        for site in [&b, &c] {
            std::fs::create_dir_all(site.join("torch")).unwrap();
            std::fs::write(site.join("torch/__init__.py"), "").unwrap();
        }
        // A folder named torch without __init__.py is not the package.
        std::fs::create_dir_all(a.join("torch")).unwrap();
        let path = format!("\n{}\n{}\n{}\n", a.display(), b.display(), c.display());
        assert_eq!(first_torch(&path), Some(b.join("torch")));
        assert_eq!(first_torch(&format!("torch-relative\n{}", a.display())), None);
    }

    #[test]
    fn a_python_that_fails_or_prints_nothing_gives_no_search_path() {
        let dir = tempfile::tempdir().unwrap();
        let script = |name: &str, body: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path
        };
        assert_eq!(search_path(&script("answers", "echo /x; echo /y")).as_deref(), Some("/x\n/y\n"));
        assert_eq!(search_path(&script("fails", "echo /x; exit 1")), None);
        assert_eq!(search_path(&dir.path().join("missing")), None);
    }
}
