//! Helpers shared by the launcher's integration tests: the real `mlb`
//! binary, the spin plugin in a folder of its own, fixture host trees.

#![allow(dead_code)] // each test binary uses a different part

pub mod hosts;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `mlb` binary under test.
pub fn mlb() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mlb"))
}

/// A private folder holding a copy of the spin plugin built for these tests.
pub fn spin_dir() -> tempfile::TempDir {
    let bin = mlb();
    let target = bin.parent().expect("the binary has a folder");
    let built = [target.join("deps/libmlb_spin.so"), target.join("libmlb_spin.so")]
        .into_iter()
        .find(|p| p.is_file())
        .expect("libmlb_spin.so is built (spin is a dev-dependency of mlb)");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&built, dir.path().join("libmlb_spin.so")).unwrap();
    dir
}

/// `mlb ARGS` run to its end.
pub fn run(args: &[&str]) -> Output {
    Command::new(mlb()).args(args).output().expect("mlb runs")
}

/// Stdout and stderr of an output, for assertion messages.
pub fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Reads every JSON report of `dir`, with its file name.
pub fn reports(dir: &Path) -> Vec<(String, serde_json::Value)> {
    let mut out: Vec<(String, serde_json::Value)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
