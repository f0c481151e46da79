//! `--resume`: which job configs already have complete reports.

use crate::jobs::{render, JobConfig, Program};
use crate::record::arg_key;
use serde_json::{Map, Value};
use std::path::Path;

/// The completed reports found in an output folder.
#[derive(Debug, Default)]
pub struct Completed {
    reports: Vec<Map<String, Value>>,
}

impl Completed {
    /// Reads every `*.json` report of `outdir` with `completed: true`.
    /// Unreadable or foreign files are ignored.
    pub fn scan(outdir: &Path) -> Completed {
        let reports = std::fs::read_dir(outdir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .filter_map(|t| match serde_json::from_str(&t) {
                Ok(Value::Object(m)) if m.get("completed") == Some(&Value::Bool(true)) => Some(m),
                _ => None,
            })
            .collect();
        Completed { reports }
    }

    /// True when instances `0..instances` of `config` in run `run_id` of
    /// `suite` all have a completed report with the config's arguments.
    pub fn has(&self, suite: &str, config: &JobConfig, run_id: u64, instances: usize) -> bool {
        (0..instances).all(|jr| self.reports.iter().any(|r| matches(r, suite, config, run_id, jr)))
    }
}

fn matches(r: &Map<String, Value>, suite: &str, config: &JobConfig, run_id: u64, jr: usize) -> bool {
    let text = |k: &str| r.get(k).map(render::value);
    if text("suite").as_deref() != Some(suite)
        || text("name").as_deref() != Some(config.name.as_str())
        || text("run_id") != Some(run_id.to_string())
        || text("jr_id") != Some(jr.to_string())
    {
        return false;
    }
    // Every argument with a value must match; flags and a command's
    // positionals are not recorded the same way by every workload, and the
    // seed differs per instance.
    let cmd = matches!(config.program, Program::Cmd(_));
    let compared = |(k, v): &&(String, Value)| (!cmd || render::is_option(k)) && !render::value(v).is_empty();
    config.args.0.iter().filter(compared).all(|(k, v)| {
        let key = arg_key(k);
        key == "seed" || r.get(&key).map(render::value) == Some(render::value(v))
    })
}
