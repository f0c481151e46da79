//! The run loop: every selected config, `--runs` times, each config's
//! instances started together and supervised; result lines as they finish.

use super::args::LaunchArgs;
use super::choice::Choice;
use super::container::Wrapping;
use super::dry_run::{self, CgroupPlan};
use super::error::LaunchError;
use super::outcome::{launcher_provenance, write_failure, Outcome};
use super::progress::Display;
use super::resume::Completed;
use super::runtime::Runtime;
use super::setup::{self, plugin_of, Prepared};
use super::signals;
use super::summary::{self, Summary};
use super::supervise::{self, Finished, Watch};
use crate::host::cpulist;
use crate::isolation::RunGroups;
use crate::jobs::{render, JobConfig, Program, Scope};
use crate::plan::{self, RunContext};
use crate::record::{self, arg_key};
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
    let wrapping = Wrapping::new(&prepared, args.jobs.as_deref().unwrap_or(std::path::Path::new(".")));
    let needs_groups =
        choice.needs_cgroups() && !args.no_cgroups && prepared.configs.iter().any(|c| c.scope == Scope::Student);
    let support = &prepared.host.cgroup;
    if args.dry_run {
        print_dry_run(args, &prepared, &run_name, &choice, wrapping);
        return Ok(EXIT_OK);
    }
    let runtime = choice.open(wrapping)?;
    if args.no_cgroups && choice.needs_cgroups() {
        eprintln!("mlb: warning: --no-cgroups: instances are not confined to their slot's CPUs and memory; every report records isolation \"none\"");
    }
    let interrupt = signals::install().map_err(LaunchError::Signals)?;
    let groups =
        if needs_groups { Some(RunGroups::create(&support.root()?, &run_name, &prepared.slots)?) } else { None };
    let mode = choice.isolation(groups.as_ref().map_or("none", |g| g.isolation_name()));
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
            let specs =
                plan::instances(config, plugin_of(&prepared, config), &prepared.slots, &ctx, prepared.host.cpus.len());
            if args.resume && completed.has(&ctx.suite, config, ctx.run_id, specs.len()) {
                display.note(&format!("skip {label}: its reports are complete (--resume)"));
                continue;
            }
            let progress = display.start(&label, specs.len());
            let t0 = Instant::now();
            let finished =
                supervise::run_instances(&watch, specs, matches!(config.program, Program::Plugin(_)), &progress);
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

/// `--dry-run`: every instance of every run, started by nothing.
fn print_dry_run(args: &LaunchArgs, prepared: &Prepared, run_name: &str, choice: &Choice, wrapping: Wrapping) {
    let support = &prepared.host.cgroup;
    let plan = if !choice.needs_cgroups() {
        CgroupPlan::Container
    } else if args.no_cgroups {
        CgroupPlan::Disabled
    } else if let Some(why) = &support.reason {
        CgroupPlan::Impossible(format!("{why} (a real run stops here; pass --no-cgroups to run unconfined)"))
    } else {
        CgroupPlan::Groups { parent: format!("mlb-{run_name}"), mode: support.version.isolation_name() }
    };
    let mode = choice.isolation(if args.no_cgroups { "none" } else { support.version.isolation_name() });
    let (note, describe) = choice.describer(wrapping);
    print!("{note}");
    for k in 0..args.runs {
        print!("{}", dry_run::render(prepared, &context(prepared, args.uid + k, mode), &plan, describe.as_ref()));
    }
}

/// Waits `seconds` between runs; false when interrupted meanwhile.
fn pause(seconds: f64, interrupt: &AtomicBool) -> bool {
    let until = Instant::now() + Duration::from_secs_f64(seconds.max(0.0));
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
        mlb: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mlb")),
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
    let mut extra = args.clone();
    extra.insert("seed".into(), f.spec.seed.into());
    extra.insert("unique_id".into(), record::unique_id(&config.name, &args).into());
    extra.insert("cpu_cores".into(), f.spec.cpu_count.into());
    let group = f.spec.slot.as_ref().and_then(|s| groups.and_then(|g| g.slot(s.index)));
    let container = runtime.container();
    let (cgroup, cpus, limit) = match (&f.spec.slot, group) {
        (Some(s), Some(g)) => (Some(g.display_path()), cpulist::format(&s.cpus), Some(s.memory_bytes)),
        (Some(s), None) if container.is_some() => (None, cpulist::format(&s.cpus), Some(s.memory_bytes)),
        _ => (None, cpulist::format(&p.host.cpus), None),
    };
    let isolation = if f.spec.slot.is_some() { ctx.isolation.as_str() } else { "none" };
    let mut provenance = launcher_provenance(isolation, ctx.kind.as_str(), cgroup, &cpus, limit);
    if let Some(c) = container {
        provenance["container"] = c;
    }
    extra.insert("provenance".into(), provenance);
    extra.insert("log".into(), f.log.display().to_string().into());
    match write_failure(&p.outdir, &f.spec.identity, &failure, extra) {
        Ok(path) => display.note(&format!("  failure record: {}", path.display())),
        Err(e) => display.note(&format!("mlb: cannot write the failure record in {}: {e}", p.outdir.display())),
    }
}
