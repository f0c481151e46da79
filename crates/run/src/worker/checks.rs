//! What the worker checks beside the clock: the fingerprints of a
//! deterministic run, and the fault a test injects (docs/determinism.md).
//!
//! [`Checked`] wraps the instance as the timed loop's [`Stepper`]: after
//! each step it injects the fault asked for at that step, then, every
//! `every` steps, asks the workload for its fingerprint and keeps it with
//! the step's loss. Both happen inside the timed block: what they cost is
//! part of the step time a deterministic run reports. Between
//! observations it checkpoints, when told to ([`Checkpoints`]).

use super::checkpoint::{Checkpoints, RestoreError, Saved, Saves};
use super::inject::Injection;
use super::timing::{LoopState, Stepper};
use crate::plugins::{CallError, Instance};
use mlb_plugin::abi::{FingerprintInfo, StepStats};
use mlb_plugin::Fault;
use mlb_record::contract::determinism::Fingerprint;
use mlb_record::contract::Position;
use std::time::{Duration, Instant};

/// A stepper whose state can be fingerprinted, faulted and checkpointed.
pub trait Checkable: Saves {
    /// What the workload computed so far.
    fn fingerprint(&mut self) -> Result<FingerprintInfo, CallError>;
    /// Injects `fault`.
    fn inject(&mut self, fault: Fault) -> Result<(), CallError>;
}

impl Checkable for Instance<'_> {
    fn fingerprint(&mut self) -> Result<FingerprintInfo, CallError> {
        Instance::fingerprint(self)
    }

    fn inject(&mut self, fault: Fault) -> Result<(), CallError> {
        Instance::inject(self, fault)
    }
}

impl Saves for Instance<'_> {
    fn save(&mut self, dir: &std::path::Path) -> Result<(), CallError> {
        Instance::save(self, dir)
    }

    fn restore(&mut self, dir: &std::path::Path) -> Result<(), CallError> {
        Instance::restore(self, dir)
    }
}

/// A stepper with its checks.
pub struct Checked<'s, S> {
    inner: &'s mut S,
    steps: u64,
    every: Option<u64>,
    injection: Option<Injection>,
    fingerprints: Vec<Fingerprint>,
    spent: Duration,
    checkpoints: Option<Checkpoints>,
}

impl<'s, S: Checkable> Checked<'s, S> {
    /// `inner`, fingerprinted every `every` steps (`None`: never), with
    /// `injection` injected.
    pub fn new(inner: &'s mut S, every: Option<u64>, injection: Option<Injection>) -> Self {
        Checked {
            inner,
            steps: 0,
            every,
            injection,
            fingerprints: Vec::new(),
            spent: Duration::ZERO,
            checkpoints: None,
        }
    }

    /// The same, checkpointed as `checkpoints` asks.
    pub fn with_checkpoints(self, checkpoints: Option<Checkpoints>) -> Self {
        Checked { checkpoints, ..self }
    }

    /// Restores the checkpoint asked for, if any: the workload's state, and
    /// the steps and fingerprints taken before it; the loop's state to go
    /// on from, and when the training started.
    pub fn restore(&mut self) -> Result<Option<(LoopState, String)>, RestoreError> {
        let Some(checkpoints) = &mut self.checkpoints else { return Ok(None) };
        let Some(Saved { step, started, state, fingerprints, .. }) = checkpoints.restore(self.inner)? else {
            return Ok(None);
        };
        self.steps = step;
        self.fingerprints = fingerprints;
        Ok(Some((state, started)))
    }

    /// The fingerprints taken, in step order, and the time taking them took.
    pub fn into_fingerprints(self) -> (Vec<Fingerprint>, Duration) {
        (self.fingerprints, self.spent)
    }
}

impl<S: Checkable> Stepper for Checked<'_, S> {
    #[inline]
    fn step(&mut self) -> Result<StepStats, CallError> {
        let stats = self.inner.step()?;
        self.steps += 1;
        if let Some(injection) = self.injection.filter(|i| i.step == self.steps) {
            self.inner.inject(injection.fault)?;
        }
        if self.every.is_some_and(|every| self.steps.is_multiple_of(every)) {
            let start = Instant::now();
            let print = self.inner.fingerprint()?;
            self.spent += start.elapsed();
            let loss = (stats.has_loss != 0).then_some(stats.loss);
            let grad_norm = (print.has_grad_norm != 0).then_some(print.grad_norm);
            self.fingerprints.push(Fingerprint::of(self.steps, loss, grad_norm, print.params));
        }
        Ok(stats)
    }

    fn sync(&mut self) -> Result<(), CallError> {
        self.inner.sync()
    }

    fn between(&mut self, at: Position, state: &dyn Fn() -> LoopState) -> Result<(), CallError> {
        match &mut self.checkpoints {
            Some(checkpoints) => checkpoints.between(self.inner, at, state, &self.fingerprints),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::{CallFailure, Plan};
    use crate::worker::timing;

    /// A workload whose one parameter counts its steps; `flip_bit` flips
    /// its lowest bit.
    #[derive(Default)]
    struct Counter {
        value: u64,
        faults: Vec<Fault>,
    }

    impl Stepper for Counter {
        fn step(&mut self) -> Result<StepStats, CallError> {
            self.value += 2;
            Ok(StepStats { items: 1, loss: 1.0 / self.value as f64, has_loss: 1 })
        }
        fn sync(&mut self) -> Result<(), CallError> {
            Ok(())
        }
    }

    impl Checkable for Counter {
        fn fingerprint(&mut self) -> Result<FingerprintInfo, CallError> {
            let mut params = [0; 16];
            params[8..].copy_from_slice(&self.value.to_be_bytes());
            Ok(FingerprintInfo { params, grad_norm: 1.0, has_grad_norm: 1, ..Default::default() })
        }
        fn inject(&mut self, fault: Fault) -> Result<(), CallError> {
            if fault == Fault::CorruptOutput {
                let message = "no output".into();
                return Err(CallError { kind: CallFailure::Error, call: "inject", message });
            }
            self.faults.push(fault);
            self.value ^= 1;
            Ok(())
        }
    }

    impl Saves for Counter {
        fn save(&mut self, dir: &std::path::Path) -> Result<(), CallError> {
            std::fs::write(dir.join("value"), self.value.to_string()).unwrap();
            Ok(())
        }
        fn restore(&mut self, dir: &std::path::Path) -> Result<(), CallError> {
            self.value = std::fs::read_to_string(dir.join("value")).unwrap().parse().unwrap();
            Ok(())
        }
    }

    fn run(every: Option<u64>, injection: Option<Injection>) -> (timing::LoopResult, Vec<Fingerprint>, Counter) {
        let mut counter = Counter::default();
        let mut checked = Checked::new(&mut counter, every, injection);
        let result = timing::run(&mut checked, Plan { repeat: 3, number: 10, skip: 1 }, |_| {});
        let (prints, _) = checked.into_fingerprints();
        (result, prints, counter)
    }

    #[test]
    fn fingerprints_every_n_steps_with_the_steps_loss() {
        let (result, prints, _) = run(Some(10), None);
        assert_eq!(result.steps, 30);
        assert_eq!(prints.iter().map(|p| p.step).collect::<Vec<_>>(), [10, 20, 30]);
        assert_eq!(prints[0].loss, Some(format!("{:016x}", (1.0f64 / 20.0).to_bits())));
        assert_eq!(prints[0].params, format!("{:032x}", 20));
        assert!(run(None, None).1.is_empty(), "no fingerprint outside a deterministic run");
    }

    #[test]
    fn a_fault_injected_after_step_k_shows_in_the_first_fingerprint_from_k() {
        let clean = run(Some(10), None).1;
        let (_, faulted, counter) = run(Some(10), Some(Injection { fault: Fault::FlipBit, step: 12 }));
        assert_eq!(counter.faults, [Fault::FlipBit], "injected once");
        assert!(clean[0].same_as(&faulted[0]));
        assert!(!clean[1].same_as(&faulted[1]) && faulted[1].step == 20);
        // Injected at a fingerprinted step, it shows in that step's.
        let (_, at_ten, _) = run(Some(10), Some(Injection { fault: Fault::FlipBit, step: 10 }));
        assert!(!clean[0].same_as(&at_ten[0]));
    }

    #[test]
    fn a_fault_the_workload_cannot_inject_fails_the_step() {
        let (result, _, _) = run(Some(10), Some(Injection { fault: Fault::CorruptOutput, step: 4 }));
        let Some(timing::LoopFailure::Call { error, step }) = result.failure else { panic!("{:?}", result.failure) };
        assert_eq!((error.call, step), ("inject", 4));
    }
}
