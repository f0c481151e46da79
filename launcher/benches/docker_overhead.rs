//! What a Docker container adds to an instance, against a bare `mlb worker`
//! (spin, zero work per step; the local test image, `scripts/build-test-image.sh`):
//!
//! 1. ms from starting an instance to its first step (its first observation
//!    line): bare = spawn of `mlb worker`; Docker = [`Docker::run`] (create,
//!    inspect, start, log stream) to the first streamed line;
//! 2. ms from start to the instance's end, container removed;
//! 3. a 16-instance job started as the launcher starts a job's instances: all
//!    at once, one thread each, cpusets alternating over the host's CPUs; ms
//!    until every instance made its first step, and until all ended (and
//!    were removed).
//!
//! 4. the same 16 instances through the launcher: `mlb --jobs` of a job of 8
//!    configs on 2 slots (`--devices` cannot exceed the usable CPUs: each slot
//!    needs one), bare (with cgroups) against `--docker`; ms for the whole run.
//!
//! Medians of several runs. Needs a running Docker daemon (`scripts/setup-docker.sh`).
//! Run: `cargo bench --bench docker_overhead`.

mod common;

use mlb::runtime::docker::{Cancel, Docker, Exit, ImageFacts};
use mlb::runtime::images::{ImageMap, IMAGE_MLB, IMAGE_PLUGIN_DIR};
use mlb::runtime::spec::{Bind, ContainerSpec, Labels, Resources};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const CONFIG: &str = r#"{"size": 0, "repeat": 2, "number": 1, "skip": 1}"#;
const STARTS: usize = 15;
const JOB_RUNS: usize = 3;
const JOB_SIZE: usize = 16;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn spec(outdir: &Path, instance: u32, cpus: &str) -> ContainerSpec {
    let plugin = format!("{IMAGE_PLUGIN_DIR}/libmlb_spin.so");
    ContainerSpec {
        argv: [IMAGE_MLB, "worker", "--plugin", &plugin, "--config", CONFIG, "--outdir", "/out"]
            .map(String::from)
            .into(),
        env: vec![("JOB_ID".into(), instance.to_string())],
        resources: Resources { cpus: Some(cpus.into()), memory_bytes: Some(256 << 20), ..Default::default() },
        binds: vec![Bind::rw(outdir, "/out")],
        labels: Labels { run_id: "bench".into(), job: "spin".into(), instance },
        prefix: format!("[spin {instance}] "),
        ..Default::default()
    }
}

/// (ms to the first step, ms to the end), counted from `start`, of one instance in a container.
fn docker(docker: &Docker, image: &ImageFacts, spec: &ContainerSpec, start: Instant) -> (f64, f64) {
    let mut first = None;
    let outcome = docker
        .run(spec, image, &Cancel::new(), &mut |_, line| {
            if first.is_none() && line.starts_with("[  1/  2]") {
                first = Some(start.elapsed().as_secs_f64() * 1e3);
            }
        })
        .unwrap();
    assert_eq!(outcome.exit, Exit::Code(0));
    (first.expect("a first step"), start.elapsed().as_secs_f64() * 1e3)
}

/// (ms until every instance made its first step, ms until all ended) of a job started all at once.
fn job<F: Fn(u32, Instant) -> (f64, f64) + Sync>(one: F) -> (f64, f64) {
    let start = Instant::now();
    let times: Vec<(f64, f64)> = std::thread::scope(|s| {
        let one = &one;
        let handles: Vec<_> = (0..JOB_SIZE as u32).map(|i| s.spawn(move || one(i, start))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let last = |f: fn(&(f64, f64)) -> f64| times.iter().map(f).fold(0.0, f64::max);
    (last(|t| t.0), last(|t| t.1))
}

/// ms of a whole `mlb --jobs` run of 8 configs x 2 slots of spin (16 instances).
fn launcher_run(mlb: &Path, plugin: &Path, work: &Path, extra: &[&str]) -> f64 {
    let plugins = work.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::copy(plugin, plugins.join("libmlb_spin.so")).unwrap();
    let jobs = work.join("sixteen.json");
    let job = r#"[{"name": "spin", "plugin": "spin", "args": {"size": 0, "repeat": 2, "skip": 1, "number": [1, 2, 3, 4, 5, 6, 7, 8]}, "cgroup": "student"}]"#;
    std::fs::write(&jobs, job).unwrap();
    let start = Instant::now();
    let out = Command::new(mlb)
        .arg("--plugin-dir")
        .arg(&plugins)
        .arg("--jobs")
        .arg(&jobs)
        .arg("--outdir")
        .arg(work.join("out"))
        .args(["--devices", "2"])
        .args(extra)
        .output()
        .unwrap();
    let ms = start.elapsed().as_secs_f64() * 1e3;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    ms
}

fn main() {
    let bin_dir: PathBuf = PathBuf::from(env!("CARGO_BIN_EXE_mlb")).parent().unwrap().into();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    assert!(Command::new(cargo).args(["build", "--release", "-p", "spin"]).status().unwrap().success());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/build-test-image.sh");
    let built = Command::new(script).arg(&bin_dir).arg("mlb-test:latest").status().unwrap();
    assert!(built.success(), "building the test image failed");
    let plugin = bin_dir.join("libmlb_spin.so");
    let client = Docker::connect().unwrap_or_else(|e| panic!("{e}\n(run `scripts/setup-docker.sh` as root first)"));
    let image = client.image("mlb-test:latest", &ImageMap::builtin().build_hint("mlb-test:latest")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let cpus: Vec<String> =
        (0..std::thread::available_parallelism().map_or(1, |n| n.get())).map(|c| c.to_string()).collect();

    let (bare_first, bare_end): (Vec<f64>, Vec<f64>) =
        (0..STARTS).map(|_| common::bare_worker(&plugin, CONFIG, out.path(), Instant::now())).unzip();
    let one = spec(out.path(), 0, &cpus[0]);
    let (docker_first, docker_end): (Vec<f64>, Vec<f64>) =
        (0..STARTS).map(|_| docker(&client, &image, &one, Instant::now())).unzip();
    let bare_job: Vec<(f64, f64)> =
        (0..JOB_RUNS).map(|_| job(|_, start| common::bare_worker(&plugin, CONFIG, out.path(), start))).collect();
    let specs: Vec<ContainerSpec> = (0..JOB_SIZE).map(|i| spec(out.path(), i as u32, &cpus[i % cpus.len()])).collect();
    let docker_job: Vec<(f64, f64)> =
        (0..JOB_RUNS).map(|_| job(|i, start| docker(&client, &image, &specs[i as usize], start))).collect();

    let (bf, be, df, de) = (median(bare_first), median(bare_end), median(docker_first), median(docker_end));
    let col = |v: &[(f64, f64)], f: fn(&(f64, f64)) -> f64| median(v.iter().map(f).collect());
    println!("docker overhead (spin, zero work; {} CPUs; medians of {STARTS} starts, {JOB_RUNS} jobs)", cpus.len());
    println!("  one instance, start to first step   bare {bf:8.1} ms   docker {df:8.1} ms   (+{:.1} ms)", df - bf);
    println!("  one instance, start to end          bare {be:8.1} ms   docker {de:8.1} ms   (+{:.1} ms)", de - be);
    let (jbf, jbe, jdf, jde) =
        (col(&bare_job, |t| t.0), col(&bare_job, |t| t.1), col(&docker_job, |t| t.0), col(&docker_job, |t| t.1));
    println!("  {JOB_SIZE} instances at once, all at first step   bare {jbf:8.1} ms   docker {jdf:8.1} ms");
    println!("  {JOB_SIZE} instances at once, all ended           bare {jbe:8.1} ms   docker {jde:8.1} ms");
    let mlb = bin_dir.join("mlb");
    let total = |extra: &[&str]| {
        median((0..JOB_RUNS).map(|_| launcher_run(&mlb, &plugin, tempfile::tempdir().unwrap().path(), extra)).collect())
    };
    let (lb, ld) = (total(&[]), total(&["--docker", "mlb-test:latest"]));
    println!("  mlb --jobs, {JOB_SIZE} instances (8 configs x 2 slots)   bare {lb:8.1} ms   docker {ld:8.1} ms");
}
