//! Target tables (`bench,target,perf_target,sd_target`): the shipped ones for
//! V100, RTX and MI50 (compiled in), or a CSV file (`--targets FILE`, or one
//! found by name in a target folder, which `mlb targets` keeps: `targets/catalog.rs`).

use super::error::ReportError;
use mlb_record::untrusted::visible;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The GPU models mlb ships target tables for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuModel {
    /// NVIDIA Tesla V100.
    V100,
    /// NVIDIA RTX.
    Rtx,
    /// AMD Radeon Instinct MI50.
    Mi50,
}

impl GpuModel {
    /// Every shipped model, in the order `mlb targets list` shows them.
    pub const ALL: [GpuModel; 3] = [GpuModel::V100, GpuModel::Rtx, GpuModel::Mi50];

    /// The name `--gpu-model` takes (any case).
    pub fn name(self) -> &'static str {
        match self {
            GpuModel::V100 => "V100",
            GpuModel::Rtx => "RTX",
            GpuModel::Mi50 => "MI50",
        }
    }

    /// The shipped model called `name` (any case).
    pub fn named(name: &str) -> Option<GpuModel> {
        GpuModel::ALL.into_iter().find(|m| m.name().eq_ignore_ascii_case(name))
    }

    /// The shipped table (`configs/targets/<model>.csv`) and its name.
    fn table(self) -> (&'static str, &'static str) {
        match self {
            GpuModel::V100 => ("configs/targets/v100.csv", include_str!("../../../../configs/targets/v100.csv")),
            GpuModel::Rtx => ("configs/targets/rtx.csv", include_str!("../../../../configs/targets/rtx.csv")),
            GpuModel::Mi50 => ("configs/targets/mi50.csv", include_str!("../../../../configs/targets/mi50.csv")),
        }
    }
}

/// The targets of one bench.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Target {
    /// Reference throughput (items/s).
    pub target: f64,
    /// Minimum `mean / target` to pass.
    pub perf_target: f64,
    /// Maximum `sd / mean` to pass.
    pub sd_target: f64,
}

/// A target table, by bench.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Targets {
    /// Where it came from (a file, or the shipped table's path).
    pub source: String,
    /// Targets by bench name.
    pub benches: BTreeMap<String, Target>,
}

impl Targets {
    /// The shipped table of `model`.
    pub fn shipped(model: GpuModel) -> Targets {
        let (source, text) = model.table();
        Targets::parse(source, text).expect("the shipped target tables are valid")
    }

    /// Reads a target table from a CSV file.
    pub fn from_file(path: &Path) -> Result<Targets, ReportError> {
        let source = path.display().to_string();
        let text = mlb_record::reading::read_input(path)
            .map_err(|e| ReportError::Targets { path: source.clone(), message: e.to_string() })?;
        Targets::parse(&source, &text)
    }

    /// Parses CSV text: a header naming the four columns (any order), then one
    /// line per bench. Blank lines and `#` comments are skipped.
    pub fn parse(source: &str, text: &str) -> Result<Targets, ReportError> {
        let err = |message: String| ReportError::Targets { path: source.to_string(), message };
        let records = mlb_record::untrusted::csv::records(text).map_err(|e| err(e.to_string()))?;
        let mut records = records.into_iter();
        let (h, columns) = records.next().ok_or_else(|| err("the file is empty".into()))?;
        let index = |name: &str| {
            columns.iter().position(|c| *c == name).ok_or_else(|| err(format!("line {h}: no `{name}` column")))
        };
        let (bench, target, perf, sd) = (index("bench")?, index("target")?, index("perf_target")?, index("sd_target")?);
        let mut benches = BTreeMap::new();
        for (i, cells) in records {
            if cells.len() > columns.len() {
                return Err(err(format!("line {i}: {} cells for {} columns", cells.len(), columns.len())));
            }
            let number = |col: usize| -> Result<f64, ReportError> {
                let cell = cells.get(col).ok_or_else(|| err(format!("line {i}: too few columns")))?;
                cell.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .ok_or_else(|| err(format!("line {i}: `{}` is not a positive number", visible(cell))))
            };
            let name = cells.get(bench).filter(|n| !n.is_empty());
            let name = name.ok_or_else(|| err(format!("line {i}: no bench name")))?;
            let row = Target { target: number(target)?, perf_target: number(perf)?, sd_target: number(sd)? };
            if benches.insert(name.to_string(), row).is_some() {
                return Err(err(format!("line {i}: bench `{}` appears twice", visible(name))));
            }
        }
        Ok(Targets { source: source.to_string(), benches })
    }

    /// The targets of `bench`.
    pub fn get(&self, bench: &str) -> Option<&Target> {
        self.benches.get(bench)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_tables() {
        let v100 = Targets::shipped(GpuModel::V100);
        assert_eq!(v100.benches.len(), 20);
        assert_eq!(v100.get("convnet"), Some(&Target { target: 215.0, perf_target: 0.5, sd_target: 0.05 }));
        assert_eq!(v100.get("scaling").unwrap().perf_target, 0.85);
        assert_eq!(Targets::shipped(GpuModel::Rtx).get("atari").unwrap().target, 5.0);
        assert_eq!(Targets::shipped(GpuModel::Mi50).get("toy_lstm").unwrap().target, 0.48);
    }

    #[test]
    fn shipped_models_by_name_in_any_case() {
        assert_eq!(GpuModel::named("v100"), Some(GpuModel::V100));
        assert_eq!(GpuModel::named("Rtx"), Some(GpuModel::Rtx));
        assert_eq!(GpuModel::named("MI50"), Some(GpuModel::Mi50));
        assert_eq!(GpuModel::named("H100"), None);
    }

    #[test]
    fn columns_in_any_order() {
        let t = Targets::parse("t.csv", "sd_target,bench,perf_target,target\n# note\n\n0.1,vae,0.5,100\n").unwrap();
        assert_eq!(t.get("vae"), Some(&Target { target: 100.0, perf_target: 0.5, sd_target: 0.1 }));
    }

    #[test]
    fn bad_tables_name_file_and_line() {
        let cases = [
            ("", "empty"),
            ("bench,target,perf_target\n", "no `sd_target` column"),
            ("bench,target,perf_target,sd_target\nvae,fast,0.5,0.1\n", "line 2: `fast`"),
            ("bench,target,perf_target,sd_target\nvae,1,0.5\n", "line 2: too few"),
            ("bench,target,perf_target,sd_target\nvae,1,0.5,0.1,9\n", "line 2: 5 cells for 4 columns"),
            ("bench,target,perf_target,sd_target\n\"vae,1,0.5,0.1\n", "line 2: a quoted cell is never closed"),
            ("bench,target,perf_target,sd_target\nvae,1,0.5,0.1\nvae,2,0.5,0.1\n", "line 3: bench `vae` appears twice"),
        ];
        for (text, want) in cases {
            let msg = Targets::parse("my.csv", text).unwrap_err().to_string();
            assert!(msg.contains("my.csv") && msg.contains(want), "{msg}");
        }
    }

    #[test]
    fn file_errors_name_the_file() {
        let msg = Targets::from_file(Path::new("/nonexistent/t.csv")).unwrap_err().to_string();
        assert!(msg.contains("/nonexistent/t.csv"), "{msg}");
    }
}
