//! The environment of an instance: the original suite's variables
//! (docs/launcher.md, "The host and its slots"), the device variables, and the `MLB_*` variables through which the
//! launcher tells a worker what it cannot see from inside (isolation mode,
//! host kind, cgroup, container), which the worker records in its report's
//! provenance.
//!
//! Built here for every runtime: [`run_variables`] once per run,
//! [`instance_env`] per instance, [`cgroup`] when the instance is placed in
//! a group, [`container_env`] (and [`isolation`]) by a container runtime.
//! The worker reads them back with [`Announced::read`] and
//! [`visible_devices`].

use super::isolation::{Isolation, RecordedIsolation};
use super::report::Container;
use crate::contract::record::Identity;
use std::path::Path;

/// Instance index within its job config (the original suite's `JOB_ID`).
pub const JOB_ID: &str = "JOB_ID";
/// Job name.
pub const BENCH_NAME: &str = "BENCH_NAME";
/// Run id.
pub const RUN_ID: &str = "RUN_ID";
/// Suite name (= `JOB_FILE`).
pub const SUITE_NAME: &str = "SUITE_NAME";
/// CPUs of the instance's slot (as a run variable: of the first slot).
pub const CPU_COUNT: &str = "CPU_COUNT";

/// Report folder (`--outdir`).
pub const OUTPUT_DIRECTORY: &str = "OUTPUT_DIRECTORY";
/// `$BASE/data`.
pub const DATA_DIRECTORY: &str = "DATA_DIRECTORY";
/// `$BASE/tmp`.
pub const TEMP_DIRECTORY: &str = "TEMP_DIRECTORY";
/// Base folder (`--base`).
pub const BASE: &str = "BASE";
/// The jobs file's base name before its first `.`.
pub const JOB_FILE: &str = "JOB_FILE";
/// Number of slots.
pub const DEVICE_TOTAL: &str = "DEVICE_TOTAL";

/// Visible NVIDIA devices (ngc, powerai, cpu hosts).
pub const CUDA_VISIBLE_DEVICES: &str = "CUDA_VISIBLE_DEVICES";
/// Visible AMD devices (rocm hosts), for HIP.
pub const HIP_VISIBLE_DEVICES: &str = "HIP_VISIBLE_DEVICES";
/// Visible AMD devices (rocm hosts), for the ROCm runtime.
pub const ROCR_VISIBLE_DEVICES: &str = "ROCR_VISIBLE_DEVICES";

/// Isolation mode: an [`Isolation`]'s name (`none`, `cgroup-v1`, `cgroup-v2`, `docker`, `slurm`).
pub const ISOLATION: &str = "MLB_ISOLATION";
/// Host kind: `ngc`, `rocm`, `powerai`, `cpu`.
pub const HOST_KIND: &str = "MLB_HOST_KIND";
/// The cgroup the launcher placed the instance in.
pub const CGROUP: &str = "MLB_CGROUP";
/// Container image name, when in a container.
pub const CONTAINER_IMAGE: &str = "MLB_CONTAINER_IMAGE";
/// Container image digest.
pub const CONTAINER_DIGEST: &str = "MLB_CONTAINER_DIGEST";
/// Container runtime (`docker`, `apptainer`, `singularity`).
pub const CONTAINER_RUNTIME: &str = "MLB_CONTAINER_RUNTIME";
/// The limits the container runtime applied (a JSON object), when in a container.
pub const CONTAINER_LIMITS: &str = "MLB_CONTAINER_LIMITS";
/// `true` for a run to quality (`mlb --to-quality`): the worker runs the
/// clock of docs/quality.md instead of the timed loop.
pub const TO_QUALITY: &str = "MLB_TO_QUALITY";
/// Whether the launcher dropped the page cache before the instance's run:
/// `dropped`, or `kept: WHY` ([`PageCache`](crate::contract::quality::PageCache)).
pub const PAGE_CACHE: &str = "MLB_PAGE_CACHE";
/// The user's heap choice: `MLB_HEAP=libc` turns the worker's heap policy
/// off. Passed on with glibc's own malloc variables ([`heap_choice_vars`]).
pub const HEAP: &str = "MLB_HEAP";
/// The fault a test asks one instance to inject
/// (`FAULT@STEP[,slot=DEVICES][,node=NAME]`, docs/determinism.md): passed
/// on to instances with the [`LIBRARY_SWITCHES`](super::determinism::LIBRARY_SWITCHES).
pub const INJECT: &str = "MLB_INJECT";
/// The folder a worker keeps its checkpoints in (docs/faults.md), set by
/// the launcher under `--checkpoint-every`.
pub const CHECKPOINT_DIR: &str = "MLB_CHECKPOINT_DIR";
/// Seconds between two checkpoints of a worker (`--checkpoint-every`).
pub const CHECKPOINT_EVERY: &str = "MLB_CHECKPOINT_EVERY";
/// The step whose checkpoint a restarted worker restores before its first
/// step (`--restarts`).
pub const RESTORE_STEP: &str = "MLB_RESTORE_STEP";
/// The attempt of a restarted instance (1: its first restart), set by
/// the launcher under `--restarts`; a run to quality logs it in its MLLOG
/// file.
pub const ATTEMPT: &str = "MLB_ATTEMPT";
/// glibc's tunables variable; `glibc.malloc.*` entries in it are a heap
/// choice the worker keeps.
pub const GLIBC_TUNABLES: &str = "GLIBC_TUNABLES";
/// The dynamic loader's search folders. The launcher puts in front of its
/// own the folder of the libtorch a worker's plugin was found to load where
/// the loader does not look (python3's torch package: `plugins::libtorch`),
/// with [`library_path`].
pub const LD_LIBRARY_PATH: &str = "LD_LIBRARY_PATH";
/// glibc's malloc variables: setting any of them is a heap choice the
/// worker keeps.
pub const GLIBC_MALLOC_VARS: [&str; 5] =
    ["MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_", "MALLOC_ARENA_MAX"];

/// What every instance of a run is given: the variables a jobs file may
/// use (docs/launcher.md, "Jobs files").
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// Report folder.
    pub outdir: &'a Path,
    /// Base folder.
    pub base: &'a Path,
    /// Suite name.
    pub suite: &'a str,
    /// Number of slots.
    pub device_total: usize,
    /// CPUs of one slot.
    pub cpu_count: usize,
}

/// The run variables, in the order the dry run shows them.
pub fn run_variables(run: &Run) -> Vec<(String, String)> {
    let text = |p: &Path| p.display().to_string();
    [
        (OUTPUT_DIRECTORY, text(run.outdir)),
        (DATA_DIRECTORY, text(&run.base.join("data"))),
        (TEMP_DIRECTORY, text(&run.base.join("tmp"))),
        (BASE, text(run.base)),
        (JOB_FILE, run.suite.to_string()),
        (DEVICE_TOTAL, run.device_total.to_string()),
        (CPU_COUNT, run.cpu_count.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// What one instance's environment is made of.
#[derive(Clone, Copy, Debug)]
pub struct EnvInputs<'a> {
    /// The run's variables ([`run_variables`]).
    pub run: &'a [(String, String)],
    /// Which instance: `JOB_ID`, `BENCH_NAME`, `RUN_ID`, `SUITE_NAME`, and
    /// the visible devices.
    pub identity: &'a Identity,
    /// CPUs the instance may use.
    pub cpu_count: usize,
    /// What confines the instance, recorded by the worker.
    pub isolation: Isolation,
    /// The host kind's name (`MLB_HOST_KIND`).
    pub host_kind: &'a str,
    /// The variables that carry the visible devices on this kind of host.
    pub device_vars: &'a [&'a str],
}

/// The environment of one instance: the run variables (`CPU_COUNT`: the
/// instance's own), `JOB_ID`, `BENCH_NAME`, `RUN_ID`, `SUITE_NAME`,
/// `CPU_COUNT`, `MLB_ISOLATION`, `MLB_HOST_KIND`, the heap choice found in
/// `inherited` (the launcher's environment; instances in containers do not
/// inherit it) and the device variables of the host kind.
pub fn instance_env(i: &EnvInputs, inherited: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    let id = i.identity;
    let mut env: Vec<(String, String)> = i.run.iter().filter(|(k, _)| k != CPU_COUNT).cloned().collect();
    env.extend(
        [
            (JOB_ID, id.jr_id.to_string()),
            (BENCH_NAME, id.name.clone()),
            (RUN_ID, id.run_id.to_string()),
            (SUITE_NAME, id.suite.clone()),
            (CPU_COUNT, i.cpu_count.to_string()),
            (ISOLATION, i.isolation.name().to_string()),
            (HOST_KIND, i.host_kind.to_string()),
        ]
        .map(|(k, v)| (k.to_string(), v)),
    );
    env.extend(heap_choice_vars(&inherited));
    env.extend(check_vars(&inherited));
    env.extend(i.device_vars.iter().map(|v| (v.to_string(), id.vcd.clone())));
    env
}

/// The variables of an environment (`var` reads one) that carry a heap
/// choice ([`HEAP`], glibc's), for the launcher to pass to instances in
/// containers, which do not inherit its environment.
pub fn heap_choice_vars(var: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    those_set([HEAP, GLIBC_TUNABLES].into_iter().chain(GLIBC_MALLOC_VARS), var)
}

/// The variables of an environment that steer what a deterministic run
/// computes or checks ([`INJECT`], the math libraries' switches), for the
/// launcher to pass to instances in containers.
pub fn check_vars(var: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    those_set([INJECT].into_iter().chain(super::determinism::LIBRARY_SWITCHES), var)
}

/// The variables of `names` that `var` finds set, with their values.
fn those_set(names: impl Iterator<Item = &'static str>, var: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    names.filter_map(|name| var(name).map(|v| (name.to_string(), v))).collect()
}

/// `LD_LIBRARY_PATH` with `dir` in front of `inherited` (the launcher's
/// own value, when set and not empty).
pub fn library_path(dir: &Path, inherited: Option<&str>) -> (String, String) {
    let dir = dir.display();
    let value = match inherited.filter(|v| !v.is_empty()) {
        Some(rest) => format!("{dir}:{rest}"),
        None => dir.to_string(),
    };
    (LD_LIBRARY_PATH.to_string(), value)
}

/// Replaces the value of `key` in the environment list `env`, or appends
/// it.
pub fn set(env: &mut Vec<(String, String)>, key: &str, value: &str) {
    env.retain(|(k, _)| k != key);
    env.push((key.to_string(), value.to_string()));
}

/// `MLB_CGROUP`: the group the launcher placed the instance in.
pub fn cgroup(path: impl Into<String>) -> (String, String) {
    (CGROUP.to_string(), path.into())
}

/// `MLB_ISOLATION` set to `mode`, for a runtime that isolates the instance
/// itself (Docker).
pub fn isolation(mode: Isolation) -> (String, String) {
    (ISOLATION.to_string(), mode.name().to_string())
}

/// The `MLB_CONTAINER_*` variables of an instance in `container`: those of
/// its fields that are set (the limits as a JSON object).
pub fn container_env(container: &Container) -> Vec<(String, String)> {
    let limits = container.limits.as_ref().map(|l| l.to_string());
    [
        (CONTAINER_RUNTIME, container.runtime.clone()),
        (CONTAINER_IMAGE, container.image.clone()),
        (CONTAINER_DIGEST, container.digest.clone()),
        (CONTAINER_LIMITS, limits),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((k.to_string(), v?)))
    .collect()
}

/// What the launcher announced to a worker through the `MLB_*` variables
/// (an empty variable counts as unset).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Announced {
    /// `MLB_ISOLATION`, read once: a text that names no [`Isolation`] (a
    /// worker started by hand) is kept as written, not refused.
    pub isolation: Option<RecordedIsolation>,
    /// `MLB_HOST_KIND`.
    pub host_kind: Option<String>,
    /// `MLB_CGROUP`.
    pub cgroup: Option<String>,
    /// `MLB_CONTAINER_*`; `None` when none is set. Limits that are not JSON
    /// are kept as a string.
    pub container: Option<Container>,
}

impl Announced {
    /// Reads the variables through `var` (one variable's value).
    pub fn read(var: impl Fn(&str) -> Option<String>) -> Self {
        let var = |name: &str| var(name).filter(|v| !v.is_empty());
        let container = Container {
            runtime: var(CONTAINER_RUNTIME),
            image: var(CONTAINER_IMAGE),
            digest: var(CONTAINER_DIGEST),
            limits: var(CONTAINER_LIMITS).map(|l| serde_json::from_str(&l).unwrap_or(serde_json::Value::String(l))),
        };
        Announced {
            isolation: var(ISOLATION).map(|text| RecordedIsolation::read(&text)),
            host_kind: var(HOST_KIND),
            cgroup: var(CGROUP),
            container: (container != Container::default()).then_some(container),
        }
    }
}

/// Device indices as the visible-devices variables and a report's `vcd`
/// write them: `0,1`. [`device_count`] reads the same text back.
pub fn device_list(indices: impl IntoIterator<Item = u32>) -> String {
    indices.into_iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",")
}

/// How many devices a [`device_list`] text names (a worker started by hand
/// may be given any such list).
pub fn device_count(list: &str) -> usize {
    list.split(',').count()
}

/// The visible devices a worker was given: `CUDA_VISIBLE_DEVICES`, else
/// `HIP_VISIBLE_DEVICES` (empty counts as unset).
pub fn visible_devices(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    [CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES].into_iter().find_map(|name| var(name).filter(|v| !v.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashMap;

    fn lookup(env: &[(String, String)]) -> impl Fn(&str) -> Option<String> + '_ {
        |name| env.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    fn identity(vcd: &str) -> Identity {
        Identity { suite: "base".into(), name: "-x y".into(), run_id: 7, jr_id: 1, vcd: vcd.into() }
    }

    #[test]
    fn heap_choices_are_passed_on() {
        let env: HashMap<&str, &str> = [("MLB_HEAP", "libc"), ("MALLOC_ARENA_MAX", "2"), ("HOME", "/root")].into();
        let vars = heap_choice_vars(|name| env.get(name).map(|v| v.to_string()));
        assert_eq!(vars, [("MLB_HEAP".to_string(), "libc".to_string()), ("MALLOC_ARENA_MAX".into(), "2".into())]);
    }

    #[test]
    fn a_library_folder_goes_in_front_of_the_inherited_path() {
        let dir = Path::new("/opt/torch/lib");
        let value = |inherited| library_path(dir, inherited).1;
        assert_eq!(library_path(dir, None).0, "LD_LIBRARY_PATH");
        assert_eq!(value(None), "/opt/torch/lib");
        assert_eq!(value(Some("")), "/opt/torch/lib");
        assert_eq!(value(Some("/usr/local/cuda/lib64:/x")), "/opt/torch/lib:/usr/local/cuda/lib64:/x");
    }

    #[test]
    fn instance_environment_in_order() {
        let run = run_variables(&Run {
            outdir: Path::new("/o"),
            base: Path::new("/b"),
            suite: "base",
            device_total: 2,
            cpu_count: 4,
        });
        let id = identity("1");
        let inherited: HashMap<&str, &str> = [("MLB_HEAP", "libc"), ("HOME", "/root")].into();
        let env = instance_env(
            &EnvInputs {
                run: &run,
                identity: &id,
                cpu_count: 3,
                isolation: Isolation::CgroupV2,
                host_kind: "rocm",
                device_vars: &[HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES],
            },
            |name| inherited.get(name).map(|v| v.to_string()),
        );
        let text: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(
            text,
            [
                "OUTPUT_DIRECTORY=/o",
                "DATA_DIRECTORY=/b/data",
                "TEMP_DIRECTORY=/b/tmp",
                "BASE=/b",
                "JOB_FILE=base",
                "DEVICE_TOTAL=2",
                "JOB_ID=1",
                "BENCH_NAME=-x y",
                "RUN_ID=7",
                "SUITE_NAME=base",
                "CPU_COUNT=3",
                "MLB_ISOLATION=cgroup-v2",
                "MLB_HOST_KIND=rocm",
                "MLB_HEAP=libc",
                "HIP_VISIBLE_DEVICES=1",
                "ROCR_VISIBLE_DEVICES=1",
            ]
        );
        assert_eq!(visible_devices(lookup(&env)).as_deref(), Some("1"));
    }

    #[test]
    fn what_the_launcher_sets_the_worker_reads_back() {
        let run = run_variables(&Run {
            outdir: Path::new("/o"),
            base: Path::new("/b"),
            suite: "s",
            device_total: 1,
            cpu_count: 1,
        });
        let id = identity("0,1");
        let mut env = instance_env(
            &EnvInputs {
                run: &run,
                identity: &id,
                cpu_count: 8,
                isolation: Isolation::None,
                host_kind: "ngc",
                device_vars: &[CUDA_VISIBLE_DEVICES],
            },
            |_| None,
        );
        assert_eq!(
            Announced::read(lookup(&env)),
            Announced {
                isolation: Some(Isolation::None.into()),
                host_kind: Some("ngc".into()),
                cgroup: None,
                container: None
            }
        );
        assert_eq!(visible_devices(lookup(&env)).as_deref(), Some("0,1"));
        env.push(cgroup("/mlb-s-1/slot0"));
        let container = Container {
            runtime: Some("docker".into()),
            image: Some("mlb:ngc".into()),
            digest: Some("sha256:2".into()),
            limits: Some(json!({"cpuset_cpus": "4-7", "gpus": ["3"], "memory_bytes": 1u64 << 30})),
        };
        env.push(isolation(Isolation::Docker));
        env.extend(container_env(&container));
        let announced = Announced::read(lookup(&env));
        assert_eq!(announced.isolation, Some(RecordedIsolation::Applied(Isolation::Docker)));
        assert_eq!(announced.cgroup.as_deref(), Some("/mlb-s-1/slot0"));
        assert_eq!(announced.container, Some(container));
        // A partial container (Singularity: no limits) and limits that are not JSON.
        let partial = Container { runtime: Some("apptainer".into()), ..Container::default() };
        assert_eq!(container_env(&partial), [(CONTAINER_RUNTIME.to_string(), "apptainer".to_string())]);
        let odd = [(CONTAINER_LIMITS.to_string(), "cpus 4".to_string()), (ISOLATION.to_string(), String::new())];
        let announced = Announced::read(lookup(&odd));
        assert_eq!(announced.container.unwrap().limits, Some(json!("cpus 4")));
        assert_eq!(announced.isolation, None, "empty is unset");
    }

    #[test]
    fn every_isolation_is_read_back_and_another_text_is_kept() {
        for mode in Isolation::ALL {
            let announced = Announced::read(lookup(&[isolation(mode)]));
            assert_eq!(announced.isolation.and_then(|i| i.applied()), Some(mode));
        }
        let by_hand = [(ISOLATION.to_string(), "cgroup".to_string())];
        assert_eq!(Announced::read(lookup(&by_hand)).isolation, Some(RecordedIsolation::Other("cgroup".into())));
    }

    #[test]
    fn hip_when_cuda_is_unset_or_empty() {
        let env = [(CUDA_VISIBLE_DEVICES.to_string(), String::new()), (HIP_VISIBLE_DEVICES.to_string(), "2".into())];
        assert_eq!(visible_devices(lookup(&env)).as_deref(), Some("2"));
        assert_eq!(visible_devices(|_| None), None);
    }
}
