//! `--dry-run`: every instance of every selected config, started by nothing.

use super::setup::{plugin_of, Prepared};
use crate::host::{cpulist, show::gib};
use crate::plan::{self, RunContext};
use std::fmt::Write;

/// What the cgroup of slot instances will be, as a line.
pub enum CgroupPlan {
    /// Groups `/mlb-<run>/slot<i>` of this isolation mode.
    Groups {
        /// `mlb-<run>`.
        parent: String,
        /// `cgroup-v1`/`cgroup-v2`.
        mode: &'static str,
    },
    /// `--no-cgroups`.
    Disabled,
    /// A real run would stop with this error.
    Impossible(String),
}

/// The dry-run text for run `ctx.run_id`.
pub fn render(prepared: &Prepared, ctx: &RunContext, cgroups: &CgroupPlan) -> String {
    let mut out = String::new();
    let jobs = prepared.file.jobs.len();
    for config in &prepared.configs {
        let plugin = plugin_of(prepared, config);
        let specs = plan::instances(config, plugin, &prepared.slots, ctx, prepared.host.cpus.len());
        let _ = writeln!(
            out,
            "[{:>2}/{jobs:>2}] {} (config {}/{}, {}, run {})",
            config.position,
            config.label(),
            config.index,
            config.of,
            config.scope.as_str(),
            ctx.run_id
        );
        for s in specs {
            let _ = writeln!(out, "  instance {}", s.identity.jr_id);
            let words: Vec<String> =
                std::iter::once(s.program.display().to_string()).chain(s.args.iter().map(|a| shell_word(a))).collect();
            let _ = writeln!(out, "    command:         {}", words.join(" "));
            let mut env = s.env.clone();
            env.sort();
            let _ = writeln!(out, "    environment:");
            for (k, v) in env {
                let _ = writeln!(out, "      {k}={v}");
            }
            let _ = writeln!(out, "    visible devices: {}", s.identity.vcd);
            let (cpus, mems, memory, cgroup) = match &s.slot {
                Some(slot) => (
                    format!("{} ({})", cpulist::format(&slot.cpus), slot.cpus.len()),
                    cpulist::format(&slot.mems),
                    gib(slot.memory_bytes),
                    match cgroups {
                        CgroupPlan::Groups { parent, mode } => format!("/{parent}/slot{} ({mode})", slot.index),
                        CgroupPlan::Disabled => "none (--no-cgroups: not confined)".into(),
                        CgroupPlan::Impossible(why) => format!("none: {why}"),
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
        }
    }
    out
}

/// A word quoted for a POSIX shell when it needs it.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./,:=+@%".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting() {
        assert_eq!(super::shell_word("--repeat"), "--repeat");
        assert_eq!(super::shell_word(r#"{"a":1}"#), r#"'{"a":1}'"#);
        assert_eq!(super::shell_word("it's"), r"'it'\''s'");
        assert_eq!(super::shell_word(""), "''");
    }
}
