//! The command line: global options and subcommands; `generate/` renders
//! its man pages and completions, `deprecated/` keeps the old spellings of
//! flags working for one release.

pub mod deprecated;
pub mod generate;

use crate::commands::launch::LaunchArgs;
use crate::commands::report::ReportArgs;
use clap::{Parser, Subcommand};
use mlb_run::worker::WorkerArgs;
use std::path::PathBuf;

/// mlb: GPU training benchmarks, fairly, in isolation, inside vendor containers.
// `--version` names the build's commit and libtorch (launcher/build.rs):
// `mlb 0.1.0 (commit 1a2b3c4d5e6f, libtorch 2.11.0+cu130)`.
#[derive(Debug, Parser)]
#[command(name = "mlb", version = env!("MLB_BUILD_VERSION"), about, long_about = None)]
pub struct Cli {
    /// Folder to search for workload plugins first (repeatable). Then
    /// `MLB_PLUGIN_PATH` (colon-separated), then the folders next to the binary.
    #[arg(long = "plugin-dir", global = true, value_name = "DIR")]
    pub plugin_dir: Vec<PathBuf>,

    /// What to do (without a subcommand: run the jobs file of `--jobs`).
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Launcher options (`mlb --jobs FILE ...`).
    #[command(flatten)]
    pub launch: LaunchArgs,
}

/// mlb's subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Workload plugins this install can run.
    Plugins {
        /// What to do with plugins.
        #[command(subcommand)]
        command: crate::commands::plugins::PluginsCommand,
    },
    /// Statistics, targets and score of a folder of report files; with
    /// `--db`, each row judged against its history in the results store.
    Report(ReportArgs),
    /// Verdicts on a run: rules (a YAML file, or the original score's pass
    /// criteria) per bench, GPU and node. Exit status 1 when one fails.
    Accept(crate::commands::accept::AcceptArgs),
    /// Target tables: derive one from a reference run, list those found.
    Targets {
        /// What to do with target tables.
        #[command(subcommand)]
        command: crate::commands::targets::TargetsCommand,
    },
    /// Describes this host: kind, GPUs, usable CPUs and memory, NUMA nodes, cgroups.
    Detect(crate::commands::detect::DetectArgs),
    /// Is this host fit to measure on? Checks GPUs (idle, persistence, clocks,
    /// power limits, PCIe links), cgroups and free disk space; with `--diag`
    /// the vendors' diagnostics, with `--deep` those and a short burn; writes
    /// the verdict to `OUTDIR/doctor.json`. Exit status 1 when a check failed.
    Doctor(crate::commands::doctor::DoctorArgs),
    /// Burn-in: gemm then membw on every slot at once for a duration, then a
    /// verdict per slot (TFLOPS and bandwidth against the best slot,
    /// throttling, XID and ECC errors) in `OUTDIR/burn.json`. Exit status 1
    /// when a slot failed.
    Burn(crate::commands::burn::BurnArgs),
    /// Interference matrix: each workload of a jobs file alone, beside each
    /// other one on the next slot, and all at once; each one's slowdown with
    /// its interval in `OUTDIR/interference.json` and a heat map in
    /// `OUTDIR/interference.html`. Exit status 1 when a run failed.
    Interfere(crate::commands::interfere::InterfereArgs),
    /// Slurm: submit a run as a batch job (`mlb slurm submit`).
    Slurm {
        /// What to do with Slurm.
        #[command(subcommand)]
        command: crate::commands::slurm::SlurmCommand,
    },
    /// The results store: import runs, list them, compare systems, follow one over time, export,
    /// vote deterministic runs across them.
    Db {
        /// What to do with the store.
        #[command(subcommand)]
        command: crate::commands::db::DbCommand,
    },
    /// A read-only web server over the results store: systems, runs, comparisons and
    /// histories as pages and as a JSON/CSV API (docs/serve.md).
    Serve(crate::commands::serve::ServeArgs),
    /// Generates the data sets the jobs read into `$BASE/data`, in their real formats.
    Prepare(crate::commands::prepare::PrepareArgs),
    /// Runs one instance of one workload (started by the launcher).
    #[command(hide = true)]
    Worker(Box<WorkerArgs>),
    /// Container images mlb runs instances in.
    Containers {
        /// What to do with container images.
        #[command(subcommand)]
        command: crate::commands::containers::ContainersCommand,
    },
    /// Writes the man pages or prints a shell's completion script (for a
    /// release: `cargo xtask dist`).
    #[command(hide = true)]
    Generate {
        /// What to generate.
        #[command(subcommand)]
        command: generate::GenerateCommand,
    },
}

/// The command lines the launcher builds for `mlb worker` ([`mlb_record::contract`])
/// as this parser reads them.
#[cfg(test)]
mod tests {
    use super::*;
    use mlb_record::contract::argv::WorkerCommand;
    use mlb_record::contract::exit::{cause_of, USAGE};
    use mlb_record::contract::record::Identity;
    use serde_json::{json, Value};
    use std::path::Path;

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

    #[test]
    fn a_refused_command_line_exits_with_usage_not_a_recorded_code() {
        let err = Cli::try_parse_from(["mlb", "worker", "--plugin", "/p.so", "--name", "-x"]).unwrap_err();
        assert_eq!(err.exit_code(), USAGE);
        assert_eq!(cause_of(err.exit_code()), None);
    }
}
