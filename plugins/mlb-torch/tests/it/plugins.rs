//! The built plugin library: how it links libtorch, what it exports, and
//! runs through the real `mlb worker` binary.
//!
//! These tests use the artifacts of the same profile as the test binary:
//! build them first (`scripts/test-torch.sh` does), e.g.
//! `cargo build --release -p mlb -p mlb-torch` before
//! `cargo test --release -p mlb-torch`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every workload the library exports, in its order.
const WORKLOADS: [&str; 27] = [
    "toy_reg",
    "toy_lstm",
    "vae",
    "convnet",
    "convnet_fp16",
    "convnet_ddp",
    "convnet_ddp_fp16",
    "dcgan",
    "reso",
    "wlm",
    "wlmfp16",
    "loader",
    "recom",
    "cart",
    "atari",
    "ssd",
    "fast_style",
    "translator",
    "scaling",
    "convnet_distributed",
    "convnet_distributed_fp16",
    "dcgan_all",
    "gpt",
    "vit",
    "gemm",
    "membw",
    "allreduce",
];

/// `target/<profile>`, the folder of this test binary's `deps/`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).expect("test binary lives in target/<profile>/deps").to_path_buf()
}

fn artifact(name: &str) -> PathBuf {
    let path = profile_dir().join(name);
    assert!(
        path.is_file(),
        "{} is not built: run scripts/test-torch.sh, or build mlb and the plugins in this profile first",
        path.display()
    );
    path
}

/// The plugin library.
fn plugin() -> PathBuf {
    artifact("libmlb_torch.so")
}

/// `readelf -d` of a file: (NEEDED libraries, RUNPATH/RPATH folders).
fn dynamic_section(path: &Path) -> (Vec<String>, Vec<String>) {
    let out = Command::new("readelf").arg("-d").arg(path).output().expect("readelf (binutils) is installed");
    assert!(out.status.success(), "readelf failed on {}", path.display());
    let text = String::from_utf8_lossy(&out.stdout);
    let bracketed = |line: &str| line.split_once('[').and_then(|(_, r)| r.split_once(']')).map(|(v, _)| v.to_string());
    let needed = text.lines().filter(|l| l.contains("(NEEDED)")).filter_map(bracketed).collect();
    let paths = text
        .lines()
        .filter(|l| l.contains("(RUNPATH)") || l.contains("(RPATH)"))
        .filter_map(bracketed)
        .flat_map(|v| v.split(':').map(str::to_string).collect::<Vec<_>>())
        .collect();
    (needed, paths)
}

#[test]
fn the_library_links_libtorch_and_libtorch_cuda_with_an_rpath() {
    let (needed, rpath) = dynamic_section(&plugin());
    assert!(needed.iter().any(|n| n == "libtorch.so"), "libtorch.so not NEEDED: {needed:?}");
    let libdir = rpath
        .iter()
        .map(PathBuf::from)
        .find(|d| d.join("libtorch.so").is_file())
        .unwrap_or_else(|| panic!("no RUNPATH entry holds libtorch.so: {rpath:?}"));
    if libdir.join("libtorch_cuda.so").is_file() {
        assert!(
            needed.iter().any(|n| n == "libtorch_cuda.so"),
            "the libtorch in {} has CUDA but the plugin does not link libtorch_cuda.so: {needed:?}",
            libdir.display()
        );
    }
}

#[test]
fn the_library_exports_every_workload_with_its_declared_arguments() {
    let out = Command::new(artifact("mlb")).args(["worker", "--describe"]).arg(plugin()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let metas: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let names: Vec<&str> = metas.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, WORKLOADS);
    for meta in &metas {
        let (defaults, kinds) = (meta["default_args"].as_object().unwrap(), meta["arg_kinds"].as_object().unwrap());
        assert!(defaults.keys().all(|k| kinds.contains_key(k)), "{meta}: a default without a declared kind");
        assert_eq!(kinds["repeat"], "count", "{meta}");
    }
    let wlm = metas.iter().find(|m| m["name"] == "wlm").unwrap();
    assert_eq!(wlm["arg_kinds"]["lr"], "number", "a default of 20 is still a number");
    let deterministic: Vec<&str> =
        metas.iter().filter(|m| m["deterministic"] == true).map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(deterministic, ["convnet", "gpt", "vit"], "the workloads that declare deterministic runs");
}

#[test]
fn every_workload_declares_the_libtorch_the_library_links() {
    let (_, rpath) = dynamic_section(&plugin());
    let libdir = rpath.iter().map(PathBuf::from).find(|d| d.join("libtorch.so").is_file()).unwrap();
    let linked = mlb_plugin::libtorch::version_in(&libdir, |f| std::fs::read_to_string(f));
    let linked = linked.unwrap_or_else(|| panic!("the libtorch in {} says no version", libdir.display()));
    let out = Command::new(artifact("mlb")).args(["worker", "--describe"]).arg(plugin()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let meta: Value = serde_json::from_str(line).unwrap();
        assert_eq!(meta["libtorch"], linked.as_str(), "{meta}");
    }
}

fn worker(workload: &str, config: &str, outdir: &Path) -> (i32, String, Value) {
    let out = Command::new(artifact("mlb"))
        .args(["worker", "--plugin"])
        .arg(plugin())
        .args(["--workload", workload, "--config", config, "--threads", "1", "--device", "auto", "--outdir"])
        .arg(outdir)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .output()
        .expect("mlb worker runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let mut reports: Vec<PathBuf> = std::fs::read_dir(outdir).unwrap().map(|e| e.unwrap().path()).collect();
    reports.sort();
    let report = reports.last().map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap());
    (out.status.code().unwrap_or(-1), stdout, report.unwrap_or(Value::Null))
}

#[test]
fn toy_reg_runs_through_mlb_worker_without_library_path() {
    let dir = tempfile::tempdir().unwrap();
    let (code, output, report) = worker("toy_reg", r#"{"repeat": 6, "number": 50, "skip": 2, "seed": 3}"#, dir.path());
    assert_eq!(code, 0, "{output}");
    assert_eq!(report["completed"], true);
    assert_eq!(report["name"], "toy_reg");
    assert_eq!(report["cuda"], tch_cuda());
    assert_eq!(report["data"], "synthetic");
    assert_eq!(report["threads"], 1);
    assert_eq!(report["items"], 50.0 * 256.0, "number x batch_size samples per observation");
    assert!(report["train_item"]["avg"].as_f64().unwrap() > 0.0);
    let losses: Vec<f64> = report["batch_loss"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(losses.len(), 100);
    assert!(losses[90..].iter().sum::<f64>() < losses[..10].iter().sum::<f64>(), "{losses:?}");
}

#[test]
fn bad_arguments_and_libtorch_errors_become_failed_instances() {
    let dir = tempfile::tempdir().unwrap();
    let (code, output, report) =
        worker("convnet", r#"{"repeat": 2, "number": 1, "skip": 1, "arch": "vgg"}"#, dir.path());
    assert_eq!(code, 3, "{output}");
    assert_eq!(report["completed"], false);
    assert!(report["failure"]["message"].as_str().unwrap().contains("resnet18"), "{report}");

    // libtorch refuses to draw labels from an empty class range: tch panics,
    // the plugin boundary catches it, the worker writes the failure.
    let dir = tempfile::tempdir().unwrap();
    let config = r#"{"repeat": 2, "number": 1, "skip": 1, "arch": "resnet18", "classes": 0, "image_size": 32}"#;
    let (code, output, report) = worker("convnet", config, dir.path());
    assert_eq!(code, 4, "{output}");
    assert_eq!(report["failure"]["cause"], "panic", "{report}");
}

/// Whether this libtorch sees a GPU here (the report's `cuda` must agree).
fn tch_cuda() -> bool {
    tch::Cuda::is_available()
}
