//! `mlb burn`: puts load on every slot at once and names the bad ones
//! (docs/burn.md). The stress workloads of the libtorch plugin, gemm then
//! membw ([`jobs`]), run through the launcher as any jobs file does (cgroup
//! slots, telemetry, Slurm steps under `--slurm`); then each slot's reports
//! ([`reading`]) are judged ([`verdict`]): its TFLOPS and bandwidth against
//! the best slot, throttling, XID and ECC errors; then an all-reduce across
//! every slot, its bus bandwidth against the link's nominal rate and the
//! best node's ([`fabric`]). The verdicts go to
//! `OUTDIR/burn.json` and a table; failed Slurm nodes get the command that
//! drains them ([`drain`]).

mod args;
pub mod drain;
mod error;
pub mod fabric;
pub mod jobs;
pub mod reading;
mod render;
pub mod verdict;

pub use args::BurnArgs;
pub use error::BurnError;
pub use reading::FILE;

use mlb_judge::accept::Outcome;
use mlb_present::Format;
use mlb_record::exit::{EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK};
use mlb_run::doctor::burn_record::{self as record, Record, SlotRecord};
use serde::Serialize;
use std::path::{Path, PathBuf};
use verdict::{Bounds, Verdict};

/// What `burn.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Burn {
    /// Seconds each workload ran on every slot.
    pub duration_s: f64,
    /// gemm's precision.
    pub precision: String,
    /// The least share of the best slot's figures.
    pub tolerance: f64,
    /// The largest share of a window spent throttled.
    pub max_throttled: f64,
    /// The least share of the model's peak TFLOPS.
    pub min_peak: f64,
    /// The least share of a link's nominal rate; `None` with `--no-collectives`.
    pub min_link: Option<f64>,
    /// Every slot's verdicts.
    pub verdicts: Vec<Verdict>,
    /// Every slot's all-reduce: its bus bandwidth and link.
    #[serde(rename = "collectives", skip_serializing_if = "Vec::is_empty")]
    pub reduces: Vec<Reduce>,
    /// Failed slots, each with its reasons joined.
    pub failed: Vec<Failed>,
    /// Under `--slurm`: the failed nodes and the commands that drain them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drain: Vec<Drain>,
}

/// A slot's all-reduce figure and the link it crossed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reduce {
    /// The slot.
    pub slot: reading::Slot,
    /// The bus bandwidth of the largest size, 10^9 bytes/s.
    pub busbw_gbs: Option<f64>,
    /// The interface, its nominal rate and the group's ranks.
    #[serde(flatten)]
    pub link: reading::Link,
}

/// A failed node to drain.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drain {
    /// The Slurm node.
    pub node: String,
    /// The reason given to Slurm: its first failed slot and why.
    pub reason: String,
    /// The `scontrol update ... state=drain` command.
    pub command: String,
}

/// A failed slot and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Failed {
    /// `id`, or `node/id` across nodes.
    pub slot: String,
    /// The Slurm node, across nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Its failed checks' reasons, joined by `; `.
    pub reason: String,
}

impl Burn {
    /// Judges the reports of `outdir` under `args`' bounds.
    pub fn judge(args: &BurnArgs, outdir: &Path) -> Result<Burn, BurnError> {
        let measured = reading::read(outdir)?;
        if measured.is_empty() {
            return Err(BurnError::NoReports { path: outdir.to_path_buf() });
        }
        let bounds = Bounds {
            tolerance: args.tolerance,
            max_throttled: args.max_throttled,
            min_peak: args.min_peak,
            min_link: args.min_link,
        };
        let verdicts = verdict::judge(&measured, bounds, jobs::benches(args));
        let reduces = measured
            .iter()
            .filter_map(|m| m.link.clone().map(|link| Reduce { slot: m.slot.clone(), busbw_gbs: m.figure, link }))
            .collect();
        let failed: Vec<Failed> = verdict::failed(&verdicts)
            .into_iter()
            .map(|(slot, reasons)| Failed { slot: slot.label(), node: slot.node.clone(), reason: reasons.join("; ") })
            .collect();
        let mut drain: Vec<Drain> = Vec::new();
        for f in &failed {
            if let Some(node) = f.node.as_deref().filter(|n| !drain.iter().any(|d| d.node == *n)) {
                let reason = format!("slot {}: {}", f.slot, f.reason);
                let command = drain::command(node, &reason);
                drain.push(Drain { node: node.to_string(), reason, command });
            }
        }
        Ok(Burn {
            duration_s: args.duration.as_secs_f64(),
            precision: args.precision.clone(),
            tolerance: args.tolerance,
            max_throttled: args.max_throttled,
            min_peak: args.min_peak,
            min_link: (!args.no_collectives).then_some(args.min_link),
            verdicts,
            reduces,
            failed,
            drain,
        })
    }

    /// Whether a check of some slot failed.
    pub fn any_failed(&self) -> bool {
        self.verdicts.iter().any(|v| v.outcome == Outcome::Fail)
    }
}

/// Burns every slot and judges them, writing `OUTDIR/burn.json`; `None`
/// when the launch was interrupted.
pub fn burn(args: &BurnArgs, plugin_dirs: &[PathBuf]) -> Result<Option<Burn>, BurnError> {
    let outdir = &args.outdir;
    if reading::files(outdir).is_ok_and(|f| !f.is_empty()) {
        return Err(BurnError::Used { path: outdir.clone() });
    }
    let folder = tempfile::tempdir().map_err(|source| BurnError::Write { path: std::env::temp_dir(), source })?;
    let jobs = folder.path().join(format!("{}.json", jobs::SUITE));
    std::fs::write(&jobs, jobs::jobs(args)).map_err(|source| BurnError::Write { path: jobs.clone(), source })?;
    if mlb_run::launch::run(&args.launch(jobs), plugin_dirs, &|_| None)? == EXIT_INTERRUPTED {
        return Ok(None);
    }
    let burn = Burn::judge(args, outdir)?;
    let file = outdir.join(FILE);
    let text = serde_json::to_string_pretty(&burn).expect("serialises") + "\n";
    std::fs::write(&file, text).map_err(|source| BurnError::Write { path: file.clone(), source })?;
    let file = std::path::absolute(&file).unwrap_or(file);
    let dir = record::dir();
    if let Err(e) = record::write(&dir, &records(&burn, &file, chrono::Utc::now().timestamp())) {
        mlb_run::console::Console::Err.line(&format!(
            "mlb: warning: the burn's verdicts were not recorded in {} for `mlb --strict-preflight`: {e}; fix: run \
             as root, or name a writable folder with {}",
            dir.display(),
            record::DIR_VAR
        ));
    }
    Ok(Some(burn))
}

/// The burn records of `burn` (judged at `time`, written to `file`): one
/// per host, the slots without a node being this host's.
fn records(burn: &Burn, file: &Path, time: i64) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::new();
    for v in &burn.verdicts {
        let host = v.slot.node.clone().unwrap_or_else(record::this_host);
        let at = match out.iter().position(|r| r.host == host) {
            Some(at) => at,
            None => {
                out.push(Record { host, time, burn: file.to_path_buf(), slots: Vec::new() });
                out.len() - 1
            }
        };
        if !out[at].slots.iter().any(|s| s.slot == v.slot.id) {
            let failed = burn.failed.iter().find(|f| f.slot == v.slot.label());
            out[at].slots.push(SlotRecord {
                slot: v.slot.id.clone(),
                gpu: v.slot.gpu.clone(),
                passed: failed.is_none(),
                reason: failed.map(|f| f.reason.clone()),
            });
        }
    }
    out
}

/// Runs `mlb burn`: what to print and the exit status (0 every slot
/// passed, 1 one failed, 130 interrupted). What `--drain` did and where the
/// verdicts are follow the text; with another `--format` they go to stderr,
/// so that the output stays one JSON, CSV, Markdown or HTML document.
pub fn run(args: &BurnArgs, plugin_dirs: &[PathBuf]) -> Result<(String, i32), BurnError> {
    let Some(burn) = burn(args, plugin_dirs)? else { return Ok((String::new(), EXIT_INTERRUPTED)) };
    let mut out = match args.output.format {
        Format::Json => serde_json::to_string_pretty(&burn).expect("serialises") + "\n",
        _ => args.output.render(&render::document(&burn)),
    };
    let mut said = String::new();
    if args.drain {
        for d in &burn.drain {
            match drain::drain(&d.node, &d.reason) {
                Ok(()) => said.push_str(&format!("drained {}\n", d.node)),
                Err(why) => said.push_str(&format!("could not drain {}: {why}\n", d.node)),
            }
        }
    }
    said.push_str(&format!("verdicts: {}\n", args.outdir.join(FILE).display()));
    match args.output.format {
        Format::Text => out.push_str(&said),
        _ => said.lines().for_each(|line| mlb_run::console::Console::Err.line(line)),
    }
    Ok((out, if burn.any_failed() { EXIT_FAILED } else { EXIT_OK }))
}
