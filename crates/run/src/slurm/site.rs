//! A Slurm job step as the site of a run (`mlb --slurm`): the instances of
//! one job config start together as one step, one task per instance, each
//! task an `mlb slurm task` that runs its instance's typed launch (from the
//! step plan) on its node and supervises it there with the launcher's own
//! loop ([`supervise`](crate::runtime::supervise)).
//!
//! The launcher reads the step's output (`srun --label`), hands each rank's
//! lines to its instance, and takes each task's outcome from the task's own
//! `mlb-task: end` line. Ctrl-C cancels the step with `scancel`.

use super::allocation::Allocation;
use super::step::StepShape;
use crate::isolation::Isolation;
use crate::plan::Instance;
use crate::runtime::remote::{StepPlan, TaskLine, TaskPlan};
use crate::runtime::{
    read_lines, Backend, End, Launch, Output, Running, RuntimeError, Site, SiteTraits, Start, Started, Stream,
};
use mlb_record::contract::step_plan::{self, PLAN_DIR};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a task's output may still come after `srun` ended.
const DRAIN: Duration = Duration::from_secs(10);

/// Runs each job config as one Slurm job step.
pub struct SlurmSite {
    allocation: Allocation,
    mlb: PathBuf,
    outdir: PathBuf,
    timeout: Option<f64>,
    slots_per_node: usize,
    steps: AtomicUsize,
}

impl SlurmSite {
    /// Steps of `allocation` with `slots_per_node` slots on each node, each
    /// task killing its instance past `timeout`; plans go into
    /// `outdir/slurm/` (the output folder every node must see).
    pub fn new(allocation: Allocation, slots_per_node: usize, outdir: PathBuf, timeout: Option<f64>) -> Self {
        let mlb = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mlb"));
        SlurmSite { allocation, mlb, outdir, timeout, slots_per_node, steps: AtomicUsize::new(0) }
    }

    /// The shape of the step running `instances` (all of one job config,
    /// or one of them, for `--dry-run`).
    pub fn shape(&self, instances: &[&Instance]) -> StepShape {
        let nodes = self.allocation.nodes.len().max(1);
        let first = instances.first();
        let slotted = first.is_some_and(|i| i.placement.slot.is_some());
        let cpus_per_task = first.map_or(1, |i| i.placement.cpus.len().max(1));
        let mem_per_cpu_mib = match first.and_then(|i| i.placement.slot.as_ref()) {
            Some(slot) => self.allocation.memory_per_node.map(|_| (slot.memory_bytes >> 20) / cpus_per_task as u64),
            None => self.allocation.memory_per_node.map(|m| (m >> 20) / cpus_per_task as u64),
        };
        let gpus_per_task = match (self.allocation.gpus_per_node, slotted) {
            (0, _) => 0,
            (_, true) => 1,
            (all, false) => all,
        };
        let name = first.map_or_else(|| "mlb".into(), |i| format!("mlb:{}", i.identity.name));
        StepShape {
            nodes,
            tasks_per_node: if slotted { self.slots_per_node } else { 1 },
            cpus_per_task,
            mem_per_cpu_mib,
            gpus_per_task,
            name,
        }
    }

    /// The `srun` command line of a step of `shape`, with its plan at
    /// `plan`, in the container of `container` (pyxis's flags), if any.
    pub fn srun_line(&self, shape: &StepShape, plan: &Path, container: &[String]) -> Vec<String> {
        let mut line = vec!["srun".to_string()];
        line.extend(shape.srun_args(&self.mlb, plan, container));
        line
    }

    fn task_plan(&self, backend: &dyn Backend, rank: usize, start: &Start) -> Result<TaskPlan, RuntimeError> {
        let Launch::Process(launch) = backend.launch(start.instance)? else { return Err(RuntimeError::NotAProcess) };
        let placement = &start.instance.placement;
        Ok(TaskPlan {
            rank,
            node: placement.node.clone().unwrap_or_default(),
            launch,
            timeout: self.timeout,
            worker: start.instance.is_worker(),
            limit_bytes: placement.memory_bytes(),
            record: start.record.clone(),
            outdir: crate::plan::node_outdir(&self.outdir, placement.node.as_deref()),
        })
    }

    fn start_step(&self, backend: &dyn Backend, starts: &[Start]) -> Result<Vec<Started>, RuntimeError> {
        let mut tasks = Vec::with_capacity(starts.len());
        for (rank, start) in starts.iter().enumerate() {
            tasks.push(self.task_plan(backend, rank, start)?);
        }
        let container = tasks[0].launch.step_flags().to_vec();
        let id = &starts[0].instance.identity;
        let n = self.steps.fetch_add(1, Ordering::Relaxed);
        let name = step_plan::file_name(&id.suite, &id.name, id.run_id, n);
        let plan = self.outdir.join(PLAN_DIR).join(name);
        StepPlan { tasks }.write(&plan).map_err(|source| RuntimeError::StepPlan { path: plan.clone(), source })?;
        let instances: Vec<&Instance> = starts.iter().map(|s| s.instance).collect();
        let shape = self.shape(&instances);
        let line = self.srun_line(&shape, &plan, &container);
        let mut srun = Command::new(&line[0]);
        srun.args(&line[1..]).envs(shape.srun_env()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = srun.spawn().map_err(RuntimeError::Srun)?;
        let outputs: Vec<Arc<dyn Output>> = starts.iter().map(|s| Arc::clone(&s.output)).collect();
        let step = Arc::new(Step::new(starts.len(), self.allocation.job_id.clone(), child.id() as i32));
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        for (stream, pipe) in
            [(Stream::Stdout, Box::new(stdout) as Box<dyn Read + Send>), (Stream::Stderr, Box::new(stderr))]
        {
            let (step, outputs) = (Arc::clone(&step), outputs.clone());
            std::thread::spawn(move || demux(&step, &outputs, stream, pipe));
        }
        let waiter = Arc::clone(&step);
        std::thread::spawn(move || waiter.wait(child));
        Ok((0..starts.len())
            .map(|rank| Ok(Box::new(Task { rank, step: Arc::clone(&step) }) as Box<dyn Running>))
            .collect())
    }
}

impl Site for SlurmSite {
    fn start(&self, backend: &dyn Backend, starts: &[Start]) -> Vec<Started> {
        if starts.is_empty() {
            return Vec::new();
        }
        match self.start_step(backend, starts) {
            Ok(started) => started,
            Err(e) => {
                let e = Arc::new(e);
                starts.iter().map(|_| Err(RuntimeError::Step(Arc::clone(&e)))).collect()
            }
        }
    }

    /// The srun line of its step, then what the task runs on its node.
    fn describe(&self, backend: &dyn Backend, instance: &Instance) -> String {
        let plan = self.outdir.join(PLAN_DIR).join("STEP.json");
        let container = match backend.launch(instance) {
            Ok(Launch::Process(launch)) => launch.step_flags().to_vec(),
            _ => Vec::new(),
        };
        let line = self.srun_line(&self.shape(&[instance]), &plan, &container);
        let mut out = format!("    srun (one task of the step): {}\n", line.join(" "));
        out.push_str(&backend.describe(instance));
        out
    }

    fn traits(&self) -> SiteTraits {
        SiteTraits { isolation: Some(Isolation::Slurm), supervises: true }
    }
}

/// What the launcher knows of a running step.
struct Step {
    state: Mutex<StepState>,
    job_id: String,
    srun_pid: i32,
}

#[derive(Default)]
struct StepState {
    ends: Vec<Option<End>>,
    /// The ranks whose task said it started.
    started: Vec<bool>,
    step_id: Option<String>,
    /// srun's exit, once it exited.
    srun: Option<String>,
    /// Output readers still reading.
    readers: usize,
    cancelled: bool,
    ended_at: Option<Instant>,
}

impl Step {
    fn new(tasks: usize, job_id: String, srun_pid: i32) -> Self {
        let state = StepState {
            ends: (0..tasks).map(|_| None).collect(),
            started: vec![false; tasks],
            readers: 2,
            ..StepState::default()
        };
        Step { state: Mutex::new(state), job_id, srun_pid }
    }

    fn wait(&self, mut child: Child) {
        let status = child.wait().map_or_else(|e| e.to_string(), |s| s.to_string());
        let mut state = self.state.lock().expect("step state");
        state.srun = Some(status);
        state.ended_at = Some(Instant::now());
    }

    fn take(&self, line: TaskLine) {
        let mut state = self.state.lock().expect("step state");
        match line {
            TaskLine::Start { rank, step, .. } => {
                state.step_id = Some(step);
                if let Some(started) = state.started.get_mut(rank) {
                    *started = true;
                }
            }
            TaskLine::End { rank, outcome, recorded } => {
                if let Some(slot) = state.ends.get_mut(rank) {
                    *slot = Some(End::Supervised { outcome, recorded });
                }
            }
        }
    }

    /// Cancels the step (once): `scancel JOB.STEP`, which ends every task.
    fn cancel(&self) {
        let step = {
            let mut state = self.state.lock().expect("step state");
            if state.cancelled || state.srun.is_some() {
                return;
            }
            state.cancelled = true;
            state.step_id.clone()
        };
        match step {
            Some(step) => {
                let target = format!("{}.{step}", self.job_id);
                let _ = Command::new("scancel").arg(target).stdout(Stdio::null()).stderr(Stdio::null()).status();
            }
            // No task has said its step yet: two SIGINTs within a second
            // make srun itself cancel the step it is creating or running
            // (the allocation is left alone).
            None => {
                let srun = nix::unistd::Pid::from_raw(self.srun_pid);
                for _ in 0..2 {
                    let _ = nix::sys::signal::kill(srun, nix::sys::signal::Signal::SIGINT);
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }
}

/// Routes one of srun's streams: each `RANK: line` to its instance, the
/// tasks' own protocol lines to the step.
fn demux(step: &Step, outputs: &[Arc<dyn Output>], stream: Stream, pipe: Box<dyn Read + Send>) {
    read_lines(pipe, &mut |line| match split_label(line) {
        Some((rank, text)) if rank < outputs.len() => match TaskLine::parse(text) {
            Some(task_line) => step.take(task_line),
            None => outputs[rank].line(stream, text),
        },
        // srun's own messages (no label) go to every instance's stderr.
        _ => outputs.iter().for_each(|o| o.line(Stream::Stderr, line)),
    });
    step.state.lock().expect("step state").readers -= 1;
}

/// `(rank, text)` of a line `srun --label` wrote: `  3: text`.
fn split_label(line: &str) -> Option<(usize, &str)> {
    let (rank, text) = line.split_once(": ")?;
    Some((rank.trim().parse().ok()?, text))
}

/// One task of a step, as the launcher supervises it.
struct Task {
    rank: usize,
    step: Arc<Step>,
}

impl Running for Task {
    fn poll(&mut self) -> Option<End> {
        let mut state = self.step.state.lock().expect("step state");
        if let Some(end) = state.ends[self.rank].take() {
            return Some(end);
        }
        let srun = state.srun.clone()?;
        let drained = state.readers == 0 || state.ended_at.is_some_and(|t| t.elapsed() > DRAIN);
        let started = state.started[self.rank];
        drained.then(|| match started {
            true => End::Lost(RuntimeError::TaskKilled { srun }),
            false => End::Failed(RuntimeError::TaskSilent { srun }),
        })
    }

    fn kill(&mut self) {
        self.step.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::split_label;

    #[test]
    fn labels() {
        assert_eq!(split_label(" 3: report: /x.json"), Some((3, "report: /x.json")));
        assert_eq!(split_label("12: a: b"), Some((12, "a: b")));
        assert_eq!(split_label("srun: error: oops"), None);
    }
}
