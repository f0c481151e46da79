//! The all-reduce overlapped with the backward pass, on against off, and
//! against PyTorch's `DistributedDataParallel`: convnet_ddp resnet18 with 2
//! ranks over Gloo on the CPU, rank r pinned to CPU r with one intra-op
//! thread (as mlb's launcher gives each slot its CPUs).
//!
//! Each run starts three groups in turn: `mlb worker` of convnet_ddp with
//! `overlap` off, with it on, and `bench/parity/reference.py convnet_ddp`
//! (PyTorch DDP, `bucket_cap_mb=25`) in the PyTorch venv when `VIRTUAL_ENV`
//! is set. A group's figure is the sum of its ranks' items/s; the step time
//! ratio of two sides is the inverse ratio of those. Prints each run and the
//! medians over the runs.
//!
//! ```text
//! cargo build --release -p mlb -p mlb-torch
//! cargo bench -p mlb-torch --bench overlap -- [--runs 5] [--image-size 224]
//! ```

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BATCH: u64 = 8;
const REPEAT: u64 = 4;
const NUMBER: u64 = 2;
const SKIP: u64 = 1;

/// `target/release`, where `mlb` and the plugin library are.
fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the bench's path");
    exe.parent().and_then(Path::parent).expect("benches live in target/<profile>/deps").to_path_buf()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs `cmd(rank)` for ranks 0 and 1 as one group, rank r on CPU r;
/// returns their standard outputs, exiting on a failure.
fn group(cmd: impl Fn(usize) -> Vec<String>) -> Vec<String> {
    let port = free_port().to_string();
    let children: Vec<_> = (0..2)
        .map(|rank| {
            let argv = cmd(rank);
            Command::new("taskset")
                .arg("-c")
                .arg(rank.to_string())
                .args(&argv)
                .envs([("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", &port), ("WORLD_SIZE", "2")])
                .env("RANK", rank.to_string())
                .env("LOCAL_RANK", rank.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("{argv:?}: {e}"))
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(out.status.success(), "a rank failed:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
            text
        })
        .collect()
}

fn config(image_size: u64) -> Value {
    json!({"arch": "resnet18", "batch_size": BATCH, "image_size": image_size})
}

/// The group's items/s through `mlb worker`, with `overlap` on or off.
fn mlb(release: &Path, image_size: u64, overlap: bool) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(image_size);
    config["overlap"] = overlap.into();
    config["repeat"] = REPEAT.into();
    config["number"] = NUMBER.into();
    config["skip"] = SKIP.into();
    group(|rank| {
        let (mlb, plugin) = (release.join("mlb"), release.join("libmlb_torch.so"));
        let out = dir.path().join(rank.to_string());
        [mlb.to_str().unwrap(), "worker", "--plugin", plugin.to_str().unwrap(), "--workload", "convnet_ddp"]
            .into_iter()
            .map(str::to_string)
            .chain(["--config".into(), config.to_string(), "--threads".into(), "1".into()])
            .chain(["--device".into(), "cpu".into(), "--outdir".into(), out.display().to_string()])
            .collect()
    });
    (0..2)
        .map(|rank| {
            let folder = dir.path().join(rank.to_string());
            let report = std::fs::read_dir(&folder).unwrap().next().expect("a report").unwrap().path();
            let report: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
            report["train_item"]["avg"].as_f64().expect("items/s in the report")
        })
        .sum()
}

/// The group's items/s through PyTorch DDP (`reference.py convnet_ddp`).
fn pytorch(python: &Path, image_size: u64) -> f64 {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/parity/reference.py");
    let outs = group(|_| {
        let args = [python.to_str().unwrap(), script.to_str().unwrap(), "convnet_ddp", "--config"];
        let counts = [REPEAT, NUMBER, SKIP].map(|n| n.to_string());
        args.into_iter()
            .map(str::to_string)
            .chain([config(image_size).to_string(), "--threads".into(), "1".into()])
            .chain(["--repeat".into(), counts[0].clone(), "--number".into(), counts[1].clone()])
            .chain(["--skip".into(), counts[2].clone()])
            .collect()
    });
    outs.iter()
        .map(|out| {
            let line = out.lines().last().expect("reference.py prints its figures");
            serde_json::from_str::<Value>(line).unwrap()["items_per_sec"].as_f64().unwrap()
        })
        .sum()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn main() {
    let (mut runs, mut image_size): (usize, u64) = (5, 224);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().and_then(|v| v.parse::<u64>().ok()).expect("a number after the option");
        match arg.as_str() {
            "--runs" => runs = value() as usize,
            "--image-size" => image_size = value(),
            // `cargo bench` passes `--bench`.
            _ => {}
        }
    }
    let release = release_dir();
    assert!(release.join("mlb").is_file(), "build first: cargo build --release -p mlb -p mlb-torch");
    let python = std::env::var_os("VIRTUAL_ENV").map(|venv| PathBuf::from(venv).join("bin/python"));
    let (mut off, mut on, mut ddp) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        off.push(mlb(&release, image_size, false));
        on.push(mlb(&release, image_size, true));
        if let Some(python) = &python {
            ddp.push(pytorch(python, image_size));
        }
        let py = ddp.last().map_or("-".to_string(), |p| format!("{p:.2}"));
        eprintln!("run {run}: overlap off {:.2}, on {:.2}, PyTorch DDP {py} items/s", off[run], on[run]);
    }
    let ratio = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(a, b)| a / b).collect());
    println!("convnet_ddp resnet18 batch {BATCH} per rank, {image_size}x{image_size}, 2 ranks over Gloo, rank r on CPU r, 1 thread, {runs} runs");
    println!();
    println!("| side | items/s (median) | step time / overlap off (median of runs) |");
    println!("|---|---:|---:|");
    println!("| mlb, overlap off | {:.2} | 1.00 |", median(off.clone()));
    println!("| mlb, overlap on | {:.2} | {:.3} |", median(on.clone()), ratio(&off, &on));
    if ddp.is_empty() {
        println!("| PyTorch DDP | - | - (VIRTUAL_ENV is not set) |");
    } else {
        println!("| PyTorch DDP | {:.2} | {:.3} |", median(ddp.clone()), ratio(&off, &ddp));
        println!();
        println!("mlb with overlap / PyTorch DDP, items/s (median of runs): {:.3}", ratio(&on, &ddp));
    }
}
