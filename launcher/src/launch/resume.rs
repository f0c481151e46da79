//! `--resume`: which job configs already have complete reports.

use crate::contract::record::arg_key;
use crate::contract::Report;
use crate::jobs::{render, JobConfig, Program};
use serde_json::Value;
use std::path::Path;

/// The completed reports found in an output folder.
#[derive(Debug, Default)]
pub struct Completed {
    reports: Vec<Report>,
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
        let reports = below
            .chain(top.iter().cloned())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
            .filter_map(|p| Report::load_all(&p).ok())
            .flatten()
            .filter(|r| r.completed)
            .collect();
        Completed { reports }
    }

    /// True when instances `0..instances` of `config` in run `run_id` of
    /// `suite` all have a completed report with the config's arguments.
    pub fn has(&self, suite: &str, config: &JobConfig, run_id: u64, instances: usize) -> bool {
        (0..instances).all(|jr| self.reports.iter().any(|r| matches(r, suite, config, run_id, jr)))
    }
}

fn matches(r: &Report, suite: &str, config: &JobConfig, run_id: u64, jr: usize) -> bool {
    if r.suite != suite || r.name != config.name || r.run_id != run_id || r.jr_id as usize != jr {
        return false;
    }
    // Every argument with a value must match; flags and a command's
    // positionals are not recorded the same way by every workload, and the
    // seed differs per instance.
    let cmd = matches!(config.program, Program::Cmd(_));
    let compared = |(k, v): &&(String, Value)| (!cmd || render::is_option(k)) && !render::value(v).is_empty();
    config.args.0.iter().filter(compared).all(|(k, v)| {
        let key = arg_key(k);
        key == "seed" || r.get(&key).map(|got| render::value(&got)) == Some(render::value(v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::record::Identity;
    use crate::jobs::{Args, Scope};
    use serde_json::json;

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
        assert_eq!(done.reports.len(), 1, "only the completed report");
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
}
