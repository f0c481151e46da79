//! `mlb burn` on real slots (docs/burn.md): gemm and membw of the libtorch
//! plugin in real cgroup slots, one slot crowded by busy processes pinned to
//! its CPUs, and on the two-node Slurm test cluster with one node's
//! instances capped by a CPU quota. The slowed slot (node) is named and the
//! burn exits 1; unloaded, it exits 0.
//!
//! They need the release build of the libtorch plugin (`cargo xtask build
//! --torch`: `target/release/libmlb_torch.so`) and, as accept_runs' tests,
//! measure speed: they are in the `slurm` group (one test at a time, nothing
//! else beside them; `.config/nextest.toml`).

use crate::common;

use common::launcher::{output_of, root_or_skip, LOCK_VAR};
use common::slowdown::{crowd_slot, Throttle};
use mlb::isolation::Isolation;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The suite of a burn's reports (its jobs file is `burn.json`).
const SUITE: &str = "burn";

/// A private folder holding a copy of the release build of the libtorch
/// plugin (plugin folders must not be writable by others).
fn torch_plugin_dir() -> tempfile::TempDir {
    let target = common::mlb().parent().and_then(Path::parent).unwrap().to_path_buf();
    let built = target.join("release").join("libmlb_torch.so");
    assert!(
        built.is_file(),
        "the burn tests run the libtorch plugin's gemm and membw: build it first (`cargo xtask build --torch` \
         makes {})",
        built.display()
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&built, dir.path().join("libmlb_torch.so")).unwrap();
    dir
}

/// `mlb burn` of 2 x 6 seconds in fp32 (bf16 on a CPU is slow and its
/// speed depends on the CPU's extensions), with `extra` options.
fn burn_args<'a>(plugins: &'a Path, out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--plugin-dir", path(plugins), "burn", "--duration", "6", "--precision", "fp32"];
    args.extend(["--outdir", path(out)]);
    args.extend(extra);
    args
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The failed slots of `burn.json`, sorted.
fn failed_slots(out: &Path) -> (Vec<String>, Value) {
    let text = std::fs::read_to_string(out.join("burn.json")).expect("the burn wrote burn.json");
    let burn: Value = serde_json::from_str(&text).unwrap();
    let mut slots: Vec<String> =
        burn["failed"].as_array().unwrap().iter().map(|f| f["slot"].as_str().unwrap().to_string()).collect();
    slots.sort();
    (slots, burn)
}

fn said(out: &Output) -> String {
    let (stdout, stderr) = common::text(out);
    format!("status {:?}\n{stdout}\n{stderr}", out.status.code())
}

#[test]
fn a_crowded_slot_fails_the_burn_by_name_and_an_unloaded_burn_passes() {
    if !root_or_skip("a burn on real cgroup slots") {
        return;
    }
    let plugins = torch_plugin_dir();
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| dir.path().join(name);
    let burn = |out: &PathBuf| {
        let mut c = Command::new(common::mlb());
        c.args(burn_args(plugins.path(), out, &["--devices", "2"]));
        c.env(LOCK_VAR, dir.path().join("mlb.lock")).env("NO_COLOR", "1");
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        c
    };

    // Slot 1 (device 1) shares its CPU with three busy loops.
    let child = burn(&run("slowed")).spawn().unwrap();
    let crowd = crowd_slot(SUITE, 3, |w| w.var("CUDA_VISIBLE_DEVICES") == Some("1"));
    let slowed = output_of(child);
    drop(crowd);
    assert_eq!(slowed.status.code(), Some(1), "{}", said(&slowed));
    let (failed, verdicts) = failed_slots(&run("slowed"));
    assert_eq!(failed, ["1"], "only the crowded slot fails:\n{verdicts:#}");
    let stdout = common::text(&slowed).0;
    assert!(stdout.contains("slot 1 failed: gemm"), "the table names the slot and why:\n{stdout}");
    for bench in ["gemm", "membw"] {
        let report = common::reports(&run("slowed")).into_iter().find(|(_, r)| r["name"] == bench).unwrap().1;
        assert_eq!(report["completed"], true, "{bench} ran in a slot: {report:#}");
        let isolation = report["provenance"]["isolation"].as_str().unwrap();
        assert!(matches!(isolation.parse(), Ok(Isolation::CgroupV1 | Isolation::CgroupV2)), "{bench}: {isolation}");
    }

    let clean = burn(&run("clean")).output().unwrap();
    assert_eq!(clean.status.code(), Some(0), "{}", said(&clean));
    assert_eq!(failed_slots(&run("clean")).0, Vec::<String>::new());
}

#[test]
fn a_throttled_slurm_node_is_named_with_its_drain_command() {
    let _cluster = common::slurm::cluster();
    let plugins = torch_plugin_dir();
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| dir.path().join(name);
    let burn = |out: &PathBuf| {
        let args = burn_args(plugins.path(), out, &["--slurm"]);
        common::slurm::in_allocation(&["-N2", "--ntasks-per-node=1"], &args).output().unwrap()
    };

    // Node n2's instances get a fifth of one CPU.
    let throttle = Throttle::workers("burn-n2", 0.2, SUITE, |w| w.var("SLURMD_NODENAME") == Some("n2"));
    let slowed = burn(&run("slowed"));
    drop(throttle);
    assert_eq!(slowed.status.code(), Some(1), "{}", said(&slowed));
    let (failed, verdicts) = failed_slots(&run("slowed"));
    assert_eq!(failed, ["n2/0"], "only the throttled node fails:\n{verdicts:#}");
    let stdout = common::text(&slowed).0;
    assert!(stdout.contains("scontrol update nodename=n2 state=drain reason=\"mlb burn: slot n2/0: gemm"), "{stdout}");
    assert!(!stdout.contains("nodename=n1"), "{stdout}");

    let clean = burn(&run("clean"));
    assert_eq!(clean.status.code(), Some(0), "{}", said(&clean));
}
