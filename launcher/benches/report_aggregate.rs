//! How long `mlb report` takes to aggregate 10,000 report files: reading
//! (parallel), statistics, score and per-GPU tables, as `mlb report` does
//! them. Prints the time of each of 5 runs and their median.
//!
//! `cargo bench -p mlb --bench report_aggregate [-- FILES]`

#[path = "../tests/common/mod.rs"]
mod common;

use common::records::Run;
use mlb::record::to_strict_json;
use mlb::report::{build, render, GpuModel, Options, Targets};
use std::time::Instant;

const BENCHES: [&str; 16] = [
    "atari",
    "cart",
    "convnet",
    "convnet_fp16",
    "dcgan",
    "fast_style",
    "loader",
    "recom",
    "reso",
    "ssd",
    "toy_lstm",
    "toy_reg",
    "translator",
    "vae",
    "wlm",
    "wlmfp16",
];
const GPUS: usize = 8;
const RUNS: usize = 5;

fn main() {
    let files: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(10_000);
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut bytes = 0;
    for i in 0..files {
        let (bench, vcd) = (BENCHES[i % BENCHES.len()], (i / BENCHES.len()) % GPUS);
        let run = (i / (BENCHES.len() * GPUS)) as u64;
        let vcd = vcd.to_string();
        let r = Run { suite: "fast", bench, run, vcd: &vcd, items_per_sec: 100.0 + (i % 97) as f64, gpu: Some("V100") };
        // One folder per run, as `mlb run --runs N` writes them.
        let sub = dir.path().join(format!("run{}", run % 10));
        std::fs::create_dir_all(&sub).expect("run folder");
        let text = to_strict_json(&common::records::record(&r)) + "\n";
        bytes += text.len();
        std::fs::write(sub.join(common::records::file_name(&r)), text).expect("report file");
    }
    println!(
        "report_aggregate: {files} report files, {:.1} MB, {} threads",
        bytes as f64 / 1e6,
        rayon::current_num_threads()
    );
    let opts = Options { targets: Some(Targets::shipped(GpuModel::V100)), price: Some(10_000.0), ..Options::default() };
    let mut times = Vec::new();
    for i in 0..RUNS {
        let start = Instant::now();
        let report = build(dir.path(), None, &opts).expect("report");
        let aggregated = start.elapsed().as_secs_f64();
        let text = render::table::render(&report);
        let total = start.elapsed().as_secs_f64();
        assert_eq!(report.benches.iter().map(|b| b.results).sum::<usize>(), files);
        println!(
            "  run {}: aggregate {:.3} s, with table rendering {:.3} s ({} chars)",
            i + 1,
            aggregated,
            total,
            text.len()
        );
        times.push(aggregated);
    }
    times.sort_by(f64::total_cmp);
    println!("report_aggregate: median of {RUNS}: {:.3} s for {files} files (target < 1 s)", times[RUNS / 2]);
}
