//! `mlb worker`: one instance of one workload, in one process.
//!
//! Loads ONE plugin by absolute path, creates and sets up the instance, runs
//! the timed loop (docs/worker.md, "Timing"), or the clock of a run to
//! quality ([`to_quality`], docs/quality.md), and writes the report
//! (docs/worker.md, "Report files"). A deterministic run is fingerprinted
//! every N steps ([`checks`], docs/determinism.md); a worker told a
//! checkpoint folder saves and restores its state there ([`checkpoint`],
//! docs/faults.md). A caught
//! failure (error, panic, NaN loss, bad config, unloadable plugin) writes a
//! `.FAIL.` record and exits with the code of its cause
//! ([`contract::exit`](mlb_record::contract::exit)); a crash (abort,
//! segfault) dies by its signal for the launcher to record.

mod args;
pub mod checkpoint;
pub mod checks;
pub mod heap;
pub mod inject;
pub mod provenance;
mod run;
mod stack;
pub mod timing;
pub mod to_quality;

pub use args::WorkerArgs;
pub use run::main;

use mlb_record::contract::WorkerLine;
use std::io::Write;

/// Prints a line of the worker protocol on stdout, flushed at once (the
/// launcher reads them as they come).
fn say(line: WorkerLine) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
