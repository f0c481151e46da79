//! The worker's sequence: load, plan, create, set up, time, report.

use super::args::WorkerArgs;
use super::exit;
use super::heap::{self, HeapPolicy};
use super::plan::{effective_config, Plan};
use super::provenance;
use super::stats::Summary;
use super::timing::{self, LoopFailure, LoopResult};
use crate::plugins::{self, CallError, CallFailure, Instance, Plugin};
use crate::record::{self, Cause, Failure, Identity};
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs `mlb worker` and returns its exit code.
pub fn main(args: WorkerArgs) -> i32 {
    if let Some(path) = &args.describe {
        return describe(path);
    }
    let Some(plugin_path) = args.plugin.clone() else {
        eprintln!("mlb worker: --plugin PATH is required");
        return exit::CONFIG;
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
        Err(e) => return ctx.fail(Failure::new(Cause::Load, e.to_string()), None),
    };
    ctx.adopt(&plugin, &config);
    let plan = match Plan::from_config(&ctx.args) {
        Ok(plan) => plan,
        Err(e) => return ctx.fail(Failure::new(Cause::Config, format!("job `{}`: {e}", ctx.identity.name)), None),
    };
    let device = if record_flag(&ctx.args, "no_cuda") { "cpu".to_string() } else { args.device.clone() };
    let config_json = Value::Object(ctx.args.clone()).to_string();
    let mut instance = match Instance::create(&plugin, &config_json) {
        Ok(i) => i,
        Err(e) => return ctx.fail_call(e, None),
    };
    if let Err(e) = instance.setup(&device, ctx.threads) {
        return ctx.fail_call(e, None);
    }
    ctx.started = Utc::now();
    let stdout = std::io::stdout();
    let result = timing::run(&mut instance, plan, |p| {
        let mut out = stdout.lock();
        let _ = writeln!(out, "{}", p.line());
        let _ = out.flush();
    });
    if let Some(failure) = &result.failure {
        let extra = losses(&result);
        return match failure {
            LoopFailure::Call { error, step } => ctx.fail_call_with(error.clone(), Some(*step), extra),
            LoopFailure::NonFiniteLoss { step, loss } => {
                let msg = format!("loss is {loss} at step {step}");
                ctx.fail(Failure { cause: Cause::Nan, message: msg, step: Some(*step) }, Some(extra))
            }
        };
    }
    let fragment = match instance.report() {
        Ok(f) => f,
        Err(e) => return ctx.fail_call_with(e, None, losses(&result)),
    };
    ctx.finish(plan, &device, fragment, &result)
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
            eprintln!("{e}");
            exit::LOAD
        }
    }
}

fn record_flag(args: &Map<String, Value>, key: &str) -> bool {
    mlb_plugin::Config::from_map(args.clone()).flag(key)
}

fn losses(result: &LoopResult) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("batch_loss".into(), json!(result.batch_loss));
    m.insert("epoch_loss".into(), json!(result.epoch_loss));
    m
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
}

impl Context {
    fn new(args: &WorkerArgs, plugin_path: &Path, heap: HeapPolicy) -> Self {
        let stem = plugin_path.file_stem().map(|s| s.to_string_lossy().trim_start_matches("lib").to_string());
        let vcd = args
            .vcd
            .clone()
            .or_else(|| std::env::var("CUDA_VISIBLE_DEVICES").ok())
            .or_else(|| std::env::var("HIP_VISIBLE_DEVICES").ok())
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
            threads: args.threads.unwrap_or_else(|| provenance::affinity_cpus().len().max(1) as u32),
            started: Utc::now(),
            plugin: ("unknown".into(), "unknown".into()),
            explicit_name: args.name.is_some(),
            heap,
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
    }

    fn build_id(&self) -> String {
        std::fs::read(&self.plugin_path)
            .map(|bytes| format!("{:x}", Sha256::digest(&bytes))[..12].to_string())
            .unwrap_or_else(|_| "unknown".into())
    }

    /// Fields of every record: arguments, identity, times, ids, provenance.
    fn base(&self) -> Map<String, Value> {
        let build = self.build_id();
        let mut m = self.args.clone();
        m.extend(self.identity.fields());
        m.insert("start_time".into(), record::timestamp(self.started).into());
        m.insert("unique_id".into(), record::unique_id(&self.identity.name, &self.args).into());
        m.insert("version".into(), format!("{} {} (build {build})", self.plugin.0, self.plugin.1).into());
        m.insert("hostname".into(), hostname().into());
        m.insert(
            "provenance".into(),
            provenance::collect(&self.plugin.0, &self.plugin.1, &build, self.threads, self.heap),
        );
        m
    }

    fn fail_call(&self, e: CallError, step: Option<u64>) -> i32 {
        self.fail_call_with(e, step, Map::new())
    }

    fn fail_call_with(&self, e: CallError, step: Option<u64>, extra: Map<String, Value>) -> i32 {
        let cause = match e.kind {
            CallFailure::Error => Cause::Error,
            CallFailure::Panic => Cause::Panic,
        };
        self.fail(Failure { cause, message: e.to_string(), step }, Some(extra))
    }

    /// Writes the `.FAIL.` record, reports on stderr, returns the exit code.
    fn fail(&self, failure: Failure, extra: Option<Map<String, Value>>) -> i32 {
        let code = match failure.cause {
            Cause::Config => exit::CONFIG,
            Cause::Load => exit::LOAD,
            Cause::Panic => exit::PANIC,
            Cause::Nan => exit::NAN,
            _ => exit::ERROR,
        };
        eprintln!("mlb worker: {} failed ({:?}): {}", self.identity.name, failure.cause, failure.message);
        let mut fields = self.base();
        fields.extend(extra.unwrap_or_default());
        let record = self.identity.failure_record(&failure, fields);
        match self.write(true, &record) {
            Ok(_) => code,
            Err(()) => exit::REPORT,
        }
    }

    fn finish(&self, plan: Plan, device: &str, fragment: Map<String, Value>, result: &LoopResult) -> i32 {
        let timed: Vec<_> = result.observations.iter().skip(plan.skip as usize).collect();
        let times: Vec<f64> = timed.iter().map(|o| o.seconds).collect();
        let items = timed.iter().map(|o| o.items as f64).sum::<f64>() / timed.len().max(1) as f64;
        let Some(train) = Summary::of(&times) else {
            return self.fail(Failure::new(Cause::Error, "no timed observation"), None);
        };
        let mut m = self.args.clone();
        m.extend(fragment);
        m.extend(self.base());
        let arg = |k: &str, default: Value| self.args.get(k).cloned().unwrap_or(default);
        m.insert("batch_size".into(), arg("batch_size", Value::Null));
        m.insert("workers".into(), arg("workers", json!(0)));
        m.insert("seed".into(), arg("seed", Value::Null));
        m.entry("cuda").or_insert_with(|| device.starts_with("cuda").into());
        m.insert("devices".into(), self.identity.vcd.split(',').count().into());
        m.insert("repeat".into(), plan.repeat.into());
        m.insert("number".into(), plan.number.into());
        m.insert("skip".into(), plan.skip.into());
        m.insert("cpu_cores".into(), provenance::affinity_cpus().len().into());
        m.insert("end_time".into(), record::timestamp(Utc::now()).into());
        m.insert("completed".into(), true.into());
        m.insert("items".into(), json!(items));
        m.insert("train".into(), json!(train));
        m.insert("train_item".into(), json!(train.throughput(items)));
        m.extend(losses(result));
        m.entry("metrics").or_insert_with(|| json!({}));
        match self.write(false, &Value::Object(m)) {
            Ok(path) => {
                // A closed stdout (the launcher went away) must not fail the run.
                let _ = writeln!(std::io::stdout(), "report: {}", path.display());
                exit::OK
            }
            Err(()) => exit::REPORT,
        }
    }

    fn write(&self, failed: bool, record: &Value) -> Result<PathBuf, ()> {
        let name = self.identity.file_name(failed, Utc::now());
        record::write_atomic(&self.outdir, &name, record).map_err(|e| {
            eprintln!("mlb worker: cannot write report {}: {e}", self.outdir.join(&name).display());
        })
    }
}

fn hostname() -> String {
    nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_else(|_| "unknown".into())
}
