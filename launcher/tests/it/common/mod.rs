//! Helpers shared by the integration tests and benchmarks: the real `mlb`
//! binary, the real spin plugin built next to it, and report files written the
//! way the worker writes them, fixture host trees.

#![allow(dead_code)] // each test binary uses a different subset

pub mod chromium;
pub mod docker;
pub mod enclosure;
pub mod hosts;
pub mod launcher;
pub mod prepare;
pub mod python;
pub mod records;
pub mod slowdown;
pub mod slurm;
pub mod standin;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The `mlb` binary under test.
pub fn mlb() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mlb"))
}

/// A link to the `mlb` binary in a folder of its own (a copy where links
/// cannot be made), so that no plugin sits next to it: plugins are searched
/// beside the binary.
pub fn lone_mlb() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let lone = dir.path().join("mlb");
    if std::fs::hard_link(mlb(), &lone).is_err() {
        std::fs::copy(mlb(), &lone).unwrap();
    }
    (dir, lone)
}

/// The spin plugin of the same profile, built (or brought up to date: a
/// stale copy would lack what the plugin ABI gained since) on first use,
/// beside the `mlb` binary (where the Docker and Apptainer stand-ins take
/// both from).
///
/// It is built in a target folder of its own and copied in: spin is a
/// cdylib, whose rlib has no hash in its name, so built alone into the
/// tests' folder (where serde and others have other features) it replaced
/// the rlib the tests link against, and the next build of the tests failed.
pub fn spin_plugin() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = mlb().parent().unwrap().to_path_buf();
        let target = dir.parent().unwrap().join("spin-plugin");
        let profile = if dir.ends_with("release") { "release" } else { "debug" };
        let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cargo.args(["build", "-p", "spin", "--target-dir"]).arg(&target);
        if profile == "release" {
            cargo.arg("--release");
        }
        assert!(cargo.status().expect("run cargo").success(), "building the spin plugin failed");
        // Copied under a name of this process's, then renamed: test
        // processes running side by side each replace it whole.
        let lib = dir.join("libmlb_spin.so");
        let staged = dir.join(format!(".libmlb_spin.so.{}", std::process::id()));
        std::fs::copy(target.join(profile).join("libmlb_spin.so"), &staged).expect("copy the spin plugin");
        std::fs::rename(&staged, &lib).expect("put the spin plugin beside mlb");
        lib
    })
    .clone()
}

/// Runs `mlb worker` on spin with a JSON config into `outdir`.
pub fn run_spin(config: &str, outdir: &Path, extra: &[&str]) -> Output {
    spin_command(config, outdir, extra).output().expect("run mlb worker")
}

/// The `mlb worker` command [`run_spin`] runs, to add to before running it.
pub fn spin_command(config: &str, outdir: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(mlb());
    cmd.arg("worker")
        .arg("--plugin")
        .arg(spin_plugin())
        .args(["--config", config, "--suite", "test", "--outdir"])
        .arg(outdir)
        .args(extra)
        .env_remove("CUDA_VISIBLE_DEVICES")
        .env_remove("HIP_VISIBLE_DEVICES");
    cmd
}

/// The report files in `dir`, sorted by name, parsed (not the run's
/// `system.json` and `doctor.json`).
pub fn reports(dir: &Path) -> Vec<(String, Value)> {
    let is_report = |p: &Path| p.extension().is_some_and(|e| e == "json") && !mlb_record::contract::is_run_file(p);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(read) => read.map(|e| e.unwrap().path()).filter(|p| is_report(p)).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), serde_json::from_str(&text).unwrap())
        })
        .collect()
}

/// The only report in `dir`.
pub fn only_report(dir: &Path) -> (String, Value) {
    let mut all = reports(dir);
    assert_eq!(all.len(), 1, "expected one report in {}, found {:?}", dir.display(), all);
    all.remove(0)
}

/// A private folder holding a copy of the spin plugin (plugin folders must not
/// be writable by others, and tests must not see each other's files).
pub fn spin_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(spin_plugin(), dir.path().join("libmlb_spin.so")).unwrap();
    dir
}

/// A private folder holding a copy of the release build of the libtorch
/// plugin (`cargo xtask build --torch` makes it beside the release `mlb`);
/// the test fails naming the build when it is absent.
pub fn torch_plugin_dir(why: &str) -> tempfile::TempDir {
    let target = mlb().parent().and_then(Path::parent).unwrap().to_path_buf();
    let built = target.join("release").join("libmlb_torch.so");
    assert!(
        built.is_file(),
        "{why}: build the libtorch plugin first (`cargo xtask build --torch` makes {})",
        built.display()
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&built, dir.path().join("libmlb_torch.so")).unwrap();
    dir
}

/// `mlb ARGS` run to its end.
pub fn run(args: &[&str]) -> Output {
    Command::new(mlb()).args(args).output().expect("mlb runs")
}

/// `mlb report --reports OUT ARGS`, checked to succeed: its stdout.
pub fn report(out: &Path, args: &[&str]) -> String {
    let mut all = vec!["report", "--reports", out.to_str().unwrap()];
    all.extend(args);
    let done = run(&all);
    let (stdout, stderr) = text(&done);
    assert!(done.status.success(), "mlb report failed:\n{stdout}\n{stderr}");
    stdout
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

/// Compiles C source (a stand-in plugin) into a shared library `dir/name`.
pub fn c_library(dir: &Path, name: &str, source: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).unwrap();
    let out = dir.join(name);
    let status = Command::new("cc").args(["-shared", "-fPIC", "-o"]).arg(&out).arg(&src).status().expect("run cc");
    assert!(status.success(), "cc failed for {name}");
    std::fs::remove_file(src).unwrap();
    out
}
