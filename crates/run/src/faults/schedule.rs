//! The faults of one config on its clock: each applied once its time has
//! come to the instances it targets, lifted once its duration is over or
//! the attempt it hit has ended, and recorded as it was applied.

use super::spec::{Fault, Kind, Target};
use crate::isolation::control;
use crate::isolation::SlotGroup;
use mlb_record::contract::faults::Injected;
use nix::sys::signal::Signal;
use std::time::Instant;

/// A started instance a fault may act on.
pub trait Subject {
    /// Its rank: the instance's index in its config.
    fn rank(&self) -> u32;
    /// Its slot's index, when it has one.
    fn slot(&self) -> Option<usize>;
    /// The node it runs on (`None`: this host).
    fn node(&self) -> Option<&str>;
    /// Its slot's group, when the launcher made one.
    fn group(&self) -> Option<&SlotGroup>;
    /// The CPUs it was given.
    fn cpus(&self) -> usize;
    /// Whether it still runs.
    fn running(&self) -> bool;
    /// Kills it (SIGKILL) as a fault, not as a timeout.
    fn kill(&mut self);
}

/// Where one fault stands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Its time has not come.
    Pending,
    /// Applied (its record at this index), not lifted yet.
    On(usize),
    /// Applied and lifted, or applied once for good (a kill).
    Done,
}

/// The faults of one config, on the config's clock.
#[derive(Debug)]
pub struct Schedule {
    faults: Vec<(Fault, State)>,
    origin: Instant,
    host: String,
    applied: Vec<Injected>,
}

impl Schedule {
    /// `faults`, timed from `origin` (the config's start); `host` is this
    /// host's name, what `node=` matches for an instance without a node.
    pub fn new(faults: &[Fault], origin: Instant, host: String) -> Self {
        let mut faults: Vec<(Fault, State)> = faults.iter().map(|f| (f.clone(), State::Pending)).collect();
        faults.sort_by(|a, b| a.0.at.total_cmp(&b.0.at));
        Schedule { faults, origin, host, applied: Vec::new() }
    }

    /// Seconds since the config started.
    pub fn now(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }

    /// Applies every fault whose time has come, and lifts every one whose
    /// duration is over.
    pub fn tick<S: Subject>(&mut self, subjects: &mut [S]) {
        let now = self.now();
        for i in 0..self.faults.len() {
            let (fault, state) = &self.faults[i];
            match *state {
                State::Pending if now >= fault.at => {
                    let done = apply(fault, &self.host, subjects);
                    let lasting = fault.kind != Kind::Kill;
                    self.applied.push(Injected { fault: fault.text.clone(), at_s: now, until_s: None, done });
                    self.faults[i].1 = if lasting { State::On(self.applied.len() - 1) } else { State::Done };
                }
                State::On(record) if fault.lasts.is_some_and(|d| now >= self.applied[record].at_s + d) => {
                    self.lift(i, record, subjects, now);
                }
                _ => {}
            }
        }
    }

    /// Lifts every fault still on: the attempt it hit has ended.
    pub fn lift_all<S: Subject>(&mut self, subjects: &mut [S]) {
        let now = self.now();
        for i in 0..self.faults.len() {
            if let State::On(record) = self.faults[i].1 {
                self.lift(i, record, subjects, now);
            }
        }
    }

    fn lift<S: Subject>(&mut self, i: usize, record: usize, subjects: &mut [S], now: f64) {
        let (fault, state) = &mut self.faults[i];
        for s in targets(fault, &self.host, subjects) {
            let Some(group) = s.group() else { continue };
            let lifted = match fault.kind {
                Kind::Freeze => control::thaw(group),
                Kind::Slow => control::uncap_cpu(group),
                Kind::Stop => {
                    control::signal_all(group, Signal::SIGCONT);
                    Ok(())
                }
                Kind::Kill => Ok(()),
            };
            if let Err(e) = lifted {
                let done = &mut self.applied[record].done;
                done.push_str(&format!("; not lifted: {}", e));
            }
        }
        self.applied[record].until_s = Some(now);
        *state = State::Done;
    }

    /// The last fault applied at or before `t` seconds.
    pub fn last_before(&self, t: f64) -> Option<&Injected> {
        self.applied.iter().rev().find(|i| i.at_s <= t)
    }

    /// Every fault applied, in time order.
    pub fn into_applied(self) -> Vec<Injected> {
        self.applied
    }
}

/// The subjects `fault` targets.
fn targets<'s, S: Subject>(fault: &Fault, host: &str, subjects: &'s mut [S]) -> Vec<&'s mut S> {
    subjects
        .iter_mut()
        .filter(|s| match &fault.target {
            Target::Slot(n) => s.slot() == Some(*n),
            Target::Rank(n) => s.rank() == *n,
            Target::Node(name) => s.node().unwrap_or(host) == name,
        })
        .collect()
}

/// Applies `fault` to what it targets; what was done, for the record.
fn apply<S: Subject>(fault: &Fault, host: &str, subjects: &mut [S]) -> String {
    let mut said = Vec::new();
    let hit = targets(fault, host, subjects);
    if hit.is_empty() {
        return format!("nothing done: no instance in {}", fault.target);
    }
    for s in hit {
        let who = format!("rank {}", s.rank());
        if !s.running() {
            said.push(format!("{who} had ended"));
            continue;
        }
        if fault.kind == Kind::Kill {
            s.kill();
            said.push(format!("{who} killed (SIGKILL)"));
            continue;
        }
        let Some(group) = s.group() else {
            said.push(format!(
                "{who}: nothing done, it runs in no group of the launcher's (--no-cgroups, --docker or --slurm)"
            ));
            continue;
        };
        let done = match fault.kind {
            Kind::Freeze => {
                control::freeze(group).map(|n| format!("{who}: slot {} frozen, {n} processes", group.index))
            }
            Kind::Slow => {
                let share = fault.cpu.unwrap_or(1.0);
                control::cap_cpu(group, s.cpus(), share)
                    .map(|()| format!("{who}: slot {} capped at {share} of its {} CPUs", group.index, s.cpus()))
            }
            Kind::Stop => {
                let n = control::signal_all(group, Signal::SIGSTOP);
                Ok(format!("{who}: slot {} stopped (SIGSTOP), {n} processes", group.index))
            }
            Kind::Kill => unreachable!("handled above"),
        };
        said.push(done.unwrap_or_else(|e| format!("{who}: not applied: {}", e)));
    }
    said.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An instance without a group: only kills reach it.
    struct Plain {
        rank: u32,
        running: bool,
        killed: bool,
    }

    impl Subject for Plain {
        fn rank(&self) -> u32 {
            self.rank
        }
        fn slot(&self) -> Option<usize> {
            Some(self.rank as usize)
        }
        fn node(&self) -> Option<&str> {
            None
        }
        fn group(&self) -> Option<&SlotGroup> {
            None
        }
        fn cpus(&self) -> usize {
            1
        }
        fn running(&self) -> bool {
            self.running
        }
        fn kill(&mut self) {
            self.killed = true;
        }
    }

    fn plain(n: u32) -> Vec<Plain> {
        (0..n).map(|rank| Plain { rank, running: true, killed: false }).collect()
    }

    #[test]
    fn a_fault_waits_for_its_time_and_hits_only_its_target() {
        let faults = ["kill:rank=1@0.05s".parse().unwrap(), "kill:slot=7@0s".parse().unwrap()];
        let mut schedule = Schedule::new(&faults, Instant::now(), "h".into());
        let mut subjects = plain(2);
        schedule.tick(&mut subjects);
        assert!(!subjects[1].killed, "not yet");
        std::thread::sleep(std::time::Duration::from_millis(60));
        schedule.tick(&mut subjects);
        schedule.tick(&mut subjects);
        assert!(subjects[1].killed && !subjects[0].killed);
        let applied = schedule.into_applied();
        assert_eq!(applied.len(), 2, "each applied once: {applied:?}");
        assert_eq!(applied[0].done, "nothing done: no instance in slot 7");
        assert_eq!(applied[1].done, "rank 1 killed (SIGKILL)");
        assert!(applied[1].at_s >= 0.05 && applied[1].until_s.is_none());
    }

    #[test]
    fn a_fault_on_an_ended_instance_or_one_without_a_group_says_so() {
        let faults = ["freeze:rank=0@0s,for=0s".parse().unwrap(), "kill:node=h@0s".parse().unwrap()];
        let mut schedule = Schedule::new(&faults, Instant::now(), "h".into());
        let mut subjects = plain(2);
        subjects[1].running = false;
        schedule.tick(&mut subjects);
        schedule.tick(&mut subjects);
        let last = schedule.last_before(schedule.now()).unwrap().fault.clone();
        let applied = schedule.into_applied();
        assert!(applied[0].done.contains("runs in no group"), "{}", applied[0].done);
        assert!(applied[0].until_s.is_some(), "lifted after its 0 s");
        assert_eq!(applied[1].done, "rank 0 killed (SIGKILL); rank 1 had ended");
        assert_eq!(last, "kill:node=h@0s");
    }
}
