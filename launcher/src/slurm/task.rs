//! `mlb slurm task --plan FILE`: one task of a step, on its node. It runs
//! its rank's typed launch as planned and supervises it with the launcher's
//! own loop (timeout, SIGTERM from scancel, outcome), writes its failure
//! record on this node when the instance could not, and sends the launcher
//! the outcome (`mlb-slurm: end`), which is not classified again there.

use super::protocol::TaskLine;
use super::step::{PlanError, StepPlan, TaskPlan};
use crate::contract::SlurmTask;
use crate::isolation::own_oom_kills;
use crate::runtime::outcome::Outcome;
use crate::runtime::supervise::{self, Facts, Watched};
use crate::runtime::{process, signals, Output, Stream};
use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Lines of stderr kept for a failure message.
const TAIL_LINES: usize = 5;

/// Runs the task of this process's rank in the plan at `plan`; its exit
/// status: 0 when the instance passed, 1 otherwise.
pub fn main(plan: &Path) -> i32 {
    let var = |name: &str| std::env::var(name).ok();
    let ids = SlurmTask::read(var).unwrap_or_default();
    let rank: usize = ids.task_id.parse().unwrap_or(0);
    let task = StepPlan::read(plan).and_then(|p| p.tasks.into_iter().nth(rank).ok_or(PlanError::NoRank(rank)));
    let task = match task {
        Ok(t) => t,
        Err(source) => {
            let error = super::SlurmError::Plan { path: plan.to_path_buf(), source };
            return finish(rank, Outcome::not_started(error.to_string()), false);
        }
    };
    println!("{}", TaskLine::Start { rank, node: ids.node.clone(), step: ids.step_id.clone() }.render());
    if !task.node.is_empty() && task.node != ids.node {
        eprintln!("mlb: rank {rank} was planned on node {} and runs on {}", task.node, ids.node);
    }
    let (outcome, recorded) = run(&task, ids);
    finish(rank, outcome, recorded)
}

/// Prints the end line; the task's exit status.
fn finish(rank: usize, outcome: Outcome, recorded: bool) -> i32 {
    let passed = outcome.passed();
    println!("{}", TaskLine::End { rank, outcome, recorded }.render());
    let _ = std::io::stdout().flush();
    i32::from(!passed)
}

/// Runs and supervises the instance; its outcome, and whether its failure
/// record was written here.
fn run(task: &TaskPlan, ids: SlurmTask) -> (Outcome, bool) {
    let interrupt = match signals::install() {
        Ok(flag) => flag,
        Err(e) => return (Outcome::not_started(format!("cannot handle signals: {e}")), false),
    };
    let forward = Arc::new(Forward::default());
    let oom_before = own_oom_kills();
    let command = task.launch.command(&SlurmTask::VARIABLES);
    let running = match process::start(command, None, Arc::clone(&forward) as Arc<dyn Output>) {
        Ok(r) => r,
        Err(e) => return (Outcome::not_started(e.to_string()), false),
    };
    let mut watched = [Watched::new(running)];
    supervise::watch(&mut watched, task.timeout, &interrupt, &mut |_| {});
    let [mut watched] = watched;
    if let Some(note) = watched.drain(&interrupt) {
        eprintln!("mlb: {note}");
    }
    let facts = Facts {
        oom_counted: own_oom_kills() > oom_before,
        limit_bytes: task.limit_bytes,
        worker: task.worker,
        stderr_tail: forward.tail(),
    };
    let (outcome, _) = watched.outcome(facts);
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
    (outcome, recorded)
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
