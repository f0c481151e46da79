//! One instance of a job config, typed: what it runs, who it is, where it
//! runs. Every runtime (bare, Docker, Apptainer) starts and describes
//! instances from this one description.

use super::group::Meeting;
use crate::gpu::{device_list, DeviceIndex};
use crate::host::HostKind;
use crate::isolation::{Isolation, Slot};
use crate::jobs::{render, Group, JobConfig, Program, Scope};
use mlb_plugin::group::{ALONE, GROUP_VAR};
use mlb_record::contract::argv::WorkerCommand;
use mlb_record::contract::determinism::DeterministicRun;
use mlb_record::contract::env;
use mlb_record::contract::record::{arg_key, Identity};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

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
    /// What isolates the run's slot instances (the launcher's groups, the
    /// container runtime, Slurm, or nothing).
    pub isolation: Isolation,
    /// The nodes instances run on, in rank order (`--slurm`); empty: this host.
    pub nodes: Vec<String>,
}

/// The plugin file of a plugin job, as the launcher resolved it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginFile {
    /// The file (on the host).
    pub path: PathBuf,
    /// The folder of the libtorch the file was found to load where the
    /// loader would not look (python3's torch package): its workers get it
    /// in front of their `LD_LIBRARY_PATH` (`plugins::libtorch`).
    pub library_path: Option<PathBuf>,
}

/// What an instance runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Work {
    /// A workload plugin, run by `mlb worker`.
    Workload {
        /// The plugin file (on the host).
        plugin: PathBuf,
        /// The workload of that file to run (a library may export several).
        workload: String,
        /// The workload arguments, the seed included.
        config: Map<String, Value>,
        /// The report folder.
        outdir: PathBuf,
    },
    /// A command (`cmd` job): a program and its words.
    Command {
        /// The program.
        program: PathBuf,
        /// Its arguments.
        args: Vec<String>,
    },
}

/// Where an instance runs: its CPUs, memory nodes, memory limit and devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Its slot, when confined to one (`student` jobs); `None` for an `all`
    /// instance, which sees every usable CPU and device, unconstrained.
    pub slot: Option<Slot>,
    /// The CPUs it may use: its slot's, or every usable CPU.
    pub cpus: Vec<usize>,
    /// Its visible devices.
    pub devices: Vec<DeviceIndex>,
    /// The node it runs on (`--slurm`); `None`: this host.
    pub node: Option<String>,
}

impl Placement {
    /// Its memory nodes; `None`: every node.
    pub fn mems(&self) -> Option<&[usize]> {
        self.slot.as_ref().map(|s| s.mems.as_slice())
    }

    /// Its memory limit in bytes; `None`: unlimited.
    pub fn memory_bytes(&self) -> Option<u64> {
        self.slot.as_ref().map(|s| s.memory_bytes)
    }

    /// The visible devices as the variables and records write them: `"0,1"`.
    pub fn vcd(&self) -> String {
        device_list(&self.devices)
    }
}

/// Everything needed to start one instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// Report identity (suite, job, run, instance, visible devices).
    pub identity: Identity,
    /// What it runs.
    pub work: Work,
    /// Where it runs.
    pub placement: Placement,
    /// Its seed (`--seed` of a command, `seed` of a workload's config).
    pub seed: u64,
    /// What confines it, as its report names it.
    pub isolation: Isolation,
    /// Its environment (docs/launcher.md, "The host and its slots", and mlb's variables), in order.
    pub env: Vec<(String, String)>,
}

/// Where a runtime finds `mlb` and the plugins: on the host, or in an image.
#[derive(Clone, Debug)]
pub struct WorkerPaths {
    /// The `mlb` binary that runs workers.
    pub mlb: PathBuf,
    /// The folder plugins are taken from (by file name); `None`: the host path as planned.
    pub plugin_dir: Option<PathBuf>,
}

impl WorkerPaths {
    /// This very `mlb` and the plugins where they were found.
    pub fn host() -> Self {
        WorkerPaths { mlb: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mlb")), plugin_dir: None }
    }
}

impl Instance {
    /// Whether it is an `mlb worker` (whose exit codes and records are known).
    pub fn is_worker(&self) -> bool {
        matches!(self.work, Work::Workload { .. })
    }

    /// The program and its arguments, with `mlb` and the plugins found at `paths`.
    pub fn argv(&self, paths: &WorkerPaths) -> Vec<String> {
        match &self.work {
            Work::Command { program, args } => {
                std::iter::once(program.display().to_string()).chain(args.iter().cloned()).collect()
            }
            Work::Workload { plugin, workload, config, outdir } => {
                let plugin = match &paths.plugin_dir {
                    Some(dir) => dir.join(plugin.file_name().unwrap_or_default()),
                    None => plugin.clone(),
                };
                let mut argv = vec![paths.mlb.display().to_string()];
                argv.extend(
                    WorkerCommand { plugin: &plugin, workload, config, outdir, identity: &self.identity }.args(),
                );
                argv
            }
        }
    }
}

/// The instances of `config`: one per slot for a `student` job, one seeing
/// every device for an `all` job; on each node of `ctx.nodes` (Slurm), or
/// on this host. `plugin` is the resolved plugin file of a plugin job;
/// `all_cpus` are the CPUs of an unconstrained instance.
///
/// An instance's index (`jr_id`, its `JOB_ID`) is its rank: node `n` of a
/// multi-node run holds ranks `n*G .. n*G+G-1` for `G` slots per node (`n`
/// for an `all` job), so that on one node everything is as in the original.
/// Its seed follows from its rank as docs/launcher.md, "The host and its slots" says (`uid + (rank+1)*100`;
/// `uid + N*(n+1)` for an `all` job): seeds differ across nodes too. Every
/// instance of a deterministic config gets the same seed, on every node
/// and in every run ([`DeterministicRun::seed`]).
///
/// The instances of a `"group": "ddp"` config form one process group: each
/// gets torchrun's variables ([`Meeting::env`]), its rank as above and its
/// slot's index as local rank, rank 0 listening on the first node.
pub fn instances(
    config: &JobConfig,
    plugin: Option<&PluginFile>,
    slots: &[Slot],
    ctx: &RunContext,
    all_cpus: &[usize],
) -> Vec<Instance> {
    let nodes: Vec<Option<&str>> =
        if ctx.nodes.is_empty() { vec![None] } else { ctx.nodes.iter().map(|n| Some(n.as_str())).collect() };
    let meeting = config.group.map(|Group::Ddp| {
        let world = nodes.len() * if config.scope == Scope::Student { slots.len() } else { 1 };
        Meeting::new(ctx.nodes.first().map(String::as_str), world)
    });
    let same_seed = deterministic_seed(config);
    let mut out = Vec::new();
    for (n, node) in nodes.into_iter().enumerate() {
        let node_name = node.map(str::to_string);
        match config.scope {
            Scope::Student => out.extend(slots.iter().map(|s| {
                let rank = n * slots.len() + s.index;
                let seed = same_seed.unwrap_or(ctx.run_id + (rank as u64 + 1) * 100);
                let placement = Placement {
                    slot: Some(s.clone()),
                    cpus: s.cpus.clone(),
                    devices: vec![s.device],
                    node: node_name.clone(),
                };
                let mut instance = build(config, plugin, ctx, rank, placement, seed);
                instance.env.extend(meeting.iter().flat_map(|m| m.env(rank, s.index)));
                instance
            })),
            Scope::All => {
                let devices: Vec<DeviceIndex> = (0..ctx.device_total).map(DeviceIndex::from).collect();
                let seed = same_seed.unwrap_or(ctx.run_id + ctx.device_total as u64 * (n as u64 + 1));
                let placement = Placement { slot: None, cpus: all_cpus.to_vec(), devices, node: node_name };
                out.push(build(config, plugin, ctx, n, placement, seed));
            }
        }
    }
    out
}

/// The seed of every instance of `config` when it asks for a deterministic
/// run (`None` for another config, or one the launcher refuses).
fn deterministic_seed(config: &JobConfig) -> Option<u64> {
    let args: Map<String, Value> = config.args.0.iter().map(|(k, v)| (arg_key(k), v.clone())).collect();
    DeterministicRun::of(&args).ok().flatten().map(|_| DeterministicRun::seed(&args))
}

/// Where the reports of an instance on `node` go: a folder per node in a
/// multi-node run, so that names cannot collide across nodes.
pub fn node_outdir(outdir: &Path, node: Option<&str>) -> PathBuf {
    match node {
        Some(node) => outdir.join(node.replace(['/', '\\'], "_")),
        None => outdir.to_path_buf(),
    }
}

fn build(
    config: &JobConfig,
    plugin: Option<&PluginFile>,
    ctx: &RunContext,
    jr_id: usize,
    placement: Placement,
    seed: u64,
) -> Instance {
    let config = &config.for_instance(jr_id);
    let identity = Identity {
        suite: ctx.suite.clone(),
        name: config.name.clone(),
        run_id: ctx.run_id,
        jr_id: jr_id as u32,
        vcd: placement.vcd(),
    };
    let isolation = ctx.isolation.of_instance(placement.slot.is_some());
    let cpu_count = placement.cpus.len();
    let instance = env::EnvInputs {
        run: &ctx.variables,
        identity: &identity,
        cpu_count,
        isolation,
        host_kind: ctx.kind.as_str(),
        device_vars: ctx.kind.device_vars(),
    };
    // The user's heap choice reaches instances in containers too.
    let mut env = env::instance_env(&instance, |name| std::env::var(name).ok());
    // A config of no group: its instances train alone, even as the tasks of
    // one Slurm step (whose variables name all of them).
    if config.group.is_none() {
        env.push((GROUP_VAR.to_string(), ALONE.to_string()));
    }
    let work = match (&config.program, plugin) {
        (Program::Plugin(workload), Some(plugin)) => {
            let mut json: Map<String, Value> = config.args.0.iter().cloned().collect();
            json.insert("seed".into(), seed.into());
            if let Some(dir) = &plugin.library_path {
                env.push(env::library_path(dir, std::env::var(env::LD_LIBRARY_PATH).ok().as_deref()));
            }
            Work::Workload {
                plugin: plugin.path.clone(),
                workload: workload.clone(),
                config: json,
                outdir: node_outdir(&ctx.outdir, placement.node.as_deref()),
            }
        }
        (Program::Cmd(cmd), _) | (Program::Plugin(cmd), None) => {
            // Split as the original's shell did (quotes kept together).
            let words = render::shell_words(cmd).unwrap_or_else(|| vec![cmd.clone()]);
            let mut words = words.into_iter();
            let program = PathBuf::from(words.next().unwrap_or_default());
            let mut args: Vec<String> = words.collect();
            args.extend(render::argv(&config.args));
            args.extend(["--seed".to_string(), seed.to_string()]);
            Work::Command { program, args }
        }
    };
    Instance { identity, work, placement, seed, isolation, env }
}
