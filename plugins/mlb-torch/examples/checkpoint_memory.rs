//! The memory activation checkpointing saves, and the time it costs: gpt
//! (8 layers of width 256, 4 heads, 256 tokens, batch 8, synthetic tokens of
//! a 1024-word vocabulary, fp32 or `--precision`) trained for 3 steps on the
//! CPU with one thread, once with `checkpoint` off and once on, each in a
//! child process of its own. Prints, per side, the resident memory once the
//! model is built, the peak resident memory (Linux's `VmHWM`), their
//! difference (the training's own peak: activations, gradients, optimizer
//! state) and the median step time.
//!
//! ```text
//! cargo run --release -p mlb-torch --example checkpoint_memory -- [--precision bf16]
//! ```

use mlb_plugin::{Config, Setup, Workload, WorkloadArgs};
use mlb_torch::workloads::Gpt;
use mlb_torch::TorchPlugin;
use std::process::Command;
use std::time::Instant;

const STEPS: usize = 3;

/// A field of `/proc/self/status` in MiB.
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status (Linux)");
    let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("{field} in {status}"));
    let kib: f64 = line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("a size in kB");
    kib / 1024.0
}

/// Trains in this process; prints `built peak step_s`.
fn child(checkpoint: bool, precision: &str) {
    let config = format!(
        r#"{{"size": "tiny", "layers": 8, "heads": 4, "width": 256, "seq_len": 256, "vocab": 1024,
            "batch_size": 8, "precision": "{precision}", "checkpoint": {checkpoint}, "seed": 1}}"#
    );
    let config = Config::parse(&config).expect("JSON");
    let args = <TorchPlugin<Gpt> as Workload>::Args::from_config(&config).expect("gpt's arguments");
    let mut gpt = TorchPlugin::<Gpt>::create(args).expect("create");
    gpt.setup(&Setup::new("cpu", 1)).expect("setup");
    let built = status_mib("VmRSS:");
    let mut times: Vec<f64> = (0..STEPS)
        .map(|_| {
            let start = Instant::now();
            gpt.step().expect("step");
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!("{built} {} {}", status_mib("VmHWM:"), times[STEPS / 2]);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let precision = args.iter().position(|a| a == "--precision").map_or("fp32", |i| args[i + 1].as_str());
    if let Some(i) = args.iter().position(|a| a == "--child") {
        return child(args[i + 1] == "on", precision);
    }
    let exe = std::env::current_exe().expect("this example's path");
    println!("gpt 8 x 256, 256 tokens, batch 8, {precision}, CPU, 1 thread, {STEPS} steps");
    println!("{:<12} {:>10} {:>10} {:>14} {:>10}", "checkpoint", "built MiB", "peak MiB", "training MiB", "step s");
    for side in ["off", "on"] {
        let out = Command::new(&exe).args(["--child", side, "--precision", precision]).output().expect("run child");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        let figures: Vec<f64> = text.split_whitespace().map(|v| v.parse().expect("a figure")).collect();
        let (built, peak, step) = (figures[0], figures[1], figures[2]);
        println!("{side:<12} {built:>10.0} {peak:>10.0} {:>14.0} {step:>10.3}", peak - built);
    }
}
