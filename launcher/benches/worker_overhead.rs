//! The worker's own cost, with spin doing zero work per step (`size: 0`):
//!
//! 1. ns per step calling the workload directly in process (`Workload::step`);
//! 2. ns per step through the C ABI and the worker's timing loop (the same
//!    `timing::run` the worker uses, on the plugin loaded with `dlopen`),
//!    with and without the checks wrapper the worker puts around the
//!    instance (`checks::Checked`, off as in a throughput run);
//! 3. ms from starting `mlb worker` to its first step (to the first
//!    observation line, one zero-work step per observation).
//!
//! Each figure is the median of several runs. Run: `cargo bench --bench worker_overhead`.

mod common;

use mlb::plugins::Plan;
use mlb::plugins::{self, Instance};
use mlb::worker::checks::Checked;
use mlb::worker::timing;
use mlb_plugin::{Config, Workload, WorkloadArgs};
use mlb_spin::Spin;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

const STEPS: u64 = 20_000_000;
const RUNS: usize = 7;
const STARTS: usize = 25;
const ZERO_WORK: &str = r#"{"size": 0}"#;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn spin_plugin() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_BIN_EXE_mlb")).parent().unwrap().to_path_buf();
    let lib = dir.join("libmlb_spin.so");
    if !lib.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo).args(["build", "--release", "-p", "spin"]).status().unwrap();
        assert!(status.success());
    }
    lib
}

fn direct_ns_per_step() -> f64 {
    let mut spin = Spin::create(mlb_spin::Args::from_config(&Config::parse(ZERO_WORK).unwrap()).unwrap()).unwrap();
    let start = Instant::now();
    for _ in 0..STEPS {
        std::hint::black_box(spin.step().unwrap());
    }
    start.elapsed().as_nanos() as f64 / STEPS as f64
}

fn abi_loop_ns_per_step(plugin: &plugins::Plugin, checked: bool) -> f64 {
    let mut instance = Instance::create(plugin, ZERO_WORK).unwrap();
    instance.setup("cpu", 1, false).unwrap();
    let plan = Plan { repeat: 20, number: STEPS / 20, skip: 0 };
    let start = Instant::now();
    let result = match checked {
        true => timing::run(&mut Checked::new(&mut instance, None, None), plan, |_| {}),
        false => timing::run(&mut instance, plan, |_| {}),
    };
    let elapsed = start.elapsed();
    assert!(result.failure.is_none() && result.steps == STEPS);
    elapsed.as_nanos() as f64 / STEPS as f64
}

/// Milliseconds from spawning `mlb worker` to its first observation line.
fn ms_to_first_step(plugin: &std::path::Path, outdir: &std::path::Path) -> f64 {
    common::bare_worker(plugin, r#"{"size": 0, "repeat": 2, "number": 1, "skip": 1}"#, outdir, Instant::now()).0
}

fn main() {
    let path = spin_plugin();
    let plugin = plugins::load(&path).unwrap();
    let direct = median((0..RUNS).map(|_| direct_ns_per_step()).collect());
    let abi = median((0..RUNS).map(|_| abi_loop_ns_per_step(&plugin, false)).collect());
    let checked = median((0..RUNS).map(|_| abi_loop_ns_per_step(&plugin, true)).collect());
    let outdir = tempfile::tempdir().unwrap();
    let first = median((0..STARTS).map(|_| ms_to_first_step(&path, outdir.path())).collect());
    println!("worker overhead (spin, zero work per step; medians of {RUNS} runs of {STEPS} steps, {STARTS} starts)");
    println!("  direct call in process        {direct:8.2} ns/step");
    println!("  C ABI + timing loop           {abi:8.2} ns/step");
    println!("  ... in the checks wrapper, off {checked:8.2} ns/step");
    println!("  harness cost                  {:8.2} ns/step", checked - direct);
    println!("  start of `mlb worker` to first step {first:8.2} ms");
}
