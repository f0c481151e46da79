//! The one supervision loop, run by the launcher for the instances it
//! starts and by `mlb slurm task` for its instance on its node: each
//! instance is killed past `--timeout` or on Ctrl-C/SIGTERM, watched to its
//! end, its output read to its end, and its end classified once into an
//! [`Outcome`]. The instances of one group (the ranks of a DDP config) wait
//! for each other: once one has failed, the others get [`Bounds::peers`]
//! seconds more ([`PEER_GRACE`] for a DDP config), then are killed as timed
//! out, so that a rank waiting for a stopped peer does not keep the run
//! waiting for ever when there is no `--timeout`. An instance supervised where it ran (a Slurm task) comes
//! back with its outcome classified there ([`End::Supervised`]).

use super::outcome::{classify, Ending, Outcome};
use super::{End, Running};
use mlb_record::fix::one_line;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often running instances are polled.
const POLL: Duration = Duration::from_millis(5);

/// How long the output of an ended instance may stay open (held by a
/// process it left behind) before what holds it is killed.
pub const OUTPUT_GRACE: Duration = Duration::from_secs(3);

/// The shortest `--timeout`, in seconds: less kills an instance before it
/// has started (`1e-300` killed every one at once).
pub const MIN_TIMEOUT_SECONDS: f64 = 1.0;

/// `--timeout` (of a launch, or of the run a batch script starts): a finite
/// number of seconds, at least [`MIN_TIMEOUT_SECONDS`] (`0`, a negative
/// number or a tiny one would kill every instance at once, `NaN` or `inf`
/// never).
pub fn timeout(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= MIN_TIMEOUT_SECONDS => Ok(seconds),
        _ => Err(format!("accepted: a finite number of seconds, at least {MIN_TIMEOUT_SECONDS}")),
    }
}

/// How long the other ranks of a DDP group may run once one has failed,
/// in seconds: past the group's own bound on a collective (the workload's
/// `timeout`, 300 s by default), so that a rank whose peer hangs fails with
/// its own message first.
pub const PEER_GRACE: f64 = 360.0;

/// How long instances may run, in seconds (`None`: no limit).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bounds {
    /// Each instance, from its start (`--timeout`).
    pub each: Option<f64>,
    /// The others, once one instance of the group has failed.
    pub peers: Option<f64>,
}

/// One started instance under supervision.
pub struct Watched {
    running: Box<dyn Running>,
    started: Instant,
    end: Option<End>,
    ended_at: Option<Instant>,
    timed_out: Option<f64>,
    interrupted: bool,
    fault_killed: bool,
}

/// What supervision cannot see itself, known once the instance has ended.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// An OOM kill was counted in its group while it ran.
    pub oom_counted: bool,
    /// Its memory limit, for the OOM message.
    pub limit_bytes: Option<u64>,
    /// It is an `mlb worker` (whose exit codes are known).
    pub worker: bool,
    /// It announced its report on stdout.
    pub reported: bool,
    /// The last lines it wrote on stderr.
    pub stderr_tail: String,
}

impl Watched {
    /// `running`, started now.
    pub fn new(running: Box<dyn Running>) -> Self {
        Watched {
            running,
            started: Instant::now(),
            end: None,
            ended_at: None,
            timed_out: None,
            interrupted: false,
            fault_killed: false,
        }
    }

    /// Whether it has ended.
    pub fn has_ended(&self) -> bool {
        self.end.is_some()
    }

    /// When supervision saw its end.
    pub fn ended_at(&self) -> Option<Instant> {
        self.ended_at
    }

    /// Kills it as an injected fault (`--inject kill:...`): neither a
    /// timeout nor an interrupt, so that it ends as what the kill makes of
    /// it (crashed, by SIGKILL).
    pub fn kill(&mut self) {
        if self.end.is_none() {
            self.fault_killed = true;
            self.running.kill();
        }
    }

    /// Whether it was killed (a fault, a timeout, an interrupt) and has not
    /// ended yet: a frozen process takes its kill only once thawed.
    pub fn dying(&self) -> bool {
        self.end.is_none() && (self.fault_killed || self.timed_out.is_some() || self.interrupted)
    }

    /// Whether it has ended, and not as it should.
    pub fn has_failed(&self) -> bool {
        match &self.end {
            None | Some(End::Exit { code: Some(0), signal: None, oom_killed: false }) => false,
            Some(End::Supervised { outcome, .. }) => !outcome.passed(),
            Some(_) => true,
        }
    }

    /// Looks at it once: takes its end, or kills it (once) on `stop` or
    /// past `timeout` seconds. True while it runs.
    fn look(&mut self, stop: bool, timeout: Option<f64>) -> bool {
        if self.end.is_some() {
            return false;
        }
        self.end = self.running.poll();
        if self.end.is_some() {
            self.ended_at = Some(Instant::now());
            return false;
        }
        if stop && !self.interrupted {
            self.interrupted = true;
            self.running.kill();
        } else if let Some(limit) = timeout.filter(|&t| self.timed_out.is_none() && self.elapsed() > t) {
            self.timed_out = Some(limit);
            self.running.kill();
        }
        true
    }

    fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Once it has ended (and whatever it left in its slot's group is
    /// killed): waits for its output to be read to its end, at most
    /// [`OUTPUT_GRACE`] and not past `interrupt`. What held its output
    /// open, and what was done, if anything did.
    pub fn drain(&mut self, interrupt: &AtomicBool) -> Option<String> {
        self.running.drain(Instant::now() + OUTPUT_GRACE, interrupt)
    }

    /// Its outcome, classified here unless it was where it ran; and whether
    /// its failure record is written already (by its node).
    pub fn outcome(self, facts: Facts) -> (Outcome, bool) {
        let (interrupted, timed_out) = (self.interrupted, self.timed_out);
        let ending = |code, signal, oom_killed| Ending {
            code,
            signal,
            timed_out,
            interrupted,
            oom_killed: oom_killed || facts.oom_counted,
            limit_bytes: facts.limit_bytes,
            worker: facts.worker,
            reported: facts.reported,
            stderr_tail: facts.stderr_tail.clone(),
        };
        match self.end.expect("supervised to its end") {
            End::Supervised { outcome, recorded } => (outcome, recorded),
            End::Failed(e) if !interrupted && timed_out.is_none() => (Outcome::not_started(one_line(&e)), false),
            End::Lost(e) if !interrupted && timed_out.is_none() => (Outcome::lost(one_line(&e)), false),
            End::Failed(_) | End::Lost(_) => (classify(&ending(None, None, false)), false),
            End::Exit { code, signal, oom_killed } => (classify(&ending(code, signal, oom_killed)), false),
        }
    }
}

/// Supervises `all` until every one has ended: each is killed on
/// `interrupt` or past its [`Bounds`]. `tick` sees them after every round
/// (and may act on them: a fault injected).
pub fn watch<T: AsMut<Watched>>(all: &mut [T], bounds: Bounds, interrupt: &AtomicBool, tick: &mut dyn FnMut(&mut [T])) {
    let mut failed_at: Option<Instant> = None;
    loop {
        let stop = interrupt.load(Ordering::Relaxed);
        let mut running = 0;
        for w in all.iter_mut() {
            let w = w.as_mut();
            // The group's bound, counted as every bound is, from its start.
            let group = failed_at.zip(bounds.peers).map(|(at, grace)| (at - w.started).as_secs_f64() + grace);
            let timeout = match (bounds.each, group) {
                (Some(each), Some(group)) => Some(each.min(group)),
                (each, group) => each.or(group),
            };
            running += usize::from(w.look(stop, timeout));
            if failed_at.is_none() && w.has_failed() {
                failed_at = Some(Instant::now());
            }
        }
        tick(all);
        if running == 0 {
            return;
        }
        std::thread::sleep(POLL);
    }
}

impl AsMut<Watched> for Watched {
    fn as_mut(&mut self) -> &mut Watched {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_is_finite_and_at_least_a_second() {
        assert_eq!(timeout("2.5"), Ok(2.5));
        assert_eq!(timeout("1"), Ok(1.0));
        for bad in ["0", "-1", "1e-300", "0.999", "NaN", "inf", "-inf", "1e400", "soon", ""] {
            assert!(timeout(bad).unwrap_err().contains("at least 1"), "{bad}");
        }
    }
}
