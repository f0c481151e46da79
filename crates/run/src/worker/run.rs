//! The worker's sequence: load, plan, create, set up, time, report.

use super::args::WorkerArgs;
use super::checkpoint::Checkpoints;
use super::checks::Checked;
use super::heap::{self, HeapPolicy};
use super::inject::{Injection, Place};
use super::provenance;
use super::stack::Stack;
use super::timing::{self, LoopFailure, LoopResult, LoopState, Observer, Progress};
use super::to_quality::Session;
use crate::plugins::{self, accepts, effective_config, CallError, CallFailure, Instance, Plan, Plugin};
use chrono::{DateTime, Utc};
use mlb_record::contract::determinism::{Determinism, DeterministicRun, Fingerprint};
use mlb_record::contract::quality::PageCache;
use mlb_record::contract::quality::QualityRecord;
use mlb_record::contract::record::{self, Cause, Failure, Identity};
use mlb_record::contract::{env, exit, Edge, PluginBuild, Report, WorkerLine};
use mlb_record::fix::one_line;
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Runs `mlb worker` and returns its exit code.
pub fn main(args: WorkerArgs) -> i32 {
    if let Some(path) = &args.describe {
        return describe(path);
    }
    let Some(plugin_path) = args.plugin.clone() else {
        eprintln!("mlb worker: --plugin PATH is required");
        return exit::USAGE;
    };
    let heap = heap::apply();
    let mut ctx = Context::new(&args, &plugin_path, heap);
    let config: Map<String, Value> = match serde_json::from_str(&args.config) {
        Ok(Value::Object(map)) => map,
        Ok(_) | Err(_) => {
            let msg = format!("--config must be a JSON object of workload arguments, got {:?}", args.config);
            return ctx.fail(Failure::new(Cause::Config, msg), None);
        }
    };
    ctx.args = config.clone();
    let plugin = match plugins::load_workload(&plugin_path, args.workload.as_deref()) {
        Ok(p) => p,
        Err(e) => return ctx.fail(Failure::new(Cause::Load, one_line(&e)), None),
    };
    ctx.adopt(&plugin, &config);
    let plan = match Plan::of_run(&ctx.args, args.to_quality) {
        Ok(plan) => plan,
        Err(e) => {
            return ctx
                .fail(Failure::new(Cause::Config, format!("job `{}`: {}", ctx.identity.name, one_line(&e))), None)
        }
    };
    let deterministic = match ctx.deterministic(&plugin, args.to_quality) {
        Ok(d) => d,
        Err(message) => return ctx.fail(Failure::new(Cause::Config, message), None),
    };
    let injection = match ctx.injection() {
        Ok(i) => i,
        Err(e) => return ctx.fail(Failure::new(Cause::Config, e.to_string()), None),
    };
    let device = if record_flag(&ctx.args, "no_cuda") { "cpu".to_string() } else { args.device.clone() };
    let config_json = Value::Object(ctx.args.clone()).to_string();
    let mut session = None;
    if args.to_quality {
        let cache = PageCache::from_env(std::env::var(env::PAGE_CACHE).ok().as_deref());
        let meta = plugin.meta();
        match Session::begin(meta.quality.as_ref(), &meta.name, &ctx.args, &ctx.outdir, &ctx.identity, cache) {
            Ok(s) => session = Some(s),
            Err(e) => {
                return ctx
                    .fail(Failure::new(Cause::Config, format!("job `{}`: {}", ctx.identity.name, one_line(&e))), None)
            }
        }
    }
    let mut instance = match Instance::create(&plugin, &config_json) {
        Ok(i) => i,
        Err(e) => return ctx.fail_call(e, None, None),
    };
    if let Err(e) = instance.setup(&device, ctx.threads, deterministic.is_some()) {
        return ctx.fail_call(e, None, None);
    }
    ctx.started = Utc::now();
    if let Some(session) = &mut session {
        if let Err(e) = session.initialised(&ctx.args) {
            return ctx
                .fail(Failure::new(Cause::Error, format!("job `{}`: {}", ctx.identity.name, one_line(&e))), None);
        }
        let run = session.run(&mut instance);
        ctx.quality = Some(session.record(&run));
        // Every block is timed (the plan skips none): the report's
        // throughput is the training's.
        return ctx.conclude(&mut instance, plan, &device, &run.result);
    }
    let every = deterministic.map(|d| d.every);
    let checkpoints = match Checkpoints::from_env(record::timestamp(ctx.started)) {
        Ok(c) => c,
        Err(message) => return ctx.fail(Failure::new(Cause::Config, message), None),
    };
    let mut checked = Checked::new(&mut instance, every, injection).with_checkpoints(checkpoints);
    let state = match checked.restore() {
        Ok(Some((state, started))) => {
            ctx.started = record::parse_timestamp(&started).unwrap_or(ctx.started);
            state
        }
        Ok(None) => LoopState::default(),
        Err(e) => return ctx.fail(Failure::new(Cause::Error, e.to_string()), None),
    };
    let result = timing::run_from(&mut checked, plan, Announce, state);
    let (prints, spent) = checked.into_fingerprints();
    ctx.fingerprints = every.map(|every| (every, prints, spent));
    ctx.conclude(&mut instance, plan, &device, &result)
}

impl Context {
    /// Records the loop's failure, or the completed report.
    fn conclude(&self, instance: &mut Instance, plan: Plan, device: &str, result: &LoopResult) -> i32 {
        if let Some(failure) = &result.failure {
            return match failure {
                LoopFailure::Call { error, step } => self.fail_call(error.clone(), Some(*step), Some(result)),
                LoopFailure::NonFiniteLoss { step, loss } => {
                    let msg = format!("loss is {loss} at step {step}");
                    self.fail(Failure { cause: Cause::Nan, message: msg, step: Some(*step) }, Some(result))
                }
            };
        }
        let fragment = match instance.report() {
            Ok(f) => f,
            Err(e) => return self.fail_call(e, None, Some(result)),
        };
        self.finish(plan, device, fragment, result)
    }
}

/// Prints the loop's progress and window lines on stdout, each flushed at
/// once (the launcher reads them as they come).
struct Announce;

impl Observer for Announce {
    fn observation(&mut self, progress: &Progress) {
        super::say(progress.line());
    }

    fn window(&mut self, edge: Edge) {
        super::say(WorkerLine::Window(edge));
    }
}

/// `mlb worker --describe PATH`: the metadata of each workload of the
/// plugin, one JSON object per line.
fn describe(path: &Path) -> i32 {
    match plugins::describe(path) {
        Ok(metas) => {
            let mut out = std::io::stdout().lock();
            for meta in metas {
                let _ = writeln!(out, "{}", serde_json::to_string(&meta).expect("metadata serialises"));
            }
            exit::OK
        }
        Err(e) => {
            eprintln!("{}", one_line(&e));
            exit::LOAD
        }
    }
}

fn record_flag(args: &Map<String, Value>, key: &str) -> bool {
    mlb_plugin::Config::from_map(args.clone()).flag(key)
}

/// Everything the reports of one instance share.
struct Context {
    identity: Identity,
    outdir: PathBuf,
    plugin_path: PathBuf,
    args: Map<String, Value>,
    threads: u32,
    started: DateTime<Utc>,
    plugin: (String, String),
    /// The job name came from `--name`/`BENCH_NAME`, not from the plugin.
    explicit_name: bool,
    /// The heap policy the process runs under.
    heap: HeapPolicy,
    /// The run to quality, once its clock stopped.
    quality: Option<QualityRecord>,
    /// The libtorch the plugin links, as its manifest says.
    libtorch: Option<String>,
    /// The fingerprints of a deterministic run, the steps between two and
    /// the time taking them took.
    fingerprints: Option<(u64, Vec<Fingerprint>, Duration)>,
}

impl Context {
    fn new(args: &WorkerArgs, plugin_path: &Path, heap: HeapPolicy) -> Self {
        let stem = plugin_path.file_stem().map(|s| s.to_string_lossy().trim_start_matches("lib").to_string());
        let vcd = args
            .vcd
            .clone()
            .or_else(|| env::visible_devices(|name| std::env::var(name).ok()))
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "0".into());
        Context {
            identity: Identity {
                suite: args.suite.clone(),
                name: args.name.clone().or(stem).unwrap_or_else(|| "unknown".into()),
                run_id: args.run_id,
                jr_id: args.jr_id,
                vcd,
            },
            outdir: args.outdir.clone(),
            plugin_path: plugin_path.to_path_buf(),
            args: Map::new(),
            threads: args.threads.unwrap_or_else(|| crate::linux::cpulist::affinity().len().max(1) as u32),
            started: Utc::now(),
            plugin: ("unknown".into(), "unknown".into()),
            explicit_name: args.name.is_some(),
            heap,
            quality: None,
            libtorch: None,
            fingerprints: None,
        }
    }

    /// Takes the plugin's name (unless `--name` gave one) and defaults.
    fn adopt(&mut self, plugin: &Plugin, config: &Map<String, Value>) {
        let meta = plugin.meta();
        if !self.explicit_name {
            self.identity.name = meta.name.clone();
        }
        self.args = effective_config(&meta.default_args, config);
        self.plugin = (meta.name.clone(), meta.version.clone());
        self.libtorch = meta.libtorch.clone();
    }

    /// The deterministic run the config asks for, if any: refused for a
    /// workload that cannot run deterministically and for a run to quality.
    /// Sets what the GPU libraries read before they start (cuBLAS's
    /// workspace), unless the user set it.
    fn deterministic(&self, plugin: &Plugin, to_quality: bool) -> Result<Option<DeterministicRun>, String> {
        let meta = plugin.meta();
        let run = accepts::deterministic_run(&self.args, meta.deterministic, to_quality)
            .map_err(|e| format!("job `{}`: workload `{}`: {}", self.identity.name, meta.name, one_line(&e)))?;
        let Some(run) = run else { return Ok(None) };
        if std::env::var_os(CUBLAS_WORKSPACE_CONFIG).is_none() {
            // Only this thread runs yet: the plugin has not started any.
            std::env::set_var(CUBLAS_WORKSPACE_CONFIG, DETERMINISTIC_CUBLAS_WORKSPACE);
        }
        Ok(Some(run))
    }

    /// The fault `MLB_INJECT` asks this instance to inject, if any.
    fn injection(&self) -> Result<Option<Injection>, super::inject::InjectError> {
        let Ok(value) = std::env::var(env::INJECT) else { return Ok(None) };
        let node = std::env::var("SLURMD_NODENAME").unwrap_or_else(|_| crate::linux::hostname());
        Injection::read(&value, Place { slot: &self.identity.vcd, node: &node, job: &self.identity.name })
    }

    /// The report's `determinism` block, around the fingerprints taken.
    fn determinism(&self, fragment: &Map<String, Value>, version: &str) -> Option<Determinism> {
        let (every, fingerprints, spent) = self.fingerprints.clone()?;
        let on_gpu = fragment.get("gpu").is_some_and(Value::is_string);
        let gpu_versions = on_gpu.then(super::stack::gpu_versions).flatten();
        let stack = Stack {
            plugin: version,
            libtorch: self.libtorch.as_deref(),
            threads: self.threads,
            fragment,
            gpu_versions,
        };
        let cpuinfo = mlb_record::reading::input::read_input(Path::new("/proc/cpuinfo")).unwrap_or_default();
        Some(stack.block(every, fingerprints, spent, |name| std::env::var(name).ok(), &cpuinfo))
    }

    fn build_id(&self) -> String {
        std::fs::File::open(&self.plugin_path)
            .and_then(mlb_record::digest::sha256_of)
            .map(|(_, sha256)| sha256[..12].to_string())
            .unwrap_or_else(|_| "unknown".into())
    }

    /// What every record holds: arguments, identity, times, ids, provenance.
    fn base(&self) -> Report {
        let build = self.build_id();
        let (name, version) = &self.plugin;
        let plugin = PluginBuild { name: name.clone(), version: version.clone(), build: build.clone() };
        Report {
            args: self.args.clone(),
            start_time: Some(record::timestamp(self.started)),
            unique_id: Some(record::unique_id(&self.identity.name, &self.args)),
            version: Some(format!("{name} {version} (build {build})")),
            hostname: Some(crate::linux::hostname()),
            provenance: Some(provenance::collect(plugin, self.threads, self.heap)),
            ..Report::new(&self.identity)
        }
    }

    /// Records a failed plugin call (with the losses so far, when the loop ran).
    fn fail_call(&self, e: CallError, step: Option<u64>, losses: Option<&LoopResult>) -> i32 {
        let cause = match e.kind {
            CallFailure::Error => Cause::Error,
            CallFailure::Panic => Cause::Panic,
        };
        self.fail(Failure { cause, message: e.to_string(), step }, losses)
    }

    /// Writes the `.FAIL.` record, reports on stderr, returns the exit code.
    fn fail(&self, failure: Failure, losses: Option<&LoopResult>) -> i32 {
        // The worker records only causes that have a code.
        let code = exit::code_of(failure.cause).unwrap_or(exit::ERROR);
        eprintln!("mlb worker: {} failed ({:?}): {}", self.identity.name, failure.cause, failure.message);
        let mut report = self.base();
        if let Some(result) = losses {
            report.batch_loss = Some(result.batch_loss.clone());
            report.epoch_loss = Some(result.epoch_loss.clone());
        }
        report.quality = self.quality.clone();
        match self.write(&report.failed(failure)) {
            Ok(_) => code,
            Err(()) => exit::REPORT,
        }
    }

    fn finish(&self, plan: Plan, device: &str, fragment: Map<String, Value>, result: &LoopResult) -> i32 {
        let timed: Vec<_> = result.observations.iter().skip(plan.skip as usize).collect();
        let times: Vec<f64> = timed.iter().map(|o| o.seconds).collect();
        let items = mlb_figures::moments::mean(&timed.iter().map(|o| o.items as f64).collect::<Vec<_>>());
        let Some(train) = mlb_figures::timing::summary(&times) else {
            return self.fail(Failure::new(Cause::Error, "no timed observation"), None);
        };
        // The plugin's report keys, under the arguments; the run's own facts.
        let mut workload = fragment;
        workload.extend(self.args.clone());
        let metrics = workload.remove("metrics").unwrap_or_else(|| json!({}));
        let arg = |k: &str, default: Value| self.args.get(k).cloned().unwrap_or(default);
        workload.insert("batch_size".into(), arg("batch_size", Value::Null));
        workload.insert("workers".into(), arg("workers", json!(0)));
        workload.insert("seed".into(), arg("seed", Value::Null));
        workload.entry("cuda").or_insert_with(|| device.starts_with("cuda").into());
        workload.insert("repeat".into(), plan.repeat.into());
        workload.insert("number".into(), plan.number.into());
        workload.insert("skip".into(), plan.skip.into());
        let base = self.base();
        let determinism = self.determinism(&workload, base.version.as_deref().unwrap_or_default());
        let report = Report {
            args: workload,
            completed: true,
            end_time: Some(record::timestamp(Utc::now())),
            devices: Some(env::device_count(&self.identity.vcd)),
            cpu_cores: Some(crate::linux::cpulist::affinity().len()),
            items: Some(items),
            train_item: Some(train.throughput(items)),
            train: Some(train),
            batch_loss: Some(result.batch_loss.clone()),
            epoch_loss: Some(result.epoch_loss.clone()),
            metrics: Some(metrics),
            quality: self.quality.clone(),
            determinism,
            ..base
        };
        match self.write(&report) {
            Ok(path) => {
                // A closed stdout (the launcher went away) must not fail the run.
                let _ = writeln!(std::io::stdout(), "{}", WorkerLine::Report(path));
                exit::OK
            }
            Err(()) => exit::REPORT,
        }
    }

    fn write(&self, report: &Report) -> Result<PathBuf, ()> {
        report.write(&self.outdir).map_err(|e| eprintln!("mlb worker: {e}"))
    }
}

/// cuBLAS's workspace variable: with a fixed workspace, its kernels are
/// deterministic (CUDA's documentation, "Results reproducibility").
const CUBLAS_WORKSPACE_CONFIG: &str = "CUBLAS_WORKSPACE_CONFIG";
/// The workspace a deterministic run sets when the user set none.
const DETERMINISTIC_CUBLAS_WORKSPACE: &str = ":4096:8";
