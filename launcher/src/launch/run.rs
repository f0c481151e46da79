//! The run loop: every selected config, `--runs` times, each config's
//! instances started together and supervised; result lines as they finish.

use super::args::LaunchArgs;
use super::choice::{self, Choice};
use super::dry_run::{self, CgroupPlan};
use super::error::LaunchError;
use super::outcome::Outcome;
use super::progress::Display;
use super::resume::Completed;
use super::setup::{self, plugin_of, Prepared};
use super::signals;
use super::summary::{self, Summary};
use super::supervise::{self, Finished, Watch};
use crate::contract::{Provenance, Report};
use crate::host::cpulist;
use crate::isolation::RunGroups;
use crate::jobs::{render, JobConfig, Scope};
use crate::plan::{self, RunContext};
use crate::record::{self, arg_key};
use crate::runtime::Runtime;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Exit status when every instance passed.
pub const EXIT_OK: i32 = 0;
/// Exit status when some instance failed.
pub const EXIT_FAILED: i32 = 1;
/// Exit status after Ctrl-C/SIGTERM (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Runs `mlb --jobs FILE ...`; returns the exit status.
pub fn run(args: &LaunchArgs, plugin_dirs: &[PathBuf]) -> Result<i32, LaunchError> {
    if args.host_root.is_some() && !args.dry_run {
        return Err(LaunchError::FixtureHost);
    }
    let prepared = setup::prepare(args, plugin_dirs)?;
    let run_name =
        format!("{}-{}-{}", prepared.file.suite, std::process::id(), chrono::Utc::now().format("%Y%m%d%H%M%S"));
    let choice = Choice::of(args, prepared.host.kind)?;
    let wrapping = choice::wrapping(&prepared);
    if args.dry_run {
        let runtime = choice.open_for_description(wrapping);
        print_dry_run(args, &prepared, &run_name, runtime.as_ref());
        return Ok(EXIT_OK);
    }
    let runtime = choice.open(wrapping)?;
    let cgroups = CgroupPlan::decide(runtime.as_ref(), args.no_cgroups, &prepared.host.cgroup, &run_name);
    if cgroups == CgroupPlan::Disabled {
        eprintln!("mlb: warning: --no-cgroups: instances are not confined to their slot's CPUs and memory; every report records isolation \"none\"");
    }
    let interrupt = signals::install().map_err(LaunchError::Signals)?;
    let slot_jobs = prepared.configs.iter().any(|c| c.scope == Scope::Student);
    // A host that cannot make groups is refused by `root()`, with its reason.
    let groups = match &cgroups {
        CgroupPlan::Groups { .. } | CgroupPlan::Impossible(_) if slot_jobs => {
            Some(RunGroups::create(&prepared.host.cgroup.root()?, &run_name, &prepared.slots)?)
        }
        _ => None,
    };
    let mode = cgroups.isolation(runtime.as_ref());
    let mut summary =
        Summary::open(&prepared.outdir).map_err(|source| LaunchError::Io { path: prepared.outdir.clone(), source })?;
    let display = Display::for_stderr();
    let watch = Watch {
        runtime: runtime.as_ref(),
        groups: groups.as_ref(),
        timeout: args.timeout,
        interrupt: &interrupt,
        logs: &prepared.outdir.join("logs"),
    };
    let started = Instant::now();
    let mut all_passed = true;
    'runs: for k in 0..args.runs {
        if k > 0 && !pause(args.pause, &interrupt) {
            break;
        }
        let ctx = context(&prepared, args.uid + k, mode);
        let completed = if args.resume { Completed::scan(&prepared.outdir) } else { Completed::default() };
        for config in &prepared.configs {
            if interrupt.load(Ordering::Relaxed) {
                break 'runs;
            }
            let mut label = config.label();
            if args.runs > 1 {
                label = format!("{label} (run {})", ctx.run_id);
            }
            let instances =
                plan::instances(config, plugin_of(&prepared, config), &prepared.slots, &ctx, &prepared.host.cpus);
            if args.resume && completed.has(&ctx.suite, config, ctx.run_id, instances.len()) {
                display.note(&format!("skip {label}: its reports are complete (--resume)"));
                continue;
            }
            let progress = display.start(&label, instances.len());
            let t0 = Instant::now();
            let finished = supervise::run_instances(&watch, config.index, instances, &progress);
            progress.finish();
            if finished.iter().any(|f| f.outcome == Outcome::Interrupted) {
                display.note(&format!("{label}: interrupted, no result line"));
                break 'runs;
            }
            for f in &finished {
                record_failure(&prepared, config, &ctx, f, groups.as_ref(), runtime.as_ref(), &display);
            }
            let failed = finished.iter().filter(|f| !f.outcome.passed()).count();
            all_passed &= failed == 0;
            let jobs = prepared.file.jobs.len();
            summary.emit(&summary::line(
                config.position,
                jobs,
                failed,
                finished.len(),
                t0.elapsed().as_secs_f64(),
                &label,
            ));
        }
    }
    summary.emit(&summary::total(started.elapsed().as_secs_f64()));
    if let Some(warning) = runtime.finish() {
        display.note(&format!("mlb: {warning}"));
    }
    drop(groups);
    Ok(if interrupt.load(Ordering::Relaxed) {
        EXIT_INTERRUPTED
    } else if all_passed {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// `--dry-run`: every instance of every run, started by nothing, as
/// `runtime` would start it.
fn print_dry_run(args: &LaunchArgs, prepared: &Prepared, run_name: &str, runtime: &dyn Runtime) {
    let cgroups = CgroupPlan::decide(runtime, args.no_cgroups, &prepared.host.cgroup, run_name);
    let mode = cgroups.isolation(runtime);
    print!("{}", runtime.notes());
    for k in 0..args.runs {
        print!("{}", dry_run::render(prepared, &context(prepared, args.uid + k, mode), &cgroups, runtime));
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

fn context(p: &Prepared, run_id: u64, isolation: &str) -> RunContext {
    RunContext {
        suite: p.file.suite.clone(),
        run_id,
        variables: p.variables.clone(),
        outdir: p.outdir.clone(),
        kind: p.host.kind,
        device_total: p.slots.len(),
        isolation: isolation.to_string(),
    }
}

/// Writes the failure record of an instance that could not write its own.
fn record_failure(
    p: &Prepared,
    config: &JobConfig,
    ctx: &RunContext,
    f: &Finished,
    groups: Option<&RunGroups>,
    runtime: &dyn Runtime,
    display: &Display,
) {
    let Some(failure) = f.outcome.failure_to_record() else { return };
    let args: Map<String, Value> =
        config.args.0.iter().filter(|(k, _)| render::is_option(k)).map(|(k, v)| (arg_key(k), v.clone())).collect();
    let unique_id = record::unique_id(&config.name, &args);
    let group = f.instance.placement.slot.as_ref().and_then(|s| groups.and_then(|g| g.slot(s.index)));
    let container = runtime.container();
    let (cgroup, cpus, limit) = match (&f.instance.placement.slot, group) {
        (Some(s), Some(g)) => (Some(g.display_path()), &s.cpus, Some(s.memory_bytes)),
        (Some(s), None) if container.is_some() => (None, &s.cpus, Some(s.memory_bytes)),
        _ => (None, &p.host.cpus, None),
    };
    let isolation = if f.instance.placement.slot.is_some() { ctx.isolation.as_str() } else { "none" };
    let provenance = Provenance {
        cpus: cpulist::format(cpus),
        cpu_count: cpus.len(),
        memory_limit_bytes: limit,
        cgroup,
        isolation: isolation.to_string(),
        host_kind: ctx.kind.to_string(),
        container,
        ..Provenance::by_launcher()
    };
    let mut report = Report {
        args,
        unique_id: Some(unique_id),
        cpu_cores: Some(f.instance.placement.cpus.len()),
        provenance: Some(provenance),
        log: f.log.as_ref().map(|log| log.display().to_string()),
        ..Report::new(&f.instance.identity)
    };
    report.args.insert("seed".into(), f.instance.seed.into());
    match report.failed(failure).write(&p.outdir) {
        Ok(path) => display.note(&format!("  failure record: {}", path.display())),
        Err(e) => display.note(&format!("mlb: {e}")),
    }
}
