//! Starting the instances of one job config together and watching them to
//! their end: exit, signal, OOM kill, timeout, or Ctrl-C/SIGTERM.

use super::lines::Lines;
use super::outcome::{classify, Ending, Outcome};
use super::progress::{Counter, JobProgress};
use super::runtime::{End, Running, Runtime};
use crate::isolation::{RunGroups, SlotGroup};
use crate::plan::InstanceSpec;
use crate::record::Cause;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often running instances are polled.
const POLL: Duration = Duration::from_millis(5);

/// What the watch needs to know.
pub struct Watch<'a> {
    /// Starts processes.
    pub runtime: &'a dyn Runtime,
    /// The run's groups, when isolating with cgroups.
    pub groups: Option<&'a RunGroups>,
    /// Per-instance time limit, seconds.
    pub timeout: Option<f64>,
    /// Set on Ctrl-C/SIGTERM.
    pub interrupt: &'a AtomicBool,
    /// Folder for the instances' output logs.
    pub logs: &'a Path,
}

/// One instance, ended.
#[derive(Debug)]
pub struct Finished {
    /// What was started.
    pub spec: InstanceSpec,
    /// How it ended.
    pub outcome: Outcome,
    /// The report it announced (`report: PATH`), if any.
    pub report: Option<PathBuf>,
    /// Its output log.
    pub log: PathBuf,
}

struct Live<'g> {
    spec: InstanceSpec,
    running: Box<dyn Running>,
    group: Option<&'g SlotGroup>,
    oom_before: u64,
    started: Instant,
    counter: Arc<Counter>,
    lines: Arc<Lines>,
    log: PathBuf,
    end: Option<End>,
    timed_out: Option<f64>,
    interrupted: bool,
}

/// Starts every instance (at once) and waits for all of them. `worker` says
/// the instances are `mlb worker` processes (known exit codes).
pub fn run_instances(w: &Watch, specs: Vec<InstanceSpec>, worker: bool, progress: &JobProgress) -> Vec<Finished> {
    let mut live: Vec<Live> = Vec::new();
    let mut done: Vec<Finished> = Vec::new();
    for spec in specs {
        match start(w, spec, progress) {
            Ok(l) => live.push(l),
            Err(f) => {
                progress.instance(f.spec.identity.jr_id, &f.spec.identity.vcd, &f.outcome.describe());
                done.push(*f);
            }
        }
    }
    loop {
        let stop = w.interrupt.load(Ordering::Relaxed);
        let mut running = 0;
        for l in live.iter_mut().filter(|l| l.end.is_none()) {
            l.end = l.running.poll();
            if l.end.is_some() {
                continue;
            }
            running += 1;
            let elapsed = l.started.elapsed().as_secs_f64();
            if stop && !l.interrupted {
                l.interrupted = true;
                l.running.kill();
            } else if let Some(limit) = w.timeout.filter(|&t| elapsed > t && l.timed_out.is_none()) {
                l.timed_out = Some(limit);
                l.running.kill();
            }
        }
        let counters: Vec<&Counter> = live.iter().map(|l| l.counter.as_ref()).collect();
        progress.update(done.len() + live.iter().filter(|l| l.end.is_some()).count(), &counters);
        if running == 0 {
            break;
        }
        std::thread::sleep(POLL);
    }
    for l in live {
        let f = end(l, worker);
        let what = match (&f.outcome, &f.report) {
            (Outcome::Ok, Some(report)) => format!("ok, report {}", report.display()),
            (outcome, _) => outcome.describe(),
        };
        progress.instance(f.spec.identity.jr_id, &f.spec.identity.vcd, &what);
        done.push(f);
    }
    done.sort_by_key(|f| f.spec.identity.jr_id);
    done
}

fn log_path(w: &Watch, spec: &InstanceSpec) -> PathBuf {
    let id = &spec.identity;
    w.logs.join(format!("{}.{}.R{}.J{}.log", id.suite, id.name.replace('/', "_"), id.run_id, id.jr_id))
}

fn start<'g>(w: &Watch<'g>, mut spec: InstanceSpec, progress: &JobProgress) -> Result<Live<'g>, Box<Finished>> {
    let log = log_path(w, &spec);
    let group = match (&spec.slot, w.groups) {
        (Some(slot), Some(groups)) => groups.slot(slot.index),
        _ => None,
    };
    let fail = |spec: InstanceSpec, message: String| {
        Box::new(Finished {
            spec,
            outcome: Outcome::Failed { cause: Cause::Launch, code: None, message, recorded: false },
            report: None,
            log: log.clone(),
        })
    };
    let file = std::fs::create_dir_all(w.logs).and_then(|_| std::fs::File::create(&log));
    let file = match file {
        Ok(f) => f,
        Err(e) => return Err(fail(spec, format!("cannot create the log {}: {e}", log.display()))),
    };
    if let Some(g) = group {
        spec.env.push(crate::contract::env::cgroup(g.display_path()));
    }
    let counter = Arc::new(Counter::default());
    let echo = w.runtime.echoes().then(|| progress.echo(spec.identity.jr_id));
    let lines = Arc::new(Lines::new(file, Arc::clone(&counter), echo));
    let oom_before = group.map_or(0, |g| g.oom_kills());
    let running = match w.runtime.start(&spec, group, Arc::clone(&lines)) {
        Ok(r) => r,
        Err(message) => return Err(fail(spec, message)),
    };
    Ok(Live {
        spec,
        running,
        group,
        oom_before,
        started: Instant::now(),
        counter,
        lines,
        log,
        end: None,
        timed_out: None,
        interrupted: false,
    })
}

fn end(mut l: Live, worker: bool) -> Finished {
    if let Some(g) = l.group {
        g.kill_all();
    }
    l.running.drain();
    let end = l.end.expect("ended");
    let ending = Ending {
        code: end.code,
        signal: end.signal,
        timed_out: l.timed_out,
        interrupted: l.interrupted,
        oom_killed: end.oom_killed || l.group.is_some_and(|g| g.oom_kills() > l.oom_before),
        limit_bytes: l.spec.slot.as_ref().filter(|_| l.group.is_some() || end.oom_killed).map(|s| s.memory_bytes),
        worker,
        stderr_tail: l.lines.stderr_tail(),
    };
    let outcome = match end.error {
        Some(message) if !l.interrupted && l.timed_out.is_none() => {
            Outcome::Failed { cause: Cause::Launch, code: None, message, recorded: false }
        }
        _ => classify(&ending),
    };
    Finished { outcome, spec: l.spec, report: l.lines.report(), log: l.log }
}
