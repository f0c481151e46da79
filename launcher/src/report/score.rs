//! The per-bench table and the score of compat §6: failures, mean, sample sd,
//! perf, sd%, passes, then BF, PM, ST, PG, Score and RPP.

use super::entry::Entry;
use super::stats::{geometric_mean, Sample};
use super::targets::{Target, Targets};
use serde::Serialize;
use std::collections::BTreeMap;

/// Multi-GPU benches, left out of the report (compat §6 step 1).
pub const MULTI_GPU: [&str; 3] = ["convnet_distributed", "convnet_distributed_fp16", "dcgan_all"];

/// The bench left out of the geometric mean PG.
pub const NOT_IN_PG: &str = "scaling";

/// Failures may be at most this share of the results, in percent, for BF = 1.
pub const MAX_FAILURE_PERCENT: usize = 1;

/// One bench: all runs and all devices pooled.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    /// Bench name.
    pub bench: String,
    /// Entries, failures included.
    pub results: usize,
    /// Failed entries (left out of the statistics).
    pub failures: usize,
    /// Statistics of `train_item.avg` over the successful entries.
    pub sample: Option<Sample>,
    /// Targets, when the table has this bench.
    pub target: Option<Target>,
    /// `mean / target`.
    pub perf: Option<f64>,
    /// `sd / mean`.
    pub sd_share: Option<f64>,
    /// `perf >= perf_target`; `None` without a target.
    pub perf_pass: Option<bool>,
    /// `sd% <= sd_target`; `None` without a target (false without an sd).
    pub sd_pass: Option<bool>,
}

/// The score and its parts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Score {
    /// Entries of all benches, failures included.
    pub results: usize,
    /// Failed entries.
    pub failures: usize,
    /// 1 when `failures / results <= 1%`, else 0.
    pub bf: u8,
    /// Share of scored benches with `perf_pass`.
    pub pm: f64,
    /// Share of scored benches with `sd%_pass`.
    pub st: f64,
    /// Geometric mean of `perf` over scored benches except `scaling`.
    pub pg: Option<f64>,
    /// `BF * (2*PM + ST + 5*PG)`.
    pub score: f64,
    /// Benches with a target (the denominator of PM and ST).
    pub scored_benches: usize,
    /// Price of the machine, in USD.
    pub price: Option<f64>,
    /// `price / Score` (none when the score is 0).
    pub rpp: Option<f64>,
}

/// Whether `name` is one of the multi-GPU benches the report leaves out.
pub fn is_multi_gpu(name: &str) -> bool {
    MULTI_GPU.contains(&name)
}

/// The per-bench rows, sorted by bench name. `entries` must already be
/// without the multi-GPU benches.
pub fn bench_rows(entries: &[&Entry], targets: Option<&Targets>) -> Vec<BenchRow> {
    let mut by_bench: BTreeMap<&str, (usize, Vec<f64>)> = BTreeMap::new();
    for entry in entries {
        let (results, values) = by_bench.entry(&entry.name).or_default();
        *results += 1;
        values.extend(entry.throughput());
    }
    by_bench
        .into_iter()
        .map(|(bench, (results, values))| {
            let sample = Sample::of(&values);
            let target = targets.and_then(|t| t.get(bench)).copied();
            let perf = sample.zip(target).map(|(s, t)| s.mean / t.target);
            let sd_share = sample.and_then(|s| s.sd_share());
            BenchRow {
                bench: bench.to_string(),
                results,
                failures: results - values.len(),
                sample,
                target,
                perf,
                sd_share,
                perf_pass: target.map(|t| perf.is_some_and(|p| p >= t.perf_target)),
                sd_pass: target.map(|t| sd_share.is_some_and(|s| s <= t.sd_target)),
            }
        })
        .collect()
}

/// The score over `rows`; `None` when no bench has a target.
pub fn score(rows: &[BenchRow], price: Option<f64>) -> Option<Score> {
    let results: usize = rows.iter().map(|r| r.results).sum();
    let failures: usize = rows.iter().map(|r| r.failures).sum();
    let scored: Vec<&BenchRow> = rows.iter().filter(|r| r.target.is_some()).collect();
    if scored.is_empty() {
        return None;
    }
    let share = |pass: fn(&BenchRow) -> Option<bool>| {
        scored.iter().filter(|r| pass(r) == Some(true)).count() as f64 / scored.len() as f64
    };
    let bf = u8::from(failures * 100 <= results * MAX_FAILURE_PERCENT);
    let pm = share(|r| r.perf_pass);
    let st = share(|r| r.sd_pass);
    let perfs: Vec<f64> = scored.iter().filter(|r| r.bench != NOT_IN_PG).filter_map(|r| r.perf).collect();
    let pg = geometric_mean(&perfs);
    let score = f64::from(bf) * (2.0 * pm + st + 5.0 * pg.unwrap_or(0.0));
    let rpp = price.filter(|_| score > 0.0).map(|p| p / score);
    Some(Score { results, failures, bf, pm, st, pg, score, scored_benches: scored.len(), price, rpp })
}

#[cfg(test)]
mod tests {
    use super::super::entry::Outcome;
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    fn ok(name: &str, v: f64) -> Entry {
        Entry {
            file: Arc::from(Path::new("r.json")),
            name: name.into(),
            suite: None,
            vcd: Some("0".into()),
            gpu: None,
            outcome: Outcome::Ok(v),
        }
    }

    fn failed(name: &str) -> Entry {
        Entry { outcome: Outcome::Failed { cause: "oom".into(), message: "m".into() }, ..ok(name, 0.0) }
    }

    fn targets() -> Targets {
        Targets::parse(
            "t.csv",
            "bench,target,perf_target,sd_target\na,100,0.5,0.05\nb,10,0.5,0.05\nscaling,1,0.85,0.02\nc,50,0.5,0.05\n",
        )
        .unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn hand_computed_table_and_score() {
        // a: 90, 100, 110 -> mean 100, sd 10, perf 1.0, sd% 0.10 (fails 0.05).
        // b: 8, 8 -> mean 8, sd 0, perf 0.8, sd% 0 (passes).
        // scaling: 0.8, 0.8 -> perf 0.8 (fails 0.85), sd% 0 (passes); not in PG.
        // c: 20, 21, 19 -> mean 20, sd 1, perf 0.4 (fails 0.5), sd% 0.05 (passes, equal).
        // d: no target, not scored.
        let data = [
            ok("a", 90.0),
            ok("a", 100.0),
            ok("a", 110.0),
            ok("b", 8.0),
            ok("b", 8.0),
            ok("scaling", 0.8),
            ok("scaling", 0.8),
            ok("c", 20.0),
            ok("c", 21.0),
            ok("c", 19.0),
            ok("d", 1.0),
        ];
        let entries: Vec<&Entry> = data.iter().collect();
        let t = targets();
        let rows = bench_rows(&entries, Some(&t));
        let names: Vec<&str> = rows.iter().map(|r| r.bench.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "scaling"]);
        let a = &rows[0];
        let s = a.sample.unwrap();
        assert_eq!((a.results, a.failures, s.n, s.mean, s.sd), (3, 0, 3, 100.0, Some(10.0)));
        assert_eq!((a.perf, a.sd_share, a.perf_pass, a.sd_pass), (Some(1.0), Some(0.1), Some(true), Some(false)));
        assert_eq!((rows[1].perf, rows[1].perf_pass, rows[1].sd_pass), (Some(0.8), Some(true), Some(true)));
        assert!(close(rows[2].perf.unwrap(), 0.4) && close(rows[2].sd_share.unwrap(), 0.05));
        assert_eq!((rows[2].perf_pass, rows[2].sd_pass), (Some(false), Some(true)));
        assert_eq!((rows[3].target, rows[3].perf, rows[3].perf_pass), (None, None, None));
        assert_eq!((rows[4].perf_pass, rows[4].sd_pass), (Some(false), Some(true)));

        let score = score(&rows, Some(1000.0)).unwrap();
        assert_eq!((score.results, score.failures, score.bf, score.scored_benches), (11, 0, 1, 4));
        // PM: a, b pass of 4 -> 0.5. ST: b, scaling, c of 4 -> 0.75.
        // PG: (1.0 * 0.8 * 0.4)^(1/3) = 0.32^(1/3) = 0.6839904.
        assert_eq!((score.pm, score.st), (0.5, 0.75));
        assert!((score.pg.unwrap() - 0.6839904).abs() < 1e-6);
        // Score: 2*0.5 + 0.75 + 5*0.6839904 = 5.169952; RPP 1000/5.169952 = 193.4254.
        assert!((score.score - 5.169952).abs() < 1e-6, "{}", score.score);
        assert!((score.rpp.unwrap() - 193.4254).abs() < 1e-3);
    }

    fn with_failures(successes: usize, failures: usize) -> Score {
        let data: Vec<Entry> =
            (0..successes).map(|i| ok("a", 100.0 + (i % 2) as f64)).chain((0..failures).map(|_| failed("a"))).collect();
        let entries: Vec<&Entry> = data.iter().collect();
        score(&bench_rows(&entries, Some(&targets())), None).unwrap()
    }

    #[test]
    fn failure_threshold_is_inclusive() {
        // Exactly 1% (1 of 100, 3 of 300) passes; just above fails.
        assert_eq!(with_failures(99, 1).bf, 1);
        assert_eq!(with_failures(297, 3).bf, 1);
        assert_eq!(with_failures(296, 4).bf, 0);
        assert_eq!(with_failures(98, 2).bf, 0);
        let failed = with_failures(98, 2);
        assert_eq!((failed.results, failed.failures, failed.score), (100, 2, 0.0));
        assert_eq!(failed.rpp, None);
    }

    #[test]
    fn failures_stay_out_of_the_statistics() {
        let data = [ok("a", 90.0), failed("a"), ok("a", 110.0)];
        let entries: Vec<&Entry> = data.iter().collect();
        let rows = bench_rows(&entries, Some(&targets()));
        let s = rows[0].sample.unwrap();
        assert_eq!((rows[0].results, rows[0].failures, s.n, s.mean), (3, 1, 2, 100.0));
    }

    #[test]
    fn a_bench_without_success_or_a_single_run_fails_its_checks() {
        let data = [failed("a"), ok("b", 9.0)];
        let entries: Vec<&Entry> = data.iter().collect();
        let rows = bench_rows(&entries, Some(&targets()));
        assert_eq!((rows[0].sample, rows[0].perf_pass, rows[0].sd_pass), (None, Some(false), Some(false)));
        assert_eq!((rows[1].sd_share, rows[1].perf_pass, rows[1].sd_pass), (None, Some(true), Some(false)));
        let s = score(&rows, None).unwrap();
        // One failure of two results: BF 0.
        assert_eq!((s.bf, s.pm, s.st, s.pg, s.score), (0, 0.5, 0.0, Some(0.9), 0.0));
    }

    #[test]
    fn no_targets_no_score() {
        let data = [ok("a", 1.0)];
        let entries: Vec<&Entry> = data.iter().collect();
        let rows = bench_rows(&entries, None);
        assert_eq!(rows[0].perf, None);
        assert_eq!(score(&rows, Some(5.0)), None);
    }

    #[test]
    fn multi_gpu_names() {
        assert!(is_multi_gpu("dcgan_all") && is_multi_gpu("convnet_distributed_fp16") && !is_multi_gpu("dcgan"));
    }
}
