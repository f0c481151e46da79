//! The command line the launcher gives `mlb worker`.
//!
//! Every value travels in the option's own word, `--name=VALUE`: a value
//! that starts with `-` (a job named `-x`) can then never be taken for an
//! option by the worker's parser.

use crate::contract::record::Identity;
use serde_json::{Map, Value};
use std::path::Path;

/// The worker's subcommand.
pub const WORKER: &str = "worker";
/// The option naming the plugin library.
pub const PLUGIN: &str = "--plugin";

/// What a worker is started with.
#[derive(Clone, Copy, Debug)]
pub struct WorkerCommand<'a> {
    /// The plugin library, an absolute path.
    pub plugin: &'a Path,
    /// The workload of that library to run.
    pub workload: &'a str,
    /// The workload's arguments (the seed included).
    pub config: &'a Map<String, Value>,
    /// The report folder.
    pub outdir: &'a Path,
    /// Which instance.
    pub identity: &'a Identity,
}

impl WorkerCommand<'_> {
    /// The arguments after the `mlb` binary: `worker --plugin=... --config=...`.
    pub fn args(&self) -> Vec<String> {
        let id = self.identity;
        let pairs = [
            (PLUGIN, self.plugin.display().to_string()),
            ("--workload", self.workload.to_string()),
            ("--config", Value::Object(self.config.clone()).to_string()),
            ("--outdir", self.outdir.display().to_string()),
            ("--name", id.name.clone()),
            ("--suite", id.suite.clone()),
            ("--run-id", id.run_id.to_string()),
            ("--jr-id", id.jr_id.to_string()),
            ("--vcd", id.vcd.clone()),
        ];
        std::iter::once(WORKER.to_string()).chain(pairs.into_iter().map(|(k, v)| format!("{k}={v}"))).collect()
    }
}
