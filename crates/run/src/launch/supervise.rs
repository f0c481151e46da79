//! The instances of one job config on the launcher's side: each with its
//! log, its slot's group and its telemetry, started together by the run's
//! runtime and watched to their end by the one supervision loop
//! ([`runtime::supervise`](crate::runtime::supervise)).

use super::lines::Lines;
use super::logs;
use super::progress::{Counter, JobProgress};
use crate::faults::{Schedule, Subject};
use crate::isolation::{RunGroups, SlotGroup};
use crate::plan::Instance;
use crate::runtime::outcome::Outcome;
use crate::runtime::supervise::{self, Facts, Watched};
use crate::runtime::{Output, Running, Runtime, Start};
use crate::telemetry::{self, Probes, Sampler, Sources};
use mlb_record::contract::{Position, Report};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// What the watch needs to know.
pub struct Watch<'a> {
    /// How and where instances run.
    pub runtime: &'a Runtime,
    /// The run's groups, when isolating with cgroups.
    pub groups: Option<&'a RunGroups>,
    /// Per-instance time limit, seconds.
    pub timeout: Option<f64>,
    /// Set on Ctrl-C/SIGTERM.
    pub interrupt: &'a AtomicBool,
    /// Folder for the instances' output logs.
    pub logs: &'a Path,
    /// The telemetry sources, when sampling.
    pub telemetry: Option<&'a Sources>,
}

/// One instance, ended.
#[derive(Debug)]
pub struct Finished {
    /// What was started.
    pub instance: Instance,
    /// How it ended.
    pub outcome: Outcome,
    /// The report it announced (`report: PATH`), if any.
    pub report: Option<PathBuf>,
    /// Its output log (`None`: it could not be created).
    pub log: Option<PathBuf>,
    /// What happened after it ended (its output held open), also in its log.
    pub note: Option<String>,
    /// Its failure record is written already (by its runtime, on its node).
    pub recorded: bool,
    /// When supervision saw it end (`None`: it never started).
    pub ended_at: Option<Instant>,
    /// Where a checkpointing worker last said it stood.
    pub position: Option<Position>,
    /// The checkpoint it resumed from, and when it said so.
    pub resumed: Option<(Position, Instant)>,
}

struct Live<'g> {
    instance: Instance,
    watched: Watched,
    group: Option<&'g SlotGroup>,
    oom_before: u64,
    counter: Arc<Counter>,
    lines: Arc<Lines>,
    log: PathBuf,
    sampler: Option<Sampler>,
}

impl AsMut<Watched> for Live<'_> {
    fn as_mut(&mut self) -> &mut Watched {
        &mut self.watched
    }
}

impl Subject for Live<'_> {
    fn rank(&self) -> u32 {
        self.instance.identity.jr_id
    }

    fn slot(&self) -> Option<usize> {
        self.instance.placement.slot.as_ref().map(|s| s.index)
    }

    fn node(&self) -> Option<&str> {
        self.instance.placement.node.as_deref()
    }

    fn group(&self) -> Option<&SlotGroup> {
        self.group
    }

    fn cpus(&self) -> usize {
        self.instance.placement.cpus.len()
    }

    fn running(&self) -> bool {
        !self.watched.has_ended()
    }

    fn kill(&mut self) {
        self.watched.kill();
    }
}

/// Starts every instance of the job's config `config` (1-based) at once
/// and waits for all of them; once one has failed, the others may run
/// `peers` seconds more (the ranks of one DDP group). `record` gives the failure record of an
/// instance (without its failure), for a site that supervises instances
/// where they run, and writes it there. The faults of `schedule` are
/// applied as their time comes, and lifted when all have ended.
pub fn run_instances(
    w: &Watch,
    config: usize,
    instances: Vec<Instance>,
    peers: Option<f64>,
    record: &dyn Fn(&Instance, Option<&Path>) -> Report,
    progress: &JobProgress,
    mut schedule: Option<&mut Schedule>,
) -> Vec<Finished> {
    let mut live: Vec<Live> = Vec::new();
    let mut done: Vec<Finished> = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    for instance in instances {
        match prepare(w, config, instance, progress) {
            Ok(p) => pending.push(p),
            Err(f) => {
                progress.instance(f.instance.identity.jr_id, &f.instance.identity.vcd, &f.outcome.describe());
                done.push(*f);
            }
        }
    }
    let starts: Vec<Start> = pending
        .iter()
        .map(|p| Start {
            instance: &p.instance,
            group: p.group,
            output: Arc::clone(&p.lines) as Arc<dyn Output>,
            record: record(&p.instance, Some(&p.log)),
        })
        .collect();
    let started = w.runtime.start_all(&starts);
    drop(starts);
    for (p, started) in pending.into_iter().zip(started) {
        match started {
            Ok(running) => live.push(p.live(running)),
            Err(e) => {
                let f = p.failed(mlb_record::fix::one_line(&e));
                progress.instance(f.instance.identity.jr_id, &f.instance.identity.vcd, &f.outcome.describe());
                done.push(f);
            }
        }
    }
    let not_started = done.len();
    let bounds = supervise::Bounds { each: w.runtime.timeout_here(w.timeout), peers };
    supervise::watch(&mut live, bounds, w.interrupt, &mut |live| {
        if let Some(schedule) = schedule.as_deref_mut() {
            schedule.tick(live);
        }
        // A frozen instance takes its kill only once thawed.
        for l in live.iter().filter(|l| l.watched.dying()) {
            if let Some(g) = l.group.filter(|g| g.freezer_dir().is_some()) {
                let _ = crate::isolation::control::thaw(g);
            }
        }
        let counters: Vec<&Counter> = live.iter().map(|l| l.counter.as_ref()).collect();
        progress.update(not_started + live.iter().filter(|l| l.watched.has_ended()).count(), &counters);
    });
    if let Some(schedule) = schedule {
        schedule.lift_all(&mut live);
    }
    for l in live {
        let f = end(w, l);
        let mut what = match (&f.outcome, &f.report) {
            (Outcome::Ok, Some(report)) => format!("ok, report {}", report.display()),
            (outcome, _) => outcome.describe(),
        };
        if let Some(note) = &f.note {
            what = format!("{what}; {note}");
        }
        progress.instance(f.instance.identity.jr_id, &f.instance.identity.vcd, &what);
        done.push(f);
    }
    done.sort_by_key(|f| f.instance.identity.jr_id);
    done
}

/// An instance whose log and output are ready, not yet started.
struct Pending<'g> {
    instance: Instance,
    group: Option<&'g SlotGroup>,
    counter: Arc<Counter>,
    lines: Arc<Lines>,
    log: PathBuf,
    oom_before: u64,
    sampler: Option<Sampler>,
}

impl<'g> Pending<'g> {
    fn live(self, running: Box<dyn Running>) -> Live<'g> {
        Live {
            instance: self.instance,
            watched: Watched::new(running),
            group: self.group,
            oom_before: self.oom_before,
            counter: self.counter,
            lines: self.lines,
            log: self.log,
            sampler: self.sampler,
        }
    }

    fn failed(self, message: String) -> Finished {
        *failed_start(self.instance, message, Some(self.log))
    }
}

/// An instance that could not start, with its log when one was made.
fn failed_start(instance: Instance, message: String, log: Option<PathBuf>) -> Box<Finished> {
    Box::new(Finished {
        instance,
        outcome: Outcome::not_started(message),
        report: None,
        log,
        note: None,
        recorded: false,
        ended_at: None,
        position: None,
        resumed: None,
    })
}

fn prepare<'g>(
    w: &Watch<'g>,
    config: usize,
    mut instance: Instance,
    progress: &JobProgress,
) -> Result<Pending<'g>, Box<Finished>> {
    let (log, file) = match logs::create(w.logs, &instance.identity, config) {
        Ok(created) => created,
        Err(e) => {
            let message = format!("cannot create a log in {}: {e}", w.logs.display());
            return Err(failed_start(instance, message, None));
        }
    };
    let group = match (&instance.placement.slot, w.groups) {
        (Some(slot), Some(groups)) => groups.slot(slot.index),
        _ => None,
    };
    if let Some(g) = group {
        instance.env.push(mlb_record::contract::env::cgroup(g.display_path()));
    }
    let counter = Arc::new(Counter::default());
    let echo = w.runtime.backend.traits().echoes.then(|| progress.echo(instance.identity.jr_id));
    // Instances on other nodes are not this host's to sample.
    let sampler = w.telemetry.filter(|s| s.hz > 0.0 && instance.placement.node.is_none()).map(|sources| {
        let p = &instance.placement;
        Sampler::start(Probes::new(sources, group, &p.cpus, &p.devices), sources.hz)
    });
    let lines = Lines::new(file, Arc::clone(&counter), echo).with_sampler(sampler.as_ref().map(Sampler::sink));
    let oom_before = group.map_or(0, |g| g.oom_kills());
    Ok(Pending { instance, group, counter, lines: Arc::new(lines), log, oom_before, sampler })
}

fn end(w: &Watch, mut l: Live) -> Finished {
    if let Some(g) = l.group {
        g.kill_all();
    }
    let note = l.watched.drain(w.interrupt);
    if let Some(note) = &note {
        l.lines.note(note);
    }
    let report = l.lines.report();
    let facts = Facts {
        oom_counted: l.group.is_some_and(|g| g.oom_kills() > l.oom_before),
        limit_bytes: l.instance.placement.memory_bytes(),
        worker: l.instance.is_worker(),
        reported: report.is_some(),
        stderr_tail: l.lines.stderr_tail(),
    };
    let ended_at = l.watched.ended_at();
    let (outcome, recorded) = l.watched.outcome(facts);
    let block = l.sampler.and_then(Sampler::finish);
    if let (Outcome::Ok, Some(path), Some(block)) = (&outcome, &report, block) {
        if let Err(e) = telemetry::attach::attach(path, &block) {
            l.lines.note(&e.to_string());
        }
    }
    Finished {
        outcome,
        instance: l.instance,
        report,
        log: Some(l.log),
        note,
        recorded,
        ended_at,
        position: l.lines.position(),
        resumed: l.lines.resumed(),
    }
}

#[cfg(test)]
mod tests {
    //! Supervision against a scripted stand-in runtime: no process, no
    //! cgroup, no container; each instance follows its script.
    use super::*;
    use crate::gpu::DeviceIndex;
    use crate::isolation::Isolation;
    use crate::plan::{Placement, Work};
    use crate::runtime::supervise::Bounds;
    use crate::runtime::{Backend, ContainerLaunch, End, Host, Launch, RuntimeError, Stream, Traits};
    use mlb_record::contract::record::{Cause, Identity};
    use std::sync::Mutex;

    /// What a scripted instance does.
    #[derive(Clone, Debug)]
    enum Script {
        /// Prints `lines` on stdout, then exits with `code` after `polls` polls.
        Exit { code: i32, polls: u32, lines: Vec<&'static str> },
        /// Dies by `signal` at its first poll.
        Signal(i32),
        /// Runs until killed, then reports SIGKILL.
        Hang,
        /// Cannot start.
        Refused(&'static str),
        /// The runtime saw an OOM kill (as Docker reports it).
        Oom,
        /// The kernel's OOM killer struck in the slot's group: its counter
        /// (this `memory.oom_control` file) goes up, the process dies by SIGKILL.
        OomInGroup(PathBuf),
    }

    /// A backend playing one script per instance (by `jr_id`), keeping the kills it was asked for.
    struct Scripted {
        scripts: Vec<Script>,
        kills: Arc<Mutex<Vec<u32>>>,
        traits: Traits,
    }

    struct Play {
        script: Script,
        jr_id: u32,
        polls: u32,
        killed: bool,
        kills: Arc<Mutex<Vec<u32>>>,
    }

    impl Backend for Scripted {
        fn launch(&self, instance: &Instance) -> Result<Launch, RuntimeError> {
            let jr_id = instance.identity.jr_id;
            let script = self.scripts[jr_id as usize].clone();
            if let Script::Refused(why) = script {
                let source = std::io::Error::other(why);
                return Err(RuntimeError::Spawn { program: "scripted".into(), source });
            }
            let play = Play { script, jr_id, polls: 0, killed: false, kills: Arc::clone(&self.kills) };
            Ok(Launch::Container(Box::new(play)))
        }

        fn describe(&self, _: &Instance) -> String {
            String::new()
        }

        fn traits(&self) -> &Traits {
            &self.traits
        }
    }

    impl ContainerLaunch for Play {
        fn start(self: Box<Self>, output: Arc<dyn Output>) -> Result<Box<dyn Running>, RuntimeError> {
            if let Script::Exit { lines, .. } = &self.script {
                lines.iter().for_each(|l| output.line(Stream::Stdout, l));
            }
            output.line(Stream::Stderr, &format!("instance {} says goodbye", self.jr_id));
            Ok(self)
        }
    }

    impl Running for Play {
        fn poll(&mut self) -> Option<End> {
            self.polls += 1;
            let killed = End::Exit { code: None, signal: Some(9), oom_killed: false };
            if self.killed {
                return Some(killed);
            }
            match self.script {
                Script::Exit { code, polls, .. } if self.polls > polls => {
                    Some(End::Exit { code: Some(code), signal: None, oom_killed: false })
                }
                Script::Signal(signal) => Some(End::Exit { code: None, signal: Some(signal), oom_killed: false }),
                Script::Oom => Some(End::Exit { code: None, signal: Some(9), oom_killed: true }),
                Script::OomInGroup(ref counter) => {
                    std::fs::write(counter, "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n").unwrap();
                    Some(killed)
                }
                _ => None,
            }
        }

        fn kill(&mut self) {
            self.killed = true;
            self.kills.lock().unwrap().push(self.jr_id);
        }
    }

    fn instance(jr_id: u32, worker: bool) -> Instance {
        let work = if worker {
            Work::Workload {
                plugin: "/p.so".into(),
                workload: "p".into(),
                config: Default::default(),
                outdir: "/out".into(),
            }
        } else {
            Work::Command { program: "./run.sh".into(), args: vec![] }
        };
        Instance {
            identity: Identity { suite: "s".into(), name: "job".into(), run_id: 0, jr_id, vcd: jr_id.to_string() },
            work,
            placement: Placement { slot: None, cpus: vec![0], devices: vec![DeviceIndex(jr_id)], node: None },
            seed: 1,
            isolation: Isolation::None,
            env: vec![],
        }
    }

    /// Runs `scripts` (one worker instance each) under `timeout`, with the interrupt flag as given.
    fn supervise(scripts: Vec<Script>, timeout: Option<f64>, interrupt: bool) -> (Vec<Finished>, Vec<u32>) {
        let instances = (0..scripts.len() as u32).map(|i| instance(i, true)).collect();
        let (finished, kills, _logs) = play(scripts, instances, None, Bounds { each: timeout, peers: None }, interrupt);
        (finished, kills)
    }

    /// Runs `instances`, instance `i` playing `scripts[i]`, in `groups`; also
    /// returns the kills asked for and the logs folder (kept while it is held).
    fn play(
        scripts: Vec<Script>,
        instances: Vec<Instance>,
        groups: Option<&RunGroups>,
        bounds: Bounds,
        interrupt: bool,
    ) -> (Vec<Finished>, Vec<u32>, tempfile::TempDir) {
        let Bounds { each: timeout, peers } = bounds;
        let logs = tempfile::tempdir().unwrap();
        let kills: Arc<Mutex<Vec<u32>>> = Arc::default();
        let scripted = Scripted { scripts, kills: Arc::clone(&kills), traits: Traits::default() };
        let runtime = Runtime { backend: Box::new(scripted), site: Box::new(Host) };
        let interrupt = AtomicBool::new(interrupt);
        let watch =
            Watch { runtime: &runtime, groups, timeout, interrupt: &interrupt, logs: logs.path(), telemetry: None };
        let progress = super::super::progress::Display::Plain.start("job", instances.len());
        let finished = run_instances(&watch, 1, instances, peers, &|i, _| Report::new(&i.identity), &progress, None);
        let kills = kills.lock().unwrap().clone();
        (finished, kills, logs)
    }

    #[test]
    fn exits_signals_and_refusals_each_get_their_outcome() {
        let (done, kills) = supervise(
            vec![
                Script::Exit { code: 0, polls: 2, lines: vec!["[  1/  1] | ETA: 0.0 min", "report: /out/r.json"] },
                Script::Signal(11),
                Script::Refused("no such image"),
                Script::Exit { code: 3, polls: 0, lines: vec![] },
            ],
            None,
            false,
        );
        assert_eq!(done.iter().map(|f| f.instance.identity.jr_id).collect::<Vec<_>>(), [0, 1, 2, 3], "in order");
        assert_eq!(done[0].outcome, Outcome::Ok);
        assert_eq!(done[0].report, Some(PathBuf::from("/out/r.json")));
        assert_eq!(done[1].outcome, Outcome::Crashed { signal: 11 });
        assert!(
            matches!(&done[2].outcome, Outcome::Failed { cause: Cause::Launch, message, recorded: false, .. } if message == "cannot start scripted: no such image"),
            "{:?}",
            done[2].outcome
        );
        // A worker's error code: it wrote its own record; the stderr tail is the message.
        assert!(
            matches!(&done[3].outcome, Outcome::Failed { cause: Cause::Error, recorded: true, message, .. } if message.contains("instance 3 says goodbye")),
            "{:?}",
            done[3].outcome
        );
        assert!(kills.is_empty(), "nothing was killed: {kills:?}");
    }

    #[test]
    fn a_timeout_kills_only_the_instance_past_it() {
        let (done, kills) = supervise(
            vec![Script::Exit { code: 0, polls: 1, lines: vec!["report: /out/r.json"] }, Script::Hang],
            Some(0.05),
            false,
        );
        assert_eq!(done[0].outcome, Outcome::Ok);
        assert_eq!(done[1].outcome, Outcome::TimedOut { after: 0.05 });
        assert_eq!(kills, [1]);
        assert_eq!(done[1].outcome.failure_to_record().unwrap().cause, Cause::Timeout);
    }

    /// Runs `scripts` (one worker instance each) as one group whose other
    /// ranks may run `peers` seconds once one has failed.
    fn group(scripts: Vec<Script>, peers: f64) -> (Vec<Finished>, Vec<u32>) {
        let instances = (0..scripts.len() as u32).map(|i| instance(i, true)).collect();
        let (finished, kills, _logs) = play(scripts, instances, None, Bounds { each: None, peers: Some(peers) }, false);
        (finished, kills)
    }

    #[test]
    fn once_a_rank_of_a_group_failed_the_others_are_killed_past_the_peer_bound_without_a_timeout() {
        let failed = Script::Exit { code: 3, polls: 0, lines: vec![] };
        let (done, kills) = group(vec![failed, Script::Hang, Script::Hang], 0.05);
        assert!(matches!(done[0].outcome, Outcome::Failed { cause: Cause::Error, .. }), "{:?}", done[0].outcome);
        for f in &done[1..] {
            assert!(matches!(f.outcome, Outcome::TimedOut { after } if after < 1.0), "{:?}", f.outcome);
        }
        assert_eq!(kills, [1, 2]);
        // A rank that ended well starts no count: the others run to their end.
        let quick = Script::Exit { code: 0, polls: 0, lines: vec!["report: /out/r0.json"] };
        let slow = Script::Exit { code: 0, polls: 30, lines: vec!["report: /out/r1.json"] };
        let (done, kills) = group(vec![quick, slow], 0.0);
        assert!(done.iter().all(|f| f.outcome == Outcome::Ok), "{done:?}");
        assert!(kills.is_empty(), "{kills:?}");
    }

    #[test]
    fn an_interrupt_kills_every_running_instance() {
        let (done, kills) = supervise(vec![Script::Hang, Script::Hang], Some(60.0), true);
        assert!(done.iter().all(|f| f.outcome == Outcome::Interrupted), "{done:?}");
        assert_eq!(kills, [0, 1]);
        assert!(done.iter().all(|f| f.outcome.failure_to_record().is_none()), "no record for an interrupt");
    }

    #[test]
    fn an_oom_kill_seen_by_the_runtime_is_an_oom() {
        let (done, _) = supervise(vec![Script::Oom], None, false);
        assert_eq!(done[0].outcome, Outcome::OomKilled { limit_bytes: None });
        assert_eq!(done[0].outcome.failure_to_record().unwrap().cause, Cause::Oom);
    }

    #[test]
    fn an_oom_kill_counted_by_the_slot_group_is_an_oom_with_the_slot_limit() {
        use crate::isolation::tests::{slot, Fixture, RUN};
        let slots = vec![slot(0, "0-1")];
        let fixture = Fixture::v1("0-3", &slots);
        let groups = RunGroups::create(&fixture.root, RUN, &slots).unwrap();
        let counter = fixture.dir("memory", &format!("mlb-{RUN}/slot0")).join("memory.oom_control");
        let mut confined = instance(0, true);
        confined.placement =
            Placement { slot: Some(slots[0].clone()), cpus: vec![0, 1], devices: vec![DeviceIndex(0)], node: None };
        let (done, _, _logs) =
            play(vec![Script::OomInGroup(counter)], vec![confined], Some(&groups), Bounds::default(), false);
        assert_eq!(done[0].outcome, Outcome::OomKilled { limit_bytes: Some(slots[0].memory_bytes) });
        assert!(done[0].instance.env.iter().any(|(k, v)| k == "MLB_CGROUP" && v.ends_with("slot0")), "told its group");
        fixture.release();
        groups.remove().unwrap();
    }

    #[test]
    fn a_command_exit_code_is_not_taken_for_a_worker_record() {
        let exit = Script::Exit { code: 3, polls: 0, lines: vec![] };
        let (done, _, _logs) = play(vec![exit], vec![instance(0, false)], None, Bounds::default(), false);
        assert!(
            matches!(&done[0].outcome, Outcome::Failed { cause: Cause::Exit, recorded: false, .. }),
            "{:?}",
            done[0].outcome
        );
        let log = std::fs::read_to_string(done[0].log.as_ref().unwrap()).unwrap();
        assert_eq!(log, "instance 0 says goodbye\n", "the log holds the instance's output");
    }
}
