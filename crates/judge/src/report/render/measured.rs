//! The sections about how the figures were measured: the system the run
//! describes (`system.json`), the MFU tables, the energy tables, and the
//! instances whose conditions (throttling, a degraded link) make their
//! figure doubtful.

use super::super::Report;
use super::sections::{num, pct, row_kind, section, table, Anchor, Body, Cell, Mark, Section};

/// The `System` section, when the reports folder holds a `system.json`.
pub fn system(report: &Report) -> Option<Section> {
    let s = report.system.as_ref()?;
    let mut pairs: Vec<(String, Cell)> = vec![
        ("system".into(), s.system_name.as_str().into()),
        ("nodes".into(), s.number_of_nodes.to_string().into()),
        (
            "processor".into(),
            format!(
                "{} ({} socket(s) x {} cores, {} CPUs usable)",
                s.host_processor_model_name,
                s.host_processors_per_node,
                s.host_processor_core_count,
                s.host_processor_vcpu_count
            )
            .into(),
        ),
        ("memory".into(), s.host_memory_capacity.as_str().into()),
        (
            "accelerators".into(),
            match s.accelerator_memory_capacity.trim() {
                "" => format!("{} x {}", s.accelerators_per_node, s.accelerator_model_name),
                memory => format!("{} x {} ({memory})", s.accelerators_per_node, s.accelerator_model_name),
            }
            .into(),
        ),
        ("os".into(), format!("{} (kernel {})", s.operating_system, s.kernel).into()),
        ("driver / CUDA or ROCm".into(), driver(&s.accelerator_driver_version, &s.cuda_or_rocm_version).into()),
        ("software".into(), format!("{}; {}", s.framework, s.other_software_stack).into()),
    ];
    if let Some(c) = &s.container {
        pairs.push(("container".into(), serde_json::to_string(c).unwrap_or_default().into()));
    }
    Some(section("System (system.json)", Body::Pairs(pairs)))
}

/// The driver and CUDA/ROCm versions, each only when recorded: `570.1 /
/// 12.8`, `570.1`, `CUDA or ROCm 12.8`, else `not recorded`.
fn driver(driver: &str, runtime: &str) -> String {
    match (driver.trim(), runtime.trim()) {
        ("", "") => "not recorded".into(),
        (driver, "") => driver.into(),
        ("", runtime) => format!("not recorded / {runtime}"),
        (driver, runtime) => format!("{driver} / {runtime}"),
    }
}

/// The MFU tables (achieved TFLOPS, peak and its source, MFU) and the
/// sources of the peak table's figures, when some entry states its FLOPs.
pub fn mfu(report: &Report) -> Vec<Section> {
    let m = &report.mfu;
    if m.is_empty() {
        return Vec::new();
    }
    let headers = |device: bool| {
        let mut h = vec![row_kind(report)];
        h.extend(device.then_some("device"));
        h.extend(["precision", "GFLOPs/item", "n", "TFLOPS (mean)", "peak TFLOPS", "peak of", "MFU (mean)"]);
        h
    };
    let cells = |r: &super::super::MfuRow| {
        let mut c: Vec<Cell> = vec![r.label.as_str().into()];
        c.extend(r.device.as_deref().map(Cell::from));
        c.extend([
            r.precision.as_str().into(),
            format!("{:.3}", r.flops_per_item / 1e9).into(),
            r.achieved_tflops.count.to_string().into(),
            float(r.achieved_tflops.mean),
            num(r.peak_tflops),
            r.peak_of.as_str().into(),
            pct(r.mfu.mean),
        ]);
        c
    };
    let mut out = vec![section(
        "Model FLOPs utilisation (achieved TFLOPS = items/s x FLOPs per item; MFU = achieved / peak)",
        table(&headers(false), m.rows.iter().map(cells).collect()),
    )];
    if m.per_gpu.len() > 1 {
        out.push(section("MFU per GPU", table(&headers(true), m.per_gpu.iter().map(cells).collect())));
    }
    if !m.sources.is_empty() {
        let lines = m.sources.iter().map(|s| format!("{}: {}", s.model, s.source)).collect();
        out.push(section("Peak table sources (dense, no sparsity)", Body::Notes(lines)));
    }
    out
}

/// A score profile's score: per bench its weight, perf and MFU, then the
/// score and the weighted MFU.
pub fn profile(p: &super::super::ProfileScore) -> Body {
    let mut lines: Vec<String> = p
        .benches
        .iter()
        .map(|b| {
            let perf = b.perf.map_or("-".into(), |v| format!("{v:.3}"));
            let mfu = b.mfu.map_or("-".into(), |v| format!("{:.1}%", v * 100.0));
            format!("{}: weight {}, perf {perf}, MFU {mfu}", b.bench, b.weight)
        })
        .collect();
    lines.push(format!("BF (failures <= 1%): {}", p.bf));
    lines.push(match p.score {
        Some(s) => format!("Score = BF x weighted geometric mean of perf: {s:.3}"),
        None => "no score: pass --gpu-model NAME or --targets FILE with targets for these benches".into(),
    });
    lines.push(match p.mfu {
        Some(m) => format!("weighted MFU: {:.1}%", m * 100.0),
        None => "weighted MFU: - (no bench states FLOPs with a known peak)".into(),
    });
    Body::Notes(lines)
}

/// The energy tables and the flagged instances, when there are any.
pub fn energy_and_conditions(report: &Report) -> Vec<Section> {
    let mut out = Vec::new();
    let e = &report.energy;
    let headers = |device: bool| {
        let mut h = vec![row_kind(report)];
        h.extend(device.then_some("device"));
        h.extend(["n", "J/item (mean)", "J/item (min)", "J/item (max)", "items/s per W (mean)", "energy of"]);
        h
    };
    let cells = |r: &super::super::EnergyRow| {
        let mut c: Vec<Cell> = vec![r.label.as_str().into()];
        c.extend(r.device.as_deref().map(Cell::from));
        let j = &r.joules_per_item;
        c.extend([
            j.count.to_string().into(),
            float(j.mean),
            float(j.min),
            float(j.max),
            num(r.items_per_watt.mean),
            (if r.gpu_energy { "GPUs" } else { "host packages (shared)" }).into(),
        ]);
        c
    };
    if !e.rows.is_empty() {
        out.push(section("Energy (timed window)", table(&headers(false), e.rows.iter().map(cells).collect())));
    }
    if e.per_gpu.len() > 1 {
        out.push(section("Energy per GPU", table(&headers(true), e.per_gpu.iter().map(cells).collect())));
    }
    if !report.conditions.is_empty() {
        let rows = report.conditions.iter().map(|f| {
            let warn = |text: Cell| Cell { mark: Some(Mark::Warn), ..text };
            vec![
                f.label.as_str().into(),
                f.device.as_deref().unwrap_or("-").into(),
                f.throttled_share.map_or("-".into(), |s| warn(pct(Some(s)))),
                if f.degraded_link { warn("degraded".into()) } else { "-".into() },
                if f.xid_events > 0.0 { warn(format!("{}", f.xid_events).into()) } else { "-".into() },
                f.file.display().to_string().into(),
            ]
        });
        let title = "Instances throttled more than 1% of their window, on a degraded link, or with XID errors";
        out.push(section(
            title,
            table(&[row_kind(report), "device", "throttled", "PCIe link", "XID events", "file"], rows.collect()),
        ));
    }
    if !report.sampled.is_empty() {
        let line = format!(
            "{} instance(s) with telemetry (flagged ones first): power, clock and temperature over the timed window, throttled spans shaded, in the HTML report (--html)",
            report.sampled.len()
        );
        out.push(Section {
            anchor: Some(Anchor::Timelines),
            ..section("Telemetry timelines", Body::Notes(vec![line]))
        });
    }
    out
}

/// A small figure (joules per item) with enough digits.
fn float(v: Option<f64>) -> Cell {
    v.map_or("-".into(), |v| format!("{v:.4}").into())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_version_is_said_not_drawn_as_a_lone_slash() {
        assert_eq!(super::driver("570.86", "12.8"), "570.86 / 12.8");
        assert_eq!(super::driver("6.8.5", ""), "6.8.5");
        assert_eq!(super::driver("", "12.8"), "not recorded / 12.8");
        assert_eq!(super::driver(" ", ""), "not recorded");
    }
}
