//! The command line the launcher gives `mlb worker`.
//!
//! Every value travels in the option's own word, `--name=VALUE`: a value
//! that starts with `-` (a job named `-x`) can then never be taken for an
//! option by the worker's parser.

use crate::record::Identity;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;
    use serde_json::json;

    #[test]
    fn odd_values_reach_the_worker_as_they_are() {
        for (name, suite) in [("-x", "-s"), ("--plugin", "--help"), ("a b=c", "ü 試験"), ("", "s")] {
            let identity = Identity { suite: suite.into(), name: name.into(), run_id: 4, jr_id: 2, vcd: "0,1".into() };
            let config = json!({"--lr": "-0.1", "seed": 300}).as_object().unwrap().clone();
            let command = WorkerCommand {
                plugin: Path::new("/p/-lib spin.so"),
                workload: "-spin",
                config: &config,
                outdir: Path::new("/o/-out"),
                identity: &identity,
            };
            let argv = std::iter::once("mlb".to_string()).chain(command.args());
            let cli = Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{name:?}: {e}"));
            let Some(Command::Worker(w)) = cli.command else { panic!("not the worker") };
            assert_eq!(w.plugin.as_deref(), Some(Path::new("/p/-lib spin.so")));
            assert_eq!(w.workload.as_deref(), Some("-spin"));
            assert_eq!(serde_json::from_str::<Value>(&w.config).unwrap(), Value::Object(config));
            assert_eq!(w.outdir, Path::new("/o/-out"));
            assert_eq!((w.name.as_deref(), w.suite.as_str()), (Some(name), suite));
            assert_eq!((w.run_id, w.jr_id, w.vcd.as_deref()), (4, 2, Some("0,1")));
        }
    }
}
