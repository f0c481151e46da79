//! Generation rate of `mlb prepare`: every data set at scale `small`,
//! generated 5 times into a fresh temporary folder on all CPUs (as `mlb
//! prepare` does, each file synced, less the manifest and the final
//! rename); prints, per set,
//! its files and size and the median time, files/s and MB/s of the runs.
//!
//! `cargo bench -p mlb --bench prepare_rate`

use mlb::linux::dir::Dir;
use mlb::prepare::{stage, DataSet, Scale};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

const RUNS: usize = 5;

fn main() {
    println!("prepare_rate: scale small, {RUNS} runs per set, {} threads", rayon::current_num_threads());
    println!("| data set | files | MB | median s | files/s | MB/s | KB per file |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for set in DataSet::ALL {
        let generator = set.generator(Scale::Small, 0);
        let (mut times, mut files, mut bytes) = (Vec::new(), 0, 0);
        for _ in 0..RUNS {
            let dir = tempfile::tempdir().expect("temporary folder");
            let data = Dir::open(dir.path()).expect("temporary folder");
            let started = Instant::now();
            let partial = stage::Partial::open(&data, set.folder(), "bench").expect("partial folder");
            let entries = partial.write_all(generator.as_ref(), &|_| (), &AtomicBool::new(false)).expect("written");
            times.push(started.elapsed().as_secs_f64());
            files = entries.len();
            bytes = entries.iter().map(|e| e.bytes).sum::<u64>();
        }
        times.sort_by(f64::total_cmp);
        let median = times[RUNS / 2];
        let mb = bytes as f64 / 1e6;
        println!(
            "| {} | {files} | {mb:.1} | {median:.3} | {:.0} | {:.1} | {:.1} |",
            set.folder(),
            files as f64 / median,
            mb / median,
            bytes as f64 / 1e3 / files as f64
        );
    }
}
