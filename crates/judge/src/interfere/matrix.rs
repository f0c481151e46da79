//! The interference matrix as `interference.json` holds it: each
//! workload's rate alone, and each cell's slowdown of a victim next to an
//! aggressor (or in the whole-node mix) with its confidence interval and
//! where both ran (docs/interfere.md, "interference.json").

use super::error::ReadError;
use mlb_figures::moments::Moments;
use mlb_figures::ratio::fieller;
use mlb_figures::Sample;
use mlb_run::host::Position;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file of the matrix, in the output folder of `mlb interfere`.
pub const FILE: &str = "interference.json";

/// The page of the matrix's heat map, beside it.
pub const PAGE: &str = "interference.html";

/// The aggressor named in a cell of the whole-node mix: every other
/// workload at once, one a slot.
pub const MIX: &str = "mix";

/// The confidence level of every interval of the matrix.
pub const LEVEL: f64 = 0.95;

/// The matrix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interference {
    /// The jobs file's suite.
    pub suite: String,
    /// The rounds asked of each alone run, pair and mix (`--repeats`).
    pub repeats: usize,
    /// The confidence level of the intervals.
    pub level: f64,
    /// The workloads (job configs' labels), in the jobs file's order.
    pub workloads: Vec<String>,
    /// Each workload's rate alone on slot 0.
    pub alone: Vec<Alone>,
    /// The cells: the pairs asked for, victim by victim, then the mix.
    pub cells: Vec<Cell>,
}

/// A workload's rate alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Alone {
    /// The workload.
    pub workload: String,
    /// Its rates (each run's `train_item.avg`, items/s).
    pub rates: Sample,
    /// Where it ran.
    pub placement: Position,
}

/// Where a cell's victim and its aggressors ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// The victim's slot.
    pub victim: Position,
    /// Each aggressor's slot (one for a pair, every other for the mix).
    pub aggressors: Vec<Position>,
}

/// What a victim loses next to an aggressor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The workload measured.
    pub victim: String,
    /// The workload beside it, or [`MIX`].
    pub aggressor: String,
    /// The victim's runs beside it that gave a rate.
    pub n: usize,
    /// The victim's rates alone.
    pub alone: Sample,
    /// Its rates beside the aggressor.
    pub paired: Sample,
    /// `1 - paired mean / alone mean`: the share of its rate it lost
    /// (negative: it gained); none without a rate on a side.
    pub slowdown: Option<f64>,
    /// The slowdown's interval at [`LEVEL`] (Fieller's, of the ratio of
    /// the means); none with fewer than two rates on a side, or when the
    /// alone rates' noise reaches 0.
    pub slowdown_ci: Option<(f64, f64)>,
    /// The interval excludes 0: the change is beyond the noise.
    pub significant: bool,
    /// The least share of one of the victim's runs during which every
    /// aggressor ran too (1: covered throughout); none when the reports
    /// carry no times.
    pub overlap: Option<f64>,
    /// Where they ran.
    pub placement: Placement,
}

impl Cell {
    /// The cell of `victim` beside `aggressor` from the victim's rates
    /// `alone` and `paired` (items/s; a failed run left out), the least
    /// `overlap` and the `placement`.
    pub fn measure(
        victim: &str,
        aggressor: &str,
        alone: &[f64],
        paired: &[f64],
        overlap: Option<f64>,
        placement: Placement,
    ) -> Cell {
        let (alone_sample, paired_sample) = (Sample::of(alone), Sample::of(paired));
        let slowdown = paired_sample.mean.zip(alone_sample.mean.filter(|m| *m != 0.0)).map(|(p, a)| 1.0 - p / a);
        let slowdown_ci =
            fieller(&Moments::of(paired), &Moments::of(alone), LEVEL).map(|(low, high)| (1.0 - high, 1.0 - low));
        Cell {
            victim: victim.to_string(),
            aggressor: aggressor.to_string(),
            n: paired_sample.count,
            alone: alone_sample,
            paired: paired_sample,
            slowdown,
            slowdown_ci,
            significant: slowdown_ci.is_some_and(|(low, high)| low > 0.0 || high < 0.0),
            overlap,
            placement,
        }
    }

    /// Whether it is a cell of the whole-node mix.
    pub fn is_mix(&self) -> bool {
        self.aggressor == MIX
    }
}

impl Interference {
    /// The cell of `victim` beside `aggressor`, if measured.
    pub fn cell(&self, victim: &str, aggressor: &str) -> Option<&Cell> {
        self.cells.iter().find(|c| c.victim == victim && c.aggressor == aggressor)
    }

    /// The aggressors of the matrix's columns: the workloads some cell
    /// pairs with, in the workloads' order, then [`MIX`] when measured.
    pub fn aggressors(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .workloads
            .iter()
            .map(String::as_str)
            .filter(|w| self.cells.iter().any(|c| c.aggressor == *w))
            .collect();
        if self.cells.iter().any(Cell::is_mix) {
            out.push(MIX);
        }
        out
    }

    /// The victims of the matrix's rows: the workloads some cell measures.
    pub fn victims(&self) -> Vec<&str> {
        self.workloads.iter().map(String::as_str).filter(|w| self.cells.iter().any(|c| c.victim == *w)).collect()
    }

    /// The JSON of `interference.json`.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("serialises") + "\n"
    }

    /// Reads `interference.json` at `path`: a regular file of at most 16 MiB
    /// ([`read_input`](mlb_record::reading::read_input)), of this shape.
    pub fn read(path: &Path) -> Result<Interference, ReadError> {
        let text = mlb_record::reading::read_input(path)
            .map_err(|source| ReadError::Io { path: path.to_path_buf(), source })?;
        Interference::parse(path, &text)
    }

    /// Parses the text of the matrix file `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Interference, ReadError> {
        serde_json::from_str(text).map_err(|source| ReadError::Shape { path: path.to_path_buf(), source })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A position of slot `slot` on a host without GPU.
    pub fn at(slot: usize) -> Position {
        Position {
            slot,
            cpus: slot.to_string(),
            numa_nodes: vec![0],
            gpu: slot as u32,
            pci_address: None,
            pcie_switch: None,
        }
    }

    /// The matrix of the suite `suite` over `workloads` holding `cells`, three runs a side.
    pub fn matrix(suite: &str, workloads: &[&str], cells: Vec<Cell>) -> Interference {
        let workloads = workloads.iter().map(|w| w.to_string()).collect();
        Interference { suite: suite.into(), repeats: 3, level: LEVEL, workloads, alone: vec![], cells }
    }

    /// The cell of `victim` beside `aggressor`, from slot 0 and 1.
    pub fn cell(victim: &str, aggressor: &str, alone: &[f64], paired: &[f64]) -> Cell {
        Cell::measure(victim, aggressor, alone, paired, Some(1.0), Placement { victim: at(0), aggressors: vec![at(1)] })
    }

    #[test]
    fn a_slowdown_beyond_the_noise_is_significant_and_one_within_it_is_not() {
        let slowed = cell("membw", "gemm", &[100.0, 101.0, 99.0], &[80.0, 81.0, 79.0]);
        assert!((slowed.slowdown.unwrap() - 0.2).abs() < 1e-12, "{slowed:?}");
        let (low, high) = slowed.slowdown_ci.unwrap();
        assert!(low > 0.1 && low < 0.2 && 0.2 < high && high < 0.3, "{low} {high}");
        assert!(slowed.significant && slowed.n == 3);
        let noise = cell("membw", "spin", &[100.0, 110.0, 90.0], &[99.0, 109.0, 91.0]);
        assert!(!noise.significant, "{noise:?}");
        let faster = cell("spin", "gemm", &[100.0, 100.5, 99.5], &[110.0, 110.5, 109.5]);
        assert!(faster.slowdown.unwrap() < 0.0 && faster.significant, "a gain beyond the noise is told too");
        let one = cell("spin", "gemm", &[100.0], &[90.0, f64::NAN]);
        assert_eq!((one.slowdown_ci, one.significant, one.n), (None, false, 1));
        assert!((one.slowdown.unwrap() - 0.1).abs() < 1e-12);
    }

    #[test]
    fn the_matrix_reads_back_what_it_wrote_and_refuses_another_shape() {
        let cells = vec![cell("a", "b", &[1.0, 2.0], &[1.0, 1.5]), cell("a", MIX, &[1.0, 2.0], &[1.0, 1.0])];
        let matrix = matrix("s", &["a", "b"], cells);
        let path = Path::new("interference.json");
        // Read back to the last bit but one (serde_json parses floats fast, not exactly).
        let back = Interference::parse(path, &matrix.to_json()).unwrap();
        assert_eq!((back.workloads, back.cells.len()), (matrix.workloads.clone(), 2));
        assert_eq!(back.cells[1].placement, matrix.cells[1].placement);
        assert!((back.cells[0].slowdown.unwrap() - matrix.cells[0].slowdown.unwrap()).abs() < 1e-15);
        assert_eq!((matrix.victims(), matrix.aggressors()), (vec!["a"], vec!["b", MIX]));
        let err = Interference::parse(path, "{\"suite\": 1}").unwrap_err().to_string();
        assert!(err.starts_with("interference.json is not a matrix of mlb interfere"), "{err}");
    }
}
