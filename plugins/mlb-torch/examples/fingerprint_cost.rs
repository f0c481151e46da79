//! What a deterministic run's fingerprint costs against a training step:
//! gpt and convnet set up deterministically on the CPU, two warm-up steps,
//! then `ROUNDS` rounds of one step and one fingerprint, each timed. Prints,
//! per config, the median step, the median fingerprint, their ratio, and
//! the share of the time fingerprints take at one every 10 steps.
//!
//! ```text
//! cargo run --release -p mlb-torch --example fingerprint_cost -- [--threads 2]
//! ```

use mlb_plugin::{Config, Setup, Workload, WorkloadArgs};
use mlb_torch::workloads::{Convnet, Gpt};
use mlb_torch::{TorchPlugin, TorchWorkload};
use std::time::Instant;

const ROUNDS: usize = 5;

/// The configs measured: small and large parameter counts per step's work.
const CONFIGS: [(&str, &str); 4] = [
    (
        "gpt",
        r#"{"size": "tiny", "layers": 8, "heads": 4, "width": 256, "seq_len": 256, "vocab": 1024, "batch_size": 8, "precision": "fp32"}"#,
    ),
    ("gpt", r#"{"size": "124m", "seq_len": 128, "batch_size": 1, "precision": "fp32"}"#),
    ("convnet", r#"{"arch": "resnet18", "image_size": 64, "batch_size": 16, "classes": 100}"#),
    ("convnet", r#"{"arch": "resnet50", "image_size": 224, "batch_size": 4}"#),
];

fn median(mut seconds: Vec<f64>) -> f64 {
    seconds.sort_by(f64::total_cmp);
    seconds[seconds.len() / 2]
}

/// The median step and fingerprint of `W` with `config`, in seconds.
fn measure<W: TorchWorkload>(config: &str, threads: u32) -> mlb_plugin::Result<(f64, f64)> {
    let args = <TorchPlugin<W> as Workload>::Args::from_config(&Config::parse(config)?)?;
    let mut w = TorchPlugin::<W>::create(args)?;
    w.setup(&Setup { deterministic: true, ..Setup::new("cpu", threads) })?;
    for _ in 0..2 {
        w.step()?;
    }
    let (mut steps, mut prints) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let start = Instant::now();
        w.step()?;
        steps.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        w.fingerprint()?;
        prints.push(start.elapsed().as_secs_f64());
    }
    Ok((median(steps), median(prints)))
}

fn main() -> mlb_plugin::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let threads = args.iter().position(|a| a == "--threads").map_or(Ok(2), |i| args[i + 1].parse())?;
    println!("CPU, {threads} threads, deterministic, medians of {ROUNDS}");
    println!("{:<8} {:>10} {:>14} {:>8} {:>12}  config", "workload", "step s", "fingerprint s", "ratio", "at N=10");
    for (workload, config) in CONFIGS {
        let (step, print) = match workload {
            "gpt" => measure::<Gpt>(config, threads)?,
            _ => measure::<Convnet<false>>(config, threads)?,
        };
        let (ratio, share) = (print / step, print / (10.0 * step + print));
        println!("{workload:<8} {step:>10.4} {print:>14.5} {:>7.2}% {:>11.3}%  {config}", 100.0 * ratio, 100.0 * share);
    }
    Ok(())
}
