//! Helpers shared by the benchmarks.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs a bare `mlb worker` on `plugin` with `config` into `outdir` and
/// returns (ms to its first observation line, ms to its exit), counted from
/// `start`.
pub fn bare_worker(plugin: &Path, config: &str, outdir: &Path, start: Instant) -> (f64, f64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .arg("worker")
        .arg("--plugin")
        .arg(plugin)
        .args(["--config", config, "--outdir"])
        .arg(outdir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let first = start.elapsed().as_secs_f64() * 1e3;
    std::io::copy(&mut stdout, &mut std::io::sink()).unwrap();
    assert!(line.starts_with("[  1/"), "not an observation line: {line}");
    assert!(child.wait().unwrap().success());
    (first, start.elapsed().as_secs_f64() * 1e3)
}
