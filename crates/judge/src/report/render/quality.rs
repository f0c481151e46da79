//! The sections and charts of a run to quality ([`QualityTables`]): time to
//! quality per config, the concurrent-instance metric per run, the runs that
//! did not converge, and (HTML) the quality curve of every instance.

use super::super::quality::QualityTables;
use super::super::rcp::{RcpCheck, Status};
use super::sections::{num, section, table, Anchor, Body, Cell, Mark, Section};
use crate::charts::{Chart, Kind, Point, Series, XAxis};

/// The sections, after the throughput ones.
pub fn sections(t: &QualityTables) -> Vec<Section> {
    let rows = t
        .configs
        .iter()
        .map(|r| {
            let spread = r.spread;
            let converged = Cell {
                text: format!("{}/{}", r.converged, r.runs),
                mark: (r.converged < r.runs).then_some(Mark::Warn),
            };
            vec![
                r.config.as_str().into(),
                r.goal.as_str().into(),
                converged,
                match (r.olympic_mean, &r.why_no_mean) {
                    (Some(m), _) => num(Some(m)),
                    (None, Some(why)) => Cell { text: format!("- ({why})"), mark: Some(Mark::Fail) },
                    (None, None) => num(None),
                },
                num(spread.map(|s| s.min)),
                num(spread.map(|s| s.max)),
                num(spread.and_then(|s| s.stdev)),
            ]
        })
        .collect();
    let headers = ["config", "target", "converged", "olympic mean (s)", "min (s)", "max (s)", "sd (s)"];
    let mut out = vec![Section {
        anchor: Some(Anchor::Quality),
        ..section("Time to quality (every instance of every run; olympic mean as MLPerf's)", table(&headers, rows))
    }];
    if let Some(check) = &t.rcp {
        out.push(rcp(check));
    }
    let runs = t
        .concurrent
        .iter()
        .map(|c| {
            vec![
                c.config.as_str().into(),
                c.run_id.to_string().into(),
                format!("{}/{}", c.converged, c.instances).into(),
                num(Some(c.seconds)),
            ]
        })
        .collect();
    let headers = ["config", "run", "converged", "first start to last stop (s)"];
    out.push(section("Concurrent instances (per run)", table(&headers, runs)));
    let not: Vec<String> =
        t.configs.iter().flat_map(|r| r.not_converged.iter().map(move |run| format!("{}: {run}", r.config))).collect();
    if !not.is_empty() {
        out.push(section("Not converged (within the bound)", Body::Notes(not)));
    }
    out
}

/// The RCP check: one row per config, its verdict beside the reference's
/// figures and its own, in items.
fn rcp(check: &RcpCheck) -> Section {
    let rows = check
        .rows
        .iter()
        .map(|r| {
            let verdict = match r.status {
                Status::Passed => Cell { text: "PASS".into(), mark: Some(Mark::Pass) },
                Status::Failed => Cell { text: "FAIL".into(), mark: Some(Mark::Fail) },
                Status::NoReference => "no reference".into(),
                Status::TooFewRuns => Cell { text: "too few runs".into(), mark: Some(Mark::Warn) },
            };
            vec![
                r.config.as_str().into(),
                r.batch_size.map_or("-".into(), |b| b.to_string()).into(),
                r.runs.to_string().into(),
                verdict,
                r.message.as_str().into(),
                r.reference.as_deref().unwrap_or("-").into(),
                num(r.reference_mean),
                num(r.min_mean),
                num(r.submission_mean),
                num(r.norm_factor),
            ]
        })
        .collect();
    let headers = [
        "config",
        "BS",
        "runs",
        "RCP check",
        "message",
        "reference",
        "ref mean (items)",
        "min mean (items)",
        "mean (items)",
        "norm factor",
    ];
    section(
        format!("Convergence against the reference points of {} (MLPerf's RCP check)", check.set),
        table(&headers, rows),
    )
}

/// One chart per config: the quality against the seconds on the clock, a
/// line per instance, the target dashed.
pub fn curves(t: &QualityTables) -> Vec<(String, Chart)> {
    t.configs
        .iter()
        .map(|row| {
            let mut chart = Chart::new(format!("{}: quality on the clock", row.config), XAxis::Seconds, 260);
            let of_config = t.instances.iter().filter(|i| i.config == row.config);
            for i in of_config {
                let points = i
                    .record
                    .curve
                    .iter()
                    .map(|p| Point {
                        tip: Some(format!("{} items: {}", p.items, p.value)),
                        ..Point::at(p.seconds, p.value)
                    })
                    .collect();
                chart.series.push(Series { name: i.label(), kind: Kind::Line, points });
            }
            if let Some(first) = t.instances.iter().find(|i| i.config == row.config) {
                chart.y_name = first.record.goal.metric.clone();
                chart.unit = first.record.goal.unit.clone();
                chart.reference = Some(first.record.goal.target);
            }
            chart.y_from_zero = false;
            (row.config.clone(), chart)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_present::Table;
    use mlb_record::contract::quality::fixtures::record;
    use mlb_record::contract::record::Identity;
    use mlb_record::contract::Report;

    #[test]
    fn a_config_gets_its_row_its_runs_and_a_curve_per_instance() {
        let id =
            |jr_id| Identity { suite: "s".into(), name: "learns".into(), run_id: 0, jr_id, vcd: jr_id.to_string() };
        let reports: Vec<Report> =
            (0..2).map(|j| Report { completed: true, quality: Some(record()), ..Report::new(&id(j)) }).collect();
        let t = super::super::super::quality::tables(&reports);
        let s = sections(&t);
        assert_eq!(s.len(), 2, "all converged: no list of failures");
        let Body::Table(Table { rows, .. }) = &s[0].body else { panic!() };
        assert_eq!(rows[0][0].text, "learns");
        assert_eq!(rows[0][2].text, "2/2");
        assert!(rows[0][3].text.contains("at least 3"), "{:?}", rows[0][3]);
        let curves = curves(&t);
        assert_eq!(curves.len(), 1);
        let chart = &curves[0].1;
        assert_eq!(chart.series.len(), 2);
        assert_eq!(chart.series[0].points.iter().map(|p| (p.x, p.y)).collect::<Vec<_>>(), [(1.0, 0.3), (2.0, 0.6)]);
        assert_eq!(chart.reference, Some(0.5));
    }
}
