//! What a burn reads of its reports: per instance, its slot, its bench, and
//! its figure (gemm's `tflops`, membw's `bandwidth_gbs`, allreduce's
//! `busbw_gbs` with the link it crossed), conditions (throttling, XID and
//! uncorrected ECC errors of its telemetry block) and, for the sdc check's
//! deterministic run, its fingerprints as the judge's vote takes them.

use mlb_judge::report::reproducibility::{Instance, Name};
use mlb_record::contract::report::ReadError;
use mlb_record::contract::Report;
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
    /// The bench (`gemm`, `membw`, `sdc`, `allreduce`).
    pub bench: String,
    /// `None` when it completed; else the recorded failure, one line.
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
    /// The instance in the vote over fingerprints: `None` for a report
    /// without a `determinism` block (every bench but sdc).
    pub instance: Option<Instance>,
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
/// folder per node), found by the record crate's walk: not the run files
/// (among them [`FILE`]) nor the Slurm step plans, sorted by path. A folder
/// or entry that cannot be listed is an error: a burn judges every slot.
pub fn files(dir: &Path) -> Result<Vec<PathBuf>, Unreadable> {
    let (mut files, unreadable) = mlb_record::contract::read::report_files(dir)
        .map_err(|e| Unreadable { path: e.path, reason: e.source.to_string() })?;
    if let Some(bad) = unreadable.into_iter().next() {
        return Err(Unreadable { path: bad.path, reason: bad.reason });
    }
    files.sort();
    Ok(files)
}

/// Every report of [`files`], each read whole into the report model.
pub fn read(dir: &Path) -> Result<Vec<Measured>, Unreadable> {
    files(dir)?
        .into_iter()
        .map(|path| match Report::load(&path) {
            Ok(report) => Ok(measured(&report, &path)),
            Err(ReadError::Io { source, .. }) => Err(Unreadable { path, reason: source.to_string() }),
            Err(ReadError::NotAReport { source, .. }) => Err(Unreadable { path, reason: source.to_string() }),
        })
        .collect()
}

/// The figures of `report`, read from `file`.
pub fn measured(report: &Report, file: &Path) -> Measured {
    let arg = |key: &str| report.args.get(key);
    let text = |key: &str| arg(key).and_then(Value::as_str).map(str::to_string);
    let number = |key: &str| arg(key).and_then(Value::as_f64);
    let slot = Slot {
        node: report.provenance.as_ref().and_then(|p| p.slurm.as_ref()).map(|s| s.node.clone()),
        id: report.vcd.clone(),
        gpu: text("gpu"),
    };
    // A message's first line says what failed; libtorch's add where in its sources.
    let failure = match (&report.failure, report.completed) {
        (_, true) => None,
        (Some(f), _) => match f.message.lines().map(str::trim).find(|l| !l.is_empty()) {
            None => Some(f.cause.to_string()),
            Some(line) => Some(format!("{}: {line}", f.cause)),
        },
        (None, _) => Some("did not complete".to_string()),
    };
    let link = arg("interface").map(|interface| Link {
        interface: interface.as_str().map(str::to_string),
        nominal_gbs: number("nominal_gbs"),
        note: text("nominal_note"),
        ranks: arg("world_size").and_then(Value::as_u64),
    });
    let instance = report.determinism.clone().map(|determinism| Instance {
        row: 0,
        config: report.name.clone(),
        bench: report.name.clone(),
        name: Name {
            run_id: report.run_id,
            jr_id: report.jr_id,
            node: slot.node.clone().or_else(|| report.hostname.clone()),
            vcd: Some(report.vcd.clone()),
            file: file.to_path_buf(),
            origin: None,
        },
        determinism,
    });
    let gpus = report.telemetry.as_ref().map(|t| t.gpus.as_slice()).unwrap_or_default();
    let cpu = report.telemetry.as_ref().and_then(|t| t.slot.cpu_throttled_fraction);
    let throttled = gpus.iter().map(|g| g.throttled_fraction).chain([cpu]).flatten().reduce(f64::max);
    let total = |name: &str| gpus.iter().filter_map(|g| g.metrics.totals.get(name)).sum::<f64>();
    Measured {
        slot,
        bench: report.name.clone(),
        failure,
        figure: ["tflops", "bandwidth_gbs", "busbw_gbs"].into_iter().find_map(number),
        precision: text("precision"),
        throttled,
        xid: total("xid_events"),
        ecc_uncorrected: total("ecc_uncorrected"),
        link,
        instance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A full report of `bench` on device `vcd`, with `fields` added, as a
    /// worker writes it.
    fn report(bench: &str, vcd: Value, fields: Value) -> Value {
        let mut report = json!({"suite": "burn", "name": bench, "run_id": 0, "jr_id": "0", "vcd": vcd});
        report.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        report
    }

    /// What a burn reads of `report`, parsed as the report file would be.
    fn measure(report: Value) -> Measured {
        measured(&mlb_record::contract::read::from_text(&report.to_string()).unwrap(), Path::new("report.json"))
    }

    /// A telemetry block of one GPU and the slot.
    fn telemetry(gpu: Value, slot: Value) -> Value {
        json!({"sample_hz": 10.0, "samples": 100, "window_seconds": 10.0, "items": 0, "slot": slot,
            "gpus": [gpu]})
    }

    #[test]
    fn a_report_gives_its_slot_figure_and_telemetry() {
        let gpu = json!({"device": "1", "throttled_fraction": 0.02,
            "totals": {"xid_events": 1.0, "ecc_uncorrected": 2.0}});
        let m = measure(report(
            "gemm",
            json!("1"),
            json!({"gpu": "NVIDIA H100", "completed": true, "tflops": 612.5, "precision": "bf16",
                "provenance": {"slurm": {"node": "n2"}},
                "telemetry": telemetry(gpu, json!({"cpu_throttled_fraction": 0.3}))}),
        ));
        assert_eq!((m.slot.label(), m.slot.model()), ("n2/1".into(), "NVIDIA H100"));
        assert_eq!((m.figure, m.precision.as_deref()), (Some(612.5), Some("bf16")));
        assert_eq!((m.throttled, m.xid, m.ecc_uncorrected), (Some(0.3), 1.0, 2.0));
        assert_eq!((m.failure, m.link), (None, None));
    }

    #[test]
    fn an_all_reduce_gives_its_bus_bandwidth_and_link() {
        let m = measure(report(
            "allreduce",
            json!("0"),
            json!({"completed": true, "busbw_gbs": 2.5, "interface": "eth0", "nominal_gbs": 12.5}),
        ));
        assert_eq!(m.figure, Some(2.5));
        let link = Link { interface: Some("eth0".into()), nominal_gbs: Some(12.5), note: None, ranks: None };
        assert_eq!(m.link, Some(link));
        let alone = report(
            "allreduce",
            json!("0"),
            json!({"completed": true, "interface": "lo", "world_size": 1, "nominal_gbs": null,
                "nominal_note": "loopback: no nominal rate"}),
        );
        let link = measure(alone).link.unwrap();
        assert_eq!((link.note.as_deref(), link.ranks), (Some("loopback: no nominal rate"), Some(1)));
    }

    #[test]
    fn reports_of_node_folders_are_read_and_run_files_left_out() {
        let dir = tempfile::tempdir().unwrap();
        for node in ["n1", "n2"] {
            let text = report(
                "gemm",
                json!("0"),
                json!({"completed": true, "tflops": 1.0, "provenance": {"slurm": {"node": node}}}),
            )
            .to_string();
            std::fs::create_dir(dir.path().join(node)).unwrap();
            std::fs::write(dir.path().join(node).join("burn.gemm.R0.D0.json"), text).unwrap();
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
    fn a_file_that_is_no_report_or_a_folder_that_cannot_be_listed_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("burn.gemm.R0.D0.json");
        std::fs::write(&file, r#"{"name": "gemm", "vcd": "0", "completed": true}"#).unwrap();
        let bad = read(dir.path()).unwrap_err();
        assert_eq!(bad.path, file);
        assert!(bad.reason.contains("suite"), "{}", bad.reason);
        let missing = dir.path().join("missing");
        assert_eq!(files(&missing).unwrap_err().path, missing);
    }

    #[test]
    fn a_failure_record_keeps_its_cause_and_message() {
        let record = report(
            "membw",
            json!(0),
            json!({"completed": false, "failure": {"cause": "error", "message": "out of memory"}}),
        );
        let m = measure(record);
        assert_eq!((m.slot.label(), m.slot.model()), ("0".into(), "cpu"));
        assert_eq!(m.failure.as_deref(), Some("error: out of memory"));
        assert_eq!((m.figure, m.throttled), (None, None));
        let m = measure(report(
            "membw",
            json!("0"),
            json!({"completed": false, "failure": {"cause": "oom", "message": ""}}),
        ));
        assert_eq!(m.failure.as_deref(), Some("oom"));
        assert_eq!(measure(report("membw", json!("0"), json!({}))).failure.as_deref(), Some("did not complete"));
        let message = "step failed: gemm result check: 1 of 64 sampled elements wrong, largest error 2.1e-2 (4.0 \
                       times its bound 5.2e-3)\nException raised from check at gemm.cpp:12\nframe #0: ...";
        let m = measure(report(
            "gemm",
            json!("1"),
            json!({"completed": false, "failure": {"cause": "error", "message": message, "step": 3}}),
        ));
        let first = message.lines().next().unwrap();
        assert_eq!(m.failure, Some(format!("error: {first}")), "the message's first line");
    }

    #[test]
    fn a_deterministic_run_is_an_instance_of_the_vote_named_by_its_slot() {
        let print = json!({"step": 10, "loss": "3fb999999999999a", "params": "ab".repeat(16)});
        let block = json!({"every": 10, "device": "Xeon", "stack": {"threads": "2"}, "fingerprints": [print]});
        let m = measure(report(
            "sdc",
            json!("1"),
            json!({"completed": true, "run_id": 2, "hostname": "h1", "determinism": block,
                "provenance": {"slurm": {"node": "n2"}}}),
        ));
        let instance = m.instance.unwrap();
        assert_eq!(instance.name.to_string(), "run 2 node n2 vcd 1", "the Slurm node before the host name");
        assert_eq!((instance.bench.as_str(), instance.determinism.fingerprints.len()), ("sdc", 1));
        let plain =
            measure(report("sdc", json!("0"), json!({"completed": true, "hostname": "h1", "determinism": block})));
        assert_eq!(plain.instance.unwrap().name.node.as_deref(), Some("h1"));
        assert_eq!(measure(report("gemm", json!("0"), json!({"completed": true}))).instance, None);
    }
}
