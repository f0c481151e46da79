//! The libtorch a plugin declares in its manifest, checked against the one it
//! would load, on C plugins compiled here whose manifest declares a libtorch
//! (they link none) and stand-in libtorch folders: a `libtorch.so` and the
//! `version.py` of a PyTorch wheel beside its folder, found through
//! `LD_LIBRARY_PATH` or through a stand-in `python3` on `PATH` (a script
//! printing its search path). The real libtorch plugin is checked in the
//! torch tier (`libtorch_release`).

use crate::common;
use crate::common::launcher::Launches;
use crate::plugin_manifest::{c_plugin, private_dir};

use mlb_plugin::manifest::{self, Entry};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workload of the stand-in plugins.
const WORKLOAD: &str = "c_torch";

/// The libtorch the stand-in plugins declare.
const BUILT_FOR: &str = "9.9.9+cu130";

/// A folder holding the plugin library `libc_torch.so`, built for
/// [`BUILT_FOR`], which runs `constructor` (C statements) when loaded.
fn plugin(constructor: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = private_dir();
    let bytes = manifest::to_vec(&[Entry {
        abi_version: 1,
        name: WORKLOAD,
        version: "1.0.0",
        description: "declares a libtorch",
        default_args: r#"{"repeat": 2, "number": 1}"#,
        args: &[],
        quality: None,
        libtorch: BUILT_FOR,
        deterministic: false,
        checkpoint: false,
    }]);
    let source = c_plugin(&[(WORKLOAD, "declares a libtorch")], false, Some(&bytes), constructor);
    let lib = common::c_library(dir.path(), "libc_torch.so", &source);
    (dir, lib)
}

/// A stand-in PyTorch: `site/torch/` with `__init__.py`, the `version.py`
/// of `version` and `lib/libtorch.so`; returns its `lib` folder.
fn torch(site: &Path, version: &str) -> PathBuf {
    let torch = site.join("torch");
    std::fs::create_dir_all(torch.join("lib")).unwrap();
    std::fs::write(torch.join("__init__.py"), "").unwrap();
    std::fs::write(torch.join("version.py"), format!("__version__ = '{version}'\ndebug = False\n")).unwrap();
    std::fs::write(torch.join("lib/libtorch.so"), "").unwrap();
    torch.join("lib")
}

/// A folder holding a `python3` that prints `search_path` as its `sys.path`.
fn python3(search_path: &[&Path]) -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    let lines: Vec<String> = search_path.iter().map(|p| format!("echo '{}'", p.display())).collect();
    let script = bin.path().join("python3");
    std::fs::write(&script, format!("#!/bin/sh\n{}\n", lines.join("\n"))).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// How the libtorch is looked for: `LD_LIBRARY_PATH` (unset when `None`),
/// and a `PATH` whose `python3` is the one in `python` (none found there
/// when `None`: the folder of a python3 that fails).
struct Site<'a> {
    library_path: Option<&'a Path>,
    python: &'a Path,
}

impl Site<'_> {
    /// `cmd` with this site's variables.
    fn apply<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.python.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(dirs).unwrap()).env_remove("MLB_PLUGIN_PATH");
        match self.library_path {
            Some(dir) => cmd.env("LD_LIBRARY_PATH", dir),
            None => cmd.env_remove("LD_LIBRARY_PATH"),
        }
    }

    /// `mlb ARGS` at this site.
    fn mlb(&self, args: &[&str]) -> Output {
        self.apply(&mut Command::new(common::mlb())).args(args).output().unwrap()
    }

    /// The entries of `dir` in `mlb plugins list --format json`.
    fn list(&self, dir: &Path) -> Vec<Value> {
        let out = self.mlb(&["plugins", "list", "--format", "json", "--plugin-dir", dir.to_str().unwrap()]);
        assert!(out.status.success(), "listing must not fail: {:?}", common::text(&out));
        let all: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        all.into_iter().filter(|e| Path::new(e["path"].as_str().unwrap()).starts_with(dir)).collect()
    }

    /// `mlb worker --plugin PLUGIN` running a tiny job: its output and
    /// report folder.
    fn worker(&self, plugin: &Path) -> (Output, tempfile::TempDir) {
        let out = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(common::mlb());
        cmd.arg("worker").arg("--plugin").arg(plugin).args(["--config", r#"{"skip": 0}"#, "--suite", "t", "--outdir"]);
        (self.apply(cmd.arg(out.path())).output().unwrap(), out)
    }
}

/// The only entry of a listing: it must be refused; its reason.
fn refusal(entries: &[Value]) -> String {
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["status"], "refused", "{}", entries[0]);
    entries[0]["reason"].as_str().unwrap().to_string()
}

/// A folder with a python3 that fails (no search path, no torch).
fn no_python() -> tempfile::TempDir {
    let bin = python3(&[]);
    std::fs::write(bin.path().join("python3"), "#!/bin/sh\nexit 1\n").unwrap();
    bin
}

#[test]
fn a_plugin_built_for_another_libtorch_is_refused_by_name_before_loading() {
    // Crashes if loaded: every refusal must come before the library is.
    let (dir, lib) = plugin("*(volatile int *)0 = 1;");
    let site = tempfile::tempdir().unwrap();
    let other = torch(site.path(), "2.11.0+cpu");
    let python = no_python();
    let here = Site { library_path: Some(&other), python: python.path() };

    let reason = refusal(&here.list(dir.path()));
    let said = format!(
        "{} (workload {WORKLOAD}) was built for libtorch {BUILT_FOR}, but the libtorch it would load is 2.11.0+cpu, \
         in {} (found through LD_LIBRARY_PATH); fix: install the mlb release built for libtorch 2.11.0, point \
         LD_LIBRARY_PATH at the lib folder of a libtorch 9.9.9",
        lib.display(),
        other.display()
    );
    assert!(reason.starts_with(&said), "{reason}");

    let (out, reports) = here.worker(&lib);
    let (_, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(6), "refused as a load failure, not crashed: {stderr}");
    assert!(stderr.contains(&said), "{stderr}");
    assert_eq!(common::only_report(reports.path()).1["failure"]["cause"], "load");

    let jobs = common::write(dir.path(), "t.json", &format!(r#"[{{"name": "t", "plugin": "{WORKLOAD}"}}]"#));
    let launch = ["--plugin-dir", dir.path().to_str().unwrap(), "--jobs", jobs.to_str().unwrap(), "--dry-run"];
    let out = here.mlb(&launch);
    let (_, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("no plugin named `{WORKLOAD}`")), "{stderr}");
    assert!(stderr.contains(&format!("1 file refused: {}", &said[..said.find("; fix").unwrap()])), "{stderr}");
}

#[test]
fn a_plugin_whose_libtorch_is_not_found_is_refused_saying_so() {
    let (dir, lib) = plugin("*(volatile int *)0 = 1;");
    let empty = tempfile::tempdir().unwrap();
    let python = no_python();
    let nowhere = Site { library_path: Some(empty.path()), python: python.path() };
    let reason = refusal(&nowhere.list(dir.path()));
    assert_eq!(
        reason,
        format!(
            "{} (workload {WORKLOAD}) was built for libtorch {BUILT_FOR}, and no libtorch was found: none in \
             LD_LIBRARY_PATH, in its RUNPATH or in the torch package of python3; fix: point LD_LIBRARY_PATH at the \
             lib folder of a libtorch 9.9.9 (site-packages/torch/lib of a PyTorch 9.9.9), or install PyTorch 9.9.9 \
             for the python3 on PATH",
            lib.display()
        )
    );
    let (out, _reports) = nowhere.worker(&lib);
    assert_eq!(out.status.code(), Some(6), "{:?}", common::text(&out));
    // A libtorch that says no version is refused too.
    let unversioned = tempfile::tempdir().unwrap();
    std::fs::write(unversioned.path().join("libtorch.so"), "").unwrap();
    let mute = Site { library_path: Some(unversioned.path()), python: python.path() };
    let reason = refusal(&mute.list(dir.path()));
    assert!(reason.contains("says no version (no version.py nor build-version beside it)"), "{reason}");
}

#[test]
fn the_libtorch_of_the_release_built_for_is_accepted() {
    let (dir, lib) = plugin("");
    let site = tempfile::tempdir().unwrap();
    // Another build of the same release: the local part is not compared.
    let same = torch(site.path(), "9.9.9+cpu");
    let python = no_python();
    let here = Site { library_path: Some(&same), python: python.path() };
    let entries = here.list(dir.path());
    assert_eq!(entries.len(), 1, "{entries:?}");
    let e = &entries[0];
    assert_eq!((e["status"].as_str(), e["libtorch"].as_str()), (Some("ok"), Some(BUILT_FOR)), "{e}");
    let found = serde_json::json!({"version": "9.9.9+cpu", "dir": same, "via": "ld_library_path"});
    assert_eq!(e["libtorch_found"], found);

    let out = here.mlb(&["plugins", "show", WORKLOAD, "--plugin-dir", dir.path().to_str().unwrap()]);
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    let line = format!(
        "libtorch: built for {BUILT_FOR}; loads 9.9.9+cpu in {} (found through LD_LIBRARY_PATH)",
        same.display()
    );
    // The line may be wrapped at the width, between words.
    let words = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(stdout.contains("\nlibtorch: ") && words.contains(&line), "{stdout}");

    let (out, reports) = here.worker(&lib);
    assert!(out.status.success(), "{:?}", common::text(&out));
    assert!(common::only_report(reports.path()).0.contains(WORKLOAD));
}

/// C statements that abort unless `LD_LIBRARY_PATH` starts with `dir`.
fn abort_unless_library_path_starts_with(dir: &Path) -> String {
    format!(
        "extern char *getenv(const char *); extern int strncmp(const char *, const char *, unsigned long); \
         extern void abort(void); const char *p = getenv(\"LD_LIBRARY_PATH\"); \
         if (!p || strncmp(p, \"{0}:/inherited\", sizeof(\"{0}:/inherited\") - 1) != 0) abort();",
        dir.display()
    )
}

#[test]
fn python3s_libtorch_is_put_in_front_of_the_workers_library_path() {
    let site = tempfile::tempdir().unwrap();
    let lib_dir = torch(site.path(), "9.9.9");
    // Loaded by a worker of the launch only: it aborts unless the launcher
    // put python3's libtorch in front of its own LD_LIBRARY_PATH.
    let (dir, _lib) = plugin(&abort_unless_library_path_starts_with(&lib_dir));
    let python = python3(&[Path::new("relative"), Path::new("/nonexistent"), site.path()]);
    let here = Site { library_path: Some(Path::new("/inherited")), python: python.path() };

    let entries = here.list(dir.path());
    assert_eq!(entries[0]["status"], "ok", "{entries:?}");
    assert_eq!(entries[0]["libtorch_found"]["via"], "python", "{entries:?}");
    assert_eq!(entries[0]["libtorch_found"]["dir"], lib_dir.to_str().unwrap());
    // A probe (--verify) loads it with that folder in front, as a worker.
    let out =
        here.mlb(&["plugins", "list", "--format", "json", "--verify", "--plugin-dir", dir.path().to_str().unwrap()]);
    let probed: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mine = probed.iter().find(|e| Path::new(e["path"].as_str().unwrap()).starts_with(dir.path())).unwrap();
    assert_eq!(mine["status"], "ok", "{mine}");
    // A worker started by hand is not given it: it says how to run it.
    let (out, _reports) = here.worker(&dir.path().join("libc_torch.so"));
    let (_, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    let fix = format!("where the dynamic loader does not look; fix: run it with LD_LIBRARY_PATH={}", lib_dir.display());
    assert!(stderr.contains(&fix), "{stderr}");

    let launches = Launches::with_plugins("libtorchpy", dir);
    let jobs = launches
        .jobs(&format!(r#"[{{"name": "t", "plugin": "{WORKLOAD}", "cgroup": "student", "args": {{"skip": 0}}}}]"#));
    let wanted = format!("      LD_LIBRARY_PATH={}:/inherited\n", lib_dir.display());
    let mut dry = launches.command(&jobs, &launches.out(), &["--dry-run", "--devices", "1"]);
    let out = here.apply(&mut dry).output().unwrap();
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains(&wanted), "{stdout}");
    let mut run = launches.command(&jobs, &launches.out(), &["--devices", "1", "--no-cgroups", "--pause", "0"]);
    let out = here.apply(&mut run).output().unwrap();
    assert!(out.status.success(), "the worker loaded the plugin: {:?}", common::text(&out));
    assert_eq!(common::only_report(&launches.out()).1["completed"], true);

    // Workers in a container image use the image's plugins and libtorch:
    // the host's is not looked for, nor given to them.
    let mut docker = launches.command(&jobs, &launches.out(), &["--docker", "ngc", "--dry-run", "--devices", "1"]);
    let out = here.apply(&mut docker).output().unwrap();
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(!stdout.contains("LD_LIBRARY_PATH"), "{stdout}");
}
