//! Everything decided before any instance starts: the jobs file read and
//! validated, the selection, the host, the slots, the variables, the plugins.

use super::error::LaunchError;
use super::names::{self, Extent};
use super::options::Options;
use crate::host::{self, Host, Probe};
use crate::isolation::Slot;
use crate::jobs::{self, ConfigCount, ExpandError, JobConfig, JobsFile, Program, Scope, Variables};
use crate::plan::{self, PluginFile};
use crate::plugins::{accepts, effective_config, listing, Entry, QualitySpec, SearchPath, Status};
use crate::quality::rules::{Rules, RulesError};
use crate::slurm::Allocation;
use mlb_plugin::ArgKind;
use mlb_record::contract::env;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
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
    pub plugins: BTreeMap<String, PluginFile>,
    /// Report folder.
    pub outdir: PathBuf,
    /// The Slurm allocation (`--slurm`): its nodes each hold `slots`.
    pub allocation: Option<Allocation>,
}

/// Reads, selects, detects, plans and resolves; validates every job before
/// anything starts.
pub fn prepare(options: &Options, plugin_dirs: &[PathBuf]) -> Result<Prepared, LaunchError> {
    let file = load(options)?;
    let selected = jobs::select(&file, &options.name, &options.exclude)?;
    let host = host::detect(&Probe::under(options.host_root.clone())).with_kind(options.host);
    let allocation = options.slurm.then(|| Allocation::from_env(|name| std::env::var(name).ok())).transpose()?;
    let slots = match &allocation {
        Some(a) => a.slots(options.devices, host.memory.usable_bytes)?,
        None => plan::plan(&host, plan::count(&host, options.devices)?)?,
    };
    let n = slots.len();
    let base = absolute(options.base.clone().unwrap_or_else(|| PathBuf::from(".")));
    let outdir = absolute(options.outdir.clone().unwrap_or_else(|| base.join("output")));
    let variables = env::run_variables(&env::Run {
        outdir: &outdir,
        base: &base,
        suite: &file.suite,
        device_total: n,
        cpu_count: slots[0].cpus.len(),
    });
    let vars = Variables::with_process_env(variables.clone());
    let limit = usize::try_from(options.max_configs).unwrap_or(usize::MAX);
    let mut configs = Vec::new();
    for job in file.jobs.iter().filter(|j| selected.contains(j.name.as_str())) {
        let expanded = jobs::configs(job, &vars, limit - configs.len()).map_err(|e| match e {
            ExpandError::UnknownVariable(e) => LaunchError::UnknownVariable {
                path: file.path.clone(),
                position: job.position,
                job: job.name.clone(),
                name: e.name,
                known: vars.own().keys().map(|k| format!("${k}")).collect::<Vec<_>>().join(", "),
            },
            ExpandError::TooMany { count, .. } => LaunchError::TooManyConfigs {
                path: file.path.clone(),
                position: job.position,
                job: job.name.clone(),
                count: ConfigCount(count),
                before: configs.len(),
                limit,
            },
        })?;
        configs.extend(expanded);
    }
    let instances = n * allocation.as_ref().map_or(1, |a| a.nodes.len());
    let extent = Extent { last_run: options.last_run_id(instances)?, devices: n, instances };
    names::check(&file, &configs, extent)?;
    let plugins = resolve_plugins(&file, &configs, plugin_dirs, !options.in_image())?;
    check_workload_args(&file, &configs, &plugins, slots.len(), options.to_quality)?;
    let plugins = plugins.into_iter().map(|(name, p)| (name, p.file)).collect();
    Ok(Prepared { file, configs, host, slots, variables, plugins, outdir, allocation })
}

/// The jobs file of `options`, read and validated: the file or suite `--jobs`
/// names, or for a container run without `--jobs` the standard suite.
fn load(options: &Options) -> Result<JobsFile, LaunchError> {
    let wanted = match &options.jobs {
        Some(path) => path.clone(),
        None if options.in_image() => PathBuf::from(jobs::STANDARD_SUITE),
        None => return Err(LaunchError::NoJobsFile),
    };
    Ok(jobs::find_suite(&wanted)?)
}

fn absolute(p: PathBuf) -> PathBuf {
    std::path::absolute(&p).unwrap_or(p)
}

/// A plugin a selected config uses: its file, its default arguments and
/// their declared kinds.
struct Resolved {
    file: PluginFile,
    defaults: Value,
    kinds: BTreeMap<String, ArgKind>,
    quality: Option<QualitySpec>,
    /// The workload can run deterministically.
    deterministic: bool,
}

/// The plugin of every plugin the selected configs use; the libtorch a
/// plugin names is looked for when the workers run `here`, on this host.
fn resolve_plugins(
    file: &JobsFile,
    configs: &[JobConfig],
    plugin_dirs: &[PathBuf],
    here: bool,
) -> Result<BTreeMap<String, Resolved>, LaunchError> {
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
    let names: Vec<String> =
        wanted.iter().map(|(_, name)| name.to_string()).collect::<BTreeSet<_>>().into_iter().collect();
    let entries = listing::resolve(&search, &names, here);
    for (config, name) in wanted {
        if out.contains_key(name) {
            continue;
        }
        match listing::find(&entries, name) {
            Some(Entry { path, status: Status::Ok { meta }, libtorch }) => {
                let library_path = libtorch.as_ref().and_then(|found| found.library_path()).map(Into::into);
                let resolved = Resolved {
                    file: PluginFile { path: path.clone(), library_path },
                    defaults: meta.default_args.clone(),
                    kinds: meta.arg_kinds.clone(),
                    quality: meta.quality.clone(),
                    deterministic: meta.deterministic,
                };
                out.insert(name.clone(), resolved);
            }
            _ => {
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

/// Refuses a plugin config whose arguments its workload would refuse
/// ([`accepts::check`]), or, for a run to quality, whose workload has no
/// evaluation or whose clock keys the worker would refuse ([`Rules`]), for
/// every instance it would start (`$JOB_ID` may differ between them):
/// before anything starts, rather than in each worker.
fn check_workload_args(
    file: &JobsFile,
    configs: &[JobConfig],
    plugins: &BTreeMap<String, Resolved>,
    slots: usize,
    to_quality: bool,
) -> Result<(), LaunchError> {
    for config in configs {
        let Program::Plugin(name) = &config.program else { continue };
        let Some(plugin) = plugins.get(name) else { continue };
        let instances = match config.scope {
            Scope::Student => slots,
            Scope::All => 1,
        };
        for jr_id in 0..instances {
            let args = &config.for_instance(jr_id).args.0;
            accepts::check(&plugin.defaults, &plugin.kinds, plugin.deterministic, args, to_quality).map_err(
                |refusal| LaunchError::WorkloadArgs {
                    path: file.path.clone(),
                    position: config.position,
                    job: config.name.clone(),
                    index: config.index,
                    of: config.of,
                    workload: name.clone(),
                    refusal: Box::new(refusal),
                },
            )?;
            if to_quality {
                let given = args.iter().cloned().collect();
                let clock = match &plugin.quality {
                    Some(spec) => {
                        Rules::from_config(&effective_config(&plugin.defaults, &given), spec.target).map(|_| ())
                    }
                    None => Err(RulesError::NoQuality { workload: name.clone() }),
                };
                clock.map_err(|refusal| LaunchError::Clock {
                    path: file.path.clone(),
                    position: config.position,
                    job: config.name.clone(),
                    index: config.index,
                    of: config.of,
                    refusal: Box::new(refusal),
                })?;
            }
        }
    }
    Ok(())
}

/// The plugin file of `config`, when it is a plugin job.
pub fn plugin_of<'p>(prepared: &'p Prepared, config: &JobConfig) -> Option<&'p PluginFile> {
    match &config.program {
        Program::Plugin(name) => prepared.plugins.get(name),
        Program::Cmd(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_run_the_standard_suite_without_jobs() {
        let docker = Options { docker: Some(Some("ngc".into())), ..Options::default() };
        assert_eq!(load(&docker).unwrap().suite, jobs::STANDARD_SUITE);
        let apptainer = Options { singularity: Some("rocm.sif".into()), ..Options::default() };
        assert_eq!(load(&apptainer).unwrap().suite, jobs::STANDARD_SUITE);
        assert!(matches!(load(&Options::default()), Err(LaunchError::NoJobsFile)));
    }
}
