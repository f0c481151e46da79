//! Data parallel groups: the ranks of a process group each write a report
//! holding `world_size` (the DDP workloads do), a config argument like any
//! other. For each config run by a group of more than one rank: the group's
//! total throughput (the mean rank's throughput times the group's size) and
//! its scaling efficiency, the mean rank's throughput over that of the same
//! config run by one rank (`world_size` 1). `threads` is left out of the
//! comparison: one rank alone on a host gets the CPUs of every slot.

use super::judge::Rule;
use super::rows::Judged;
use mlb_figures::Sample;
use serde::Serialize;
use std::collections::BTreeMap;

/// The report key that says a report is a rank of a group of that size.
pub const WORLD_SIZE: &str = "world_size";

/// Report keys that do not tell configs apart here: the group's size and
/// the threads each rank got.
const NOT_COMPARED: [&str; 2] = ["threads", WORLD_SIZE];

/// One config run by a group of ranks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupRow {
    /// `bench`, or `bench[arg=value ...]` naming the other arguments of the
    /// config (those that vary between the bench's groups).
    pub label: String,
    /// Ranks in the group.
    pub world: u64,
    /// Statistics of the ranks' throughputs (every rank of every run).
    pub per_rank: Sample,
    /// The group's total throughput: the mean rank's times `world`.
    pub total: Option<f64>,
    /// The mean throughput of the same config run by one rank, when the
    /// reports hold it.
    pub one_rank: Option<f64>,
    /// `per_rank.mean / one_rank`: 1.0 is perfect scaling.
    pub efficiency: Option<f64>,
}

/// The group rows of the entries that count under `rule`, sorted by label
/// and group size; none when no entry holds a `world_size` above 1.
pub fn groups(judged: &[Judged], rule: Rule) -> Vec<GroupRow> {
    // (bench, the other arguments as `(key, value)` text) -> world size -> throughputs.
    type Config<'a> = (&'a str, Vec<(&'a str, String)>);
    let mut by_config: BTreeMap<Config, BTreeMap<u64, Vec<f64>>> = BTreeMap::new();
    for j in judged {
        let Some(world) = j.entry.args.iter().find(|(k, _)| **k == *WORLD_SIZE).and_then(|(_, v)| v.as_u64()) else {
            continue;
        };
        let Some(v) = j.value(rule) else { continue };
        let others = j.entry.args.iter().filter(|(k, _)| !NOT_COMPARED.contains(&&**k));
        let others = others.map(|(k, v)| (&**k, v.to_string()));
        by_config.entry((j.entry.bench_label(), others.collect())).or_default().entry(world).or_default().push(v);
    }
    // Per bench, the arguments whose value differs from its first config's.
    let mut varying: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut first: BTreeMap<&str, &Vec<(&str, String)>> = BTreeMap::new();
    for (bench, args) in by_config.keys() {
        let seen = first.entry(bench).or_insert(args);
        for (k, v) in args {
            if !seen.contains(&(*k, v.clone())) {
                varying.entry(bench).or_default().push(k);
            }
        }
    }
    let mut out = Vec::new();
    for ((bench, args), by_world) in &by_config {
        let one_rank = by_world.get(&1).and_then(|v| Sample::of(v).mean);
        let keys = varying.get(bench).cloned().unwrap_or_default();
        let shown: Vec<String> =
            args.iter().filter(|(k, _)| keys.contains(k)).map(|(k, v)| format!("{k}={v}")).collect();
        let label = if shown.is_empty() { bench.to_string() } else { format!("{bench}[{}]", shown.join(" ")) };
        for (&world, values) in by_world.iter().filter(|(&w, _)| w > 1) {
            let per_rank = Sample::of(values);
            out.push(GroupRow {
                label: label.clone(),
                world,
                per_rank,
                total: per_rank.mean.map(|m| m * world as f64),
                one_rank,
                efficiency: per_rank.mean.zip(one_rank).map(|(m, one)| m / one).filter(|e| e.is_finite()),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::judge::Check;
    use super::super::score::tests::ok;
    use super::*;
    use mlb_record::contract::read::Entry;
    use serde_json::json;

    fn rank(name: &str, world: u64, batch: u64, v: f64) -> Entry {
        let args = vec![
            ("batch_size".into(), json!(batch)),
            ("threads".into(), json!(8 / world)),
            (WORLD_SIZE.into(), json!(world)),
        ];
        Entry { args, ..ok(name, v) }
    }

    fn judged(entries: &[Entry], failed: usize) -> Vec<Judged<'_>> {
        entries
            .iter()
            .enumerate()
            .map(|(i, entry)| Judged { entry, check: (i == failed).then_some(Check::Incomplete) })
            .collect()
    }

    #[test]
    fn groups_sum_their_ranks_and_compare_with_one_rank() {
        let entries = [
            rank("ddp", 1, 32, 100.0),
            rank("ddp", 1, 32, 110.0),
            rank("ddp", 2, 32, 90.0),
            rank("ddp", 2, 32, 80.0),
            rank("ddp", 4, 32, 70.0),
            rank("ddp", 4, 32, 1e9),
            rank("ddp", 2, 64, 150.0),
            rank("plain", 1, 32, 5.0),
        ];
        let rows = groups(&judged(&entries, 5), Rule::Original);
        let got: Vec<(&str, u64, Option<f64>, Option<f64>)> =
            rows.iter().map(|r| (r.label.as_str(), r.world, r.total, r.efficiency)).collect();
        assert_eq!(
            got,
            [
                ("ddp[batch_size=32]", 2, Some(170.0), Some(85.0 / 105.0)),
                ("ddp[batch_size=32]", 4, Some(280.0), Some(70.0 / 105.0)),
                ("ddp[batch_size=64]", 2, Some(300.0), None),
            ],
            "the failed rank is left out; a config without a one-rank run has no efficiency"
        );
        assert_eq!(rows[0].per_rank.n, 2);
        assert!(groups(&judged(&entries[7..], 9), Rule::Original).is_empty(), "no group: no row");
    }
}
