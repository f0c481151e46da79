//! The rows of the report's tables: one per bench (the original's grouping,
//! which the score uses) or one per config (a bench's entries split by the
//! arguments that vary between them: `convnet[arch=resnet18]`).

use super::judge::{Check, Rule};
use super::targets::{Target, Targets};
use mlb_figures::Sample;
use mlb_record::contract::read::Entry;
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// How the native views group entries into rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Grouping {
    /// One row per config: a sweep reads as a sweep (the default).
    #[default]
    Config,
    /// One row per bench, every config pooled, as the original.
    Bench,
}

/// An entry with the first check it fails.
#[derive(Clone, Copy, Debug)]
pub struct Judged<'a> {
    /// The entry.
    pub entry: &'a Entry,
    /// The first check it fails, if any.
    pub check: Option<Check>,
}

impl Judged<'_> {
    /// Its throughput when it counts under `rule` (NaN when it has none
    /// that is a measure: [`mlb_record::contract::physical`]); `None` when it fails.
    pub fn value(&self, rule: Rule) -> Option<f64> {
        let measured = self.entry.avg.and_then(mlb_record::contract::physical::items_per_second);
        (!rule.fails(self.check)).then(|| measured.unwrap_or(f64::NAN))
    }

    /// Whether the original's check and mlb's stricter one disagree on it.
    pub fn disputed(&self) -> bool {
        self.check.is_some_and(|c| !c.original())
    }
}

/// One row: a bench, or one config of a bench.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// `bench`, or `bench[arg=value ...]` naming the arguments that vary
    /// between the bench's configs.
    pub label: String,
    /// Bench name.
    pub bench: String,
    /// The varying arguments and this config's values (empty for a bench row
    /// and for a bench with a single config).
    pub args: BTreeMap<String, Value>,
    /// Entries, failures included.
    pub results: usize,
    /// Failed entries (left out of the statistics).
    pub failures: usize,
    /// Entries the original's check and mlb's stricter one judge differently:
    /// counted by default, failures with `--strict`.
    pub stricter: usize,
    /// Statistics of `train_item.avg` over the entries counted.
    pub sample: Sample,
    /// Targets of the bench, when the table has it.
    pub target: Option<Target>,
    /// `mean / target`.
    pub perf: Option<f64>,
    /// `sd / mean`.
    pub sd_share: Option<f64>,
    /// `perf >= perf_target` (false without a perf); `None` without a table.
    pub perf_pass: Option<bool>,
    /// `sd% <= sd_target` (false without an sd); `None` without a table.
    pub sd_pass: Option<bool>,
}

/// The original's sort key of a bench name (`name or "_"`).
fn sort_key(name: &str) -> &str {
    if name.is_empty() {
        "_"
    } else {
        name
    }
}

/// A row of a [`Layout`]: its label, bench and varying arguments.
#[derive(Clone, Debug)]
pub struct RowKey<'a> {
    /// `bench` or `bench[arg=value ...]`.
    pub label: String,
    /// Bench name.
    pub bench: &'a str,
    /// The varying arguments this row's entries have, sorted by name.
    pub args: Vec<(&'a str, &'a Value)>,
}

/// How entries fall into rows under a grouping, rows sorted (by bench as the
/// original sorted them, then by the config's values).
#[derive(Clone, Debug)]
pub struct Layout<'a> {
    /// The rows.
    pub rows: Vec<RowKey<'a>>,
    /// Each entry's row (an index into `rows`); `None` for a null name.
    pub of_entry: Vec<Option<usize>>,
}

/// Lays `entries` out in rows under `grouping`.
pub fn layout<'a>(entries: &[Judged<'a>], grouping: Grouping) -> Layout<'a> {
    let varying = match grouping {
        Grouping::Bench => HashMap::default(),
        Grouping::Config => varying_args(entries),
    };
    let mut index: HashMap<Cow<str>, usize> = HashMap::default();
    let mut rows: Vec<RowKey> = Vec::new();
    let of_entry: Vec<Option<usize>> = entries
        .iter()
        .map(|j| {
            let bench = j.entry.name.as_deref()?;
            let (label, args): (Cow<str>, Vec<(&str, &Value)>) = match varying.get(bench) {
                None => (Cow::Borrowed(bench), Vec::new()),
                Some(keys) => {
                    let args: Vec<(&str, &Value)> = keys
                        .iter()
                        .filter_map(|k| j.entry.args.iter().find(|(a, _)| **a == **k).map(|(a, v)| (&**a, v)))
                        .collect();
                    let parts: Vec<String> = keys
                        .iter()
                        .map(|k| match args.iter().find(|(a, _)| a == k) {
                            Some((_, v)) => format!("{k}={}", mlb_run::jobs::render::value(v)),
                            None => format!("{k}=?"),
                        })
                        .collect();
                    (Cow::Owned(format!("{bench}[{}]", parts.join(" "))), args)
                }
            };
            let next = rows.len();
            let at = *index.entry(label.clone()).or_insert(next);
            if at == next {
                rows.push(RowKey { label: label.into_owned(), bench, args });
            }
            Some(at)
        })
        .collect();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&rows[a], &rows[b]);
        sort_key(a.bench)
            .cmp(sort_key(b.bench))
            .then_with(|| {
                let pairs = a.args.iter().zip(&b.args);
                pairs
                    .map(|((ka, va), (kb, vb))| ka.cmp(kb).then_with(|| cmp_value(va, vb)))
                    .find(|o| o.is_ne())
                    .unwrap_or(b.args.len().cmp(&a.args.len())) // a missing value (`?`) last
            })
            .then_with(|| a.label.cmp(&b.label))
    });
    let mut rank = vec![0; rows.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    let mut sorted: Vec<Option<RowKey>> = rows.into_iter().map(Some).collect();
    let rows = order.iter().map(|&i| sorted[i].take().expect("each row once")).collect();
    Layout { rows, of_entry: of_entry.into_iter().map(|r| r.map(|r| rank[r])).collect() }
}

/// Per bench, the arguments that take two or more values among its entries
/// (entries without the argument, like the original's failure records, do
/// not make it vary), sorted. Each entry's sorted arguments are walked along
/// the first values seen for its bench.
fn varying_args<'a>(entries: &[Judged<'a>]) -> HashMap<&'a str, Vec<&'a str>> {
    struct Seen<'a> {
        first: Vec<(&'a str, &'a Value)>,
        varying: BTreeSet<&'a str>,
    }
    let mut benches: HashMap<&str, Seen> = HashMap::default();
    for j in entries {
        let Some(bench) = j.entry.name.as_deref() else { continue };
        let seen = benches.entry(bench).or_insert_with(|| Seen { first: Vec::new(), varying: BTreeSet::new() });
        let (mut i, mut new) = (0, Vec::new());
        for (k, v) in &j.entry.args {
            while i < seen.first.len() && seen.first[i].0 < &**k {
                i += 1;
            }
            match seen.first.get(i) {
                Some((f, first)) if **f == **k => {
                    if *first != v {
                        seen.varying.insert(f);
                    }
                }
                _ => new.push((&**k, v)),
            }
        }
        if !new.is_empty() {
            seen.first.extend(new);
            seen.first.sort_by(|a, b| a.0.cmp(b.0));
        }
    }
    benches
        .into_iter()
        .filter(|(_, s)| !s.varying.is_empty())
        .map(|(b, s)| (b, s.varying.into_iter().collect()))
        .collect()
}

/// Orders config values: numbers by value, then strings, booleans, nulls.
fn cmp_value(a: &Value, b: &Value) -> Ordering {
    let rank = |v: &Value| match v {
        Value::Number(_) => 0,
        Value::String(_) => 1,
        Value::Bool(_) => 2,
        _ => 3,
    };
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.as_f64().unwrap_or(f64::NAN).total_cmp(&y.as_f64().unwrap_or(f64::NAN))
        }
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// The rows of `layout` over `entries`, judged by `rule`.
pub fn rows(entries: &[Judged], layout: &Layout, targets: Option<&Targets>, rule: Rule) -> Vec<Row> {
    let mut accs: Vec<(usize, usize, Vec<f64>)> = vec![(0, 0, Vec::new()); layout.rows.len()];
    for (j, row) in entries.iter().zip(&layout.of_entry) {
        let Some(row) = row else { continue };
        let (results, stricter, values) = &mut accs[*row];
        *results += 1;
        *stricter += usize::from(j.disputed());
        values.extend(j.value(rule));
    }
    layout
        .rows
        .iter()
        .zip(accs)
        .map(|(key, (results, stricter, values))| {
            let sample = Sample::of(&values);
            let target = targets.and_then(|t| t.get(key.bench)).copied();
            let perf = sample.mean.zip(target).map(|(m, t)| m / t.target).filter(|p| !p.is_nan());
            let sd_share = sample.sd_share();
            Row {
                label: key.label.clone(),
                bench: key.bench.to_string(),
                args: key.args.iter().map(|(k, v)| (k.to_string(), (*v).clone())).collect(),
                results,
                failures: results - values.len(),
                stricter,
                sample,
                target,
                perf,
                sd_share,
                perf_pass: targets.map(|_| perf.zip(target).is_some_and(|(p, t)| p >= t.perf_target)),
                sd_pass: targets.map(|_| sd_share.zip(target).is_some_and(|(s, t)| s <= t.sd_target)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_record::contract::read::Losses;
    use serde_json::json;
    use std::path::Path;
    use std::sync::Arc;

    fn entry(name: &str, args: Value, avg: f64) -> Entry {
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
            avg: Some(avg),
            losses: Losses::default(),
            conditions: None,
            flops_per_item: None,
            probe_peak: None,
            args: args.as_object().unwrap().iter().map(|(k, v)| (k.as_str().into(), v.clone())).collect(),
        }
    }

    fn judged(entries: &[Entry]) -> Vec<Judged<'_>> {
        entries.iter().map(|entry| Judged { entry, check: None }).collect()
    }

    fn targets() -> Targets {
        Targets::parse("t.csv", "bench,target,perf_target,sd_target\nconvnet,100,0.5,0.05\n").unwrap()
    }

    #[test]
    fn a_sweep_splits_into_configs_sorted_by_value() {
        let data: Vec<Entry> = [("resnet50", 128, 40.0), ("resnet18", 32, 100.0), ("resnet18", 128, 110.0)]
            .into_iter()
            .flat_map(|(arch, bs, v)| {
                [0.0, 2.0].map(|d| entry("convnet", json!({"arch": arch, "batch_size": bs, "lr": 0.1}), v + d))
            })
            .chain([entry("vae", json!({"batch_size": 64}), 7.0), entry("vae", json!({"batch_size": 64}), 9.0)])
            .collect();
        let j = judged(&data);
        let rows = rows(&j, &layout(&j, Grouping::Config), Some(&targets()), Rule::Original);
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "convnet[arch=resnet18 batch_size=32]",
                "convnet[arch=resnet18 batch_size=128]",
                "convnet[arch=resnet50 batch_size=128]",
                "vae"
            ]
        );
        assert_eq!(
            rows[0].args,
            BTreeMap::from([("arch".into(), json!("resnet18")), ("batch_size".into(), json!(32))])
        );
        assert_eq!((rows[0].sample.n, rows[0].sample.mean, rows[0].perf), (2, Some(101.0), Some(1.01)));
        assert!(rows[3].args.is_empty() && rows[3].perf.is_none() && rows[3].perf_pass == Some(false));
        let pooled = super::rows(&j, &layout(&j, Grouping::Bench), Some(&targets()), Rule::Original);
        assert_eq!(pooled.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(), ["convnet", "vae"]);
        assert_eq!(pooled[0].sample.n, 6);
        assert!(pooled[0].args.is_empty());
    }

    #[test]
    fn entries_without_the_argument_do_not_vary_it() {
        let mut failed = entry("convnet", json!({}), f64::NAN);
        failed.completed = Some(false);
        let data = [entry("convnet", json!({"arch": "a"}), 1.0), failed, entry("convnet", json!({"arch": "a"}), 3.0)];
        let j: Vec<Judged> = data
            .iter()
            .map(|entry| Judged { entry, check: (entry.completed == Some(false)).then_some(Check::Incomplete) })
            .collect();
        let rows = rows(&j, &layout(&j, Grouping::Config), None, Rule::Original);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].label.as_str(), rows[0].results, rows[0].failures), ("convnet", 3, 1));
        assert_eq!((rows[0].perf_pass, rows[0].sd_pass), (None, None));
    }

    #[test]
    fn an_entry_without_a_varying_argument_shows_a_question_mark() {
        let data = [
            entry("convnet", json!({"arch": "a"}), 1.0),
            entry("convnet", json!({"arch": "b"}), 2.0),
            entry("convnet", json!({}), 3.0),
        ];
        let j = judged(&data);
        let l = layout(&j, Grouping::Config);
        let labels: Vec<&str> = l.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["convnet[arch=a]", "convnet[arch=b]", "convnet[arch=?]"]);
        assert_eq!(l.of_entry, [Some(0), Some(1), Some(2)]);
    }

    #[test]
    fn stricter_entries_count_by_default_and_fail_with_strict() {
        let data = [entry("a", json!({}), 10.0), entry("a", json!({}), f64::NAN), entry("a", json!({}), 20.0)];
        let checks = [None, Some(Check::NoThroughput), Some(Check::InfiniteLoss)];
        let j: Vec<Judged> = data.iter().zip(checks).map(|(entry, check)| Judged { entry, check }).collect();
        let original = &rows(&j, &layout(&j, Grouping::Bench), None, Rule::Original)[0];
        assert_eq!((original.results, original.failures, original.stricter), (3, 0, 2));
        assert_eq!((original.sample.n, original.sample.count, original.sample.mean), (3, 2, Some(15.0)));
        let strict = &rows(&j, &layout(&j, Grouping::Bench), None, Rule::Strict)[0];
        assert_eq!((strict.failures, strict.stricter, strict.sample.n, strict.sample.mean), (2, 2, 1, Some(10.0)));
    }
}
