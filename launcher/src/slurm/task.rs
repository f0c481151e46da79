//! `mlb slurm task --plan FILE`: one task of a step, on its node. It runs
//! its rank's instance as planned, kills it past `--timeout`, stops it on
//! SIGTERM (scancel), classifies its end as the launcher does on one host,
//! writes its failure record on this node when the instance could not, and
//! tells the launcher how it ended (`mlb-slurm: end`).

use super::protocol::TaskLine;
use super::step::{StepPlan, TaskPlan};
use crate::contract::SlurmTask;
use crate::isolation::own_oom_kills;
use crate::launch::outcome::{classify, Ending};
use crate::launch::{signals, OUTPUT_GRACE};
use crate::runtime::{process, End, Output, Stream};
use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the instance is polled.
const POLL: Duration = Duration::from_millis(5);
/// Lines of stderr kept for a failure message.
const TAIL_LINES: usize = 5;

/// Runs the task of this process's rank in the plan at `plan`; its exit
/// status: 0 when the instance passed, 1 otherwise.
pub fn main(plan: &Path) -> i32 {
    let var = |name: &str| std::env::var(name).ok();
    let ids = SlurmTask::read(var).unwrap_or_default();
    let rank: usize = ids.task_id.parse().unwrap_or(0);
    let task = match StepPlan::read(plan) {
        Ok(p) => p.tasks.into_iter().nth(rank).ok_or_else(|| format!("it has no task of rank {rank}")),
        Err(e) => Err(e),
    };
    let task = match task {
        Ok(t) => t,
        Err(message) => {
            let error = super::SlurmError::Plan { path: plan.to_path_buf(), message };
            return finish(rank, End { error: Some(error.to_string()), ..End::default() }, false);
        }
    };
    println!("{}", TaskLine::Start { rank, node: ids.node.clone(), step: ids.step_id.clone() }.render());
    if !task.node.is_empty() && task.node != ids.node {
        eprintln!("mlb: rank {rank} was planned on node {} and runs on {}", task.node, ids.node);
    }
    let (end, passed) = run(&task, ids);
    finish(rank, end, passed)
}

/// Prints the end line; the task's exit status.
fn finish(rank: usize, end: End, passed: bool) -> i32 {
    println!("{}", TaskLine::End { rank, end }.render());
    let _ = std::io::stdout().flush();
    i32::from(!passed)
}

/// Runs the instance; how it ended, and whether it passed.
fn run(task: &TaskPlan, ids: SlurmTask) -> (End, bool) {
    let interrupt = match signals::install() {
        Ok(flag) => flag,
        Err(e) => return (End { error: Some(format!("cannot handle signals: {e}")), ..End::default() }, false),
    };
    let mut cmd = Command::new(&task.program);
    cmd.args(&task.args).envs(task.env.iter().map(|(k, v)| (k, v)));
    if let Some(prefix) = &task.container_env_prefix {
        for name in SlurmTask::VARIABLES {
            if let Ok(value) = std::env::var(name) {
                cmd.env(format!("{prefix}{name}"), value);
            }
        }
    }
    let forward = Arc::new(Forward::default());
    let oom_before = own_oom_kills();
    let mut running = match process::start(cmd, None, Arc::clone(&forward) as Arc<dyn Output>) {
        Ok(r) => r,
        Err(message) => return (End { error: Some(message), ..End::default() }, false),
    };
    let started = Instant::now();
    let (mut timed_out, mut interrupted) = (None, false);
    let end = loop {
        if let Some(end) = running.poll() {
            break end;
        }
        if interrupt.load(Ordering::Relaxed) && !interrupted {
            interrupted = true;
            running.kill();
        } else if let Some(limit) = task.timeout.filter(|&t| started.elapsed().as_secs_f64() > t) {
            if timed_out.is_none() {
                timed_out = Some(limit);
                running.kill();
            }
        }
        std::thread::sleep(POLL);
    };
    if let Some(note) = running.drain(Instant::now() + OUTPUT_GRACE, &interrupt) {
        eprintln!("mlb: {note}");
    }
    let ending = Ending {
        code: end.code,
        signal: end.signal,
        timed_out,
        interrupted,
        oom_killed: own_oom_kills() > oom_before,
        limit_bytes: task.limit_bytes,
        worker: task.worker,
        stderr_tail: forward.tail(),
    };
    let outcome = classify(&ending);
    let recorded = outcome.failure_to_record().is_some_and(|failure| {
        let mut record = task.record.clone();
        if let Some(p) = record.provenance.as_mut() {
            p.slurm = Some(ids);
        }
        match record.failed(failure).write(&task.outdir) {
            Ok(path) => {
                eprintln!("mlb: failure record: {}", path.display());
                true
            }
            Err(e) => {
                eprintln!("mlb: {e}");
                false
            }
        }
    });
    let end =
        End { code: end.code, signal: end.signal, oom_killed: ending.oom_killed, timed_out, recorded, error: None };
    (end, outcome.passed())
}

/// The instance's output, passed on to srun (which labels it with the rank),
/// keeping the tail of stderr.
#[derive(Default)]
struct Forward {
    tail: Mutex<VecDeque<String>>,
}

impl Forward {
    fn tail(&self) -> String {
        let tail = self.tail.lock().expect("tail");
        tail.iter().map(|l| format!("{l}\n")).collect()
    }
}

impl Output for Forward {
    fn line(&self, stream: Stream, line: &str) {
        match stream {
            Stream::Stdout => println!("{line}"),
            Stream::Stderr => {
                eprintln!("{line}");
                let mut tail = self.tail.lock().expect("tail");
                if tail.len() == TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(line.to_string());
            }
        }
    }
}
