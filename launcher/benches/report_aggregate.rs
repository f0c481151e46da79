//! How long `mlb report` takes to aggregate 10,000 report files: reading
//! (parallel), the checks, per-config and per-bench statistics, score and
//! per-GPU tables, as `mlb report` does them. Prints the time of each of 5
//! runs and their median, for files written as `mlb worker` writes them,
//! then for the generated set in the original's shapes that
//! `tests/it/report_compat.rs` checks (appended files, NaN tokens, failures).
//!
//! `cargo bench -p mlb --bench report_aggregate [-- FILES]`

#[path = "../tests/it/common/mod.rs"]
mod common;
#[path = "../tests/it/report_gen/mod.rs"]
mod report_gen;

use common::records::Run;
use mlb::record::to_strict_json;
use mlb::report::{aggregate, read_folder, render, GpuModel, Options, Targets};
use std::path::Path;
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
    let median = time(dir.path(), &opts, files);
    println!("report_aggregate: median of {RUNS}: {median:.3} s for {files} files (target < 0.2 s)");

    let original = tempfile::tempdir().expect("temporary folder");
    let set = report_gen::write_set(original.path(), files, 12, 14);
    println!(
        "report_aggregate: the original's shapes: {} entries in {} files ({} in appended per-GPU files)",
        set.entries,
        set.files,
        report_gen::HOSTS.len() * report_gen::GPUS
    );
    let opts = Options { suite: Some("baselines".into()), ..opts };
    let median = time(original.path(), &opts, set.entries);
    println!("report_aggregate: median of {RUNS}: {median:.3} s for {} entries in the original's shapes", set.entries);
}

/// Times reading and aggregating `dir` (what `build` does) RUNS times; returns the median.
fn time(dir: &Path, opts: &Options, entries: usize) -> f64 {
    let mut times = Vec::new();
    for i in 0..RUNS {
        let start = Instant::now();
        let reading = read_folder(dir).expect("reports folder");
        let read = start.elapsed().as_secs_f64();
        let report = aggregate(dir, reading, None, opts).expect("report");
        let aggregated = start.elapsed().as_secs_f64();
        let text = render::table::render(&report);
        let total = start.elapsed().as_secs_f64();
        let counted = report.score.as_ref().map_or(0, |s| s.results);
        let multi_gpu = entries - counted;
        assert!(counted > 0 && multi_gpu < entries / 5, "{counted} of {entries} entries in the score");
        println!(
            "  run {}: read {:.3} s, aggregate {:.3} s (total {:.3} s), with table rendering {:.3} s ({} chars)",
            i + 1,
            read,
            aggregated - read,
            aggregated,
            total,
            text.len()
        );
        times.push(aggregated);
    }
    times.sort_by(f64::total_cmp);
    times[RUNS / 2]
}
