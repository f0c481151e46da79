//! What a burn reads of its reports: per instance, its slot, its bench, and
//! its figure (gemm's `tflops`, membw's `bandwidth_gbs`, allreduce's
//! `busbw_gbs` with the link it crossed) and conditions (throttling, XID and
//! uncorrected ECC errors of its telemetry block).

use mlb_record::contract::is_run_file;
use mlb_record::contract::step_plan::is_step_plan;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The file a burn writes its verdicts to, beside its reports.
pub const FILE: &str = mlb_record::contract::BURN_FILE;

/// One slot: its Slurm node (under `--slurm`), its device id (`vcd`) and
/// the GPU's name when the report holds one.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Slot {
    /// The Slurm node, for a burn across nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The visible device (`vcd`): a GPU index, or a CPU slot's number.
    pub id: String,
    /// The GPU's name; `None` on a CPU slot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
}

impl Slot {
    /// `id`, or `node/id` across nodes.
    pub fn label(&self) -> String {
        match &self.node {
            Some(node) => format!("{node}/{}", self.id),
            None => self.id.clone(),
        }
    }

    /// What slots are compared with: the same GPU model (all CPU slots alike).
    pub fn model(&self) -> &str {
        self.gpu.as_deref().unwrap_or("cpu")
    }
}

/// One instance's report, as the verdicts use it.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Its slot.
    pub slot: Slot,
    /// The bench (`gemm`, `membw`).
    pub bench: String,
    /// `None` when it completed; else the recorded failure.
    pub failure: Option<String>,
    /// gemm's `tflops`, membw's `bandwidth_gbs` or allreduce's `busbw_gbs`.
    pub figure: Option<f64>,
    /// gemm's `precision`.
    pub precision: Option<String>,
    /// The largest share of the window a GPU or the slot's CPU quota throttled.
    pub throttled: Option<f64>,
    /// XID events of its GPUs inside the window.
    pub xid: f64,
    /// Uncorrected ECC errors of its GPUs inside the window.
    pub ecc_uncorrected: f64,
    /// allreduce's link; `None` for the other benches.
    pub link: Option<Link>,
}

/// The link an all-reduce crossed, as its report gives it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Link {
    /// The interface (`interface`).
    pub interface: Option<String>,
    /// Its nominal rate, 10^9 bytes/s (`nominal_gbs`).
    pub nominal_gbs: Option<f64>,
    /// Why there is no nominal rate (`nominal_note`).
    pub note: Option<String>,
    /// The ranks of the group (`world_size`): one crosses no link.
    pub ranks: Option<u64>,
}

/// Why the reports could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the burn's report {}: {reason}", path.display())]
pub struct Unreadable {
    /// The file (or the folder).
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// The report files of `dir` and its node folders (`mlb --slurm` writes a
/// folder per node), not the run files (among them [`FILE`]) nor the Slurm step plans,
/// sorted by path.
pub fn files(dir: &Path) -> Result<Vec<PathBuf>, Unreadable> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let listing =
            std::fs::read_dir(&folder).map_err(|e| Unreadable { path: folder.clone(), reason: e.to_string() })?;
        for path in listing.filter_map(|e| e.ok().map(|e| e.path())) {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name.starts_with('.') || is_step_plan(&path) {
                continue;
            } else if path.is_dir() {
                folders.push(path);
            } else if name.ends_with(".json") && !is_run_file(&path) {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Every report of [`files`].
pub fn read(dir: &Path) -> Result<Vec<Measured>, Unreadable> {
    let unreadable = |path: &Path, reason: String| Unreadable { path: path.to_path_buf(), reason };
    files(dir)?
        .iter()
        .map(|path| {
            let text = mlb_record::reading::read_input(path).map_err(|e| unreadable(path, e.to_string()))?;
            let value: Value = serde_json::from_str(&text).map_err(|e| unreadable(path, e.to_string()))?;
            measured(&value).ok_or_else(|| unreadable(path, "no `name` or `vcd`: not a report of mlb".into()))
        })
        .collect()
}

/// One report's figures; `None` without a bench name or a device.
pub fn measured(report: &Value) -> Option<Measured> {
    let text = |v: &Value| v.as_str().map(str::to_string);
    let bench = text(&report["name"])?;
    let slot = Slot {
        node: text(&report["provenance"]["slurm"]["node"]),
        id: match &report["vcd"] {
            Value::Number(n) => n.to_string(),
            other => text(other)?,
        },
        gpu: text(&report["gpu"]),
    };
    let failure = match report["completed"].as_bool() {
        Some(true) => None,
        _ => Some(match (report["failure"]["cause"].as_str(), report["failure"]["message"].as_str()) {
            (Some(cause), Some(message)) => format!("{cause}: {message}"),
            (Some(cause), None) => cause.to_string(),
            _ => "did not complete".to_string(),
        }),
    };
    let figure = ["tflops", "bandwidth_gbs", "busbw_gbs"].iter().find_map(|f| report[*f].as_f64());
    let link = report.get("interface").map(|interface| Link {
        interface: text(interface),
        nominal_gbs: report["nominal_gbs"].as_f64(),
        note: text(&report["nominal_note"]),
        ranks: report["world_size"].as_u64(),
    });
    let telemetry = &report["telemetry"];
    let gpus = telemetry["gpus"].as_array().map(Vec::as_slice).unwrap_or_default();
    let shares = gpus.iter().map(|g| &g["throttled_fraction"]).chain([&telemetry["slot"]["cpu_throttled_fraction"]]);
    let throttled = shares.filter_map(Value::as_f64).reduce(f64::max);
    let total = |name: &str| gpus.iter().filter_map(|g| g["totals"][name].as_f64()).sum::<f64>();
    Some(Measured {
        slot,
        bench,
        failure,
        figure,
        precision: text(&report["precision"]),
        throttled,
        xid: total("xid_events"),
        ecc_uncorrected: total("ecc_uncorrected"),
        link,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_report_gives_its_slot_figure_and_telemetry() {
        let report = json!({
            "name": "gemm", "vcd": "1", "gpu": "NVIDIA H100", "completed": true, "tflops": 612.5,
            "precision": "bf16", "provenance": {"slurm": {"node": "n2"}},
            "telemetry": {
                "gpus": [{"throttled_fraction": 0.02, "totals": {"xid_events": 1.0, "ecc_uncorrected": 2.0}}],
                "slot": {"cpu_throttled_fraction": 0.3}
            }
        });
        let m = measured(&report).unwrap();
        assert_eq!(m.slot.label(), "n2/1");
        assert_eq!((m.figure, m.precision.as_deref()), (Some(612.5), Some("bf16")));
        assert_eq!((m.throttled, m.xid, m.ecc_uncorrected), (Some(0.3), 1.0, 2.0));
        assert_eq!((m.failure, m.link), (None, None));
    }

    #[test]
    fn an_all_reduce_gives_its_bus_bandwidth_and_link() {
        let report = json!({"name": "allreduce", "vcd": "0", "completed": true, "busbw_gbs": 2.5,
            "interface": "eth0", "nominal_gbs": 12.5});
        let m = measured(&report).unwrap();
        assert_eq!(m.figure, Some(2.5));
        let link = Link { interface: Some("eth0".into()), nominal_gbs: Some(12.5), note: None, ranks: None };
        assert_eq!(m.link, Some(link));
        let alone = json!({"name": "allreduce", "vcd": "0", "completed": true, "interface": "lo", "world_size": 1,
            "nominal_gbs": null, "nominal_note": "loopback: no nominal rate"});
        let link = measured(&alone).unwrap().link.unwrap();
        assert_eq!((link.note.as_deref(), link.ranks), (Some("loopback: no nominal rate"), Some(1)));
    }

    #[test]
    fn reports_of_node_folders_are_read_and_run_files_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let report = |node: &str| {
            json!({"name": "gemm", "vcd": "0", "completed": true, "tflops": 1.0,
            "provenance": {"slurm": {"node": node}}})
        };
        for node in ["n1", "n2"] {
            std::fs::create_dir(dir.path().join(node)).unwrap();
            std::fs::write(dir.path().join(node).join("burn.gemm.R0.D0.json"), report(node).to_string()).unwrap();
            std::fs::write(dir.path().join(node).join("system.json"), "{}").unwrap();
        }
        let plans = dir.path().join(mlb_record::contract::step_plan::PLAN_DIR);
        std::fs::create_dir(&plans).unwrap();
        std::fs::write(plans.join(mlb_record::contract::step_plan::file_name("burn", "gemm", 0, 0)), "{}").unwrap();
        std::fs::write(dir.path().join(FILE), "{}").unwrap();
        let labels: Vec<String> = read(dir.path()).unwrap().iter().map(|m| m.slot.label()).collect();
        assert_eq!(labels, ["n1/0", "n2/0"]);
    }

    #[test]
    fn a_failure_record_keeps_its_cause_and_message() {
        let record = json!({"name": "membw", "vcd": 0, "completed": false,
            "failure": {"cause": "error", "message": "out of memory"}});
        let m = measured(&record).unwrap();
        assert_eq!((m.slot.label(), m.slot.model()), ("0".into(), "cpu"));
        assert_eq!(m.failure.as_deref(), Some("error: out of memory"));
        assert_eq!((m.figure, m.throttled), (None, None));
    }
}
