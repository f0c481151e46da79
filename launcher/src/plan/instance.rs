//! One instance of a job config: its command, environment and limits.

use super::slots::Slot;
use crate::contract::argv::WorkerCommand;
use crate::contract::env;
use crate::host::HostKind;
use crate::jobs::{render, JobConfig, Program, Scope};
use crate::record::Identity;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// What every instance of a run shares.
#[derive(Clone, Debug)]
pub struct RunContext {
    /// Suite name (`JOB_FILE`).
    pub suite: String,
    /// Run id.
    pub run_id: u64,
    /// mlb's variables (`OUTPUT_DIRECTORY`, `BASE`, ...), given to every instance.
    pub variables: Vec<(String, String)>,
    /// Report folder.
    pub outdir: PathBuf,
    /// Host kind (decides the device variables).
    pub kind: HostKind,
    /// Number of slots.
    pub device_total: usize,
    /// The `mlb` binary that runs workers.
    pub mlb: PathBuf,
    /// Isolation mode recorded by the worker (`cgroup-v1`, `none`...).
    pub isolation: String,
}

/// Everything needed to start one instance.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceSpec {
    /// Report identity (suite, job, run, instance, visible devices).
    pub identity: Identity,
    /// Its slot; `None` for an `all` job (unconstrained).
    pub slot: Option<Slot>,
    /// `--seed` value.
    pub seed: u64,
    /// Program to execute.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// CPUs the instance may use (`CPU_COUNT`).
    pub cpu_count: usize,
}

/// The instances of `config`: one per slot for a `student` job, one seeing
/// every device for an `all` job. `plugin` is the resolved plugin file of a
/// plugin job; `all_cpus` is the CPU count of an unconstrained instance.
pub fn instances(
    config: &JobConfig,
    plugin: Option<&PathBuf>,
    slots: &[Slot],
    ctx: &RunContext,
    all_cpus: usize,
) -> Vec<InstanceSpec> {
    match config.scope {
        Scope::Student => slots
            .iter()
            .map(|s| {
                let seed = ctx.run_id + (s.index as u64 + 1) * 100;
                build(config, plugin, ctx, s.index, s.device.clone(), Some(s.clone()), seed, s.cpus.len())
            })
            .collect(),
        Scope::All => {
            let devices: Vec<String> = (0..ctx.device_total).map(|i| i.to_string()).collect();
            let seed = ctx.run_id + ctx.device_total as u64;
            vec![build(config, plugin, ctx, 0, devices.join(","), None, seed, all_cpus)]
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn build(
    config: &JobConfig,
    plugin: Option<&PathBuf>,
    ctx: &RunContext,
    jr_id: usize,
    vcd: String,
    slot: Option<Slot>,
    seed: u64,
    cpu_count: usize,
) -> InstanceSpec {
    let config = &config.for_instance(jr_id);
    let identity =
        Identity { suite: ctx.suite.clone(), name: config.name.clone(), run_id: ctx.run_id, jr_id: jr_id as u32, vcd };
    let isolation = if slot.is_some() { ctx.isolation.as_str() } else { "none" };
    let instance = env::Instance { run: &ctx.variables, identity: &identity, cpu_count, isolation, kind: ctx.kind };
    // The user's heap choice reaches instances in containers too.
    let env = env::instance_env(&instance, |name| std::env::var(name).ok());
    let (program, args) = match (&config.program, plugin) {
        (Program::Plugin(_), Some(path)) => {
            let mut json: Map<String, Value> = config.args.0.iter().cloned().collect();
            json.insert("seed".into(), seed.into());
            let command = WorkerCommand { plugin: path, config: &json, outdir: &ctx.outdir, identity: &identity };
            (ctx.mlb.clone(), command.args())
        }
        (Program::Cmd(cmd), _) | (Program::Plugin(cmd), None) => {
            let mut words = cmd.split_whitespace().map(String::from);
            let program = PathBuf::from(words.next().unwrap_or_default());
            let mut args: Vec<String> = words.collect();
            args.extend(render::argv(&config.args));
            args.extend(["--seed".to_string(), seed.to_string()]);
            (program, args)
        }
    };
    InstanceSpec { identity, slot, seed, program, args, env, cpu_count }
}
