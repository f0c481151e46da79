//! The timed loop (docs/worker.md, "Timing").
//!
//! `repeat` observations of `number` steps each; the device is synchronised at
//! both edges of every observation and never inside it. Every step's loss is
//! checked: a NaN or infinite loss fails the instance at once. The clock is
//! read at both edges of the timed window (the observations after the
//! `skip` warm-up ones), outside any timed block. After each observation,
//! outside the timed blocks, the stepper sees the loop's state
//! ([`Stepper::between`]: a checkpoint is taken there), and a loop may
//! start from a state saved so (a restart from a checkpoint).

use crate::plugins::{CallError, Instance, Plan};
use mlb_plugin::abi::StepStats;
use mlb_record::contract::window::{self, Edge};
use mlb_record::contract::{Position, WorkerLine};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::time::Instant;

/// Step losses kept for the report.
pub const BATCH_LOSS_WINDOW: usize = 100;
/// Per-observation mean losses kept for the report.
pub const EPOCH_LOSS_WINDOW: usize = 10;

/// What the loop drives: a plugin instance, or anything shaped like one.
pub trait Stepper {
    /// Runs one step.
    fn step(&mut self) -> Result<StepStats, CallError>;
    /// Waits for queued device work.
    fn sync(&mut self) -> Result<(), CallError>;
    /// After an observation, outside the timed blocks: where the loop
    /// stands, and its whole state (built only when asked for). Nothing,
    /// unless the stepper checkpoints.
    fn between(&mut self, _at: Position, _state: &dyn Fn() -> LoopState) -> Result<(), CallError> {
        Ok(())
    }
}

/// The loop's state after an observation: what a checkpoint keeps of it,
/// and what a loop restarted from that checkpoint goes on from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopState {
    /// Steps run.
    pub steps: u64,
    /// The observations so far, in order.
    pub observations: Vec<Observation>,
    /// The last step losses kept.
    pub batch_loss: Vec<f64>,
    /// The last per-observation mean losses kept.
    pub epoch_loss: Vec<f64>,
}

impl LoopState {
    /// Items processed by every observation so far.
    pub fn items(&self) -> u64 {
        self.observations.iter().map(|o| o.items).sum()
    }
}

impl Stepper for Instance<'_> {
    #[inline]
    fn step(&mut self) -> Result<StepStats, CallError> {
        Instance::step(self)
    }

    fn sync(&mut self) -> Result<(), CallError> {
        Instance::sync(self)
    }
}

/// One observation: `number` steps inside one timed block.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Wall time of the block, synchronised at both edges.
    pub seconds: f64,
    /// Items processed by its steps.
    pub items: u64,
}

/// Why the loop stopped early.
#[derive(Clone, Debug, PartialEq)]
pub enum LoopFailure {
    /// A plugin call failed.
    Call {
        /// The failure.
        error: CallError,
        /// The 1-based step during or after which it happened.
        step: u64,
    },
    /// A step's loss was NaN or infinite.
    NonFiniteLoss {
        /// The 1-based step.
        step: u64,
        /// The loss.
        loss: f64,
    },
}

/// Where the loop stands after an observation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// 1-based index of the observation just finished.
    pub index: u64,
    /// Observations in all.
    pub repeat: u64,
    /// Estimated seconds left.
    pub eta_seconds: f64,
    /// The last step loss, if any.
    pub loss: Option<f64>,
}

impl Progress {
    /// The line printed after each observation
    /// (`[  3/ 20] | ETA:   0.87 min | Batch Loss   0.1234`).
    pub fn line(&self) -> WorkerLine {
        WorkerLine::progress(self.index, self.repeat, self.eta_seconds, self.loss)
    }
}

/// Everything the loop measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoopResult {
    /// Every observation, warm-up included, in order.
    pub observations: Vec<Observation>,
    /// The last [`BATCH_LOSS_WINDOW`] step losses.
    pub batch_loss: Vec<f64>,
    /// The last [`EPOCH_LOSS_WINDOW`] per-observation mean losses.
    pub epoch_loss: Vec<f64>,
    /// Steps run.
    pub steps: u64,
    /// Set when the loop stopped early.
    pub failure: Option<LoopFailure>,
}

/// A bounded window keeping the most recent values.
struct Window {
    values: VecDeque<f64>,
    cap: usize,
}

impl Window {
    fn new(cap: usize) -> Self {
        Window { values: VecDeque::with_capacity(cap + 1), cap }
    }

    /// A window holding the last `cap` of `values`.
    fn of(cap: usize, values: &[f64]) -> Self {
        let mut window = Window::new(cap);
        values.iter().for_each(|&v| window.push(v));
        window
    }

    fn to_vec(&self) -> Vec<f64> {
        self.values.iter().copied().collect()
    }

    #[inline]
    fn push(&mut self, v: f64) {
        if self.values.len() == self.cap {
            self.values.pop_front();
        }
        self.values.push_back(v);
    }

    fn into_vec(self) -> Vec<f64> {
        self.values.into()
    }
}

/// The losses a loop keeps: the last step losses, and the mean loss of each
/// block of steps (an observation, or the training between two evaluations).
pub(super) struct Losses {
    batch: Window,
    epoch: Window,
    sum: f64,
    count: u64,
    /// The last finite step loss.
    pub(super) last: Option<f64>,
}

impl Losses {
    pub(super) fn new() -> Self {
        Losses {
            batch: Window::new(BATCH_LOSS_WINDOW),
            epoch: Window::new(EPOCH_LOSS_WINDOW),
            sum: 0.0,
            count: 0,
            last: None,
        }
    }

    /// Takes the loss of step `step` (1-based), if it has one: a NaN or
    /// infinite loss is kept and returned as the loop's failure.
    #[inline]
    pub(super) fn take(&mut self, stats: &StepStats, step: u64) -> Result<(), LoopFailure> {
        if stats.has_loss == 0 {
            return Ok(());
        }
        self.batch.push(stats.loss);
        if !stats.loss.is_finite() {
            return Err(LoopFailure::NonFiniteLoss { step, loss: stats.loss });
        }
        self.sum += stats.loss;
        self.count += 1;
        self.last = Some(stats.loss);
        Ok(())
    }

    /// Ends a block: the mean of its losses joins the per-block means.
    pub(super) fn end_block(&mut self) {
        if self.count > 0 {
            self.epoch.push(self.sum / self.count as f64);
        }
        (self.sum, self.count) = (0.0, 0);
    }

    /// The kept losses of a loop restarted from `state`.
    fn resumed(state: &LoopState) -> Self {
        Losses {
            batch: Window::of(BATCH_LOSS_WINDOW, &state.batch_loss),
            epoch: Window::of(EPOCH_LOSS_WINDOW, &state.epoch_loss),
            last: state.batch_loss.last().copied().filter(|l| l.is_finite()),
            ..Losses::new()
        }
    }

    /// Puts the kept losses into `result`.
    pub(super) fn into(self, result: &mut LoopResult) {
        result.batch_loss = self.batch.into_vec();
        result.epoch_loss = self.epoch.into_vec();
    }
}

/// Runs one step, counted in `result`, its loss taken: the items it
/// processed, or the failure that stops the loop.
#[inline]
pub(super) fn one_step<S: Stepper>(
    stepper: &mut S,
    result: &mut LoopResult,
    losses: &mut Losses,
) -> Result<u64, LoopFailure> {
    result.steps += 1;
    let stats = stepper.step().map_err(|error| LoopFailure::Call { error, step: result.steps })?;
    losses.take(&stats, result.steps)?;
    Ok(stats.items)
}

/// What the loop tells as it goes.
pub trait Observer {
    /// An observation finished.
    fn observation(&mut self, progress: &Progress);
    /// An edge of the timed window passed (ignored unless implemented).
    fn window(&mut self, _edge: Edge) {}
}

/// An observer told only of observations.
struct Observations<F>(F);

impl<F: FnMut(&Progress)> Observer for Observations<F> {
    fn observation(&mut self, progress: &Progress) {
        (self.0)(progress)
    }
}

/// Runs the plan, calling `on_observation` after each observation.
pub fn run<S: Stepper>(stepper: &mut S, plan: Plan, on_observation: impl FnMut(&Progress)) -> LoopResult {
    run_observed(stepper, plan, Observations(on_observation))
}

/// Runs the plan, telling `observer` after each observation and at both
/// edges of the timed window (the end only when every observation ran).
pub fn run_observed<S: Stepper>(stepper: &mut S, plan: Plan, observer: impl Observer) -> LoopResult {
    run_from(stepper, plan, observer, LoopState::default())
}

/// [`run_observed`] going on from `state`, the loop's state when a
/// checkpoint was taken: the observations after it run, and the result
/// holds them all. The window starts at the first timed observation this
/// loop runs.
pub fn run_from<S: Stepper>(stepper: &mut S, plan: Plan, mut observer: impl Observer, state: LoopState) -> LoopResult {
    let mut losses = Losses::resumed(&state);
    let first = state.observations.len() as u64 + 1;
    let mut elapsed: f64 = state.observations.iter().map(|o| o.seconds).sum();
    let mut done_items = state.items();
    let mut result = LoopResult { observations: state.observations, steps: state.steps, ..LoopResult::default() };
    let mut timed_items = 0;
    for index in first..=plan.repeat {
        if let Err(error) = stepper.sync() {
            result.failure = Some(LoopFailure::Call { error, step: result.steps });
            break;
        }
        if index == (plan.skip + 1).max(first) {
            observer.window(Edge::Start { at: window::now() });
        }
        let start = Instant::now();
        let mut items = 0u64;
        for _ in 0..plan.number {
            match one_step(stepper, &mut result, &mut losses) {
                Ok(n) => items += n,
                Err(failure) => {
                    result.failure = Some(failure);
                    break;
                }
            }
        }
        if result.failure.is_some() {
            break;
        }
        if let Err(error) = stepper.sync() {
            result.failure = Some(LoopFailure::Call { error, step: result.steps });
            break;
        }
        let seconds = start.elapsed().as_secs_f64();
        if index > plan.skip {
            timed_items += items;
        }
        if index == plan.repeat {
            observer.window(Edge::End { at: window::now(), items: timed_items });
        }
        result.observations.push(Observation { seconds, items });
        done_items += items;
        losses.end_block();
        elapsed += seconds;
        let eta_seconds = elapsed / index as f64 * (plan.repeat - index) as f64;
        observer.observation(&Progress { index, repeat: plan.repeat, eta_seconds, loss: losses.last });
        let state = || LoopState {
            steps: result.steps,
            observations: result.observations.clone(),
            batch_loss: losses.batch.to_vec(),
            epoch_loss: losses.epoch.to_vec(),
        };
        if let Err(error) = stepper.between(Position { step: result.steps, items: done_items }, &state) {
            result.failure = Some(LoopFailure::Call { error, step: result.steps });
            break;
        }
    }
    losses.into(&mut result);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::CallFailure;

    /// A scripted stepper: loss 1/step, error or NaN at a chosen step.
    struct Script {
        step: u64,
        syncs: u64,
        nan_at: Option<u64>,
        error_at: Option<u64>,
    }

    impl Stepper for Script {
        fn step(&mut self) -> Result<StepStats, CallError> {
            self.step += 1;
            if Some(self.step) == self.error_at {
                return Err(CallError { kind: CallFailure::Error, call: "step", message: "boom".into() });
            }
            let loss = if Some(self.step) == self.nan_at { f64::NAN } else { 1.0 / self.step as f64 };
            Ok(StepStats { items: 2, loss, has_loss: 1 })
        }

        fn sync(&mut self) -> Result<(), CallError> {
            self.syncs += 1;
            Ok(())
        }
    }

    fn script() -> Script {
        Script { step: 0, syncs: 0, nan_at: None, error_at: None }
    }

    #[test]
    fn counts_observations_steps_items_and_syncs() {
        let mut s = script();
        let mut lines = Vec::new();
        let r = run(&mut s, Plan { repeat: 4, number: 30, skip: 1 }, |p| lines.push(*p));
        assert_eq!(r.observations.len(), 4);
        assert!(r.observations.iter().all(|o| o.items == 60));
        assert_eq!((r.steps, s.syncs), (120, 8));
        assert_eq!(r.batch_loss.len(), 100);
        assert_eq!(*r.batch_loss.last().unwrap(), 1.0 / 120.0);
        assert_eq!(r.batch_loss[0], 1.0 / 21.0);
        assert_eq!(r.epoch_loss.len(), 4);
        assert_eq!(lines.iter().map(|p| p.index).collect::<Vec<_>>(), [1, 2, 3, 4]);
        assert_eq!(lines[3].eta_seconds, 0.0);
        assert!(r.failure.is_none());
    }

    #[test]
    fn nan_and_errors_stop_the_loop() {
        let mut s = Script { nan_at: Some(7), ..script() };
        let r = run(&mut s, Plan { repeat: 5, number: 3, skip: 0 }, |_| {});
        assert!(matches!(r.failure, Some(LoopFailure::NonFiniteLoss { step: 7, .. })));
        assert_eq!(r.observations.len(), 2);
        assert!(r.batch_loss.last().unwrap().is_nan());

        let mut s = Script { error_at: Some(2), ..script() };
        let r = run(&mut s, Plan { repeat: 5, number: 3, skip: 0 }, |_| {});
        assert!(matches!(&r.failure, Some(LoopFailure::Call { step: 2, error }) if error.message == "boom"));
        assert!(r.observations.is_empty());
    }

    /// Keeps the order of what it is told: `o` per observation, the edges.
    struct Told<'a>(&'a mut Vec<String>, &'a mut Vec<Edge>);

    impl Observer for Told<'_> {
        fn observation(&mut self, p: &Progress) {
            self.0.push(format!("o{}", p.index));
        }
        fn window(&mut self, edge: Edge) {
            self.0.push(if matches!(edge, Edge::Start { .. }) { "start" } else { "end" }.into());
            self.1.push(edge);
        }
    }

    #[test]
    fn the_window_spans_the_timed_observations_only() {
        let (mut said, mut edges) = (Vec::new(), Vec::new());
        run_observed(&mut script(), Plan { repeat: 4, number: 3, skip: 2 }, Told(&mut said, &mut edges));
        assert_eq!(said, ["o1", "o2", "start", "o3", "end", "o4"], "the end is the last block's, before its line");
        let (Edge::Start { at: start }, Edge::End { at: end, items }) = (edges[0], edges[1]) else { panic!() };
        assert!(end >= start);
        assert_eq!(items, 2 * 3 * 2, "items of the two timed observations");

        // A loop that stops early never closes its window.
        let (mut said, mut edges) = (Vec::new(), Vec::new());
        let plan = Plan { repeat: 4, number: 3, skip: 1 };
        run_observed(&mut Script { error_at: Some(8), ..script() }, plan, Told(&mut said, &mut edges));
        assert_eq!(said, ["o1", "start", "o2"]);
    }

    /// A stepper that keeps the state after observation `at`.
    struct Keeps {
        inner: Script,
        at: usize,
        kept: Option<LoopState>,
        seen: usize,
    }

    impl Stepper for Keeps {
        fn step(&mut self) -> Result<StepStats, CallError> {
            self.inner.step()
        }
        fn sync(&mut self) -> Result<(), CallError> {
            self.inner.sync()
        }
        fn between(&mut self, _at: Position, state: &dyn Fn() -> LoopState) -> Result<(), CallError> {
            self.seen += 1;
            if self.seen == self.at {
                self.kept = Some(state());
            }
            Ok(())
        }
    }

    #[test]
    fn a_loop_resumed_from_a_kept_state_ends_as_the_whole_loop() {
        let plan = Plan { repeat: 5, number: 30, skip: 1 };
        let mut keeps = Keeps { inner: script(), at: 2, kept: None, seen: 0 };
        let whole = run(&mut keeps, plan, |_| {});
        let state = keeps.kept.expect("kept after the second observation");
        assert_eq!((state.steps, state.items(), state.observations.len()), (60, 120, 2));
        // The script's step count is its position: a restored one goes on.
        let mut restored = Script { step: state.steps, ..script() };
        let (mut said, mut edges) = (Vec::new(), Vec::new());
        let resumed = run_from(&mut restored, plan, Told(&mut said, &mut edges), state);
        assert_eq!(resumed.steps, whole.steps);
        assert_eq!(resumed.observations.len(), 5);
        assert_eq!(resumed.batch_loss, whole.batch_loss);
        assert_eq!(resumed.epoch_loss, whole.epoch_loss);
        assert_eq!(said, ["start", "o3", "o4", "end", "o5"], "the window opens at the first observation run");
    }

    #[test]
    fn eta_line_format() {
        let p = Progress { index: 3, repeat: 20, eta_seconds: 52.2, loss: Some(0.12344) };
        assert_eq!(p.line().to_string(), "[  3/ 20] | ETA:   0.87 min | Batch Loss   0.1234");
        let p = Progress { loss: None, ..p };
        assert_eq!(p.line().to_string(), "[  3/ 20] | ETA:   0.87 min | Batch Loss        -");
    }
}
