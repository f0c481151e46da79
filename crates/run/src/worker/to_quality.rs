//! The clock of a run to quality (`mlb --jobs FILE --to-quality`;
//! docs/quality.md, "The clock").
//!
//! Initialisation (create and setup) runs before the clock and is capped.
//! The clock starts after a device sync, before the first step touches any
//! data; training runs in blocks of `eval_every` items, each followed by an
//! evaluation on the clock; the clock stops at the first evaluation that
//! reaches the target, or at the first one at or past the bound (items or
//! seconds), the run then being not converged. Each event is also written as
//! an `:::MLLOG` line ([`crate::quality::mllog`]) into a file beside the report.

use super::timing::{one_step, LoopFailure, LoopResult, Losses, Observation, Stepper};
use crate::plugins::{CallError, Instance, QualitySpec};
use crate::quality::mllog::{self, key, samples, MlLog};
use crate::quality::rules::{Rules, RulesError, MAX_INIT_SECONDS};
use mlb_record::contract::quality::PageCache;
use mlb_record::contract::quality::{Point, QualityRecord};
use mlb_record::contract::record::Identity;
use mlb_record::contract::window::{self, Edge};
use mlb_record::contract::WorkerLine;
use mlb_record::fix::Fix;
use serde_json::{json, Map, Value};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What the clock drives: a plugin instance, or anything shaped like one.
pub trait Trainer: Stepper {
    /// Evaluates the model: the value of its quality metric.
    fn eval(&mut self) -> Result<f64, CallError>;
}

impl Trainer for Instance<'_> {
    fn eval(&mut self) -> Result<f64, CallError> {
        Instance::eval(self)
    }
}

/// What happens on the clock, in order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// The clock started.
    RunStart,
    /// A block of training starts, after `items` items.
    BlockStart {
        /// Items trained on before it.
        items: u64,
    },
    /// It ended (after a sync), `items` trained on in all.
    BlockStop {
        /// Items trained on so far.
        items: u64,
    },
    /// An evaluation starts.
    EvalStart {
        /// Items trained on so far.
        items: u64,
    },
    /// It measured `point`.
    Evaluated(Point),
    /// The clock stopped.
    RunStop {
        /// The target was reached.
        converged: bool,
        /// Items trained on in all.
        items: u64,
    },
}

/// What the clock measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClockRun {
    /// Unix seconds at the start.
    pub started_at: f64,
    /// Seconds on the clock.
    pub seconds: f64,
    /// An evaluation reached the target.
    pub converged: bool,
    /// Items trained on.
    pub items: u64,
    /// Every evaluation.
    pub curve: Vec<Point>,
    /// The blocks as observations, the losses and steps, and the failure
    /// that stopped the run early.
    pub result: LoopResult,
}

/// Unix seconds now.
fn unix_now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// Runs `trainer` on the clock until `goal`'s target is reached or `rules`'
/// bound is, telling `tell` of each [`Event`].
pub fn run<T: Trainer>(trainer: &mut T, rules: &Rules, goal: &QualitySpec, mut tell: impl FnMut(Event)) -> ClockRun {
    let mut run = ClockRun::default();
    let mut losses = Losses::new();
    let result = &mut run.result;
    if let Err(error) = trainer.sync() {
        result.failure = Some(LoopFailure::Call { error, step: 0 });
        return run;
    }
    run.started_at = unix_now();
    let clock = Instant::now();
    tell(Event::RunStart);
    let past_bound = |items: u64| {
        rules.max_items.is_some_and(|max| items >= max) || clock.elapsed().as_secs_f64() >= rules.max_seconds
    };
    let mut items = 0u64;
    loop {
        tell(Event::BlockStart { items });
        let block = Instant::now();
        let mut block_items = 0u64;
        while block_items < rules.eval_every && !past_bound(items + block_items) {
            match one_step(trainer, result, &mut losses) {
                Ok(n) => block_items += n,
                Err(failure) => {
                    result.failure = Some(failure);
                    break;
                }
            }
        }
        if result.failure.is_none() {
            if let Err(error) = trainer.sync() {
                result.failure = Some(LoopFailure::Call { error, step: result.steps });
            }
        }
        if result.failure.is_some() {
            break;
        }
        items += block_items;
        result.observations.push(Observation { seconds: block.elapsed().as_secs_f64(), items: block_items });
        losses.end_block();
        tell(Event::BlockStop { items });
        tell(Event::EvalStart { items });
        let value = match trainer.eval() {
            Ok(value) => value,
            Err(error) => {
                result.failure = Some(LoopFailure::Call { error, step: result.steps });
                break;
            }
        };
        let point = Point { items, seconds: clock.elapsed().as_secs_f64(), value };
        run.curve.push(point);
        tell(Event::Evaluated(point));
        if goal.reached(value, goal.target) {
            run.converged = true;
            break;
        }
        if past_bound(items) {
            break;
        }
    }
    run.seconds = clock.elapsed().as_secs_f64();
    run.items = items;
    tell(Event::RunStop { converged: run.converged, items });
    losses.into(&mut run.result);
    run
}

/// A run to quality of one instance, from before its initialisation to its
/// report: its rules and goal, and its MLLOG file.
pub struct Session {
    rules: Rules,
    goal: QualitySpec,
    seed: Option<u64>,
    page_cache: PageCache,
    log: MlLog<BufWriter<File>>,
    log_name: String,
    init: Instant,
    init_seconds: f64,
}

/// Why a run to quality could not start or went past its initialisation cap.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The config cannot run to quality.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The MLLOG file cannot be written.
    #[error("cannot write the MLLOG file {}: {source}", path.display())]
    Log {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The initialisation took longer than its cap.
#[derive(Debug, thiserror::Error)]
#[error("initialisation (create and setup) took {seconds:.1} s, over its cap of {cap} s")]
pub struct InitTooLong {
    /// Seconds it took.
    pub seconds: f64,
    /// The cap.
    pub cap: f64,
}

impl Fix for SessionError {
    fn fix(&self) -> Option<String> {
        match self {
            SessionError::Rules(e) => e.fix(),
            SessionError::Log { .. } => Some("make the output folder writable".into()),
        }
    }
}

impl Fix for InitTooLong {
    fn fix(&self) -> Option<String> {
        Some(format!("raise `{MAX_INIT_SECONDS}` in the job's config, or make the workload's setup faster"))
    }
}

/// The optimizer settings of a config, as MLLOG keys: `optimizer`, `lr`
/// and `weight_decay`, and any argument or report key already named `opt_*`.
fn optimizer_keys(args: &Map<String, Value>) -> Vec<(String, Value)> {
    let named = [("optimizer", "opt_name"), ("lr", "opt_base_learning_rate"), ("weight_decay", "opt_weight_decay")];
    let mut out: Vec<(String, Value)> = named
        .iter()
        .filter_map(|(arg, k)| args.get(*arg).filter(|v| !v.is_null()).map(|v| (k.to_string(), v.clone())))
        .collect();
    out.extend(args.iter().filter(|(k, _)| k.starts_with("opt_")).map(|(k, v)| (k.clone(), v.clone())));
    out
}

/// The attempt of a restarted instance, from the launcher.
fn restarted() -> Option<u32> {
    std::env::var(mlb_record::contract::env::ATTEMPT).ok()?.parse().ok().filter(|&a| a > 0)
}

impl Session {
    /// Opens the run before the instance is created: reads its rules (the
    /// workload's `spec` and the config `args`), opens its MLLOG file in
    /// `outdir` and logs the submission, the cache and `init_start`.
    pub fn begin(
        spec: Option<&QualitySpec>,
        workload: &str,
        args: &Map<String, Value>,
        outdir: &Path,
        identity: &Identity,
        page_cache: PageCache,
    ) -> Result<Session, SessionError> {
        let spec = spec.ok_or_else(|| RulesError::NoQuality { workload: workload.to_string() })?;
        let rules = Rules::from_config(args, spec.target)?;
        let goal = rules.goal(spec);
        let json_name = identity.file_name(false, chrono::Utc::now());
        let log_name = format!("{}.mllog", json_name.trim_end_matches(".json"));
        let path = outdir.join(&log_name);
        let file = File::create(&path).map_err(|source| SessionError::Log { path: path.clone(), source })?;
        let seed = args.get("seed").and_then(|s| s.as_u64().or_else(|| s.as_str().and_then(|t| t.parse().ok())));
        let mut session = Session {
            rules,
            goal,
            seed,
            page_cache,
            log: MlLog::new(BufWriter::new(file), ""),
            log_name,
            init: Instant::now(),
            init_seconds: 0.0,
        };
        let now = mllog::now_ms();
        let host = nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_default();
        let result = (|| {
            let log = &mut session.log;
            log.event(now, key::SUBMISSION_BENCHMARK, json!(workload), Map::new())?;
            log.event(now, key::SUBMISSION_DIVISION, json!("open"), Map::new())?;
            log.event(now, key::SUBMISSION_ORG, json!("mlb"), Map::new())?;
            log.event(now, key::SUBMISSION_PLATFORM, json!(host), Map::new())?;
            log.event(now, key::SUBMISSION_STATUS, json!("research"), Map::new())?;
            log.event(now, key::CACHE_CLEAR, json!(session.page_cache.dropped), Map::new())?;
            if let Some(attempt) = restarted() {
                log.event(now, key::RESTART, json!(attempt), Map::new())?;
            }
            log.start(now, key::INIT_START, Value::Null, Map::new())
        })();
        result.map_err(|source| SessionError::Log { path, source })?;
        session.init = Instant::now();
        Ok(session)
    }

    /// Ends the initialisation (the instance is created and set up): logs
    /// the seed, the batch size, the optimizer settings and `init_stop`;
    /// fails when it took longer than its cap.
    pub fn initialised(&mut self, args: &Map<String, Value>) -> Result<(), InitTooLong> {
        self.init_seconds = self.init.elapsed().as_secs_f64();
        let now = mllog::now_ms();
        let log = &mut self.log;
        let _ = log.event(now, key::SEED, json!(self.seed), Map::new());
        if let Some(batch) = args.get("batch_size").filter(|b| !b.is_null()) {
            let _ = log.event(now, key::GLOBAL_BATCH_SIZE, batch.clone(), Map::new());
        }
        for (k, v) in optimizer_keys(args) {
            let _ = log.event(now, &k, v, Map::new());
        }
        // The sizes of the training and evaluation sets, when the config says.
        for k in [key::TRAIN_SAMPLES, key::EVAL_SAMPLES] {
            let _ = log.event(now, k, args.get(k).filter(|v| !v.is_null()).cloned().unwrap_or(json!(0)), Map::new());
        }
        let _ = log.end(now, key::INIT_STOP, Value::Null, Map::new());
        if self.init_seconds > self.rules.max_init_seconds {
            self.abort();
            return Err(InitTooLong { seconds: self.init_seconds, cap: self.rules.max_init_seconds });
        }
        Ok(())
    }

    /// Runs `trainer` on the clock, logging each event and telling the
    /// launcher the edges of the clock (as the timed window's).
    pub fn run<T: Trainer>(&mut self, trainer: &mut T) -> ClockRun {
        let log = &mut self.log;
        run(trainer, &self.rules, &self.goal, |event| {
            let now = mllog::now_ms();
            // A log that cannot be written is no reason to stop the run.
            let _ = match event {
                Event::RunStart => {
                    say(WorkerLine::Window(Edge::Start { at: window::now() }));
                    log.start(now, key::RUN_START, Value::Null, Map::new())
                }
                Event::BlockStart { items } => log.start(now, key::BLOCK_START, Value::Null, samples(items)),
                Event::BlockStop { items } => log.end(now, key::BLOCK_STOP, Value::Null, samples(items)),
                Event::EvalStart { items } => log.start(now, key::EVAL_START, Value::Null, samples(items)),
                Event::Evaluated(p) => log
                    .end(now, key::EVAL_STOP, Value::Null, samples(p.items))
                    .and_then(|()| log.event(now, key::EVAL_ACCURACY, json!(p.value), samples(p.items))),
                Event::RunStop { converged, items } => {
                    say(WorkerLine::Window(Edge::End { at: window::now(), items }));
                    let status = if converged { key::SUCCESS } else { key::ABORTED };
                    log.end(now, key::RUN_STOP, Value::Null, Map::from_iter([("status".into(), json!(status))]))
                }
            };
        })
    }

    /// Logs `run_stop` with status `aborted` (a run that failed before or
    /// off the clock).
    pub fn abort(&mut self) {
        let status = Map::from_iter([("status".to_string(), json!(key::ABORTED))]);
        let _ = self.log.end(mllog::now_ms(), key::RUN_STOP, Value::Null, status);
    }

    /// The report's `quality` block of `run`.
    pub fn record(&self, run: &ClockRun) -> QualityRecord {
        QualityRecord {
            goal: self.goal.clone(),
            seed: self.seed,
            page_cache: self.page_cache.clone(),
            init_seconds: self.init_seconds,
            started_at: run.started_at,
            stopped_at: run.started_at + run.seconds,
            seconds: run.seconds,
            converged: run.converged,
            time_to_quality: run.converged.then_some(run.seconds),
            items: run.items,
            eval_every: self.rules.eval_every,
            bound: self.rules.bound(),
            curve: run.curve.clone(),
            mllog: Some(self.log_name.clone()),
        }
    }
}

/// Prints a line of the worker's protocol on stdout, flushed at once.
fn say(line: WorkerLine) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::CallFailure;
    use mlb_plugin::abi::StepStats;

    /// A scripted trainer: `items` per step, quality `items trained / scale`.
    struct Script {
        trained: u64,
        per_step: u64,
        scale: f64,
        eval_error_at: Option<usize>,
        evals: usize,
    }

    impl Stepper for Script {
        fn step(&mut self) -> Result<StepStats, CallError> {
            self.trained += self.per_step;
            Ok(StepStats { items: self.per_step, loss: 1.0, has_loss: 1 })
        }
        fn sync(&mut self) -> Result<(), CallError> {
            Ok(())
        }
    }

    impl Trainer for Script {
        fn eval(&mut self) -> Result<f64, CallError> {
            self.evals += 1;
            if Some(self.evals) == self.eval_error_at {
                return Err(CallError { kind: CallFailure::Error, call: "eval", message: "no data".into() });
            }
            Ok(self.trained as f64 / self.scale)
        }
    }

    fn script(scale: f64) -> Script {
        Script { trained: 0, per_step: 10, scale, eval_error_at: None, evals: 0 }
    }

    fn goal(target: f64, higher_is_better: bool) -> QualitySpec {
        QualitySpec { metric: "q".into(), unit: String::new(), higher_is_better, target }
    }

    fn rules(eval_every: u64, max_items: Option<u64>) -> Rules {
        Rules { target: 0.5, eval_every, max_items, max_seconds: 60.0, max_init_seconds: 60.0 }
    }

    #[test]
    fn the_clock_stops_at_the_first_evaluation_that_reaches_the_target() {
        let mut events = Vec::new();
        let run = run(&mut script(100.0), &rules(25, None), &goal(0.5, true), |e| events.push(e));
        assert!(run.converged && run.result.failure.is_none());
        // Blocks end at the first step at or past 25 items: 30, 60.
        assert_eq!(run.curve.iter().map(|p| (p.items, p.value)).collect::<Vec<_>>(), [(30, 0.3), (60, 0.6)]);
        assert_eq!(run.items, 60);
        assert_eq!(run.result.observations.iter().map(|o| o.items).collect::<Vec<_>>(), [30, 30]);
        assert!(run.curve.windows(2).all(|w| w[0].seconds <= w[1].seconds) && run.seconds >= run.curve[1].seconds);
        let names: Vec<String> =
            events.iter().map(|e| format!("{e:?}").split([' ', '(']).next().unwrap().to_string()).collect();
        assert_eq!(
            names,
            [
                "RunStart",
                "BlockStart",
                "BlockStop",
                "EvalStart",
                "Evaluated",
                "BlockStart",
                "BlockStop",
                "EvalStart",
                "Evaluated",
                "RunStop"
            ]
        );
        assert_eq!(events.last(), Some(&Event::RunStop { converged: true, items: 60 }));
    }

    #[test]
    fn a_run_that_never_reaches_the_target_stops_at_its_bound_not_converged() {
        // Lower is better and the quality only rises: never reached.
        let run = run(&mut script(100.0), &rules(20, Some(100)), &goal(0.0, false), |_| {});
        assert!(!run.converged && run.result.failure.is_none());
        assert_eq!(run.items, 100, "the bound in items");
        assert_eq!(run.curve.last().unwrap().items, 100, "evaluated at the bound");

        let seconds = Rules { max_seconds: 0.05, ..rules(10, None) };
        let started = Instant::now();
        let run = super::run(&mut script(1e12), &seconds, &goal(1.0, true), |_| {});
        assert!(!run.converged && run.seconds >= 0.05 && started.elapsed().as_secs_f64() < 5.0);
    }

    #[test]
    fn an_evaluation_that_fails_stops_the_run() {
        let mut s = Script { eval_error_at: Some(2), ..script(1000.0) };
        let run = run(&mut s, &rules(10, None), &goal(0.9, true), |_| {});
        assert!(matches!(&run.result.failure, Some(LoopFailure::Call { error, step: 2 }) if error.call == "eval"));
        assert_eq!(run.curve.len(), 1);
        assert!(!run.converged);
    }

    #[test]
    fn an_initialisation_over_its_cap_fails_with_its_fix_and_the_log_says_aborted() {
        let dir = tempfile::tempdir().unwrap();
        let id = Identity { suite: "s".into(), name: "n".into(), run_id: 3, jr_id: 0, vcd: "0".into() };
        let args = json!({"max_init_seconds": 0.001, "seed": 300}).as_object().unwrap().clone();
        let spec = goal(0.9, true);
        let mut session = Session::begin(Some(&spec), "spin", &args, dir.path(), &id, PageCache::dropped()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let err = session.initialised(&args).unwrap_err();
        assert!(err.seconds >= 0.02 && err.cap == 0.001);
        assert!(mlb_record::fix::one_line(&err).contains("; fix: raise `max_init_seconds`"), "{err}");
        let log = dir.path().join(&session.log_name);
        drop(session);
        let text = std::fs::read_to_string(log).unwrap();
        let keys: Vec<Value> =
            text.lines().map(|l| serde_json::from_str(l.strip_prefix(mllog::PREFIX).unwrap()).unwrap()).collect();
        let names: Vec<&str> = keys.iter().map(|k| k["key"].as_str().unwrap()).collect();
        assert_eq!(
            names[5..],
            ["cache_clear", "init_start", "seed", "train_samples", "eval_samples", "init_stop", "run_stop"]
        );
        assert_eq!((keys[5]["value"].as_bool(), keys[7]["value"].as_u64()), (Some(true), Some(300)));
        assert_eq!(keys.last().unwrap()["metadata"]["status"], "aborted");

        let none = Session::begin(None, "spin", &args, dir.path(), &id, PageCache::dropped());
        assert!(matches!(none, Err(SessionError::Rules(RulesError::NoQuality { .. }))));
        let said = mlb_record::fix::one_line(&none.err().unwrap());
        assert!(
            said.contains("workload `spin` has no evaluation") && said.contains("; fix: run it without --to-quality")
        );
    }

    #[test]
    fn optimizer_settings_take_mlperfs_names() {
        let args = json!({"lr": 0.1, "optimizer": "sgd", "opt_momentum": 0.9, "batch_size": 32, "weight_decay": null});
        let keys = optimizer_keys(args.as_object().unwrap());
        let names: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["opt_name", "opt_base_learning_rate", "opt_momentum"]);
    }
}
