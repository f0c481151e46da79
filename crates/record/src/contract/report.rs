//! The report file (docs/worker.md, "Report files") as a type: written by the worker (its report
//! or its `.FAIL.` record) and by the launcher (the `.FAIL.` record of an
//! instance that could not write its own), read back by `--resume`.
//!
//! Files hold strict JSON with sorted keys and a 4-space indent:
//! [`Report::write`] turns the report into a [`Value`] and writes it with
//! [`record::write_atomic`]. Non-finite numbers become `null`, and read back
//! as NaN.

use super::determinism::Determinism;
use super::faults::Faults;
use super::isolation::RecordedIsolation;
use super::keys::Key;
use super::read;
use super::telemetry::Telemetry;
use crate::contract::quality::QualityRecord;
use crate::contract::record::{self, Failure, Identity};
use crate::contract::stats::{Summary, Throughput};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One report file.
///
/// Workload keys (the arguments, and whatever the plugin's report adds) are
/// flattened into the top level next to the typed fields; a typed field
/// that is set wins over a workload key of the same name. Unset optional
/// fields are left out of the file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Workload keys: the instance's arguments (on a completed report with
    /// `batch_size`, `workers`, `seed`, `cuda`, `repeat`, `number` and
    /// `skip` always present) and the keys of the plugin's report (`gpu`,
    /// `data`, ...). Declared first: the typed fields below override them.
    #[serde(flatten)]
    pub args: Map<String, Value>,
    /// Suite name.
    pub suite: String,
    /// Job name.
    pub name: String,
    /// Run id.
    #[serde(deserialize_with = "de::count")]
    pub run_id: u64,
    /// Instance index, written as a string (as the original suite wrote it).
    #[serde(serialize_with = "ser::text", deserialize_with = "de::count")]
    pub jr_id: u32,
    /// Visible device(s), `"3"` or `"0,1,2,3"`.
    #[serde(deserialize_with = "de::text")]
    pub vcd: String,
    /// True for a completed instance, false for a `.FAIL.` record.
    #[serde(default)]
    pub completed: bool,
    /// Why the instance failed (a `.FAIL.` record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// When the workload started (UTC, [`record::timestamp`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    /// When the report was made (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<String>,
    /// The configuration's id ([`record::unique_id`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique_id: Option<String>,
    /// Plugin name, version and build id: `spin 0.1.0 (build 0123456789ab)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The host the worker ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// Number of visible devices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices: Option<usize>,
    /// CPUs available to the instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_cores: Option<usize>,
    /// Items processed in one observation (mean over the timed ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<f64>,
    /// Observation times, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<Summary>,
    /// Throughput, items per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_item: Option<Throughput>,
    /// The last step losses (at most 100).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "de::floats")]
    pub batch_loss: Option<Vec<f64>>,
    /// The mean losses of the last observations (at most 10).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "de::floats")]
    pub epoch_loss: Option<Vec<f64>>,
    /// The plugin's metrics: name -> last values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Value>,
    /// The instance's output log (records written by the launcher).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// What the instance actually got.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// What the instance's slot and GPUs did over the timed window, set by
    /// the launcher after the worker wrote the report. A block of another
    /// shape (another version's) reads as none rather than making the
    /// report unreadable.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "de::lenient")]
    pub telemetry: Option<Telemetry>,
    /// The run to quality of a `--to-quality` run (docs/quality.md, "The
    /// report"); none in a throughput run's report.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "de::lenient")]
    pub quality: Option<QualityRecord>,
    /// The fingerprints of a deterministic run (docs/determinism.md); none
    /// in a throughput run's report. A block of another shape reads as none.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "de::lenient")]
    pub determinism: Option<Determinism>,
    /// The faults injected into the config, its restarts and its goodput
    /// (docs/faults.md), set by the launcher; none in a run without
    /// `--inject` or `--restarts`. A block of another shape reads as none.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "de::lenient")]
    pub faults: Option<Faults>,
}

impl Report {
    /// An empty report of instance `id`: not completed, nothing else set.
    pub fn new(id: &Identity) -> Self {
        Report {
            suite: id.suite.clone(),
            name: id.name.clone(),
            run_id: id.run_id,
            jr_id: id.jr_id,
            vcd: id.vcd.clone(),
            ..Report::default()
        }
    }

    /// Which instance the report belongs to.
    pub fn identity(&self) -> Identity {
        Identity {
            suite: self.suite.clone(),
            name: self.name.clone(),
            run_id: self.run_id,
            jr_id: self.jr_id,
            vcd: self.vcd.clone(),
        }
    }

    /// Makes this a `.FAIL.` record of `failure`, ended now unless an end
    /// time is set.
    pub fn failed(mut self, failure: Failure) -> Self {
        self.completed = false;
        self.failure = Some(failure);
        self.end_time.get_or_insert_with(|| record::timestamp(chrono::Utc::now()));
        self
    }

    /// The configuration's arguments among the workload keys: those that
    /// tell configs apart ([`Key::splits_configs`]), by key.
    pub fn config_args(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.args.iter().filter(|(k, _)| Key::of(k).splits_configs())
    }

    /// The JSON object of the file (non-finite numbers as `null`).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a report serialises: string keys, no failing serialiser")
    }

    /// The value the file holds under `key`: a workload key, or a typed field.
    pub fn get(&self, key: &str) -> Option<Value> {
        match self.args.get(key) {
            Some(v) => Some(v.clone()),
            None => match self.to_value() {
                Value::Object(mut m) => m.remove(key),
                _ => None,
            },
        }
    }

    /// Writes the file into `dir` (atomically), named after its instance
    /// with `.FAIL.` unless it completed; returns its path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, WriteError> {
        let name = self.identity().file_name(!self.completed, chrono::Utc::now());
        record::write_atomic(dir, &name, &self.to_value()).map_err(|source| WriteError { path: dir.join(name), source })
    }

    /// Rewrites the file at `path` (atomically) with this report: the
    /// launcher adding what it measured to the worker's report.
    pub fn rewrite(&self, path: &Path) -> Result<(), WriteError> {
        let (dir, name) = (path.parent().unwrap_or(Path::new(".")), path.file_name().unwrap_or_default());
        record::write_atomic(dir, &name.to_string_lossy(), &self.to_value())
            .map(|_| ())
            .map_err(|source| WriteError { path: path.to_path_buf(), source })
    }

    /// Reads the report at `path`, lets `edit` change it and rewrites it
    /// (atomically): the launcher adding what it measured (its telemetry,
    /// its faults) to the worker's report.
    pub fn amend(path: &Path, edit: impl FnOnce(&mut Report)) -> Result<(), AmendError> {
        let mut report = Report::load(path)?;
        edit(&mut report);
        Ok(report.rewrite(path)?)
    }

    /// Reads a report file holding one report: mlb's, or the original
    /// suite's (its non-finite tokens read as NaN), through the one
    /// tolerant reader ([`read::from_text`]).
    pub fn load(path: &Path) -> Result<Report, ReadError> {
        Self::load_as(path)
    }

    /// Reads every report of a file: one report, or a list of them (the
    /// original's oldest per-GPU files, closed or still appended).
    pub fn load_all(path: &Path) -> Result<Vec<Report>, ReadError> {
        Self::load_as::<OneOrMany>(path).map(OneOrMany::into_vec)
    }

    /// Reads the file at `path` as a `T`, through [`read::from_text`]: a
    /// regular file only (a FIFO is refused without waiting for a writer),
    /// of at most [`read::MAX_REPORT_BYTES`].
    fn load_as<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ReadError> {
        let text = crate::reading::read_limited(path, read::MAX_REPORT_BYTES as u64)
            .map_err(|source| ReadError::Io { path: path.to_path_buf(), source })?;
        read::from_text(&text).map_err(|source| ReadError::NotAReport { path: path.to_path_buf(), source })
    }

    /// Reads a report file; `None` when it cannot be read or is not a report.
    pub fn read(path: &Path) -> Option<Report> {
        Self::load(path).ok()
    }
}

/// What a report file holds: one report, or a list of them.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(Box<Report>),
    Many(Vec<Report>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<Report> {
        match self {
            OneOrMany::One(r) => vec![*r],
            OneOrMany::Many(all) => all,
        }
    }
}

/// A report file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file holds no report of mlb's.
    #[error("{} is not a report: {source}", path.display())]
    NotAReport {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}

/// A report file that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// A report that could not be amended.
#[derive(Debug, thiserror::Error)]
pub enum AmendError {
    /// It could not be read, or is not a report.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// It could not be written back.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// What an instance actually got. The worker writes what it sees from
/// inside; the launcher, in a record it writes, what it can vouch for
/// (`written_by: "launcher"`, no `threads`, `heap` or `plugin`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Provenance {
    /// The CPUs of the affinity mask (the launcher: of the slot), `0-3,8`.
    pub cpus: String,
    /// How many.
    pub cpu_count: usize,
    /// The tightest memory limit on the instance's cgroup path (`null`: unlimited).
    pub memory_limit_bytes: Option<u64>,
    /// The instance's cgroup (`null`: none known).
    pub cgroup: Option<String>,
    /// What confined the instance (`none`, `cgroup-v1`, `cgroup-v2`,
    /// `docker`, `slurm`); another text is kept as written.
    pub isolation: RecordedIsolation,
    /// Host kind (`ngc`, `rocm`, `powerai`, `cpu`; `unknown`).
    pub host_kind: String,
    /// The container the instance ran in (`null`: none).
    pub container: Option<Container>,
    /// The thread count given to the plugin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// The heap policy the worker ran under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heap: Option<String>,
    /// mlb's version.
    pub mlb_version: String,
    /// The plugin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<PluginBuild>,
    /// `launcher` in a record the launcher wrote; absent in the worker's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
    /// The Slurm task the instance ran as (`--slurm`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slurm: Option<SlurmTask>,
}

/// Which Slurm task an instance was: node, job, step and task ids, read
/// from the task's own environment (`SLURMD_NODENAME`, `SLURM_JOB_ID`,
/// `SLURM_STEP_ID`, `SLURM_PROCID`, `SLURM_LOCALID`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SlurmTask {
    /// The node's name in Slurm (`SLURMD_NODENAME`).
    pub node: String,
    /// The job id.
    pub job_id: String,
    /// The step id within the job.
    pub step_id: String,
    /// The task's global rank in the step (`SLURM_PROCID`).
    pub task_id: String,
    /// The task's rank on its node (`SLURM_LOCALID`).
    pub local_id: String,
}

impl SlurmTask {
    /// The variables it is read from.
    pub const VARIABLES: [&'static str; 5] =
        ["SLURMD_NODENAME", "SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_PROCID", "SLURM_LOCALID"];

    /// The task of this process, read through `var`; `None` outside a
    /// Slurm step.
    pub fn read(var: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let get = |name: &str| var(name).unwrap_or_default();
        var("SLURM_STEP_ID")?;
        Some(SlurmTask {
            node: get("SLURMD_NODENAME"),
            job_id: get("SLURM_JOB_ID"),
            step_id: get("SLURM_STEP_ID"),
            task_id: get("SLURM_PROCID"),
            local_id: get("SLURM_LOCALID"),
        })
    }
}

/// [`Provenance::written_by`] of a record the launcher wrote.
pub const WRITTEN_BY_LAUNCHER: &str = "launcher";

impl Provenance {
    /// This build's version.
    pub const MLB_VERSION: &'static str = env!("CARGO_PKG_VERSION");

    /// The provenance of a record the launcher writes, to be filled in with
    /// what it knows.
    pub fn by_launcher() -> Self {
        Provenance {
            mlb_version: Self::MLB_VERSION.into(),
            written_by: Some(WRITTEN_BY_LAUNCHER.into()),
            ..Provenance::default()
        }
    }
}

/// The container of an instance (`MLB_CONTAINER_*`); unset fields are left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Container {
    /// `docker`, `apptainer` or `singularity`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// The image: a name, or an image file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The image's digest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The limits the runtime applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<Value>,
}

/// A plugin, exactly: name, version and build id (the first 12 hex digits
/// of the library's sha256).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PluginBuild {
    /// Plugin name.
    pub name: String,
    /// Plugin version.
    pub version: String,
    /// Build id.
    pub build: String,
}

/// Serialisers of report fields.
mod ser {
    use super::*;

    /// A value as its text: `jr_id` is a string in report files.
    pub fn text<T: std::fmt::Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }
}

/// Readers of report fields that accept what earlier writers wrote.
pub(crate) mod de {
    use super::*;
    use serde::de::Error;

    /// A count written as a number or as its text.
    pub fn count<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: std::str::FromStr + TryFrom<u64>,
        D: Deserializer<'de>,
    {
        let bad = || D::Error::custom("expected a count (a number or its text)");
        match Value::deserialize(d)? {
            Value::Number(n) => n.as_u64().and_then(|n| T::try_from(n).ok()).ok_or_else(bad),
            Value::String(s) => s.trim().parse().map_err(|_| bad()),
            _ => Err(bad()),
        }
    }

    /// Text written as a string or as a number.
    pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(s),
            Value::Number(n) => Ok(n.to_string()),
            _ => Err(D::Error::custom("expected a string")),
        }
    }

    /// A number; `null` (a non-finite number, written as `null`) reads as NaN.
    pub fn float<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }

    /// A value of type `T`, or none when it has another shape.
    pub fn lenient<'de, T: serde::de::DeserializeOwned, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
        Ok(serde_json::from_value(Value::deserialize(d)?).ok())
    }

    /// A list of numbers, with `null` entries read as NaN.
    pub fn floats<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<f64>>, D::Error> {
        let values = Option::<Vec<Option<f64>>>::deserialize(d)?;
        Ok(values.map(|v| v.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::isolation::Isolation;
    use crate::contract::record::Cause;
    use serde_json::json;

    fn identity() -> Identity {
        Identity { suite: "s".into(), name: "-x y".into(), run_id: 3, jr_id: 1, vcd: "0,1".into() }
    }

    fn completed() -> Report {
        let train = Summary { avg: 1.5, count: 2, max: 2.0, min: 1.0, sd: 0.5, unit: "s".into() };
        Report {
            args: json!({"batch_size": 8, "lr": 0.1, "gpu": "V100"}).as_object().unwrap().clone(),
            completed: true,
            start_time: Some("2026-01-01 00:00:00.000000".into()),
            end_time: Some("2026-01-01 00:00:01.000000".into()),
            unique_id: Some("ab".into()),
            version: Some("spin 0.1.0 (build 0123456789ab)".into()),
            hostname: Some("h".into()),
            devices: Some(2),
            cpu_cores: Some(4),
            items: Some(16.0),
            train: Some(train.clone()),
            train_item: Some(train.throughput(16.0)),
            batch_loss: Some(vec![0.5, f64::NAN]),
            epoch_loss: Some(vec![0.5]),
            metrics: Some(json!({})),
            provenance: Some(Provenance {
                cpus: "0-3".into(),
                cpu_count: 4,
                isolation: Isolation::None.into(),
                host_kind: "cpu".into(),
                threads: Some(4),
                heap: Some("keep-freed".into()),
                mlb_version: Provenance::MLB_VERSION.into(),
                plugin: Some(PluginBuild { name: "spin".into(), version: "0.1.0".into(), build: "0123".into() }),
                ..Provenance::default()
            }),
            ..Report::new(&identity())
        }
    }

    /// Equality that takes NaN as equal to NaN.
    fn same(a: &Report, b: &Report) -> bool {
        let text = |r: &Report| format!("{r:?}");
        text(a) == text(b)
    }

    #[test]
    fn keys_as_the_files_have_them() {
        let v = completed().to_value();
        assert_eq!(v["jr_id"], "1", "a string");
        assert_eq!(v["run_id"], 3);
        assert_eq!(v["lr"], 0.1, "workload keys at the top level");
        assert_eq!(v["batch_loss"], json!([0.5, null]), "NaN as null");
        assert!(v.get("failure").is_none() && v.get("log").is_none(), "unset: left out");
        let p = &v["provenance"];
        assert!(p["cgroup"].is_null() && p["memory_limit_bytes"].is_null() && p["container"].is_null());
        assert!(p.get("written_by").is_none());
        let keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            [
                "cgroup",
                "container",
                "cpu_count",
                "cpus",
                "heap",
                "host_kind",
                "isolation",
                "memory_limit_bytes",
                "mlb_version",
                "plugin",
                "threads"
            ]
        );
    }

    #[test]
    fn a_typed_field_wins_over_a_workload_key() {
        let mut r = completed();
        r.args.insert("devices".into(), json!("many"));
        r.args.insert("name".into(), json!("other"));
        r.args.insert("log".into(), json!("kept: the field is unset"));
        let v = r.to_value();
        assert_eq!((v["devices"].clone(), v["name"].clone()), (json!(2), json!("-x y")));
        assert_eq!(v["log"], "kept: the field is unset");
        assert_eq!(r.get("devices"), Some(json!("many")), "get: the workload key first");
        assert_eq!(r.get("hostname"), Some(json!("h")), "then the typed field");
        assert_eq!(r.get("nothing"), None);
    }

    #[test]
    fn files_read_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let report = completed();
        let path = report.write(dir.path()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("s.-x y.R3.D0,1.2") && !name.contains("FAIL"), "{name}");
        let back = Report::read(&path).unwrap();
        assert!(same(&back, &report), "{back:?}");
        assert_eq!(back.identity(), identity());

        let failed = Report::new(&identity()).failed(Failure { cause: Cause::Nan, message: "m".into(), step: Some(4) });
        let path = failed.write(dir.path()).unwrap();
        assert!(path.to_string_lossy().contains(".D0,1.FAIL."));
        let back = Report::read(&path).unwrap();
        assert_eq!(back, failed);
        assert!(!back.completed && back.end_time.is_some());
    }

    #[test]
    fn the_original_suites_files_read_through_the_tolerant_reader() {
        let dir = tempfile::tempdir().unwrap();
        let one = r#"{"suite": "s", "name": "vae", "run_id": 0, "jr_id": "1", "vcd": "1", "completed": true,
                      "batch_loss": [0.5, NaN, -Infinity], "items": Infinity, "lr": 0.1}"#;
        let path = dir.path().join("one.json");
        std::fs::write(&path, one).unwrap();
        let r = Report::load(&path).unwrap();
        assert!(r.completed && r.batch_loss.as_ref().unwrap().iter().skip(1).all(|l| l.is_nan()));
        assert_eq!((r.items, r.args.get("lr")), (None, Some(&json!(0.1))), "a token as null");
        assert_eq!(Report::load_all(&path).unwrap().len(), 1);
        let appended = format!("[\n{one},\n{},\n", one.replace("\"vcd\": \"1\"", "\"vcd\": \"2\""));
        std::fs::write(&path, appended).unwrap();
        let all = Report::load_all(&path).unwrap();
        assert_eq!(all.iter().map(|r| r.vcd.as_str()).collect::<Vec<_>>(), ["1", "2"]);
        assert!(Report::load(&path).unwrap_err().to_string().contains("is not a report"), "a list is no one report");
    }

    #[test]
    fn the_launchers_record_keys() {
        let r = Report {
            args: json!({"seed": 100}).as_object().unwrap().clone(),
            log: Some("/o/logs/x.log".into()),
            provenance: Some(Provenance { cpus: "0-1".into(), cpu_count: 2, ..Provenance::by_launcher() }),
            ..Report::new(&identity())
        }
        .failed(Failure::new(Cause::Crash, "killed by signal 6 (SIGABRT)"));
        let v = r.to_value();
        assert_eq!(v["provenance"]["written_by"], "launcher");
        assert!(v["provenance"].get("threads").is_none() && v["provenance"]["container"].is_null());
        assert_eq!(v["failure"], json!({"cause": "crash", "message": "killed by signal 6 (SIGABRT)"}));
        assert_eq!(v["completed"], false);
    }

    #[test]
    fn a_provenance_names_its_isolation_typed_and_keeps_any_other_text() {
        let with = |isolation: Value| {
            let text = json!({"suite": "s", "name": "n", "run_id": 1, "jr_id": "0", "vcd": "0",
                              "provenance": {"isolation": isolation, "cpus": "0", "cpu_count": 1}});
            serde_json::from_value::<Report>(text).map(|r| r.provenance.unwrap().isolation)
        };
        for isolation in Isolation::ALL {
            let read = with(json!(isolation.name())).unwrap();
            assert_eq!(read.applied(), Some(isolation));
        }
        // Texts mlb never wrote (by hand, another tool) are read, and written back, as they are.
        let other = with(json!("cgroup")).unwrap();
        assert_eq!(other, RecordedIsolation::Other("cgroup".into()));
        let mut r = completed();
        r.provenance.as_mut().unwrap().isolation = other;
        assert_eq!(r.to_value()["provenance"]["isolation"], "cgroup");
        let none: Report = serde_json::from_value(json!({"suite": "s", "name": "n", "run_id": 1, "jr_id": "0",
                                                         "vcd": "0", "provenance": {"cpus": "0"}}))
        .unwrap();
        assert_eq!(none.provenance.unwrap().isolation.as_str(), "", "no key: empty, as before");
        assert!(with(json!(["docker"])).is_err(), "not a text: no provenance of mlb's");
    }

    #[test]
    fn lenient_reading_and_foreign_files() {
        let text = r#"{"suite": "s", "name": "n", "run_id": "4", "jr_id": 2, "vcd": 0, "completed": true,
                       "train": {"avg": 1.0, "count": 1, "max": 1.0, "min": 1.0, "sd": 0.0, "unit": "s"},
                       "train_item": {"avg": 1.0, "max": null, "min": 1.0, "range": null, "unit": "items/sec"},
                       "batch_loss": [null, 1.5], "extra": {"k": [1]}}"#;
        let r: Report = serde_json::from_str(text).unwrap();
        assert_eq!((r.run_id, r.jr_id, r.vcd.as_str(), r.completed), (4, 2, "0", true));
        assert!(r.train_item.unwrap().max.is_nan());
        assert!(r.batch_loss.unwrap()[0].is_nan());
        assert_eq!(r.args, *json!({"extra": {"k": [1]}}).as_object().unwrap(), "only the keys that are not fields");
        let odd = r#"{"suite": "s", "name": "n", "run_id": 4, "jr_id": "2", "vcd": "0", "telemetry": "not a block"}"#;
        assert_eq!(serde_json::from_str::<Report>(odd).unwrap().telemetry, None, "a foreign block reads as none");
        for foreign in
            [r#"[1, 2]"#, r#"{"name": "n"}"#, r#"{"suite": "s", "name": "n", "run_id": -1, "jr_id": 0, "vcd": "0"}"#]
        {
            assert!(serde_json::from_str::<Report>(foreign).is_err(), "{foreign}");
        }
    }
}
