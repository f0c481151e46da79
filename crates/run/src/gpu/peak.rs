//! The peak table: dense peak TFLOPS per GPU model and precision, with the
//! source of each figure (`peaks.yaml` beside this file, compiled in;
//! docs/workloads.md, "Peak table"). `mlb report` divides a run's achieved
//! TFLOPS by it for the MFU.

use mlb_record::contract::precision::Precision;
use serde::Deserialize;
use std::sync::OnceLock;

/// The table's text, compiled in.
const TABLE: &str = include_str!("peaks.yaml");

/// One model of the table, as the file writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Model {
    /// The model's name in the table (`H100 SXM`).
    model: String,
    /// Texts of the management library's device name that mean this model.
    names: Vec<String>,
    fp32: Option<f64>,
    tf32: Option<f64>,
    bf16: Option<f64>,
    fp16: Option<f64>,
    fp8: Option<f64>,
    /// The vendor document the figures come from.
    source: String,
}

impl Model {
    fn tflops(&self, precision: Precision) -> Option<f64> {
        match precision {
            Precision::Fp32 => self.fp32,
            Precision::Tf32 => self.tf32,
            Precision::Bf16 => self.bf16,
            Precision::Fp16 => self.fp16,
            Precision::Fp8 => self.fp8,
        }
    }

    /// The length of the longest of its names that `device` contains
    /// (case-insensitively), if any does.
    fn matches(&self, device: &str) -> Option<usize> {
        self.names.iter().filter(|n| device.contains(&n.to_ascii_lowercase())).map(String::len).max()
    }
}

/// A model's peak in one precision.
#[derive(Clone, Debug, PartialEq)]
pub struct Peak {
    /// The table's name of the model (`H100 SXM`).
    pub model: &'static str,
    /// Dense peak, TFLOPS.
    pub tflops: f64,
    /// The vendor document the figure comes from.
    pub source: &'static str,
}

/// The table, parsed once.
fn table() -> &'static [Model] {
    static MODELS: OnceLock<Vec<Model>> = OnceLock::new();
    MODELS.get_or_init(|| serde_saphyr::from_str(TABLE).expect("the compiled-in peak table parses (tested)"))
}

/// The dense peak of the GPU the management library names `device` ("NVIDIA
/// H100 80GB HBM3", "AMD Instinct MI300X") in `precision`: the model whose
/// longest matching name is the longest; `None` for a model the table does
/// not know or a precision it has no figure for.
pub fn peak(device: &str, precision: Precision) -> Option<Peak> {
    let device = device.to_ascii_lowercase();
    let model = table().iter().filter_map(|m| Some((m.matches(&device)?, m))).max_by_key(|(len, _)| *len)?.1;
    Some(Peak { model: &model.model, tflops: model.tflops(precision)?, source: &model.source })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(device: &str) -> Option<&'static str> {
        peak(device, Precision::Fp32).map(|p| p.model)
    }

    #[test]
    fn the_table_parses_and_every_model_has_a_source_and_figures() {
        assert!(table().len() >= 15);
        for m in table() {
            assert!(!m.names.is_empty() && !m.source.is_empty(), "{}", m.model);
            assert!(m.fp32.is_some_and(|t| t > 0.0), "{}", m.model);
            for p in Precision::ALL {
                // Tensor rates above the plain fp32 rate; fp8 twice bf16 (to the
                // vendors' rounding: L40S prints 362.05 and 733).
                if let (Some(t), Some(fp32)) = (m.tflops(p), m.fp32) {
                    assert!(t >= fp32, "{} {p}", m.model);
                }
            }
            if let (Some(fp8), Some(bf16)) = (m.fp8, m.bf16) {
                assert!((fp8 / bf16 - 2.0).abs() < 0.05, "{}", m.model);
            }
        }
    }

    #[test]
    fn nvml_names_find_their_model() {
        for (device, expected) in [
            ("Tesla V100-SXM2-32GB", "V100 SXM2"),
            ("Tesla V100-PCIE-16GB", "V100 PCIe"),
            ("Tesla V100S-PCIE-32GB", "V100S PCIe"),
            ("NVIDIA A100-SXM4-80GB", "A100 SXM"),
            ("NVIDIA A100-SXM4-40GB", "A100 SXM"),
            ("NVIDIA A100-PCIE-40GB", "A100 PCIe"),
            ("NVIDIA A100 80GB PCIe", "A100 PCIe"),
            ("NVIDIA H100 80GB HBM3", "H100 SXM"),
            ("NVIDIA H100 PCIe", "H100 PCIe"),
            ("NVIDIA H100 NVL", "H100 NVL"),
            ("NVIDIA H200", "H200 SXM"),
            ("NVIDIA H200 NVL", "H200 NVL"),
            ("NVIDIA B200", "B200"),
            ("NVIDIA L40S", "L40S"),
        ] {
            assert_eq!(model(device), Some(expected), "{device}");
        }
    }

    #[test]
    fn amd_smi_names_find_their_model() {
        for (device, expected) in [
            ("AMD Instinct MI210", "MI210"),
            ("AMD Instinct MI250X", "MI250X"),
            ("AMD Instinct MI250X/MI250", "MI250X"),
            ("AMD Instinct MI300X", "MI300X"),
            ("AMD Instinct MI325X", "MI325X"),
            ("AMD Instinct MI355X", "MI355X"),
        ] {
            assert_eq!(model(device), Some(expected), "{device}");
        }
    }

    #[test]
    fn figures_are_per_precision_and_unknowns_are_none() {
        let h100 = peak("NVIDIA H100 80GB HBM3", Precision::Bf16).unwrap();
        assert_eq!(h100.tflops, 989.5);
        assert!(h100.source.contains("H100"));
        assert_eq!(peak("NVIDIA H100 PCIe", Precision::Fp8).unwrap().tflops, 1513.0);
        assert_eq!(peak("AMD Instinct MI300X", Precision::Bf16).unwrap().tflops, 1307.4);
        // V100 has no bf16 units; an unknown model has no peak at all.
        assert_eq!(peak("Tesla V100-SXM2-16GB", Precision::Bf16), None);
        assert_eq!(peak("NVIDIA GeForce RTX 2080 Ti", Precision::Fp32), None);
        assert_eq!(peak("", Precision::Fp32), None);
    }
}
