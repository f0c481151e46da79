//! `mlb prepare` for one test: into a base folder of the test's, with a host
//! lock of its own beside the data (so that tests preparing side by side, and
//! the launches of other tests, do not refuse each other).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The host lock the prepares into `base` share.
pub fn lock(base: &Path) -> PathBuf {
    base.join("host.lock")
}

/// `mlb prepare --base BASE ARGS` with the test's lock, plain (no colour), its
/// output piped, not yet run.
pub fn command(base: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(super::mlb());
    c.arg("prepare").arg("--base").arg(base).args(args);
    super::launcher::private_lock(&mut c, &lock(base));
    c.env("NO_COLOR", "1").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

/// `mlb prepare --base BASE ARGS` run to its end.
pub fn run(base: &Path, args: &[&str]) -> Output {
    command(base, args).output().expect("mlb runs")
}

/// Every file (and link) under `dir`, links not followed.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .flat_map(|e| if e.file_type().unwrap().is_dir() { walk(&e.path()) } else { vec![e.path()] })
        .collect()
}

/// The JPEG files under `dir` (the fake ImageNet's images).
pub fn jpegs(dir: &Path) -> Vec<PathBuf> {
    walk(dir).into_iter().filter(|p| p.extension().is_some_and(|e| e == "JPEG")).collect()
}
