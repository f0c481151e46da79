//! What sampling costs an instance, against a spin step (release build):
//!
//! 1. the cost of one sample of a slot (its cgroup's files, the CPUs'
//!    frequency, the package energy) read on this host's own cgroup files,
//!    and the share of a CPU it takes at 10 Hz: what the sampler takes from
//!    an instance sharing its CPU, per second of its steps;
//! 2. spin steps (size 64) timed in a thread pinned to one CPU, with and
//!    without a sampler at 10 Hz pinned to the same CPU, alternated with a
//!    second set without it, whose ratio to the first is the host's noise.
//!
//! Figures are medians of several runs; the limit is 1% of a spin step
//! (docs/telemetry.md, "Sampling cost"). Run: `cargo bench -p mlb --bench telemetry_cost`.

use mlb::isolation::Version;
use mlb::telemetry::block::Context;
use mlb::telemetry::powercap::Powercap;
use mlb::telemetry::slot::SlotProbe;
use mlb::telemetry::{Probes, Sampler};
use mlb_plugin::{Config, Workload, WorkloadArgs};
use mlb_spin::Spin;
use nix::sched::{sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::path::Path;
use std::time::{Duration, Instant};

const RUNS: usize = 7;
const READS: usize = 2000;
const HZ: f64 = 10.0;
const STEP_RUN: Duration = Duration::from_secs(2);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// A probe of this host's root groups (the files a slot group has too).
fn host_probe() -> Probes {
    let cg = Path::new("/sys/fs/cgroup");
    let cpus = mlb::linux::cpulist::affinity();
    let slot = if cg.join("cgroup.controllers").is_file() {
        SlotProbe::at(Version::V2, cg, Some(cg), Some(cg), &cpus, Path::new("/"))
    } else {
        let (acct, cpu) = (cg.join("cpuacct"), cg.join("cpu"));
        SlotProbe::at(Version::V1, &cg.join("memory"), Some(&acct), Some(&cpu), &cpus, Path::new("/"))
    };
    Probes::of_slot(slot, Powercap::find(Path::new("/")), Context::default())
}

fn ns_per_sample(probes: &Probes) -> f64 {
    let start = Instant::now();
    for _ in 0..READS {
        std::hint::black_box(probes.read());
    }
    start.elapsed().as_nanos() as f64 / READS as f64
}

/// Mean ns per spin step over [`STEP_RUN`], with a sampler beside it when `sampling`.
fn ns_per_step(sampling: bool) -> f64 {
    let sampler = sampling.then(|| Sampler::start(host_probe(), HZ));
    let mut spin =
        Spin::create(mlb_spin::Args::from_config(&Config::parse(r#"{"size": 64}"#).unwrap()).unwrap()).unwrap();
    let (start, mut steps) = (Instant::now(), 0u64);
    while start.elapsed() < STEP_RUN {
        std::hint::black_box(spin.step().unwrap());
        steps += 1;
    }
    let ns = start.elapsed().as_nanos() as f64 / steps as f64;
    drop(sampler.map(Sampler::finish));
    ns
}

fn main() {
    // Every thread (the sampler's too) on the last CPU this process may use.
    let cpu = *mlb::linux::cpulist::affinity().last().unwrap();
    let mut set = CpuSet::new();
    set.set(cpu).unwrap();
    sched_setaffinity(Pid::from_raw(0), &set).unwrap();

    let probes = host_probe();
    let sample_ns = median((0..RUNS).map(|_| ns_per_sample(&probes)).collect());
    let share = sample_ns * HZ / 1e9;
    // Alternated, with a second set without sampler: its ratio to the first
    // is the noise of this host (shared, other work on the CPU).
    let (mut off, mut on, mut again) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        off.push(ns_per_step(false));
        on.push(ns_per_step(true));
        again.push(ns_per_step(false));
    }
    let (off, on, again) = (median(off), median(on), median(again));
    println!("telemetry cost (medians of {RUNS} runs; everything pinned to CPU {cpu})");
    println!("  one slot sample                       {:10.1} us", sample_ns / 1000.0);
    println!("  sampler's share of a CPU at {HZ} Hz     {:10.4} %  (limit 1% of a spin step)", share * 100.0);
    println!("  spin step (size 64), no sampler       {:10.1} us", off / 1000.0);
    println!("  spin step (size 64), sampler at {HZ} Hz {:10.1} us", on / 1000.0);
    println!("  ratio with / without                  {:10.4}", on / off);
    println!("  ratio without / without (noise)       {:10.4}", again / off);
    assert!(share < 0.01, "sampling takes {:.3}% of a CPU at {HZ} Hz, over the 1% limit", share * 100.0);
}
