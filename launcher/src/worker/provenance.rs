//! What an instance actually got, read from inside it: the CPUs of its
//! affinity mask, the memory limit of its own cgroup, and what the launcher
//! says about isolation, host and container (through `MLB_*` variables),
//! and the heap policy it ran under.

use super::heap::HeapPolicy;
use crate::host::{cpulist, memory_cgroup};
use serde_json::{json, Map, Value};

/// Variables the launcher sets for the worker to record.
pub mod vars {
    /// Isolation mode: `cgroup-v1`, `cgroup-v2`, `docker`, `none`...
    pub const ISOLATION: &str = "MLB_ISOLATION";
    /// Host kind: `ngc`, `rocm`, `powerai`, `cpu`.
    pub const HOST_KIND: &str = "MLB_HOST_KIND";
    /// Container image name, when in a container.
    pub const CONTAINER_IMAGE: &str = "MLB_CONTAINER_IMAGE";
    /// Container image digest.
    pub const CONTAINER_DIGEST: &str = "MLB_CONTAINER_DIGEST";
    /// Container runtime (`docker`, `apptainer`, `singularity`).
    pub const CONTAINER_RUNTIME: &str = "MLB_CONTAINER_RUNTIME";
    /// The limits the container runtime applied (a JSON object), when in a container.
    pub const CONTAINER_LIMITS: &str = "MLB_CONTAINER_LIMITS";
    /// The cgroup the launcher placed the instance in.
    pub const CGROUP: &str = "MLB_CGROUP";
}

/// The provenance object of a report.
pub fn collect(plugin_name: &str, plugin_version: &str, plugin_build: &str, threads: u32, heap: HeapPolicy) -> Value {
    let cpus = cpulist::affinity();
    let (cgroup, memory_limit) = memory_cgroup();
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let mut container = Map::new();
    for (key, name) in
        [("image", vars::CONTAINER_IMAGE), ("digest", vars::CONTAINER_DIGEST), ("runtime", vars::CONTAINER_RUNTIME)]
    {
        if let Some(v) = var(name) {
            container.insert(key.into(), v.into());
        }
    }
    if let Some(limits) = var(vars::CONTAINER_LIMITS) {
        let limits = serde_json::from_str(&limits).unwrap_or(Value::String(limits));
        container.insert("limits".into(), limits);
    }
    json!({
        "cpus": cpulist::format(&cpus),
        "cpu_count": cpus.len(),
        "memory_limit_bytes": memory_limit,
        "cgroup": var(vars::CGROUP).or(cgroup),
        "isolation": var(vars::ISOLATION).unwrap_or_else(|| "none".into()),
        "host_kind": var(vars::HOST_KIND).unwrap_or_else(|| "unknown".into()),
        "container": if container.is_empty() { Value::Null } else { Value::Object(container) },
        "threads": threads,
        "heap": heap.as_str(),
        "mlb_version": env!("CARGO_PKG_VERSION"),
        "plugin": { "name": plugin_name, "version": plugin_version, "build": plugin_build },
    })
}
