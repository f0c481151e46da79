//! The quality curve of one workload, in process on the CPU: evaluates
//! before training and after every `--every` steps, up to `--steps`, and
//! prints one JSON object a line: `{"workload", "step", "items", "seconds",
//! "metric", "value", "reached"}` (seconds of training so far, evaluations
//! excluded; `reached`: the default target). The figures behind the default
//! targets of docs/quality.md:
//!
//! ```text
//! quality_curve WORKLOAD --config '{"data": ".../MNIST", ...}' [--steps 300] [--every 25] [--threads 1]
//! ```

use mlb_plugin::{Config, Setup, Workload, WorkloadArgs};
use mlb_torch::workloads::{Convnet, Gpt, Recom, Translator, Vae, Wlm};
use mlb_torch::{TorchPlugin, TorchWorkload};
use std::time::{Duration, Instant};

/// What a run is asked for.
struct Options {
    config: String,
    steps: u64,
    every: u64,
    threads: u32,
}

fn curve<W: TorchWorkload>(o: &Options) -> mlb_plugin::Result<()> {
    let args = <TorchPlugin<W> as Workload>::Args::from_config(&Config::parse(&o.config)?)?;
    let mut w = TorchPlugin::<W>::create(args)?;
    w.setup(&Setup::new("cpu", o.threads))?;
    let quality = <TorchPlugin<W> as Workload>::QUALITY.ok_or("the workload has no evaluation")?;
    let (mut items, mut trained) = (0, Duration::ZERO);
    for step in 0..=o.steps {
        if step % o.every == 0 || step == o.steps {
            let value = w.eval()?;
            let reached = if quality.higher_is_better { value >= quality.target } else { value <= quality.target };
            let line = serde_json::json!({
                "workload": W::NAME, "step": step, "items": items, "seconds": trained.as_secs_f64(),
                "metric": quality.metric, "value": value, "reached": reached,
            });
            println!("{line}");
        }
        if step < o.steps {
            let start = Instant::now();
            items += w.step()?.items;
            trained += start.elapsed();
        }
    }
    Ok(())
}

fn main() -> mlb_plugin::Result<()> {
    let mut args = std::env::args().skip(1);
    let workload = args.next().ok_or("usage: quality_curve WORKLOAD [--config JSON] [--steps N] [--every N]")?;
    let mut o = Options { config: "{}".into(), steps: 300, every: 25, threads: 1 };
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} takes a value"))?;
        match flag.as_str() {
            "--config" => o.config = value,
            "--steps" => o.steps = value.parse()?,
            "--every" => o.every = value.parse::<u64>()?.max(1),
            "--threads" => o.threads = value.parse()?,
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    match workload.as_str() {
        "convnet" => curve::<Convnet<false>>(&o),
        "vae" => curve::<Vae>(&o),
        "wlm" => curve::<Wlm<false>>(&o),
        "translator" => curve::<Translator>(&o),
        "recom" => curve::<Recom>(&o),
        "gpt" => curve::<Gpt>(&o),
        other => Err(format!("no quality workload {other} (convnet, vae, wlm, translator, recom, gpt)").into()),
    }
}
