//! The release tarball (`cargo xtask dist`, docs/install.md) on a machine
//! without the repository: unpacked into an empty prefix, in a private
//! mount namespace where the repository and cargo's target folder are
//! hidden behind empty tmpfs mounts, and run from an empty folder with a
//! clean environment (`PATH`, and `HOME` a new folder): `--version`, the
//! plugins, `mlb prepare`, the installed smoke suite by its name and `mlb
//! report`, every instance of which passes. The PyTorch venv stays
//! visible: it is the host's PyTorch, which the libtorch plugin's RUNPATH
//! names.
//!
//! It needs root (mount namespaces, the suite's cgroups) and the PyTorch
//! venv, and builds everything in release: the torch tier.

use crate::common::{self, launcher::root_or_skip, python};
use object::Object;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

/// The workspace: hidden from the installed mlb.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Cargo's target folder (the parent of the tests' temporary folder): hidden
/// from the installed mlb.
fn target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().to_path_buf()
}

/// A machine without the repository: a temporary folder outside it and the
/// target folder, holding the prefix, an empty working folder and home.
struct Elsewhere {
    dir: tempfile::TempDir,
}

impl Elsewhere {
    fn new() -> Elsewhere {
        let dir = tempfile::tempdir().unwrap();
        for hidden in [repository(), target()] {
            assert!(!dir.path().starts_with(&hidden), "{} is inside {}", dir.path().display(), hidden.display());
        }
        for sub in ["prefix", "work", "home"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        Elsewhere { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    fn prefix(&self) -> PathBuf {
        self.path("prefix")
    }

    /// `program ARGS` in a mount namespace of its own where the target
    /// folder and the repository are empty tmpfs mounts, from the empty
    /// working folder, with only `PATH` and `HOME` set.
    fn run(&self, program: &Path, args: &[&str]) -> Output {
        let script = r#"mount -t tmpfs -o size=1m mlb-hidden "$1" && mount -t tmpfs -o size=1m mlb-hidden "$2" &&
            cd "$3" && shift 3 && exec "$@""#;
        Command::new("unshare")
            .args(["--mount", "--propagation", "private", "--", "sh", "-c", script, "sh"])
            .arg(target())
            .arg(repository())
            .arg(self.path("work"))
            .args(["env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"])
            .arg(format!("HOME={}", self.path("home").display()))
            .arg(program)
            .args(args)
            .output()
            .expect("run unshare")
    }

    /// [`Elsewhere::run`], checked to succeed: its stdout.
    fn ok(&self, program: &Path, args: &[&str]) -> String {
        let started = Instant::now();
        let out = self.run(program, args);
        let (stdout, stderr) = common::text(&out);
        assert!(out.status.success(), "{} {args:?}: {}\n{stdout}\n{stderr}", program.display(), out.status);
        eprintln!("{} {args:?}: {:.1} s", program.display(), started.elapsed().as_secs_f64());
        stdout
    }

    /// The installed `mlb ARGS`, checked to succeed: its stdout.
    fn mlb(&self, args: &[&str]) -> String {
        self.ok(&self.prefix().join("bin/mlb"), args)
    }
}

/// `cargo xtask dist --out DIR`: the release tarball and its debug tarball.
fn dist(out: &Path) -> (PathBuf, PathBuf) {
    let started = Instant::now();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["xtask", "dist", "--out"])
        .arg(out)
        .current_dir(repository())
        .status()
        .expect("run cargo xtask dist");
    assert!(status.success(), "cargo xtask dist: {status}");
    eprintln!("cargo xtask dist: {:.1} s", started.elapsed().as_secs_f64());
    let name = format!("mlb-{}-{}-linux", env!("CARGO_PKG_VERSION"), std::env::consts::ARCH);
    (out.join(format!("{name}.tar.gz")), out.join(format!("{name}-debug.tar.gz")))
}

/// What `mlb --version` of this build says: the commit git names (none
/// without a repository) and the venv's PyTorch.
fn expected_version() -> String {
    let git = Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).current_dir(repository()).output();
    let commit = git.ok().filter(|o| o.status.success()).map(|o| common::text(&o).0.trim().to_string());
    let torch = Command::new(python::venv_python())
        .args(["-c", "import torch; print(torch.__version__)"])
        .output()
        .expect("run the venv's python");
    format!(
        "mlb {} (commit {}, libtorch {})\n",
        env!("CARGO_PKG_VERSION"),
        commit.as_deref().unwrap_or("unknown"),
        common::text(&torch).0.trim()
    )
}

/// The ELF file at `path` has the section `name`.
fn has_section(path: &Path, name: &str) -> bool {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    object::File::parse(&*data).unwrap().section_by_name(name).is_some()
}

/// The shipped smoke suite's `key` of each job (`name`, `plugin`), sorted, once each.
fn smoke(key: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repository().join("configs/smoke.json")).unwrap();
    let jobs: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut values: Vec<String> = jobs.iter().map(|j| j[key].as_str().unwrap().to_string()).collect();
    values.sort();
    values.dedup();
    values
}

/// The installed layout: the repository's configs, the man pages (read
/// by `man`, where there is one) and the completion scripts.
fn check_layout(elsewhere: &Elsewhere) {
    let prefix = elsewhere.prefix();
    let shipped = |file: &str| std::fs::read_to_string(prefix.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let configs = std::fs::read_to_string(repository().join("configs/smoke.json")).unwrap();
    assert_eq!(shipped("share/mlb/configs/smoke.json"), configs, "the repository's configs/");
    for file in [
        "share/man/man1/mlb.1",
        "share/man/man1/mlb-prepare.1",
        "share/man/man1/mlb-db-compare.1",
        "share/bash-completion/completions/mlb",
        "share/zsh/site-functions/_mlb",
        "share/fish/vendor_completions.d/mlb.fish",
    ] {
        let text = shipped(file);
        assert!(text.contains("mlb"), "{file}: {text}");
    }
    let page = prefix.join("share/man/man1/mlb-report.1");
    let man = "command -v man >/dev/null || exit 0; man -l \"$1\"";
    let read = elsewhere.ok(Path::new("sh"), &["-c", man, "sh", page.to_str().unwrap()]);
    assert!(read.is_empty() || read.contains("mlb-report - "), "{read}");
}

/// mlb and the plugins are stripped, each naming its debug file (of the
/// debug tarball, unpacked beside it) by its debuglink.
fn check_stripped(prefix: &Path) {
    for file in ["bin/mlb", "lib/mlb/plugins/libmlb_torch.so", "lib/mlb/plugins/libmlb_spin.so"] {
        let shipped = prefix.join(file);
        assert!(!has_section(&shipped, ".debug_info"), "{file} is not stripped");
        assert!(has_section(&shipped, ".gnu_debuglink"), "{file} names no debug file");
        assert!(prefix.join(format!("{file}.debug")).is_file(), "{file}.debug");
    }
    assert!(has_section(&prefix.join("bin/mlb.debug"), ".debug_info"), "mlb's debug information");
}

#[test]
fn the_release_tarball_runs_the_smoke_suite_where_the_repository_is_not() {
    if !root_or_skip("installing the release in a mount namespace") {
        return;
    }
    let elsewhere = Elsewhere::new();
    let (tarball, debug) = dist(&elsewhere.path("dist"));
    let prefix = elsewhere.prefix();
    for archive in [&tarball, &debug] {
        let archive = archive.to_str().unwrap();
        elsewhere.ok(Path::new("tar"), &["-xzf", archive, "-C", prefix.to_str().unwrap(), "--strip-components=1"]);
    }
    let (repository, target) = (repository(), target());
    let hidden = [repository.to_str().unwrap(), target.to_str().unwrap(), "-mindepth", "1"];
    assert_eq!(elsewhere.ok(Path::new("find"), &hidden), "", "the repository and the target folder are hidden");

    check_layout(&elsewhere);
    check_stripped(&prefix);

    assert_eq!(elsewhere.mlb(&["--version"]), expected_version());
    let listed: Vec<Value> = serde_json::from_str(&elsewhere.mlb(&["plugins", "list", "--format", "json"])).unwrap();
    let plugins = prefix.join("lib/mlb/plugins");
    for name in smoke("plugin") {
        let entry = listed.iter().find(|e| e["name"] == name.as_str()).unwrap_or_else(|| panic!("{name}: {listed:#?}"));
        assert_eq!(entry["status"], "ok", "{name}: {entry:#}");
        // Found beside the binary: `PREFIX/bin/../lib/mlb/plugins/`.
        let file = std::fs::canonicalize(entry["path"].as_str().unwrap()).unwrap();
        assert_eq!(file.parent(), Some(std::fs::canonicalize(&plugins).unwrap().as_path()), "{entry:#}");
    }

    let (base, out) = (elsewhere.path("base"), elsewhere.path("out"));
    let (base, out) = (base.to_str().unwrap(), out.to_str().unwrap());
    elsewhere.mlb(&["prepare", "--jobs", "smoke", "--scale", "small", "--base", base]);
    elsewhere.mlb(&["--jobs", "smoke", "--base", base, "--outdir", out]);
    let reports = common::reports(Path::new(out));
    for name in smoke("name") {
        assert!(reports.iter().any(|(_, r)| r["name"] == name.as_str()), "no report of {name}");
    }
    for (file, r) in &reports {
        assert_eq!(r["completed"], true, "{file}: {r:#}");
    }
    let report: Value =
        serde_json::from_str(&elsewhere.mlb(&["report", "--reports", out, "--format", "json"])).unwrap();
    for row in report["rows"].as_array().unwrap() {
        assert_eq!(row["failures"], 0, "{row:#}");
    }
    assert_eq!((&report["failures"], &report["unreadable"]), (&json!([]), &json!([])), "{report:#}");
}
