//! The PyTorch venv's python (scripts/torch-env.sh makes it) and folders of
//! extra packages for it, installed there once with pip, outside the venv,
//! so that the venv stays what the build expects.

use std::path::{Path, PathBuf};
use std::process::Command;

/// mlb's cache folder (`MLB_CACHE`, else `~/.cache/mlb`).
fn cache() -> PathBuf {
    std::env::var_os("MLB_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/mlb"))
}

/// The venv's python; the test fails naming the fix when it is absent.
pub fn venv_python() -> PathBuf {
    let python = cache().join("venv/bin/python");
    assert!(python.is_file(), "this test needs the PyTorch venv at {}: run scripts/torch-env.sh", python.display());
    python
}

/// The folder `name` of the cache, holding `requirements` for the venv's
/// python (put it on `PYTHONPATH`): installed with `pip install --target`
/// (and `extra` pip arguments) unless `imports` already succeeds there.
pub fn packages(name: &str, imports: &str, requirements: &[&str], extra: &[&str]) -> PathBuf {
    let python = venv_python();
    let folder = cache().join(name);
    let importable = |f: &Path| {
        Command::new(&python)
            .args(["-c", &format!("import {imports}")])
            .env("PYTHONPATH", f)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !importable(&folder) {
        let out = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--target"])
            .arg(&folder)
            .args(extra)
            .args(requirements)
            .output()
            .unwrap();
        assert!(out.status.success(), "installing {requirements:?}: {:?}", super::text(&out));
    }
    folder
}

/// The `mlperf-logging` release mlb's MLLOG files and RCP check follow.
pub const MLPERF_LOGGING: &str = "mlperf-logging==4.1.68";

/// A folder holding [`MLPERF_LOGGING`] for the venv's python (its checkers
/// are `python -m mlperf_logging.compliance_checker` and `.rcp_checker`).
pub fn mlperf_logging() -> PathBuf {
    packages("mlperf-logging", "mlperf_logging.compliance_checker, mlperf_logging.rcp_checker", &[MLPERF_LOGGING], &[])
}

/// MLPerf's compliance checker (of [`MLPERF_LOGGING`]) on the MLLOG file
/// `file` with mlb's rules (`configs/mllog/mlb.yaml`): whether it passed,
/// and what it said. Its own log goes beside the file (`.checked`).
pub fn compliance_check(file: &Path) -> (bool, String) {
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/mllog/mlb.yaml");
    let out = Command::new(venv_python())
        .args(["-m", "mlperf_logging.compliance_checker", "--config"])
        .arg(&rules)
        .arg("--log_output")
        .arg(file.with_extension("checked"))
        .arg(file)
        .env("PYTHONPATH", mlperf_logging())
        .output()
        .unwrap();
    let (stdout, stderr) = super::text(&out);
    (out.status.success(), format!("{stdout}\n{stderr}"))
}
