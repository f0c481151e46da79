//! `mlb db compare`: benches x systems, each figure normalised to a
//! reference system, with a score per system and its items/s per dollar and
//! per watt (docs/results.md, "Queries").

use mlb_figures::geometric;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a cell of the matrix shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
pub enum Metric {
    /// Mean items/s of the instances that count.
    #[value(name = "items/s")]
    #[serde(rename = "items/s")]
    ItemsPerSecond,
    /// Mean joules per item over the timed window (lower is better).
    #[value(name = "energy/item")]
    #[serde(rename = "energy/item")]
    EnergyPerItem,
    /// The items/s normalised to the reference system (1 = as fast).
    #[value(name = "score")]
    #[serde(rename = "score")]
    Score,
}

impl Metric {
    /// The metric of its name (`items/s`, `energy/item`, `score`: the
    /// command line's and the API's).
    pub fn named(text: &str) -> Option<Metric> {
        match text {
            "items/s" => Some(Metric::ItemsPerSecond),
            "energy/item" => Some(Metric::EnergyPerItem),
            "score" => Some(Metric::Score),
            _ => None,
        }
    }

    /// The unit of a cell's value.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::ItemsPerSecond => "items/s",
            Metric::EnergyPerItem => "J/item",
            Metric::Score => "x reference",
        }
    }
}

/// One bench on one system, as the store holds it: the figures `mlb report`
/// gives the bench (docs/report.md, "Algorithm", step 3) over the runs selected.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figure {
    /// The bench.
    pub bench: String,
    /// The system.
    pub system: String,
    /// Instances that count (NaN throughputs included, as `n` of `mlb report`).
    pub n: usize,
    /// Mean items/s over the instances with a throughput.
    pub items_per_s: Option<f64>,
    /// Mean joules per item over the instances with an energy figure.
    pub joules_per_item: Option<f64>,
}

/// A cell: one bench on one system.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Instances that count.
    pub n: usize,
    /// Mean items/s.
    pub items_per_s: Option<f64>,
    /// Mean joules per item.
    pub joules_per_item: Option<f64>,
    /// Items/s per dollar of the system's price.
    pub items_per_s_per_dollar: Option<f64>,
    /// Items/s per watt (items per joule).
    pub items_per_s_per_watt: Option<f64>,
    /// The metric's value (see [`Metric`]).
    pub value: Option<f64>,
    /// How many times better than the reference on this bench: items/s over
    /// the reference's, or the reference's joules per item over these (so
    /// above 1 is better for both).
    pub normalised: Option<f64>,
}

/// One system's summary over the benches it shares with the reference.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemSummary {
    /// The system.
    pub system: String,
    /// Price given with `--price`, in dollars.
    pub price: Option<f64>,
    /// Geometric mean of the normalised figures (1 for the reference).
    pub score: Option<f64>,
    /// Geometric mean over the shared benches of items/s per dollar relative
    /// to the reference's (needs both prices).
    pub per_dollar: Option<f64>,
    /// Geometric mean over the shared benches of items/s per watt relative to
    /// the reference's (needs energy figures on both).
    pub per_watt: Option<f64>,
    /// Benches in the score.
    pub benches: usize,
}

/// One row of the matrix: a bench, one cell per system (in the order asked).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    /// The bench.
    pub bench: String,
    /// A cell per system; `None` where the system has no figure for it.
    pub cells: Vec<Option<Cell>>,
}

/// The whole comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matrix {
    /// What the cells show.
    pub metric: Metric,
    /// The unit of the cells' values.
    pub unit: &'static str,
    /// The systems, as columns, in the order asked.
    pub systems: Vec<String>,
    /// The system everything is normalised to.
    pub reference: String,
    /// One row per bench, sorted by name.
    pub rows: Vec<BenchRow>,
    /// One summary per system, in column order.
    pub summaries: Vec<SystemSummary>,
}

/// Builds the matrix of `figures` for `systems` (columns in this order),
/// normalised to `reference` (one of `systems`); `prices` by system name.
pub fn matrix(
    figures: &[Figure],
    systems: &[String],
    reference: &str,
    metric: Metric,
    prices: &BTreeMap<String, f64>,
) -> Matrix {
    let mut by_bench: BTreeMap<&str, Vec<Option<&Figure>>> = BTreeMap::new();
    for f in figures {
        let Some(col) = systems.iter().position(|s| *s == f.system) else { continue };
        by_bench.entry(&f.bench).or_insert_with(|| vec![None; systems.len()])[col] = Some(f);
    }
    let ref_col = systems.iter().position(|s| s == reference);
    let rows: Vec<BenchRow> = by_bench
        .into_iter()
        .map(|(bench, figs)| {
            let reference = ref_col.and_then(|c| figs[c]);
            let cells = figs
                .iter()
                .zip(systems)
                .map(|(f, system)| f.map(|f| cell(f, reference, metric, prices.get(system).copied())))
                .collect();
            BenchRow { bench: bench.to_string(), cells }
        })
        .collect();
    let summaries =
        systems.iter().enumerate().map(|(col, system)| summary(&rows, col, ref_col, system, prices)).collect();
    Matrix { metric, unit: metric.unit(), systems: systems.to_vec(), reference: reference.to_string(), rows, summaries }
}

/// A positive finite number, or nothing: a ratio of two figures needs both.
fn positive(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite() && *v > 0.0)
}

fn cell(f: &Figure, reference: Option<&Figure>, metric: Metric, price: Option<f64>) -> Cell {
    let speed = positive(f.items_per_s);
    let energy = positive(f.joules_per_item);
    let normalised = match metric {
        Metric::ItemsPerSecond | Metric::Score => {
            speed.zip(positive(reference.and_then(|r| r.items_per_s))).map(|(v, r)| v / r)
        }
        Metric::EnergyPerItem => energy.zip(positive(reference.and_then(|r| r.joules_per_item))).map(|(v, r)| r / v),
    };
    let value = match metric {
        Metric::ItemsPerSecond => f.items_per_s,
        Metric::EnergyPerItem => f.joules_per_item,
        Metric::Score => normalised,
    };
    Cell {
        n: f.n,
        items_per_s: f.items_per_s,
        joules_per_item: f.joules_per_item,
        items_per_s_per_dollar: speed.zip(positive(price)).map(|(v, p)| v / p),
        items_per_s_per_watt: energy.map(|e| 1.0 / e),
        value,
        normalised,
    }
}

fn summary(
    rows: &[BenchRow],
    col: usize,
    ref_col: Option<usize>,
    system: &str,
    prices: &BTreeMap<String, f64>,
) -> SystemSummary {
    let pairs = || rows.iter().filter_map(move |r| Some((r.cells[col].as_ref()?, r.cells[ref_col?].as_ref()?)));
    let normalised: Vec<f64> = pairs().filter_map(|(c, _)| c.normalised).collect();
    let relative = |get: fn(&Cell) -> Option<f64>| {
        geometric::of(pairs().filter_map(|(c, r)| Some(positive(get(c))? / positive(get(r))?)))
    };
    SystemSummary {
        system: system.to_string(),
        price: prices.get(system).copied(),
        score: geometric::of(normalised.iter().copied()),
        per_dollar: relative(|c| c.items_per_s_per_dollar),
        per_watt: relative(|c| c.items_per_s_per_watt),
        benches: normalised.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_is_named_as_the_command_line_names_it() {
        for metric in <Metric as clap::ValueEnum>::value_variants() {
            let name = clap::ValueEnum::to_possible_value(metric).unwrap();
            assert_eq!(Metric::named(name.get_name()), Some(*metric));
        }
        assert_eq!(Metric::named("joules"), None);
    }

    fn fig(bench: &str, system: &str, speed: f64, joules: Option<f64>) -> Figure {
        Figure { bench: bench.into(), system: system.into(), n: 8, items_per_s: Some(speed), joules_per_item: joules }
    }

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-12 * b.abs().max(1.0))
    }

    #[test]
    fn cells_are_normalised_to_the_reference_and_scored_by_geometric_mean() {
        let figures = [
            fig("vae", "A", 100.0, Some(2.0)),
            fig("vae", "B", 200.0, Some(1.0)),
            fig("wlm", "A", 10.0, Some(4.0)),
            fig("wlm", "B", 40.0, Some(4.0)),
            fig("ssd", "B", 7.0, None),
        ];
        let m = matrix(&figures, &names(&["A", "B"]), "A", Metric::ItemsPerSecond, &BTreeMap::new());
        assert_eq!(m.rows.iter().map(|r| r.bench.as_str()).collect::<Vec<_>>(), ["ssd", "vae", "wlm"]);
        let vae = &m.rows[1];
        assert!(close(vae.cells[0].as_ref().unwrap().normalised, 1.0));
        assert!(close(vae.cells[1].as_ref().unwrap().normalised, 2.0));
        assert_eq!(vae.cells[1].as_ref().unwrap().value, Some(200.0));
        // ssd has no reference figure: a value but no normalised figure, and not in the score.
        let ssd = &m.rows[0];
        assert!(ssd.cells[0].is_none());
        assert_eq!(ssd.cells[1].as_ref().unwrap().normalised, None);
        // B: sqrt(2 * 4) = 2.828..., over two benches.
        assert!(close(m.summaries[1].score, 8f64.sqrt()));
        assert_eq!(m.summaries[1].benches, 2);
        assert!(close(m.summaries[0].score, 1.0));
        // per watt: vae 1/1 over 1/2 = 2, wlm 1/4 over 1/4 = 1: sqrt(2).
        assert!(close(m.summaries[1].per_watt, 2f64.sqrt()));
        assert_eq!(m.summaries[1].per_dollar, None);
    }

    #[test]
    fn energy_is_better_when_lower_and_prices_divide() {
        let figures = [fig("vae", "A", 100.0, Some(2.0)), fig("vae", "B", 300.0, Some(0.5))];
        let prices = BTreeMap::from([("A".to_string(), 10_000.0), ("B".to_string(), 60_000.0)]);
        let m = matrix(&figures, &names(&["B", "A"]), "A", Metric::EnergyPerItem, &prices);
        let b = m.rows[0].cells[0].as_ref().unwrap();
        assert_eq!(b.value, Some(0.5));
        assert!(close(b.normalised, 4.0));
        assert!(close(b.items_per_s_per_dollar, 300.0 / 60_000.0));
        assert!(close(b.items_per_s_per_watt, 2.0));
        // B is 3 times as fast for 6 times the price: half the items/s per dollar.
        assert!(close(m.summaries[0].per_dollar, 0.5));
        assert!(close(m.summaries[0].per_watt, 4.0));
        assert!(close(m.summaries[0].score, 4.0));
        let score = matrix(&figures, &names(&["A", "B"]), "A", Metric::Score, &prices);
        assert!(close(score.rows[0].cells[1].as_ref().unwrap().value, 3.0));
    }

    #[test]
    fn missing_or_zero_figures_give_no_ratio() {
        let figures = [
            Figure { bench: "x".into(), system: "A".into(), n: 3, items_per_s: Some(0.0), joules_per_item: None },
            Figure { bench: "x".into(), system: "B".into(), n: 0, items_per_s: None, joules_per_item: Some(f64::NAN) },
        ];
        let m = matrix(&figures, &names(&["A", "B"]), "A", Metric::ItemsPerSecond, &BTreeMap::new());
        assert!(m.rows[0].cells.iter().all(|c| c.as_ref().unwrap().normalised.is_none()));
        assert_eq!(m.summaries[1].score, None);
        assert_eq!(m.summaries[1].benches, 0);
        assert_eq!(m.rows[0].cells[1].as_ref().unwrap().items_per_s_per_watt, None);
    }
}
