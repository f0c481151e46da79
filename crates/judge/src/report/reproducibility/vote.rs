//! The vote: instances of one config on one device model and software
//! stack must have computed the same bits. Step by step over the steps
//! every instance fingerprinted, the fingerprint most instances share is
//! the majority's when more than half share it; an instance that leaves
//! it is an outlier (a suspect GPU), named with the first step where it
//! differs. Where no fingerprint has more than half, the vote cannot say
//! which instance is wrong: the stack is not reproducible, a finding about
//! the software rather than a failed GPU. Two instances that differ are
//! always that case: one against one has no majority.

use super::instance::{Instance, Name};
use mlb_record::contract::determinism::Fingerprint;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// What the vote found in one group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Every instance computed the same bits at every step compared.
    BitIdentical,
    /// A strict majority at every step, and instances that left it.
    Outliers {
        /// The instances of the majority at the last step compared.
        majority: usize,
        /// Each instance that left the majority, with the first step where it did.
        outliers: Vec<Outlier>,
    },
    /// At `step`, no fingerprint was shared by more than half the instances.
    NotReproducible {
        /// The first step without a strict majority.
        step: u64,
        /// The most instances that agreed at that step.
        agreeing: usize,
        /// The first step where the instances did not all agree (at or before `step`).
        first_difference: u64,
    },
    /// One instance: nothing to vote (no failure).
    OneInstance,
    /// No step fingerprinted by every instance: nothing to compare.
    NoCommonStep,
}

/// An instance that left the majority.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outlier {
    /// Which instance.
    pub instance: Name,
    /// The first step where its fingerprint is not the majority's.
    pub step: u64,
}

/// An instance with fewer fingerprints than the most of its group (it
/// stopped early, or fingerprinted at another interval): the steps it
/// lacks are not compared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Short {
    /// Which instance.
    pub instance: Name,
    /// Its fingerprints.
    pub fingerprints: usize,
    /// Its last fingerprinted step (none: no fingerprint at all).
    pub last_step: Option<u64>,
}

/// The instances of one config on one device model and stack, and their vote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The config: its row label in the report.
    pub config: String,
    /// Its bench.
    pub bench: String,
    /// The device model (GPU name, or CPU model).
    pub device: String,
    /// What else decides the bits (plugin build, libtorch, kernels, threads...).
    pub stack: BTreeMap<String, String>,
    /// Every instance, in run, node and device order.
    pub instances: Vec<Name>,
    /// The distinct nodes they ran on.
    pub nodes: usize,
    /// The steps compared: those every instance fingerprinted.
    pub compared: usize,
    /// The last step compared.
    pub last_step: Option<u64>,
    /// The most fingerprints an instance of the group has.
    pub most: usize,
    /// Instances with fewer fingerprints than `most`.
    pub short: Vec<Short>,
    /// What the vote found.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// Groups `instances` by (config, device, stack), in the order of the
/// report's rows, and votes in each group.
pub fn vote(instances: Vec<Instance>) -> Vec<Group> {
    let mut groups: BTreeMap<(usize, String, BTreeMap<String, String>), Vec<Instance>> = BTreeMap::new();
    for i in instances {
        let key = (i.row, i.determinism.device.clone(), i.determinism.stack.clone());
        groups.entry(key).or_default().push(i);
    }
    groups.into_values().map(group).collect()
}

/// The vote of one group's `members` (all of one config, device and stack).
fn group(mut members: Vec<Instance>) -> Group {
    members.sort_by(|a, b| a.name.order().cmp(&b.name.order()));
    let first = &members[0];
    let (config, bench, device) = (first.config.clone(), first.bench.clone(), first.determinism.device.clone());
    let stack = first.determinism.stack.clone();
    let nodes = members.iter().map(|m| m.name.node.as_deref()).collect::<BTreeSet<_>>().len();
    // Each member's fingerprints by step.
    let by_step: Vec<BTreeMap<u64, &Fingerprint>> =
        members.iter().map(|m| m.determinism.fingerprints.iter().map(|f| (f.step, f)).collect()).collect();
    let most = by_step.iter().map(BTreeMap::len).max().unwrap_or(0);
    let common: Vec<u64> =
        by_step[0].keys().copied().filter(|s| by_step.iter().all(|steps| steps.contains_key(s))).collect();
    let short = members
        .iter()
        .zip(&by_step)
        .filter(|(_, steps)| steps.len() < most)
        .map(|(m, steps)| Short {
            instance: m.name.clone(),
            fingerprints: steps.len(),
            last_step: steps.keys().next_back().copied(),
        })
        .collect();
    let verdict = match (members.len(), common.is_empty()) {
        (1, _) => Verdict::OneInstance,
        (_, true) => Verdict::NoCommonStep,
        _ => steps(&members, &by_step, &common),
    };
    Group {
        config,
        bench,
        device,
        stack,
        instances: members.into_iter().map(|m| m.name).collect(),
        nodes,
        compared: common.len(),
        last_step: common.last().copied(),
        most,
        short,
        verdict,
    }
}

/// The vote over the `common` steps of two or more `members`.
fn steps(members: &[Instance], by_step: &[BTreeMap<u64, &Fingerprint>], common: &[u64]) -> Verdict {
    let n = members.len();
    let mut left: Vec<Option<u64>> = vec![None; n];
    let (mut first_difference, mut majority) = (None, n);
    for &step in common {
        // The classes of members that computed the same fingerprint.
        let mut classes: Vec<(&Fingerprint, Vec<usize>)> = Vec::new();
        for (i, steps) in by_step.iter().enumerate() {
            let print = steps[&step];
            match classes.iter_mut().find(|(f, _)| f.same_as(print)) {
                Some((_, class)) => class.push(i),
                None => classes.push((print, vec![i])),
            }
        }
        if classes.len() > 1 {
            first_difference.get_or_insert(step);
        }
        let largest = classes.iter().map(|(_, c)| c).max_by_key(|c| c.len()).expect("two members or more");
        if 2 * largest.len() <= n {
            let first_difference = first_difference.unwrap_or(step);
            return Verdict::NotReproducible { step, agreeing: largest.len(), first_difference };
        }
        majority = largest.len();
        for i in (0..n).filter(|i| !largest.contains(i)) {
            left[i].get_or_insert(step);
        }
    }
    let outliers: Vec<Outlier> = members
        .iter()
        .zip(left)
        .filter_map(|(m, step)| Some(Outlier { instance: m.name.clone(), step: step? }))
        .collect();
    if outliers.is_empty() {
        Verdict::BitIdentical
    } else {
        Verdict::Outliers { majority, outliers }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use mlb_record::contract::determinism::Determinism;
    use std::path::PathBuf;

    /// An instance of config `row` of run `run` on `node`, slot `vcd`,
    /// computing `prints` (a parameter hash letter per step, from step 10
    /// every 10 steps) on `device`.
    pub fn instance(row: usize, run: u64, node: &str, vcd: &str, device: &str, prints: &str) -> Instance {
        let fingerprints = prints
            .chars()
            .enumerate()
            .map(|(i, c)| Fingerprint {
                step: 10 * (i as u64 + 1),
                loss: Some("3fb999999999999a".into()),
                grad_norm: None,
                params: c.to_string().repeat(32),
            })
            .collect();
        let stack = BTreeMap::from([("threads".to_string(), "1".to_string())]);
        Instance {
            row,
            config: format!("spin[n={row}]"),
            bench: "spin".into(),
            name: Name {
                run_id: run,
                jr_id: 0,
                node: Some(node.into()),
                vcd: Some(vcd.into()),
                file: PathBuf::from(format!("{node}/{run}.{vcd}.json")),
                origin: None,
            },
            determinism: Determinism { every: 10, device: device.into(), stack, fingerprints, spent_us: 0 },
        }
    }

    fn one(instances: Vec<Instance>) -> Group {
        let mut groups = vote(instances);
        assert_eq!(groups.len(), 1, "{groups:#?}");
        groups.remove(0)
    }

    #[test]
    fn identical_instances_on_two_nodes() {
        let g = one(vec![
            instance(0, 0, "n1", "0", "H100", "aaaa"),
            instance(0, 0, "n1", "1", "H100", "aaaa"),
            instance(0, 0, "n2", "0", "H100", "aaaa"),
            instance(0, 1, "n2", "1", "H100", "aaaa"),
        ]);
        assert_eq!(g.verdict, Verdict::BitIdentical);
        assert_eq!((g.instances.len(), g.nodes, g.compared, g.last_step), (4, 2, 4, Some(40)));
        assert!(g.short.is_empty());
    }

    #[test]
    fn an_outlier_among_three_is_named_with_its_first_step() {
        let g = one(vec![
            instance(0, 0, "n1", "0", "H100", "abcd"),
            instance(0, 0, "n1", "2", "H100", "abxy"),
            instance(0, 0, "n1", "1", "H100", "abcd"),
        ]);
        let Verdict::Outliers { majority, outliers } = &g.verdict else { panic!("{g:#?}") };
        assert_eq!(*majority, 2);
        assert_eq!(outliers.len(), 1);
        assert_eq!((outliers[0].instance.to_string(), outliers[0].step), ("run 0 node n1 vcd 2".into(), 30));
        let slots: Vec<_> = g.instances.iter().map(|n| n.vcd.as_deref().unwrap()).collect();
        assert_eq!(slots, ["0", "1", "2"], "in device order");
    }

    #[test]
    fn one_bit_of_the_loss_is_a_difference() {
        let mut other = instance(0, 0, "n1", "1", "H100", "aa");
        other.determinism.fingerprints[1].loss = Some("3fb999999999999b".into());
        let g = one(vec![instance(0, 0, "n1", "0", "H100", "aa"), other, instance(0, 0, "n1", "2", "H100", "aa")]);
        let Verdict::Outliers { outliers, .. } = &g.verdict else { panic!("{g:#?}") };
        assert_eq!(outliers[0].step, 20);
    }

    #[test]
    fn two_that_differ_are_not_reproducible_with_the_step() {
        let g = one(vec![instance(0, 0, "n1", "0", "H100", "aabb"), instance(0, 0, "n1", "1", "H100", "aacc")]);
        assert_eq!(g.verdict, Verdict::NotReproducible { step: 30, agreeing: 1, first_difference: 30 });
    }

    #[test]
    fn no_majority_after_an_outlier_is_not_reproducible_from_the_first_difference() {
        let g = one(vec![
            instance(0, 0, "n1", "0", "H100", "aaa"),
            instance(0, 0, "n1", "1", "H100", "abb"),
            instance(0, 0, "n1", "2", "H100", "aac"),
            instance(0, 0, "n1", "3", "H100", "aad"),
        ]);
        assert_eq!(g.verdict, Verdict::NotReproducible { step: 30, agreeing: 1, first_difference: 20 });
    }

    #[test]
    fn groups_split_by_config_device_and_stack() {
        let mut other_stack = instance(0, 0, "n1", "2", "H100", "bb");
        other_stack.determinism.stack.insert("threads".into(), "2".into());
        let groups = vote(vec![
            instance(1, 0, "n1", "0", "H100", "cc"),
            instance(0, 0, "n1", "0", "H100", "aa"),
            instance(0, 0, "n1", "1", "H100", "aa"),
            instance(0, 0, "n2", "0", "A100", "zz"),
            other_stack,
        ]);
        let found: Vec<_> = groups
            .iter()
            .map(|g| (g.config.as_str(), g.device.as_str(), g.stack["threads"].as_str(), g.instances.len(), &g.verdict))
            .collect();
        assert_eq!(
            found,
            [
                ("spin[n=0]", "A100", "1", 1, &Verdict::OneInstance),
                ("spin[n=0]", "H100", "1", 2, &Verdict::BitIdentical),
                ("spin[n=0]", "H100", "2", 1, &Verdict::OneInstance),
                ("spin[n=1]", "H100", "1", 1, &Verdict::OneInstance),
            ]
        );
    }

    #[test]
    fn instances_with_fewer_fingerprints_are_compared_on_the_steps_they_have() {
        let g = one(vec![
            instance(0, 0, "n1", "0", "H100", "abcd"),
            instance(0, 0, "n1", "1", "H100", "ab"),
            instance(0, 0, "n1", "2", "H100", "abcx"),
        ]);
        assert_eq!(g.verdict, Verdict::BitIdentical, "step 40 is not common to all");
        assert_eq!((g.compared, g.last_step, g.most), (2, Some(20), 4));
        assert_eq!(g.short.len(), 1);
        assert_eq!((g.short[0].instance.to_string(), g.short[0].fingerprints), ("run 0 node n1 vcd 1".into(), 2));
        assert_eq!(g.short[0].last_step, Some(20));
        let none = one(vec![instance(0, 0, "n1", "0", "H100", "ab"), instance(0, 0, "n1", "1", "H100", "")]);
        assert_eq!((none.verdict, none.short[0].last_step), (Verdict::NoCommonStep, None));
    }
}
