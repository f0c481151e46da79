//! `mlb burn`: puts load on every slot at once and names the bad ones
//! (docs/burn.md). The stress workloads of the libtorch plugin, gemm then
//! membw, then with `--sdc` a deterministic gpt ([`jobs`]), run through the
//! launcher as any jobs file does (cgroup slots, telemetry, Slurm steps
//! under `--slurm`); then each slot's reports ([`reading`]) are judged
//! ([`verdict`]): its TFLOPS and bandwidth against the best slot, its gpt's
//! bits against the majority's ([`sdc`]), throttling, XID and ECC errors;
//! then an all-reduce across every slot, its bus bandwidth against the
//! link's nominal rate and the best node's ([`fabric`]). The verdicts go to
//! `OUTDIR/burn.json` and a table; failed Slurm nodes get the command that
//! drains them ([`drain`]).

mod args;
pub mod drain;
mod error;
pub mod fabric;
pub mod jobs;
pub mod reading;
mod render;
pub mod sdc;
pub mod verdict;

pub use args::BurnArgs;
pub use error::BurnError;
pub use reading::FILE;

use mlb_judge::accept::Outcome;
use mlb_judge::report::reproducibility::Group;
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
    /// With `--sdc`: the vote over the deterministic gpt's fingerprints, per
    /// device and stack (as `mlb report`'s `reproducibility`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sdc: Vec<Group>,
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
        let votes = sdc::vote(&measured);
        let verdicts = verdict::judge(&measured, bounds, &jobs::benches(args), &votes);
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
            sdc: votes,
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

#[cfg(test)]
mod tests {
    use super::jobs::{GEMM, MEMBW, SDC};
    use super::*;
    use mlb_judge::report::reproducibility::Verdict as Vote;
    use serde_json::{json, Value};

    /// Writes, in `dir`, the reports of a burn with `--sdc` on the slots
    /// `(node, vcd, prints)`: gemm and membw alike; sdc's `prints`, a
    /// parameter hash letter per fingerprint from step 10 every 10 steps.
    fn burned(dir: &Path, slots: &[(&str, &str, &str)]) {
        for (node, vcd, prints) in slots {
            let folder = dir.join(node);
            std::fs::create_dir_all(&folder).unwrap();
            let fingerprints: Vec<Value> = prints
                .chars()
                .enumerate()
                .map(|(i, c)| json!({"step": 10 * (i + 1), "loss": "4017", "params": c.to_string().repeat(32)}))
                .collect();
            for bench in [GEMM, MEMBW, SDC] {
                let mut report = json!({"suite": jobs::SUITE, "name": bench, "run_id": 0, "jr_id": "0", "vcd": vcd,
                    "completed": true, "tflops": 1.0, "bandwidth_gbs": 10.0, "provenance": {"slurm": {"node": node}}});
                if bench == SDC {
                    report["determinism"] =
                        json!({"every": 10, "device": "Xeon", "stack": {}, "fingerprints": fingerprints});
                }
                std::fs::write(folder.join(format!("burn.{bench}.R0.D{vcd}.json")), report.to_string()).unwrap();
            }
        }
    }

    fn judged(slots: &[(&str, &str, &str)]) -> Burn {
        #[derive(clap::Parser)]
        struct Line {
            #[command(flatten)]
            burn: BurnArgs,
        }
        let args = <Line as clap::Parser>::parse_from(["burn", "--slurm", "--sdc", "--no-collectives"]).burn;
        let dir = tempfile::tempdir().unwrap();
        burned(dir.path(), slots);
        Burn::judge(&args, dir.path()).unwrap()
    }

    #[test]
    fn an_sdc_outlier_fails_its_slot_and_drains_its_node() {
        let burn = judged(&[("n1", "0", "abc"), ("n1", "1", "abc"), ("n2", "0", "abc"), ("n2", "1", "abx")]);
        let reason = "sdc computed other bits than 3 of 4 slots from step 30";
        assert_eq!(burn.failed, [Failed { slot: "n2/1".into(), node: Some("n2".into()), reason: reason.into() }]);
        assert_eq!((burn.drain.len(), burn.drain[0].node.as_str()), (1, "n2"));
        assert!(burn.drain[0].command.contains(reason), "{}", burn.drain[0].command);
        let json = serde_json::to_value(&burn).unwrap();
        assert_eq!(
            (json["sdc"][0]["verdict"].as_str(), json["sdc"][0]["outliers"][0]["step"].as_u64()),
            (Some("outliers"), Some(30))
        );
    }

    #[test]
    fn two_slots_that_differ_fail_none_and_the_notes_say_why() {
        let burn = judged(&[("n1", "0", "abc"), ("n2", "0", "abx")]);
        assert!(!burn.any_failed() && burn.failed.is_empty() && burn.drain.is_empty(), "{burn:#?}");
        assert!(matches!(burn.sdc[0].verdict, Vote::NotReproducible { step: 30, .. }), "{:?}", burn.sdc);
        let document = render::document(&burn);
        let notes: Vec<&String> = document
            .sections
            .iter()
            .flat_map(|s| match &s.body {
                mlb_present::Body::Notes(notes) => notes.iter().collect(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("sdc on Xeon: not reproducible on this stack: 2 instances first differ"),
            "{}",
            notes[0]
        );
        assert!(notes[0].contains("no slot failed"), "{}", notes[0]);
    }
}
