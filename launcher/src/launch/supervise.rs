//! Starting the instances of one job config together and watching them to
//! their end: exit, signal, OOM kill, timeout, or Ctrl-C/SIGTERM.

use super::outcome::{classify, Ending, Outcome};
use super::progress::{Counter, JobProgress};
use super::runtime::Runtime;
use crate::isolation::{RunGroups, SlotGroup};
use crate::plan::InstanceSpec;
use crate::record::Cause;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often running instances are polled.
const POLL: Duration = Duration::from_millis(5);
/// Lines of stderr kept for a failure message.
const TAIL_LINES: usize = 5;

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
    child: Child,
    group: Option<&'g SlotGroup>,
    oom_before: u64,
    started: Instant,
    counter: Arc<Counter>,
    stdout: JoinHandle<Option<PathBuf>>,
    stderr: JoinHandle<String>,
    log: PathBuf,
    status: Option<ExitStatus>,
    timed_out: Option<f64>,
    interrupted: bool,
}

/// Starts every instance (at once) and waits for all of them. `worker` says
/// the instances are `mlb worker` processes (known exit codes).
pub fn run_instances(w: &Watch, specs: Vec<InstanceSpec>, worker: bool, progress: &JobProgress) -> Vec<Finished> {
    let mut live: Vec<Live> = Vec::new();
    let mut done: Vec<Finished> = Vec::new();
    for spec in specs {
        match start(w, spec) {
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
        for l in live.iter_mut().filter(|l| l.status.is_none()) {
            match l.child.try_wait() {
                Ok(Some(status)) => {
                    l.status = Some(status);
                    kill_group(&l.child); // whatever it left behind
                }
                Ok(None) | Err(_) => {
                    running += 1;
                    let elapsed = l.started.elapsed().as_secs_f64();
                    if stop && !l.interrupted {
                        l.interrupted = true;
                        kill_group(&l.child);
                    } else if let Some(limit) = w.timeout.filter(|&t| elapsed > t && l.timed_out.is_none()) {
                        l.timed_out = Some(limit);
                        kill_group(&l.child);
                    }
                }
            }
        }
        let counters: Vec<&Counter> = live.iter().map(|l| l.counter.as_ref()).collect();
        progress.update(done.len() + live.iter().filter(|l| l.status.is_some()).count(), &counters);
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

fn start<'g>(w: &Watch<'g>, spec: InstanceSpec) -> Result<Live<'g>, Box<Finished>> {
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
    let files = std::fs::create_dir_all(w.logs).and_then(|_| {
        let out = std::fs::File::create(&log)?;
        let err = out.try_clone()?;
        Ok((out, err))
    });
    let (out_log, err_log) = match files {
        Ok(f) => f,
        Err(e) => return Err(fail(spec, format!("cannot create the log {}: {e}", log.display()))),
    };
    let oom_before = group.map_or(0, |g| g.oom_kills());
    let mut child = match w.runtime.command(&spec, group).spawn() {
        Ok(c) => c,
        Err(e) => {
            let message = format!("cannot start {}: {e}", spec.program.display());
            return Err(fail(spec, message));
        }
    };
    let counter = Arc::new(Counter::default());
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let c = Arc::clone(&counter);
    let stdout = std::thread::spawn(move || read_stdout(stdout, out_log, &c));
    let stderr = std::thread::spawn(move || read_stderr(stderr, err_log));
    Ok(Live {
        spec,
        child,
        group,
        oom_before,
        started: Instant::now(),
        counter,
        stdout,
        stderr,
        log,
        status: None,
        timed_out: None,
        interrupted: false,
    })
}

/// Copies stdout to the log, feeds progress lines to the counter, returns the
/// announced report path.
fn read_stdout(pipe: impl Read, mut log: std::fs::File, counter: &Counter) -> Option<PathBuf> {
    let mut report = None;
    for line in BufReader::new(pipe).lines().map_while(Result::ok) {
        counter.observe(&line);
        if let Some(p) = line.strip_prefix("report: ") {
            report = Some(PathBuf::from(p));
        }
        let _ = writeln!(log, "{line}");
    }
    report
}

/// Copies stderr to the log, returns its last lines.
fn read_stderr(pipe: impl Read, mut log: std::fs::File) -> String {
    let mut tail = VecDeque::with_capacity(TAIL_LINES);
    for line in BufReader::new(pipe).lines().map_while(Result::ok) {
        let _ = writeln!(log, "{line}");
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
    Vec::from(tail).join("\n")
}

fn kill_group(child: &Child) {
    let _ = killpg(Pid::from_raw(child.id() as i32), Signal::SIGKILL);
}

fn end(l: Live, worker: bool) -> Finished {
    if let Some(g) = l.group {
        g.kill_all();
    }
    let report = l.stdout.join().ok().flatten();
    let stderr_tail = l.stderr.join().unwrap_or_default();
    let status = l.status.expect("ended");
    let ending = Ending {
        code: status.code(),
        signal: status.signal(),
        timed_out: l.timed_out,
        interrupted: l.interrupted,
        oom_killed: l.group.is_some_and(|g| g.oom_kills() > l.oom_before),
        limit_bytes: l.spec.slot.as_ref().filter(|_| l.group.is_some()).map(|s| s.memory_bytes),
        worker,
        stderr_tail,
    };
    Finished { outcome: classify(&ending), spec: l.spec, report, log: l.log }
}
