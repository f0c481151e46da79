//! `mlb db history`: one metric of a system over time, a series per bench
//! (or config), each point a run with its id (docs/results.md, "Queries").

use super::args::HistoryArgs;
use super::compare::known;
use super::error::QueryError;
use super::figures::{counts, moments};
use super::filters::restrict;
use super::matrix::Metric;
use super::sql::Sql;
use crate::report::welch::Moments;
use crate::report::Rule;
use crate::store::Store;
use serde::Serialize;

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
    /// The moments of the values `value` is the mean of (of those that are
    /// a measure, for joules per item), scaled as it is: what the
    /// regression rule judges a point by.
    #[serde(skip)]
    pub moments: Moments,
}

/// One bench's points, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// The bench (or config).
    pub label: String,
    /// Its points, in the order the runs started (then by run id).
    pub points: Vec<Point>,
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
                p.moments = p.moments.scaled(1.0 / first);
            }
        }
    }
    let unit = if metric == Metric::Score { "x first run" } else { metric.unit() };
    History { system: system.to_string(), metric, unit, series }
}

/// One run's figures for one bench, as the store gives them.
#[derive(sqlx::FromRow)]
struct Stored {
    bench: String,
    run: i64,
    run_ids: String,
    started: Option<String>,
    n: i64,
    mean: Option<f64>,
    measured: i64,
    mean_of_squares: Option<f64>,
}

/// The history `args` ask for, from `store`: per run of the system and
/// bench, the instances that count and their mean (joules per item left
/// out where they cannot be a measure, as `mlb report` leaves them out).
pub fn fetch(store: &Store, args: &HistoryArgs) -> Result<History, QueryError> {
    let system = args.filters.system.as_ref().ok_or(QueryError::NoSystem)?;
    known(store, std::slice::from_ref(system))?;
    let energy = args.metric == Metric::EnergyPerItem;
    // The figures' columns are named by the `WITH` list.
    let mut sql = Sql::new("WITH stored (bench, run, run_ids, started, n, mean, measured, mean_of_squares) AS ");
    sql.push("(SELECT i.bench, r.id, r.run_ids, r.started_at, COUNT(*), ");
    moments(&mut sql, energy);
    sql.push(" FROM instances i JOIN runs r ON r.id = i.run_id JOIN systems s ON s.id = r.system_id");
    sql.push(" WHERE 1 = 1");
    counts(&mut sql, Rule::strict_if(args.strict));
    if let Some(bench) = &args.bench {
        sql.push(" AND (i.bench = ").text(bench).push(" OR i.config = ").text(bench).push(")");
    }
    restrict(&mut sql, &args.filters);
    sql.push(" GROUP BY i.bench, r.id, r.run_ids, r.started_at) SELECT * FROM stored");
    let rows: Vec<Stored> = sql.rows(store, "reading the history")?;
    let points = rows
        .into_iter()
        .filter_map(|row| {
            let moments = Moments::from_sums(row.measured as usize, row.mean, row.mean_of_squares);
            let started = row.started.unwrap_or_default();
            let at = chrono::DateTime::parse_from_rfc3339(&started).map_or(0, |t| t.timestamp());
            let (run, run_ids, n, value) = (row.run, row.run_ids, row.n as usize, row.mean?);
            Some((row.bench, Point { run, run_ids, started, at, n, value, moments }))
        })
        .collect();
    Ok(history(system, args.metric, points))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(run: i64, at: i64, value: f64) -> Point {
        let moments = Moments { n: 8, mean: Some(value), variance: Some(1.0) };
        Point { run, run_ids: run.to_string(), started: at.to_string(), at, n: 8, value, moments }
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
}
