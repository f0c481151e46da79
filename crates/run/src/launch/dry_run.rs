//! `--dry-run`: every instance of every selected config, started by nothing,
//! described by the runtime that would start it.

use super::setup::{plugin_of, Prepared};
use crate::host::show::gib;
use crate::isolation::{Isolation, Support};
use crate::linux::cpulist;
use crate::plan::{self, RunContext, WorkerPaths};
use crate::runtime::shell::shell_word;
use crate::runtime::Runtime;
use std::fmt::Write;

/// What the cgroup of slot instances will be: decided once, for a run and
/// for its dry-run alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CgroupPlan {
    /// Groups `/mlb-<run>/slot<i>` of this isolation mode.
    Groups {
        /// `mlb-<run>`.
        parent: String,
        /// `cgroup-v1`/`cgroup-v2`.
        mode: Isolation,
    },
    /// `--no-cgroups`.
    Disabled,
    /// The runtime applies the limits: Docker, or Slurm's task confinement.
    Container(Isolation),
    /// Groups cannot be made on this host: the reason.
    Impossible(String),
}

impl CgroupPlan {
    /// The plan of run `run_name` under `runtime`, with `--no-cgroups` when
    /// `disabled`, on a host whose cgroups are `support`.
    pub fn decide(runtime: &Runtime, disabled: bool, support: &Support, run_name: &str) -> CgroupPlan {
        if let Some(own) = runtime.isolation() {
            CgroupPlan::Container(own)
        } else if disabled {
            CgroupPlan::Disabled
        } else if let Some(why) = &support.reason {
            CgroupPlan::Impossible(why.clone())
        } else {
            CgroupPlan::Groups { parent: format!("mlb-{run_name}"), mode: support.version.isolation() }
        }
    }

    /// The isolation of the run's slot instances: the runtime's own
    /// (Docker, Slurm), else the groups' mode, else none.
    pub fn isolation(&self) -> Isolation {
        match self {
            CgroupPlan::Container(own) => *own,
            CgroupPlan::Groups { mode, .. } => *mode,
            CgroupPlan::Disabled | CgroupPlan::Impossible(_) => Isolation::None,
        }
    }
}

/// The dry-run text for run `ctx.run_id`; `runtime` adds how it would
/// start each instance.
pub fn render(prepared: &Prepared, ctx: &RunContext, cgroups: &CgroupPlan, runtime: &Runtime) -> String {
    let mut out = String::new();
    let jobs = prepared.file.jobs.len();
    let host = WorkerPaths::host();
    for config in &prepared.configs {
        let plugin = plugin_of(prepared, config);
        let instances = plan::instances(config, plugin, &prepared.slots, ctx, &prepared.host.cpus);
        let _ = writeln!(
            out,
            "[{:>2}/{jobs:>2}] {} (config {}/{}, {}, run {})",
            config.position,
            config.label(),
            config.index,
            config.of,
            match config.group {
                Some(group) =>
                    format!("{}, group {} of {} ranks", config.scope.as_str(), group.as_str(), instances.len()),
                None => config.scope.as_str().to_string(),
            },
            ctx.run_id
        );
        for s in instances {
            let _ = writeln!(out, "  instance {}", s.identity.jr_id);
            let words: Vec<String> = s.argv(&host).iter().map(|a| shell_word(a)).collect();
            let _ = writeln!(out, "    command:         {}", words.join(" "));
            let mut env = s.env.clone();
            env.sort();
            let _ = writeln!(out, "    environment:");
            for (k, v) in env {
                let _ = writeln!(out, "      {k}={v}");
            }
            let _ = writeln!(out, "    visible devices: {}", s.identity.vcd);
            let (cpus, mems, memory, cgroup) = match &s.placement.slot {
                Some(slot) => (
                    format!("{} ({})", cpulist::format(&slot.cpus), slot.cpus.len()),
                    cpulist::format(&slot.mems),
                    gib(slot.memory_bytes),
                    match cgroups {
                        CgroupPlan::Groups { parent, mode } => format!("/{parent}/slot{} ({mode})", slot.index),
                        CgroupPlan::Disabled => "none (--no-cgroups: not confined)".into(),
                        CgroupPlan::Container(Isolation::Slurm) => "none (Slurm confines the task)".into(),
                        CgroupPlan::Container(_) => "none (the container runtime applies the limits)".into(),
                        CgroupPlan::Impossible(why) => {
                            format!("none: {why} (a real run stops here; pass --no-cgroups to run unconfined)")
                        }
                    },
                ),
                None => (
                    format!("{} (all usable, unconstrained)", cpulist::format(&prepared.host.cpus)),
                    "all".into(),
                    "no limit".into(),
                    "none (`all` job: unconstrained)".into(),
                ),
            };
            let _ = writeln!(out, "    CPUs:            {cpus}");
            let _ = writeln!(out, "    NUMA nodes:      {mems}");
            let _ = writeln!(out, "    memory limit:    {memory}");
            let _ = writeln!(out, "    cgroup:          {cgroup}");
            let _ = writeln!(out, "    seed:            {}", s.seed);
            out.push_str(&runtime.describe(&s));
        }
    }
    out
}
