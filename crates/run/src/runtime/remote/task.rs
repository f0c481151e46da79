//! One task on its node: its planned launch run and supervised with the
//! launcher's own loop (timeout, SIGTERM when its step is cancelled,
//! outcome), its failure record written on this node when the instance
//! could not write one, and its typed outcome sent back to the launcher
//! ([`TaskLine::End`]), which does not classify it again.

use super::{TaskLine, TaskPlan};
use crate::console::Console;
use crate::isolation::own_oom_kills;
use crate::runtime::outcome::Outcome;
use crate::runtime::supervise::{self, Facts, Watched};
use crate::runtime::{process, signals, Output, Stream};
use mlb_record::contract::{Report, WorkerLine};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Lines of stderr kept for a failure message.
const TAIL_LINES: usize = 5;

/// Prints the end line of the task of `rank`; the task's exit status: 0
/// when the instance passed, 1 otherwise.
pub fn finish(rank: usize, outcome: Outcome, recorded: bool) -> i32 {
    let passed = outcome.passed();
    Console::Out.line(&TaskLine::End { rank, outcome, recorded }.render());
    i32::from(!passed)
}

/// Runs and supervises the instance of `task`, the host variables `pass`
/// passed into its container; its outcome, and whether its failure record
/// (completed by `complete`, with what the engine says of the task) was
/// written here.
pub fn run(task: &TaskPlan, pass: &[&str], complete: impl FnOnce(&mut Report)) -> (Outcome, bool) {
    let interrupt = match signals::install() {
        Ok(flag) => flag,
        Err(e) => return (Outcome::not_started(format!("cannot handle signals: {e}")), false),
    };
    let forward = Arc::new(Forward::default());
    let oom_before = own_oom_kills();
    let command = task.launch.command(pass);
    let running = match process::start(command, None, Arc::clone(&forward) as Arc<dyn Output>) {
        Ok(r) => r,
        Err(e) => return (Outcome::not_started(e.to_string()), false),
    };
    let mut watched = [Watched::new(running)];
    let bounds = supervise::Bounds { each: task.timeout, peers: None };
    supervise::watch(&mut watched, bounds, &interrupt, &mut |_| {});
    let [mut watched] = watched;
    if let Some(note) = watched.drain(&interrupt) {
        Console::Err.line(&format!("mlb: {note}"));
    }
    let facts = Facts {
        oom_counted: own_oom_kills() > oom_before,
        limit_bytes: task.limit_bytes,
        worker: task.worker,
        reported: forward.reported.load(Ordering::Relaxed),
        stderr_tail: forward.tail(),
    };
    let (outcome, _) = watched.outcome(facts);
    let recorded = outcome.failure_to_record().is_some_and(|failure| {
        let mut record = task.record.clone();
        complete(&mut record);
        match record.failed(failure).write(&task.outdir) {
            Ok(path) => {
                Console::Err.line(&format!("mlb: failure record: {}", path.display()));
                true
            }
            Err(e) => {
                Console::Err.line(&format!("mlb: {e}"));
                false
            }
        }
    });
    (outcome, recorded)
}

/// The instance's output, passed on to srun (which labels it with the rank),
/// keeping the tail of stderr and whether it announced its report.
#[derive(Default)]
struct Forward {
    tail: Mutex<VecDeque<String>>,
    reported: AtomicBool,
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
            Stream::Stdout => {
                if matches!(WorkerLine::parse(line), Some(WorkerLine::Report(_))) {
                    self.reported.store(true, Ordering::Relaxed);
                }
                Console::Out.line(line);
            }
            Stream::Stderr => {
                Console::Err.line(line);
                let mut tail = self.tail.lock().expect("tail");
                if tail.len() == TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(line.to_string());
            }
        }
    }
}
