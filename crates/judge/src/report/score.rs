//! The score of docs/report.md's "Algorithm", step 4, as the original computed it from its
//! per-bench table: BF, PM, ST, PG, Score and RPP.

use super::rows::Row;
use mlb_figures::geometric_mean;
use serde::Serialize;

/// Multi-GPU benches, left out of the report (docs/report.md, "Algorithm", step 1).
pub const MULTI_GPU: [&str; 3] = ["convnet_distributed", "convnet_distributed_fp16", "dcgan_all"];

/// The bench left out of the geometric mean PG.
pub const NOT_IN_PG: &str = "scaling";

/// Failures may be at most this share of the results for BF = 1.
pub const MAX_FAILURE_SHARE: f64 = 0.01;

/// The score and its parts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Score {
    /// Entries, failures and null names included.
    pub results: usize,
    /// Failed entries.
    pub failures: usize,
    /// 1 when `failures / results <= 1%`, else 0.
    pub bf: u8,
    /// Share of the benches with `perf_pass`.
    pub pm: f64,
    /// Share of the benches with `sd%_pass`.
    pub st: f64,
    /// Geometric mean of `perf` over the benches with one, except `scaling`
    /// (1 when none has one, as in the original).
    pub pg: f64,
    /// `BF * (2*PM + ST + 5*PG)`.
    pub score: f64,
    /// Benches of the table (the denominator of PM and ST), with or without a
    /// target.
    pub benches: usize,
    /// Benches with a perf, in PG.
    pub pg_benches: usize,
    /// Price of the machine, in USD.
    pub price: Option<f64>,
    /// `price / Score` (none when the score is not positive).
    pub rpp: Option<f64>,
}

/// Whether `name` is one of the multi-GPU benches the report leaves out.
pub fn is_multi_gpu(name: &str) -> bool {
    MULTI_GPU.contains(&name)
}

/// The score from the per-bench `rows` (every bench of the reports, with or
/// without a target: one without counts as failing PM and ST), `results`
/// entries of which `failures` failed.
pub fn score(rows: &[Row], results: usize, failures: usize, price: Option<f64>) -> Score {
    let share = |pass: fn(&Row) -> Option<bool>| {
        rows.iter().filter(|r| pass(r) == Some(true)).count() as f64 / rows.len() as f64
    };
    let bf = u8::from(failures as f64 / results as f64 <= MAX_FAILURE_SHARE);
    let pm = share(|r| r.perf_pass);
    let st = share(|r| r.sd_pass);
    let perfs: Vec<f64> = rows.iter().filter(|r| r.bench != NOT_IN_PG).filter_map(|r| r.perf).collect();
    let pg = geometric_mean(&perfs);
    let score = f64::from(bf) * (2.0 * pm + st + 5.0 * pg);
    let rpp = price.filter(|_| score > 0.0).map(|p| p / score);
    Score { results, failures, bf, pm, st, pg, score, benches: rows.len(), pg_benches: perfs.len(), price, rpp }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::judge::{judge, Rule};
    use super::super::rows::{layout, rows, Grouping, Judged};
    use super::super::targets::Targets;
    use super::*;
    use mlb_record::contract::read::{Entry, Losses};
    use std::path::Path;
    use std::sync::Arc;

    /// A completed entry of bench `name` with throughput `v` (other report tests build on it).
    pub(in crate::report) fn ok(name: &str, v: f64) -> Entry {
        Entry {
            file: Arc::from(Path::new("r.json")),
            name: Some(name.into()),
            suite: None,
            vcd: Some("0".into()),
            gpu: None,
            slurm_node: None,
            hostname: None,
            completed: Some(true),
            failure: None,
            avg: Some(v),
            losses: Losses::default(),
            conditions: None,
            flops_per_item: None,
            probe_peak: None,
            args: vec![],
        }
    }

    fn failed(name: Option<&str>) -> Entry {
        Entry { name: name.map(Into::into), completed: Some(false), avg: None, ..ok("x", 0.0) }
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

    /// The score of `data` under `rule`, as `aggregate` computes it.
    fn score_of(data: &[Entry], rule: Rule) -> (Vec<Row>, Score) {
        let checks = judge(data);
        let judged: Vec<Judged> = data.iter().zip(checks).map(|(entry, check)| Judged { entry, check }).collect();
        let table = rows(&judged, &layout(&judged, Grouping::Bench), Some(&targets()), rule);
        let failures = judged.iter().filter(|j| rule.fails(j.check)).count();
        let s = score(&table, data.len(), failures, Some(1000.0));
        (table, s)
    }

    #[test]
    fn hand_computed_table_and_score() {
        // a: 90, 100, 110 -> mean 100, sd 10, perf 1.0, sd% 0.10 (fails 0.05).
        // b: 8, 8 -> mean 8, sd 0, perf 0.8, sd% 0 (passes).
        // scaling: 0.8, 0.8 -> perf 0.8 (fails 0.85), sd% 0 (passes); not in PG.
        // c: 20, 21, 19 -> mean 20, sd 1, perf 0.4 (fails 0.5), sd% 0.05 (passes, equal).
        // d: no target: in the table, failing both checks, not in PG.
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
        let (rows, score) = score_of(&data, Rule::Original);
        let names: Vec<&str> = rows.iter().map(|r| r.bench.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "scaling"]);
        let a = &rows[0];
        assert_eq!((a.results, a.failures, a.sample.n, a.sample.mean, a.sample.sd), (3, 0, 3, Some(100.0), Some(10.0)));
        assert_eq!((a.perf, a.sd_share, a.perf_pass, a.sd_pass), (Some(1.0), Some(0.1), Some(true), Some(false)));
        assert_eq!((rows[1].perf, rows[1].perf_pass, rows[1].sd_pass), (Some(0.8), Some(true), Some(true)));
        assert!(close(rows[2].perf.unwrap(), 0.4) && close(rows[2].sd_share.unwrap(), 0.05));
        assert_eq!((rows[2].perf_pass, rows[2].sd_pass), (Some(false), Some(true)));
        assert_eq!(
            (rows[3].target, rows[3].perf, rows[3].perf_pass, rows[3].sd_pass),
            (None, None, Some(false), Some(false))
        );
        assert_eq!((rows[4].perf_pass, rows[4].sd_pass), (Some(false), Some(true)));

        assert_eq!((score.results, score.failures, score.bf, score.benches, score.pg_benches), (11, 0, 1, 5, 3));
        // PM: a, b pass of 5 -> 0.4. ST: b, c, scaling of 5 -> 0.6.
        // PG: (1.0 * 0.8 * 0.4)^(1/3) = 0.32^(1/3) = 0.6839904.
        assert_eq!((score.pm, score.st), (0.4, 0.6));
        assert!((score.pg - 0.6839904).abs() < 1e-6);
        // Score: 2*0.4 + 0.6 + 5*0.6839904 = 4.819952; RPP 1000/4.819952 = 207.4710.
        assert!((score.score - 4.819952).abs() < 1e-6, "{}", score.score);
        assert!((score.rpp.unwrap() - 207.4710).abs() < 1e-3);
    }

    fn with_failures(successes: usize, failures: usize) -> Score {
        let data: Vec<Entry> = (0..successes)
            .map(|i| ok("a", 100.0 + (i % 2) as f64))
            .chain((0..failures).map(|_| failed(Some("a"))))
            .collect();
        score_of(&data, Rule::Original).1
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
    fn null_named_failures_count_in_bf_but_not_in_the_table() {
        // 132 good entries and 2 failure records of the original launcher
        // run without --name: 2 of 134 is 1.49% > 1%, BF 0.
        let mut data: Vec<Entry> = (0..132).map(|i| ok(["a", "b"][i % 2], 100.0 + (i % 3) as f64)).collect();
        data.extend([failed(None), failed(None)]);
        let (rows, s) = score_of(&data, Rule::Original);
        assert_eq!(rows.iter().map(|r| r.bench.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!((s.results, s.failures, s.bf, s.score), (134, 2, 0, 0.0));
        // One of them: 1 of 133 = 0.75%, BF 1.
        data.pop();
        assert_eq!(score_of(&data, Rule::Original).1.bf, 1);
    }

    #[test]
    fn a_bench_without_success_or_a_single_run_fails_its_checks() {
        let data = [failed(Some("a")), ok("b", 9.0)];
        let (rows, s) = score_of(&data, Rule::Original);
        assert_eq!((rows[0].sample.n, rows[0].perf_pass, rows[0].sd_pass), (0, Some(false), Some(false)));
        assert_eq!((rows[1].sd_share, rows[1].perf_pass, rows[1].sd_pass), (None, Some(true), Some(false)));
        // One failure of two results: BF 0.
        assert_eq!((s.bf, s.pm, s.st, s.pg, s.score), (0, 0.5, 0.0, 0.9, 0.0));
    }

    #[test]
    fn no_perf_at_all_gives_pg_one_as_the_original() {
        let data = [ok("unknown", 5.0), ok("unknown", 5.0)];
        let (_, s) = score_of(&data, Rule::Original);
        assert_eq!((s.pm, s.st, s.pg, s.pg_benches, s.score), (0.0, 0.0, 1.0, 0, 5.0));
    }

    #[test]
    fn multi_gpu_names() {
        assert!(is_multi_gpu("dcgan_all") && is_multi_gpu("convnet_distributed_fp16") && !is_multi_gpu("dcgan"));
    }
}
