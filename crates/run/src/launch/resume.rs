//! `--resume`: which job configs already have complete reports.

use crate::jobs::{render, JobConfig, Program};
use mlb_record::contract::record::arg_key;
use mlb_record::contract::Report;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Where a report belongs: suite, job name and run id.
type Place = (String, String, u64);

/// The arguments a config is compared on, by their report key, in order.
type Keys = Vec<String>;

/// The instances (`jr_id`) with a completed report, by the rendered values
/// of a [`Keys`] in that report.
type ByValues = HashMap<Vec<String>, HashSet<u32>>;

/// The completed reports found in an output folder.
///
/// Looking a config up costs about the same whatever the number of reports:
/// the reports are grouped by suite, job and run, and each group is indexed
/// once (on first use) by the values of the arguments its configs are
/// compared on; a job's configs are compared on the same arguments.
#[derive(Debug, Default)]
pub struct Completed {
    reports: HashMap<Place, Vec<Report>>,
    indexed: RefCell<HashMap<(Place, Keys), ByValues>>,
}

impl Completed {
    /// Reads every `*.json` report of `outdir`, and of its folders one
    /// level down (a multi-node run's folder per node), with `completed:
    /// true`, through the one tolerant reader (the original suite's files
    /// too). Unreadable or foreign files are ignored, and so is anything
    /// that is not a regular file (a FIFO named `*.json` would block the
    /// read); linked folders are not followed.
    pub fn scan(outdir: &Path) -> Completed {
        let list = |dir: &Path| -> Vec<std::path::PathBuf> {
            std::fs::read_dir(dir).into_iter().flatten().filter_map(|e| e.ok()).map(|e| e.path()).collect()
        };
        let top = list(outdir);
        let below = top.iter().filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())).flat_map(|d| list(d));
        let mut reports: HashMap<Place, Vec<Report>> = HashMap::new();
        below
            .chain(top.iter().cloned())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
            .filter_map(|p| Report::load_all(&p).ok())
            .flatten()
            .filter(|r| r.completed)
            .for_each(|r| reports.entry((r.suite.clone(), r.name.clone(), r.run_id)).or_default().push(r));
        Completed { reports, indexed: RefCell::default() }
    }

    /// True when instances `0..instances` of `config` in run `run_id` of
    /// `suite` all have a completed report with the config's arguments.
    pub fn has(&self, suite: &str, config: &JobConfig, run_id: u64, instances: usize) -> bool {
        let place = (suite.to_string(), config.name.clone(), run_id);
        let Some(reports) = self.reports.get(&place) else { return false };
        let (keys, values): (Keys, Vec<String>) = compared(config).unzip();
        let mut indexed = self.indexed.borrow_mut();
        let by_values = indexed.entry((place, keys)).or_insert_with_key(|(_, keys)| index(reports, keys));
        by_values.get(&values).is_some_and(|done| (0..instances).all(|jr| done.contains(&(jr as u32))))
    }
}

/// The arguments of `config` a report must hold, by report key, with their
/// rendered values. Every argument with a value counts; flags and a
/// command's positionals are not recorded the same way by every workload,
/// and the seed differs per instance.
fn compared(config: &JobConfig) -> impl Iterator<Item = (String, String)> + '_ {
    let cmd = matches!(config.program, Program::Cmd(_));
    config
        .args
        .0
        .iter()
        .filter(move |(k, _)| !cmd || render::is_option(k))
        .map(|(k, v)| (arg_key(k), render::value(v)))
        .filter(|(key, value)| !value.is_empty() && key != "seed")
}

/// `reports` (of one place) by their rendered values of `keys`; a report
/// lacking one of them matches no config.
fn index(reports: &[Report], keys: &[String]) -> ByValues {
    let mut by_values = ByValues::new();
    for r in reports {
        let values: Option<Vec<String>> = keys.iter().map(|k| r.get(k).map(|got| render::value(&got))).collect();
        if let Some(values) = values {
            by_values.entry(values).or_default().insert(r.jr_id);
        }
    }
    by_values
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{Args, Scope};
    use mlb_record::contract::record::Identity;
    use serde_json::{json, Value};

    fn config(args: Value) -> JobConfig {
        JobConfig {
            position: 1,
            name: "vae".into(),
            program: Program::Plugin("vae".into()),
            args: Args(args.as_object().unwrap().clone().into_iter().collect()),
            scope: Scope::Student,
            group: None,
            index: 1,
            of: 1,
            varying: Vec::new(),
        }
    }

    fn write(dir: &Path, jr_id: u32, completed: bool, args: Value) {
        let id = Identity { suite: "s".into(), name: "vae".into(), run_id: 2, jr_id, vcd: jr_id.to_string() };
        let report =
            Report { args: args.as_object().unwrap().clone(), completed, devices: Some(1), ..Report::new(&id) };
        report.write(dir).unwrap();
    }

    #[test]
    fn complete_configs_are_found_and_foreign_files_ignored() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), 0, true, json!({"batch_size": 64, "lr": 0.1, "seed": 100}));
        write(dir.path(), 1, false, json!({"batch_size": 64, "lr": 0.1, "seed": 200}));
        std::fs::write(dir.path().join("foreign.json"), r#"{"completed": true, "name": "vae"}"#).unwrap();
        std::fs::write(dir.path().join("broken.json"), "{").unwrap();
        // A FIFO would block a read forever: it is not a report.
        nix::unistd::mkfifo(&dir.path().join("fifo.json"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let done = Completed::scan(dir.path());
        assert_eq!(done.reports.values().map(Vec::len).sum::<usize>(), 1, "only the completed report");
        let c = config(json!({"--batch-size": 64, "lr": "0.1", "--cuda": ""}));
        assert!(done.has("s", &c, 2, 1));
        assert!(!done.has("s", &c, 2, 2), "instance 1 failed");
        assert!(!done.has("s", &c, 3, 1), "another run");
        assert!(!done.has("t", &c, 2, 1), "another suite");
        assert!(!done.has("s", &config(json!({"batch_size": 128})), 2, 1), "another config");
        assert!(done.has("s", &config(json!({"devices": 1})), 2, 1), "an argument the report holds as a field");
        write(dir.path(), 1, true, json!({"batch_size": 64, "lr": 0.1, "seed": 200}));
        assert!(Completed::scan(dir.path()).has("s", &c, 2, 2));
    }

    #[test]
    fn the_configs_of_a_sweep_each_find_only_their_own_reports() {
        let dir = tempfile::tempdir().unwrap();
        for lr in [1, 2, 3] {
            write(dir.path(), 0, true, json!({"batch_size": 64, "lr": lr}));
        }
        write(dir.path(), 1, true, json!({"batch_size": 64, "lr": 2}));
        let done = Completed::scan(dir.path());
        let sweep = |lr: i64| config(json!({"--batch-size": 64, "--lr": lr}));
        assert!(done.has("s", &sweep(1), 2, 1) && done.has("s", &sweep(3), 2, 1));
        assert!(!done.has("s", &sweep(1), 2, 2), "instance 1 of lr=1 has no report");
        assert!(done.has("s", &sweep(2), 2, 2), "both instances of lr=2 have one");
        assert!(!done.has("s", &sweep(4), 2, 1), "no report of lr=4");
        assert!(!done.has("s", &config(json!({"--lr": 1, "--momentum": 0.9})), 2, 1), "a key no report holds");
    }
}
