//! `mlb db history`: one metric of a system over time, a series per bench
//! (or config), each point a run with its id (docs/results.md, "Queries").

use super::compare::known;
use super::error::QueryError;
use super::figures::{kept_group, kept_under, unpack_group, Instances};
use super::filters::{restrict, Filters};
use super::matrix::Metric;
use super::sql::Sql;
use crate::store::Store;
use mlb_figures::regression::{verdict, HISTORY_RUNS};
use mlb_figures::Moments;
use mlb_judge::report::Rule;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// One run's figure for one bench.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    /// The run's id in the store.
    pub run: i64,
    /// The run's ids as mlb wrote them (`run_id` of its reports), if any.
    pub run_ids: String,
    /// When the run started (RFC 3339, UTC).
    pub started: String,
    /// `started` in seconds since the epoch (the x axis of the chart).
    pub at: i64,
    /// Instances that count.
    pub n: usize,
    /// The metric's value: mean items/s or joules per item, or with
    /// `score` the items/s over the series' first run's.
    pub value: f64,
    /// The values `value` is the mean of (of those that are a measure, for
    /// joules per item), scaled as it is: what the regression rule judges a
    /// point by.
    #[serde(skip)]
    pub values: Vec<f64>,
}

/// One bench's points, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// The bench (or config).
    pub label: String,
    /// Its points, in the order the runs started (then by run id).
    pub points: Vec<Point>,
}

/// A point that regressed against the [`HISTORY_RUNS`] points before it
/// in its series, their instances pooled, under the regression rule of
/// `mlb report --db` ([`verdict`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Regression {
    /// The series (bench or config).
    pub label: String,
    /// The run of the point.
    pub run: i64,
    /// Change from the mean of the points before, in percent (negative: lower).
    pub change_percent: f64,
    /// Welch's two-sided p-value of the point's instances against theirs.
    pub p_value: f64,
}

/// The history of one system.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct History {
    /// The system.
    pub system: String,
    /// What the points show.
    pub metric: Metric,
    /// The unit of the values.
    pub unit: &'static str,
    /// One series per bench, sorted by label.
    pub series: Vec<Series>,
    /// The points that regressed, by series.
    pub regressions: Vec<Regression>,
}

/// The history of `system` from its points (any order; `value` holds the
/// mean items/s, or joules per item for [`Metric::EnergyPerItem`]):
/// sorted, grouped by label, and with [`Metric::Score`] divided by each
/// series' first value.
pub fn history(system: &str, metric: Metric, mut points: Vec<(String, Point)>) -> History {
    points.sort_by(|(la, a), (lb, b)| la.cmp(lb).then(a.at.cmp(&b.at)).then(a.run.cmp(&b.run)));
    let mut series: Vec<Series> = Vec::new();
    for (label, point) in points {
        match series.last_mut() {
            Some(s) if s.label == label => s.points.push(point),
            _ => series.push(Series { label, points: vec![point] }),
        }
    }
    if metric == Metric::Score {
        for s in &mut series {
            let first = s.points[0].value;
            for p in &mut s.points {
                p.value /= first;
                p.values.iter_mut().for_each(|v| *v /= first);
            }
        }
    }
    let unit = if metric == Metric::Score { "x first run" } else { metric.unit() };
    let regressions = regressions(&series, metric);
    History { system: system.to_string(), metric, unit, series, regressions }
}

/// The points of `series` that regressed. Lower is better for joules per
/// item, higher for the others.
fn regressions(series: &[Series], metric: Metric) -> Vec<Regression> {
    let lower_is_better = metric == Metric::EnergyPerItem;
    let mut found = Vec::new();
    for series in series {
        for (k, point) in series.points.iter().enumerate().skip(1) {
            let before: Vec<f64> = series.points[k.saturating_sub(HISTORY_RUNS)..k]
                .iter()
                .flat_map(|p| p.values.iter().copied())
                .collect();
            let v = verdict(&Moments::of(&point.values), &Moments::of(&before), lower_is_better);
            if let (true, Some(change), Some(p_value)) = (v.regression, v.change, v.p_value) {
                found.push(Regression {
                    label: series.label.clone(),
                    run: point.run,
                    change_percent: change * 100.0,
                    p_value,
                });
            }
        }
    }
    found
}

/// A system's kept figures of a bench, as the history reads them.
#[derive(sqlx::FromRow)]
struct Stored {
    bench: String,
    /// [`kept_group`]'s text.
    kept: String,
}

/// A run of the history: when it started, and its run ids.
#[derive(sqlx::FromRow)]
struct StoredRun {
    run: i64,
    run_ids: String,
    started: Option<String>,
}

/// What a history shows (`mlb db history`, `/history`).
#[derive(Clone, Debug)]
pub struct HistoryOptions {
    /// Which runs (a system is required).
    pub filters: Filters,
    /// Only this bench (or config).
    pub bench: Option<String>,
    /// What the points show (`score`: items/s over the first run's).
    pub metric: Metric,
    /// Failures judged by mlb's stricter check (as `mlb report --strict`).
    pub strict: bool,
}

/// The history `args` ask for, from `store`: per run of the system and
/// bench, the instances that count and their mean (joules per item left
/// out where they cannot be a measure, as `mlb report` leaves them out).
pub fn fetch(store: &Store, args: &HistoryOptions) -> Result<History, QueryError> {
    let system = args.filters.system.as_ref().ok_or(QueryError::NoSystem)?;
    known(store, std::slice::from_ref(system), args.filters.runs.visible)?;
    let energy = args.metric == Metric::EnergyPerItem;
    let mut sql = Sql::new("SELECT f.bench AS bench, ");
    sql.push(kept_group(store.backend())).push(" AS kept");
    sql.push(" FROM run_figures f JOIN runs r ON r.id = f.run_id JOIN systems s ON s.id = r.system_id");
    sql.push(" WHERE 1 = 1");
    kept_under(&mut sql, Rule::strict_if(args.strict));
    if let Some(bench) = &args.bench {
        sql.push(" AND (f.bench = ").text(bench).push(" OR f.config = ").text(bench).push(")");
    }
    restrict(&mut sql, &args.filters);
    sql.push(" GROUP BY f.bench");
    let rows: Vec<Stored> = sql.rows(store, "reading the history")?;
    // The runs' own columns, a row a run (not a row a bench of it).
    let mut sql = Sql::new("SELECT r.id AS run, r.run_ids AS run_ids, r.started_at AS started");
    sql.push(" FROM runs r JOIN systems s ON s.id = r.system_id WHERE 1 = 1");
    restrict(&mut sql, &args.filters);
    let runs: HashMap<i64, StoredRun> =
        sql.rows::<StoredRun>(store, "reading the history")?.into_iter().map(|r| (r.run, r)).collect();
    let mut groups: BTreeMap<(String, i64), Instances> = BTreeMap::new();
    for row in rows {
        for (run, instances) in unpack_group(&row.kept) {
            groups.entry((row.bench.clone(), run)).or_default().extend(instances);
        }
    }
    let points = groups
        .into_iter()
        .filter_map(|((bench, run), instances)| {
            let values = instances.measures(energy);
            let value = Moments::of(&values).mean?;
            let stored = runs.get(&run)?;
            let started = stored.started.clone().unwrap_or_default();
            let at = chrono::DateTime::parse_from_rfc3339(&started).map_or(0, |t| t.timestamp());
            let run_ids = stored.run_ids.clone();
            Some((bench, Point { run, run_ids, started, at, n: instances.n(), value, values }))
        })
        .collect();
    Ok(history(system, args.metric, points))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(run: i64, at: i64, value: f64) -> Point {
        Point { run, run_ids: run.to_string(), started: at.to_string(), at, n: 1, value, values: vec![value] }
    }

    #[test]
    fn points_come_oldest_first_in_one_series_per_bench() {
        let points = vec![
            ("wlm".to_string(), point(3, 300, 30.0)),
            ("vae".to_string(), point(2, 200, 20.0)),
            ("vae".to_string(), point(1, 100, 10.0)),
            ("vae".to_string(), point(4, 100, 40.0)),
        ];
        let h = history("A", Metric::ItemsPerSecond, points.clone());
        assert_eq!(h.series.len(), 2);
        assert_eq!(h.series[0].label, "vae");
        assert_eq!(h.series[0].points.iter().map(|p| p.run).collect::<Vec<_>>(), [1, 4, 2]);
        assert_eq!(h.series[1].points[0].value, 30.0);
        let score = history("A", Metric::Score, points);
        assert_eq!(score.series[0].points.iter().map(|p| p.value).collect::<Vec<_>>(), [1.0, 4.0, 2.0]);
        assert_eq!(score.unit, "x first run");
    }

    /// A run's point of the instance figures `values`.
    fn measured(run: i64, values: &[f64]) -> (String, Point) {
        let (n, value) = (values.len(), Moments::of(values).mean.unwrap());
        let values = values.to_vec();
        ("vae".into(), Point { run, run_ids: run.to_string(), started: String::new(), at: run, n, value, values })
    }

    /// Four instances about `mean`, `spread` apart.
    fn around(mean: f64, spread: f64) -> [f64; 4] {
        [mean - 1.5 * spread, mean - 0.5 * spread, mean + 0.5 * spread, mean + 1.5 * spread]
    }

    #[test]
    fn a_drop_past_the_threshold_and_the_noise_is_marked_and_energy_counts_a_rise() {
        let runs = [around(100.0, 0.5), around(101.0, 0.5), around(99.0, 0.5), around(90.0, 0.5), around(100.0, 0.5)];
        let points: Vec<_> = runs.iter().zip(1..).map(|(values, run)| measured(run, values)).collect();
        let speed = history("A", Metric::ItemsPerSecond, points.clone());
        let marked: Vec<i64> = speed.regressions.iter().map(|r| r.run).collect();
        assert_eq!(marked, [4]);
        let energy = history("A", Metric::EnergyPerItem, points);
        let marked: Vec<i64> = energy.regressions.iter().map(|r| r.run).collect();
        assert_eq!(marked, Vec::<i64>::new(), "a lower energy per item is better");
    }

    #[test]
    fn the_page_and_mlb_report_judge_a_point_alike() {
        // A 6% drop within the noise (the rule of the mean of the last five
        // alone flagged it), and a 20% drop beyond it.
        let runs = [around(100.0, 8.0), around(104.0, 8.0), around(96.0, 8.0), around(94.0, 8.0), around(80.0, 1.0)];
        let points: Vec<_> = runs.iter().zip(1..).map(|(values, run)| measured(run, values)).collect();
        let page = history("A", Metric::ItemsPerSecond, points).regressions;
        for (k, values) in runs.iter().enumerate().skip(1) {
            let before: Vec<f64> = runs[k.saturating_sub(HISTORY_RUNS)..k].concat();
            let report = mlb_judge::report::history::judge("vae", values, &before, vec![]);
            let marked = page.iter().find(|r| r.run == k as i64 + 1);
            assert_eq!(marked.is_some(), report.regression, "run {}: {report:?} against {marked:?}", k + 1);
            if let Some(r) = marked {
                assert!((r.change_percent - report.change_percent.unwrap()).abs() < 1e-9);
                assert!((r.p_value - report.p_value.unwrap()).abs() < 1e-9);
            }
        }
        assert_eq!(page.iter().map(|r| r.run).collect::<Vec<_>>(), [5], "{page:?}");
    }
}
