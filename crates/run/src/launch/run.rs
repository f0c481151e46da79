//! The run loop: every selected config, `--runs` times, each config's
//! instances started together and supervised; result lines as they finish.

use super::attempts::Attempts;
use super::choice::{self, Choice};
use super::dry_run::{self, CgroupPlan};
use super::error::LaunchError;
use super::host_lock::{self, Holder, Taken};
use super::options::Options;
use super::progress::Display;
use super::resume::Completed;
use super::run_name;
use super::session::Session;
use super::setup::{self, plugin_of, Prepared};
use super::space::Space;
use super::summary::{self, Summary};
use super::supervise::{self, Finished};
use crate::console::Console;
use crate::isolation::{CgroupRoot, Isolation, RunGroups};
use crate::jobs::{render, JobConfig};
use crate::linux::cpulist;
use crate::plan::{self, Instance, RunContext, Work};
use crate::plugins::{manifest, plan::effective_config};
use crate::runtime::outcome::Outcome;
use crate::runtime::{Gone, Runtime};
use crate::{check, doctor};
use mlb_record::contract::env;
use mlb_record::contract::record::{self, arg_key};
use mlb_record::contract::report::WriteError;
use mlb_record::contract::{Provenance, Report};
use mlb_record::exit::{EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What runs on a run's output folder once its instances are done, before
/// its verdict: a layer above the launcher's (`mlb --db` stores the run,
/// the `mlb` crate's `commands::launch`); the line it returns is printed as a note.
pub type AfterRun<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// Runs `mlb --jobs FILE ...`, then `after` on its output folder; returns
/// the exit status.
pub fn run(options: &Options, plugin_dirs: &[PathBuf], after: AfterRun<'_>) -> Result<i32, LaunchError> {
    if options.host_root.is_some() && !options.dry_run {
        return Err(LaunchError::FixtureHost);
    }
    let prepared = setup::prepare(options, plugin_dirs)?;
    let run_name = run_name::new(&prepared.file.suite);
    let choice = Choice::of(options, prepared.host.kind)?;
    if options.dry_run {
        let runtime = choice::runtime(&choice, &prepared, options.timeout, true)?;
        print_dry_run(options, &prepared, &run_name, &runtime);
        return Ok(EXIT_OK);
    }
    let runtime = choice::runtime(&choice, &prepared, options.timeout, false)?;
    let Some((session, mut summary)) = Session::open(options, &prepared, &run_name, runtime)? else {
        return Ok(EXIT_INTERRUPTED);
    };
    let (mode, display, interrupt) = (session.mode, &session.display, Arc::clone(&session.interrupt));
    let logs = prepared.outdir.join("logs");
    let watch = session.watch(&logs, options.timeout);
    let record = session.record();
    let runtime = &session.runtime;
    let started = Instant::now();
    let mut all_passed = true;
    let mut space = Space::default();
    let mut not_started = prepared.configs.len() * options.runs as usize;
    let mut gone = None;
    'runs: for k in 0..options.runs {
        if k > 0 && !pause(options.pause, &interrupt) {
            break;
        }
        let ctx = context(&prepared, options, options.uid + k, mode);
        let completed = if options.resume { Completed::scan(&prepared.outdir) } else { Completed::default() };
        for config in &prepared.configs {
            if interrupt.load(Ordering::Relaxed) {
                break 'runs;
            }
            not_started -= 1;
            let mut label = config.label();
            if options.runs > 1 {
                label = format!("{label} (run {})", ctx.run_id);
            }
            let ctx = with_page_cache(&ctx, prepared.allocation.is_some());
            let instances =
                plan::instances(config, plugin_of(&prepared, config), &prepared.slots, &ctx, &prepared.host.cpus);
            if options.resume && completed.has(&ctx.suite, config, ctx.run_id, instances.len()) {
                display.note(&format!("skip {label}: its reports are complete (--resume)"));
                continue;
            }
            let progress = display.start(&label, instances.len());
            let t0 = Instant::now();
            let template = |i: &Instance, log: Option<&Path>| failure_record(&prepared, config, &ctx, i, log, &record);
            let peers = config.group.map(|_| crate::runtime::supervise::PEER_GRACE);
            let finished = if options.recovery.active() {
                let attempts = Attempts {
                    watch: &watch,
                    recovery: &options.recovery,
                    config: config.index,
                    peers,
                    record: &template,
                    progress: &progress,
                    display,
                    outdir: &prepared.outdir,
                    run_name: &run_name,
                };
                attempts.run(instances)
            } else {
                supervise::run_instances(&watch, config.index, instances, peers, &template, &progress, None)
            };
            progress.finish();
            if finished.iter().any(|f| f.outcome == Outcome::Interrupted) {
                display.note(&format!("{label}: interrupted, no result line"));
                break 'runs;
            }
            for f in &finished {
                if let Err(e) = record_failure(&prepared, config, &ctx, f, &record, display) {
                    space.failed(format!("write the failure record {}", e.path.display()), e.source, display);
                }
            }
            let failed = finished.iter().filter(|f| !f.outcome.passed()).count();
            all_passed &= failed == 0;
            let jobs = prepared.file.jobs.len();
            let line = summary::line(config.position, jobs, failed, finished.len(), t0.elapsed().as_secs_f64(), &label);
            emit(&mut summary, &line, &mut space, display);
            if failed > 0 {
                gone = runtime.backend.gone();
            }
            if space.is_full() || gone.is_some() {
                break 'runs;
            }
        }
    }
    emit(&mut summary, &summary::total(started.elapsed().as_secs_f64()), &mut space, display);
    let display = session.close();
    if let Some(said) = after(&prepared.outdir) {
        display.note(&said);
    }
    if let Some(stopped) = space.stopped(&prepared.outdir, not_started) {
        return Err(stopped);
    }
    if let Some(Gone { why, fix }) = gone {
        return Err(LaunchError::RuntimeGone { why, fix, not_started });
    }
    Ok(if interrupt.load(Ordering::Relaxed) {
        EXIT_INTERRUPTED
    } else if all_passed {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// Runs `mlb doctor`'s checks for this run, and the container's (the
/// runtime opened: its daemon answered and its image is there); writes the
/// verdict into the output folder; warns of each problem, or refuses under
/// `--strict-preflight` when a check failed. Runs after the launcher's own
/// refusals (so that they leave no output folder), before anything starts.
pub(super) fn preflight(options: &Options, prepared: &Prepared, runtime: &Runtime) -> Result<(), LaunchError> {
    let data_dir = prepared.variables.iter().find(|(k, _)| k == env::DATA_DIRECTORY).map(|(_, v)| v.as_str());
    let named: Vec<PathBuf> = prepared
        .configs
        .iter()
        .flat_map(|c| c.args.0.iter().map(|(_, v)| v))
        .filter_map(Value::as_str)
        .filter(|v| data_dir.is_some_and(|d| v.starts_with(d)))
        .map(PathBuf::from)
        .collect();
    let data: Vec<&Path> =
        named.iter().map(PathBuf::as_path).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let mut verdict = doctor::examine(&prepared.host, &prepared.outdir, &data);
    if options.no_cgroups {
        // Asked for: not a reason to refuse.
        verdict.checks.iter_mut().filter(|c| c.name == "cgroups").for_each(|c| c.status = check::Status::Warn);
    }
    if options.strict_preflight {
        verdict.checks.extend(burn_record(prepared));
    }
    if let Some(c) = runtime.backend.traits().container.clone() {
        let image = [c.image, c.digest].into_iter().flatten().collect::<Vec<_>>().join(" ");
        verdict.checks.push(check::Check::pass("container", format!("runtime reachable, image present: {image}")));
    }
    let file = prepared.outdir.join(doctor::FILE);
    if let Err(e) = verdict.write(&prepared.outdir) {
        // A full output folder is the run's to stop (with its own message).
        Console::Err.line(&format!("mlb: warning: cannot write the pre-flight verdict {}: {e}", file.display()));
    }
    if options.strict_preflight && verdict.failed().next().is_some() {
        let failed = verdict.failed().map(|c| format!("  {}\n", doctor::check::line(c))).collect();
        return Err(LaunchError::Preflight { verdict: file, failed });
    }
    for c in verdict.problems() {
        Console::Err.line(&format!("mlb: warning: pre-flight: {}", doctor::check::line(c)));
    }
    Ok(())
}

/// The checks of the slots the run uses against their last burn
/// (`--strict-preflight`, docs/burn.md): every node's under `--slurm`.
fn burn_record(prepared: &Prepared) -> Vec<check::Check> {
    use crate::doctor::burn_record::{self as record, Wanted};
    let hosts = prepared.allocation.as_ref().map_or_else(|| vec![record::this_host()], |a| a.nodes.clone());
    let local = prepared.allocation.is_none();
    let wanted: Vec<Wanted> = hosts
        .iter()
        .flat_map(|host| {
            prepared.slots.iter().map(move |s| Wanted {
                host: host.clone(),
                slot: s.device.to_string(),
                gpu: local
                    .then(|| prepared.host.gpus.iter().find(|g| g.index == s.device).map(|g| g.name.clone()))
                    .flatten(),
            })
        })
        .collect();
    record::checks(&record::dir(), &wanted, chrono::Utc::now().timestamp(), record::MAX_AGE)
}

/// Emits the result line `text`; a failure to append it goes to `space`.
pub(super) fn emit(summary: &mut Summary, text: &str, space: &mut Space, display: &Display) {
    if let Err(e) = summary.emit(text) {
        space.failed(format!("append to {}", summary.path().display()), e, display);
    }
}

/// Takes the host lock for the run (see [`host_lock`]), waiting for it with
/// `--wait`; once held, removes the groups (and, through `runtime`, the
/// containers) the run before left, if it could not. A lock that cannot be
/// taken (not root) leaves the run unguarded, with a warning.
pub(super) fn take_host(
    options: &Options,
    prepared: &Prepared,
    run_name: &str,
    runtime: &Runtime,
    interrupt: &AtomicBool,
) -> Result<Taken, LaunchError> {
    let path = options.lock.clone().unwrap_or_else(|| PathBuf::from(host_lock::HOST_LOCK));
    let me = Holder::this_run(&prepared.outdir, run_name);
    let taken = host_lock::take(&path, &me, options.wait, interrupt, &|text| Console::Err.line(text))?;
    match &taken {
        Taken::Unguarded(e) => Console::Err.line(&format!("mlb: warning: cannot take the host lock {}: {e}; another run on this host would not be seen, nor this one by it; fix: run mlb as root", path.display())),
        Taken::Held { previous: Some(previous), .. } => {
            if let Ok(root) = prepared.host.cgroup.root() {
                remove_left_groups(&root, previous);
            }
            if let Some(said) = runtime.backend.remove_left_by(previous.pid) {
                Console::Err.line(&format!("mlb: {said}"));
            }
        }
        _ => {}
    }
    Ok(taken)
}

/// Removes the groups `previous` (the run that held the host lock before)
/// left, killing what still runs in them; one line when there were some.
/// (`mlb prepare` calls it too: it replaces the run's name in the lock file.)
pub fn remove_left_groups(root: &CgroupRoot, previous: &Holder) {
    let Some(groups) = RunGroups::left_by(root, &previous.run) else { return };
    let name = groups.path.clone();
    let said = format!(
        "mlb: removed {name} (launcher pid {}, started {}, ended without removing it)",
        previous.pid, previous.started
    );
    match groups.remove() {
        Ok(1) => Console::Err.line(&format!("{said}: 1 process killed")),
        Ok(killed) => Console::Err.line(&format!("{said}: {killed} processes killed")),
        Err(errors) => errors.iter().for_each(|e| {
            Console::Err
                .line(&format!("mlb: warning: the groups of an earlier run stay: {}", mlb_record::fix::one_line(e)))
        }),
    }
}

/// `--dry-run`: every instance of every run, started by nothing, as
/// `runtime` would start it.
fn print_dry_run(options: &Options, prepared: &Prepared, run_name: &str, runtime: &Runtime) {
    let cgroups = CgroupPlan::decide(runtime, options.no_cgroups, &prepared.host.cgroup, run_name);
    let mode = cgroups.isolation();
    Console::Out.print(&runtime.backend.traits().notes);
    for k in 0..options.runs {
        Console::Out.print(&dry_run::render(
            prepared,
            &context(prepared, options, options.uid + k, mode),
            &cgroups,
            runtime,
        ));
    }
}

/// Waits `pause` between runs; false when interrupted meanwhile.
fn pause(pause: Duration, interrupt: &AtomicBool) -> bool {
    let until = Instant::now() + pause;
    while Instant::now() < until {
        if interrupt.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !interrupt.load(Ordering::Relaxed)
}

pub(super) fn context(p: &Prepared, options: &Options, run_id: u64, isolation: Isolation) -> RunContext {
    let mut variables = p.variables.clone();
    if options.to_quality {
        variables.push((env::TO_QUALITY.into(), "true".into()));
    }
    RunContext {
        suite: p.file.suite.clone(),
        run_id,
        variables,
        outdir: p.outdir.clone(),
        kind: p.host.kind,
        device_total: p.slots.len(),
        isolation,
        nodes: p.allocation.as_ref().map(|a| a.nodes.clone()).unwrap_or_default(),
    }
}

/// `ctx` for a config about to start: for a run to quality, the page cache
/// dropped where mlb may (not under Slurm: the nodes are not this host) and
/// the outcome told to its instances.
fn with_page_cache(ctx: &RunContext, slurm: bool) -> RunContext {
    use crate::quality::cache::drop_host_page_cache;
    use mlb_record::contract::quality::PageCache;
    let mut ctx = ctx.clone();
    if ctx.variables.iter().any(|(k, _)| k == env::TO_QUALITY) {
        let cache = if slurm {
            PageCache::kept("under --slurm the nodes' page caches are not dropped")
        } else {
            drop_host_page_cache()
        };
        ctx.variables.push((env::PAGE_CACHE.into(), cache.to_env()));
    }
    ctx
}

/// Writes the failure record of an instance that could not write its own.
pub(super) fn record_failure(
    p: &Prepared,
    config: &JobConfig,
    ctx: &RunContext,
    f: &Finished,
    record: &Record,
    display: &Display,
) -> Result<(), WriteError> {
    let Some(failure) = f.outcome.failure_to_record().filter(|_| !f.recorded) else { return Ok(()) };
    let report = failure_record(p, config, ctx, &f.instance, f.log.as_deref(), record);
    let outdir = plan::node_outdir(&p.outdir, f.instance.placement.node.as_deref());
    let path = report.failed(failure).write(&outdir)?;
    display.note(&format!("  failure record: {}", path.display()));
    Ok(())
}

/// The arguments the instance's own report would hold: for a workload, the
/// plugin's defaults (read from its manifest) under the instance's config,
/// as `mlb worker` takes them; for a command, its options.
fn recorded_args(config: &JobConfig, instance: &Instance) -> Map<String, Value> {
    match &instance.work {
        Work::Workload { plugin, workload, config, .. } => {
            let defaults = manifest::read(plugin).ok().flatten().into_iter().flatten().find(|w| w.name == *workload);
            effective_config(&defaults.map_or(Value::Null, |w| w.default_args), config)
        }
        Work::Command { .. } => {
            config.args.0.iter().filter(|(k, _)| render::is_option(k)).map(|(k, v)| (arg_key(k), v.clone())).collect()
        }
    }
}

/// What the launcher knows of a run's isolation, for the records it writes.
pub struct Record<'a> {
    /// The run's groups.
    pub groups: Option<&'a RunGroups>,
    /// The runtime.
    pub runtime: &'a Runtime,
}

/// The failure record of `instance` (its failure not yet set): the config's
/// arguments, its unique id and what the instance was given.
pub(super) fn failure_record(
    p: &Prepared,
    config: &JobConfig,
    ctx: &RunContext,
    instance: &Instance,
    log: Option<&Path>,
    record: &Record,
) -> Report {
    let args = recorded_args(config, instance);
    let unique_id = record::unique_id(&config.name, &args);
    let group = instance.placement.slot.as_ref().and_then(|s| record.groups.and_then(|g| g.slot(s.index)));
    let container = record.runtime.backend.traits().container.clone();
    let (cgroup, cpus, limit) = match (&instance.placement.slot, group) {
        (Some(s), Some(g)) => (Some(g.display_path()), &s.cpus, Some(s.memory_bytes)),
        (Some(s), None) if container.is_some() || instance.placement.node.is_some() => {
            (None, &s.cpus, Some(s.memory_bytes))
        }
        _ => (None, &p.host.cpus, None),
    };
    let provenance = Provenance {
        cpus: cpulist::format(cpus),
        cpu_count: cpus.len(),
        memory_limit_bytes: limit,
        cgroup,
        isolation: instance.isolation.into(),
        host_kind: ctx.kind.to_string(),
        container,
        ..Provenance::by_launcher()
    };
    let mut report = Report {
        args,
        unique_id: Some(unique_id),
        cpu_cores: Some(instance.placement.cpus.len()),
        provenance: Some(provenance),
        log: log.map(|log| log.display().to_string()),
        ..Report::new(&instance.identity)
    };
    report.args.insert("seed".into(), instance.seed.into());
    report
}
