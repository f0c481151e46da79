//! How fast `mlb report` reads and aggregates report files, against the
//! original suite's report tool on the same files.
//!
//! For each size (default 10,000 and 100,000 files; or the sizes given), it
//! writes that many files in the original's format (one report a file, 16
//! benches x 8 GPUs per run, one folder per run, `NaN` tokens as the
//! original's `json` wrote them), then:
//!
//! - times the `mlb report` binary on them (`--suite baselines --gpu-model
//!   V100 --format json`): wall time, CPU time (user and system, all its
//!   threads) and peak resident memory of the process (`wait4`), median of
//!   5 runs. On a shared machine the CPU time is the steadier figure: the
//!   wall time of either tool grows with the load;
//! - times the original tool (`benches/original_report.py`: its steps, with
//!   pandas) the same way, median of 3 runs, when `python3` can import pandas;
//! - when `MLB_ORIGINAL_REPORT` names a command running the original suite's
//!   own `mlbench-report` (docs/report.md, "Speed", says how to install it),
//!   times it too, with `--jobs baselines --gpu-model V100 --format html --output PAGE`, median of 3;
//! - prints where mlb's time goes, in process: listing and reading the
//!   files (parallel), then aggregating, median of 5.
//!
//! `cargo bench -p mlb --bench report_aggregate [-- SIZE...]`

#[path = "../tests/it/report_gen/mod.rs"]
mod report_gen;
#[path = "common/rusage.rs"]
mod rusage;

use mlb::report::{aggregate, GpuModel, Options, Targets};
use mlb_record::contract::read::read_folder;
use nix::libc;
use report_gen::write_campaign;
use rusage::wait_with_usage;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs of `mlb report` (and of the in-process breakdown) per size.
const MLB_RUNS: usize = 5;
/// Runs of the original tool per size (ten times slower).
const ORIGINAL_RUNS: usize = 3;

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![10_000, 100_000] } else { sizes };
    let original = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/original_report.py");
    let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/targets/v100.csv");
    let python = Command::new("python3").args(["-c", "import pandas"]).status().is_ok_and(|s| s.success());
    println!(
        "report_aggregate: {} threads; the original tool: {}",
        rayon::current_num_threads(),
        if python { "python3 with pandas" } else { "left out (python3 cannot import pandas)" }
    );
    for files in sizes {
        let dir = tempfile::tempdir().expect("temporary folder");
        let bytes = write_campaign(dir.path(), files);
        println!("{files} report files in the original's format, {:.1} MB:", bytes as f64 / 1e6);
        let reports = dir.path().to_string_lossy().into_owned();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mlb"));
        cmd.args(["report", "--suite", "baselines", "--gpu-model", "V100", "--format", "json", "--reports", &reports]);
        let mlb = measure(&mut cmd, MLB_RUNS);
        println!("  mlb report:        {}", mlb.line());
        if python {
            let mut cmd = Command::new("python3");
            cmd.arg(&original).arg(&reports).arg(&targets);
            compare("the original tool", &measure(&mut cmd, ORIGINAL_RUNS), &mlb);
        }
        if let Some(tool) = std::env::var_os(ORIGINAL_TOOL) {
            let page = dir.path().join("original.html");
            let mut cmd = Command::new(&tool);
            cmd.args(["--jobs", "baselines", "--gpu-model", "V100", "--reports", &reports])
                .args(["--format", "html", "--output"])
                .arg(&page);
            compare("mlbench-report", &measure(&mut cmd, ORIGINAL_RUNS), &mlb);
        }
        breakdown(dir.path(), files);
    }
}

/// Prints `other`'s figures and how mlb compares with them.
fn compare(name: &str, other: &Measured, mlb: &Measured) {
    println!("  {:<18} {}", format!("{name}:"), other.line());
    println!(
        "  mlb is {:.1}x faster than {name} ({:.1}x less CPU time), with {:.1}x less memory",
        other.seconds / mlb.seconds,
        other.cpu_seconds / mlb.cpu_seconds,
        other.peak_kib as f64 / mlb.peak_kib as f64
    );
}

/// The variable naming the original suite's own `mlbench-report` (a command
/// that runs it), timed beside the transcription when set.
const ORIGINAL_TOOL: &str = "MLB_ORIGINAL_REPORT";

/// Wall time, CPU time and peak resident memory of a command, each the
/// median of its runs.
struct Measured {
    seconds: f64,
    cpu_seconds: f64,
    peak_kib: u64,
    runs: usize,
}

impl Measured {
    fn line(&self) -> String {
        format!(
            "{:.3} s, CPU {:.3} s, peak {:.0} MiB (median of {})",
            self.seconds,
            self.cpu_seconds,
            self.peak_kib as f64 / 1024.0,
            self.runs
        )
    }
}

/// Runs `cmd` `runs` times (output discarded) and takes the medians.
fn measure(cmd: &mut Command, runs: usize) -> Measured {
    let (mut times, mut cpus, mut peaks) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let start = Instant::now();
        // Reaped by `wait4`, which `Child::wait` cannot stand for: it gives no rusage.
        #[allow(clippy::zombie_processes)]
        let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("the tool starts");
        let (status, usage) = wait_with_usage(child.id());
        times.push(start.elapsed().as_secs_f64());
        assert!(status == 0, "{cmd:?} failed with wait status {status}");
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        cpus.push(seconds(usage.ru_utime) + seconds(usage.ru_stime));
        peaks.push(usage.ru_maxrss as u64);
    }
    times.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    peaks.sort_unstable();
    Measured { seconds: times[runs / 2], cpu_seconds: cpus[runs / 2], peak_kib: peaks[runs / 2], runs }
}

/// Where mlb's time goes, in this process: reading (listing, reading and
/// parsing the files, in parallel), then aggregating. Median of MLB_RUNS.
fn breakdown(dir: &Path, files: usize) {
    let opts = Options {
        suite: Some("baselines".into()),
        targets: Some(Targets::shipped(GpuModel::V100)),
        ..Options::default()
    };
    let (mut reads, mut aggregates) = (Vec::new(), Vec::new());
    for _ in 0..MLB_RUNS {
        let start = Instant::now();
        let reading = read_folder(dir).expect("reports folder");
        let read = start.elapsed().as_secs_f64();
        assert_eq!(reading.entries.len(), files, "every file read");
        let report = aggregate(dir, reading, None, &opts).expect("report");
        aggregates.push(start.elapsed().as_secs_f64() - read);
        reads.push(read);
        assert_eq!(report.score.as_ref().map(|s| s.results), Some(files), "every entry in the score");
    }
    reads.sort_by(f64::total_cmp);
    aggregates.sort_by(f64::total_cmp);
    let (read, agg) = (reads[MLB_RUNS / 2], aggregates[MLB_RUNS / 2]);
    println!("  in process: read {read:.3} s, aggregate {agg:.3} s (medians of {MLB_RUNS})");
}
