//! Everything decided before any instance starts: the jobs file read and
//! validated, the selection, the host, the slots, the variables, the plugins.

use super::args::LaunchArgs;
use super::error::LaunchError;
use super::suite;
use crate::contract::env;
use crate::host::{self, Host, Probe};
use crate::jobs::{self, JobConfig, JobsFile, Program, Variables};
use crate::plan::{self, Slot};
use crate::plugins::{listing, SearchPath};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A launch ready to start.
#[derive(Debug)]
pub struct Prepared {
    /// The jobs file.
    pub file: JobsFile,
    /// Selected job configs, in file order.
    pub configs: Vec<JobConfig>,
    /// The host.
    pub host: Host,
    /// Its slots.
    pub slots: Vec<Slot>,
    /// mlb's variables.
    pub variables: Vec<(String, String)>,
    /// Resolved plugin files, by plugin name.
    pub plugins: BTreeMap<String, PathBuf>,
    /// Report folder.
    pub outdir: PathBuf,
}

/// Reads, selects, detects, plans and resolves; validates every job before
/// anything starts.
pub fn prepare(args: &LaunchArgs, plugin_dirs: &[PathBuf]) -> Result<Prepared, LaunchError> {
    let file = suite::load(args)?;
    let selected = select(&file, &args.name, &args.exclude)?;
    let host = host::detect(&Probe::under(args.host_root.clone())).with_kind(args.host);
    let n = plan::count(&host, args.devices)?;
    let slots = plan::plan(&host, n)?;
    let base = absolute(args.base.clone().unwrap_or_else(|| PathBuf::from(".")));
    let outdir = absolute(args.outdir.clone().unwrap_or_else(|| base.join("output")));
    let variables = env::run_variables(&env::Run {
        outdir: &outdir,
        base: &base,
        suite: &file.suite,
        device_total: n,
        cpu_count: slots[0].cpus.len(),
    });
    let vars = Variables::with_process_env(variables.clone());
    let mut configs = Vec::new();
    for job in file.jobs.iter().filter(|j| selected.contains(&j.name)) {
        let expanded = jobs::configs(job, &vars).map_err(|e| LaunchError::UnknownVariable {
            path: file.path.clone(),
            position: job.position,
            job: job.name.clone(),
            name: e.name,
            known: vars.own().keys().map(|k| format!("${k}")).collect::<Vec<_>>().join(", "),
        })?;
        configs.extend(expanded);
    }
    let plugins = resolve_plugins(&file, &configs, plugin_dirs)?;
    Ok(Prepared { file, configs, host, slots, variables, plugins, outdir })
}

fn absolute(p: PathBuf) -> PathBuf {
    std::path::absolute(&p).unwrap_or(p)
}

/// Names of the jobs to run: `--name` (all when empty) less `--exclude`.
fn select(file: &JobsFile, names: &[String], exclude: &[String]) -> Result<Vec<String>, LaunchError> {
    let all: Vec<String> = file.jobs.iter().map(|j| j.name.clone()).collect();
    if let Some(unknown) = names.iter().chain(exclude).find(|n| !all.contains(n)) {
        return Err(LaunchError::UnknownJob {
            path: file.path.clone(),
            name: unknown.clone(),
            available: all.join(", "),
        });
    }
    let picked: Vec<String> =
        all.into_iter().filter(|n| (names.is_empty() || names.contains(n)) && !exclude.contains(n)).collect();
    if picked.is_empty() {
        return Err(LaunchError::NothingSelected { path: file.path.clone() });
    }
    Ok(picked)
}

/// The plugin file of every plugin the selected configs use.
fn resolve_plugins(
    file: &JobsFile,
    configs: &[JobConfig],
    plugin_dirs: &[PathBuf],
) -> Result<BTreeMap<String, PathBuf>, LaunchError> {
    let wanted: Vec<(&JobConfig, &String)> = configs
        .iter()
        .filter_map(|c| match &c.program {
            Program::Plugin(name) => Some((c, name)),
            Program::Cmd(_) => None,
        })
        .collect();
    let mut out = BTreeMap::new();
    if wanted.is_empty() {
        return Ok(out);
    }
    let search = SearchPath::from_env(plugin_dirs)?;
    let names: Vec<String> = wanted.iter().map(|(_, name)| name.to_string()).collect();
    let entries = listing::resolve(&search, &names);
    for (config, name) in wanted {
        match listing::find(&entries, name) {
            Some(entry) => {
                out.insert(name.clone(), entry.path.clone());
            }
            None => {
                let names = listing::names(&entries);
                return Err(LaunchError::UnknownPlugin {
                    path: file.path.clone(),
                    position: config.position,
                    job: config.name.clone(),
                    plugin: name.clone(),
                    available: if names.is_empty() { "none".into() } else { names.join(", ") },
                    refused: listing::refusals(&entries).into(),
                });
            }
        }
    }
    Ok(out)
}

/// The plugin file of `config`, when it is a plugin job.
pub fn plugin_of<'p>(prepared: &'p Prepared, config: &JobConfig) -> Option<&'p std::path::Path> {
    match &config.program {
        Program::Plugin(name) => prepared.plugins.get(name).map(PathBuf::as_path),
        Program::Cmd(_) => None,
    }
}
