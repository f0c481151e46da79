//! The real libtorch plugin as a release finds it on a site host: refused
//! under a libtorch of another release (a stand-in folder with another
//! `version.py`, through `LD_LIBRARY_PATH`), accepted under its own, and,
//! once the folder its RUNPATH names is gone (a release unpacked where its
//! build's venv does not exist), run with the libtorch of the torch package
//! of the `python3` on `PATH`, which the launcher gives its workers.
//!
//! The torch tier (nextest group `torch`): they need the release build of
//! the libtorch plugin (`cargo xtask build --torch`) and the PyTorch venv of
//! scripts/torch-env.sh.

use crate::common;
use crate::common::launcher::Launches;

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const WHY: &str = "the libtorch checks run the libtorch plugin";

/// `mlb ARGS` with `LD_LIBRARY_PATH` set to `library_path` (unset when
/// `None`) and the folder `python` first on `PATH`.
fn mlb(args: &[&str], library_path: Option<&Path>, python: &Path) -> Output {
    let mut cmd = Command::new(common::mlb());
    on_site(&mut cmd, library_path, python).args(args).output().unwrap()
}

/// `cmd` with the variables of [`mlb`].
fn on_site<'c>(cmd: &'c mut Command, library_path: Option<&Path>, python: &Path) -> &'c mut Command {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::iter::once(python.to_path_buf()).chain(std::env::split_paths(&path));
    cmd.env("PATH", std::env::join_paths(dirs).unwrap()).env_remove("MLB_PLUGIN_PATH");
    match library_path {
        Some(dir) => cmd.env("LD_LIBRARY_PATH", dir),
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    }
}

/// The entries of `mlb plugins list --format json --plugin-dir DIR` for `dir`.
fn list(dir: &Path, library_path: Option<&Path>, python: &Path) -> Vec<Value> {
    let out =
        mlb(&["plugins", "list", "--format", "json", "--plugin-dir", dir.to_str().unwrap()], library_path, python);
    assert!(out.status.success(), "{:?}", common::text(&out));
    let all: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    all.into_iter().filter(|e| Path::new(e["path"].as_str().unwrap()).starts_with(dir)).collect()
}

/// A folder whose `python3` fails: no torch package is found through it.
fn no_python() -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    let script = common::write(bin.path(), "python3", "#!/bin/sh\nexit 1\n");
    std::fs::set_permissions(script, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// The libtorch the plugin of `dir` was built for, and its folder (its
/// RUNPATH's), as a listing without `LD_LIBRARY_PATH` gives them.
fn built_for(dir: &Path) -> (String, PathBuf) {
    let python = no_python();
    let entries = list(dir, None, python.path());
    let e = &entries[0];
    assert_eq!((e["status"].as_str(), e["libtorch_found"]["via"].as_str()), (Some("ok"), Some("runpath")), "{e}");
    let lib = PathBuf::from(e["libtorch_found"]["dir"].as_str().unwrap());
    let read = mlb_plugin::libtorch::version_in(&lib, |f| std::fs::read_to_string(f)).expect("its libtorch's version");
    assert_eq!(e["libtorch"], read.as_str(), "the plugin declares the libtorch it links");
    assert!(entries.iter().all(|e| e["libtorch"] == read.as_str()), "every workload declares it");
    (read, lib)
}

#[test]
fn the_torch_plugin_is_refused_under_another_libtorch_and_accepted_under_its_own() {
    let plugins = common::torch_plugin_dir(WHY);
    let plugin = plugins.path().join("libmlb_torch.so");
    let (wanted, own) = built_for(plugins.path());
    let python = no_python();

    let other = tempfile::tempdir().unwrap();
    let other_lib = other.path().join("lib");
    std::fs::create_dir(&other_lib).unwrap();
    std::fs::write(other_lib.join("libtorch.so"), "").unwrap();
    std::fs::write(other.path().join("version.py"), "__version__ = '9.9.9+cu130'\n").unwrap();
    let entries = list(plugins.path(), Some(&other_lib), python.path());
    assert_eq!(entries.len(), 1, "{entries:?}");
    let reason = entries[0]["reason"].as_str().unwrap();
    let said = format!(
        "(workloads toy_reg, toy_lstm, vae, convnet, convnet_fp16, convnet_ddp, convnet_ddp_fp16, dcgan, reso, wlm, \
         wlmfp16, loader, recom, cart, atari, ssd, fast_style, translator, scaling, convnet_distributed, \
         convnet_distributed_fp16, dcgan_all, gpt, vit, gemm, membw, allreduce) was built for libtorch {wanted}, but \
         the libtorch it would load is 9.9.9+cu130, in {} (found through LD_LIBRARY_PATH)",
        other_lib.display()
    );
    assert!(reason.starts_with(&format!("{} {said}", plugin.display())), "{reason}");
    assert!(reason.contains("fix: install the mlb release built for libtorch 9.9.9"), "{reason}");

    let outdir = tempfile::tempdir().unwrap();
    let mut worker = Command::new(common::mlb());
    worker.arg("worker").arg("--plugin").arg(&plugin).args(["--workload", "toy_reg", "--config", "{}", "--outdir"]);
    let out = on_site(worker.arg(outdir.path()), Some(&other_lib), python.path()).output().unwrap();
    let (_, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert!(stderr.contains(&said), "refused before loading the stand-in libtorch: {stderr}");

    let entries = list(plugins.path(), Some(&own), python.path());
    assert!(entries.iter().all(|e| e["status"] == "ok" && e["libtorch_found"]["via"] == "ld_library_path"));
}

/// Makes the plugin in `dir` name, as its RUNPATH, a folder that does not
/// exist: the string `runpath` in the file (in `.dynstr`) is written over
/// with another of the same length.
fn with_runpath_gone(dir: &Path, runpath: &Path) {
    let file = dir.join("libmlb_torch.so");
    let mut bytes = std::fs::read(&file).unwrap();
    let old = format!("{}\0", runpath.display()).into_bytes();
    let gone = format!("/{}\0", "x".repeat(old.len() - 2)).into_bytes();
    let mut replaced = 0;
    while let Some(at) = bytes.windows(old.len()).position(|w| w == old) {
        bytes[at..at + old.len()].copy_from_slice(&gone);
        replaced += 1;
    }
    assert!(replaced > 0, "the RUNPATH's string is in the file");
    std::fs::write(&file, bytes).unwrap();
}

#[test]
fn a_release_whose_runpath_is_gone_runs_with_python3s_torch() {
    let plugins = common::torch_plugin_dir(WHY);
    let (wanted, own) = built_for(plugins.path());
    with_runpath_gone(plugins.path(), &own);
    let none = no_python();
    let venv = common::python::venv_python().parent().unwrap().to_path_buf();

    let entries = list(plugins.path(), None, none.path());
    let reason = entries[0]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains(&format!("was built for libtorch {wanted}, and no libtorch was found")), "{reason}");

    let entries = list(plugins.path(), None, &venv);
    let found = &entries[0]["libtorch_found"];
    assert_eq!((entries[0]["status"].as_str(), found["via"].as_str()), (Some("ok"), Some("python")), "{found}");
    let same = |a: &Value| std::fs::canonicalize(a.as_str().unwrap()).unwrap();
    assert_eq!(same(&found["dir"]), std::fs::canonicalize(&own).unwrap());

    let launches = Launches::with_plugins("libtorchrelease", plugins);
    let config = r#"{"repeat": 2, "number": 1, "skip": 1, "batch_size": 8}"#;
    let jobs =
        launches.jobs(&format!(r#"[{{"name": "toy", "plugin": "toy_reg", "cgroup": "student", "args": {config}}}]"#));
    let mut run = launches.command(&jobs, &launches.out(), &["--devices", "1", "--no-cgroups", "--pause", "0"]);
    let out = on_site(&mut run, None, &venv).output().unwrap();
    assert!(out.status.success(), "the worker found python3's libtorch: {:?}", common::text(&out));
    assert_eq!(common::only_report(&launches.out()).1["completed"], true);
}
