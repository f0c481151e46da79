//! An [`ContainerSpec`] as a Docker container: image, command, environment,
//! binds, labels and the slot's limits in `HostConfig`. Pure: `--dry-run`
//! prints exactly what [`Docker::run`](super::Docker::run) creates.

use super::client::{INSTANCE_LABEL, JOB_LABEL, RUN_LABEL, SESSION_LABEL};
use super::image::ImageFacts;
use crate::gpu::{device_list, ContainerAccess, ContainerGpus, DeviceIndex};
use crate::isolation::Isolation;
use crate::runtime::spec::ContainerSpec;
use bollard::models::{ContainerCreateBody, DeviceMapping, DeviceRequest, HostConfig};
use mlb_record::contract::env as vars;
use mlb_record::contract::Container;
use serde::Serialize;
use std::collections::HashMap;

/// The runtime name recorded in provenance.
pub const RUNTIME_NAME: &str = "docker";

/// The limits a container is created with, as recorded in the instance's
/// provenance (`MLB_CONTAINER_LIMITS`) and checked against Docker's inspect.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// `HostConfig.CpusetCpus`.
    pub cpuset_cpus: Option<String>,
    /// `HostConfig.CpusetMems`.
    pub cpuset_mems: Option<String>,
    /// `HostConfig.Memory` in bytes.
    pub memory_bytes: Option<u64>,
    /// `HostConfig.MemorySwap` in bytes (memory + swap; equal to the memory: no swap).
    pub memory_swap_bytes: Option<u64>,
    /// GPUs given to the container: NVIDIA device ids, or ROCm device paths.
    pub gpus: Vec<String>,
}

impl Limits {
    /// The limits `spec` asks for.
    pub fn of(spec: &ContainerSpec) -> Self {
        let r = &spec.resources;
        let gpus = match r.gpus.as_ref().map(ContainerGpus::access) {
            None => Vec::new(),
            Some(ContainerAccess::Request { ids, .. }) => ids,
            Some(ContainerAccess::Nodes(paths)) => paths.iter().map(|p| p.display().to_string()).collect(),
        };
        Limits {
            cpuset_cpus: r.cpus.clone(),
            cpuset_mems: r.mems.clone(),
            memory_bytes: r.memory_bytes,
            memory_swap_bytes: r.memory_bytes,
            gpus,
        }
    }

    /// The limits Docker reports for a container (`HostConfig` of inspect).
    pub fn from_host_config(hc: &HostConfig) -> Self {
        let positive = |v: Option<i64>| v.filter(|&v| v > 0).map(|v| v as u64);
        let nonempty = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
        let mut gpus: Vec<String> =
            hc.device_requests.iter().flatten().flat_map(|r| r.device_ids.iter().flatten().cloned()).collect();
        gpus.extend(hc.devices.iter().flatten().filter_map(|d| d.path_on_host.clone()));
        Limits {
            cpuset_cpus: nonempty(&hc.cpuset_cpus),
            cpuset_mems: nonempty(&hc.cpuset_mems),
            memory_bytes: positive(hc.memory),
            memory_swap_bytes: positive(hc.memory_swap),
            gpus,
        }
    }
}

/// The container that runs `spec` from `image`; `session` labels it as
/// created by this launcher.
pub fn container_config(spec: &ContainerSpec, image: &ImageFacts, session: &str) -> ContainerCreateBody {
    let limits = Limits::of(spec);
    let r = &spec.resources;
    let (device_requests, devices, group_add) = match r.gpus.as_ref().map(ContainerGpus::access) {
        None => (None, None, None),
        Some(ContainerAccess::Request { driver, ids }) => {
            let request = DeviceRequest {
                driver: Some(driver.into()),
                device_ids: Some(ids),
                capabilities: Some(vec![vec!["gpu".into()]]),
                ..Default::default()
            };
            (Some(vec![request]), None, None)
        }
        Some(ContainerAccess::Nodes(_)) => {
            let map = |path: &String| DeviceMapping {
                path_on_host: Some(path.clone()),
                path_in_container: Some(path.clone()),
                cgroup_permissions: Some("rwm".into()),
            };
            (None, Some(limits.gpus.iter().map(map).collect()), Some(device_groups(&limits.gpus)))
        }
    };
    let binds = spec
        .binds
        .iter()
        .map(|b| format!("{}:{}:{}", b.host.display(), b.container.display(), if b.read_only { "ro" } else { "rw" }))
        .collect();
    let labels = HashMap::from([
        (SESSION_LABEL.to_string(), session.to_string()),
        (RUN_LABEL.to_string(), spec.labels.run_id.clone()),
        (JOB_LABEL.to_string(), spec.labels.job.clone()),
        (INSTANCE_LABEL.to_string(), spec.labels.instance.to_string()),
    ]);
    let to_i64 = |v: Option<u64>| v.map(|v| i64::try_from(v).unwrap_or(i64::MAX));
    ContainerCreateBody {
        image: Some(image.id.clone()),
        cmd: Some(spec.argv.clone()),
        env: Some(container_env(spec, image, &limits).into_iter().map(|(k, v)| format!("{k}={v}")).collect()),
        working_dir: spec.workdir.as_ref().map(|d| d.display().to_string()),
        labels: Some(labels),
        attach_stdout: Some(true),
        attach_stderr: Some(true),
        tty: Some(false),
        host_config: Some(HostConfig {
            cpuset_cpus: r.cpus.clone(),
            cpuset_mems: r.mems.clone(),
            memory: to_i64(r.memory_bytes),
            memory_swap: to_i64(r.memory_bytes),
            shm_size: to_i64(spec.shm_bytes),
            binds: Some(binds),
            device_requests,
            devices,
            group_add,
            // A real init as PID 1: it forwards signals and reaps, and the
            // instance dies of its signals as it would on bare metal.
            init: Some(true),
            privileged: Some(false),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Groups a container given device nodes joins: `video`, plus the host's numeric group of
/// each device node (render nodes belong to `render` on recent
/// distributions, a group the image may not name).
fn device_groups(devices: &[String]) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let mut groups = vec!["video".to_string()];
    for gid in devices.iter().filter_map(|d| std::fs::metadata(d).ok()).map(|m| m.gid().to_string()) {
        if !groups.contains(&gid) {
            groups.push(gid);
        }
    }
    groups
}

/// The instance's environment inside the container: the spec's, with the
/// GPU indices renumbered as the container sees them (only the slot's GPUs
/// exist there, from 0), plus the `MLB_*` provenance variables.
pub fn container_env(spec: &ContainerSpec, image: &ImageFacts, limits: &Limits) -> Vec<(String, String)> {
    let mut env = spec.env.clone();
    if let Some(gpus) = &spec.resources.gpus {
        let local: Vec<DeviceIndex> = (0..gpus.devices.len()).map(DeviceIndex::from).collect();
        for var in gpus.vendor.ops().visible_devices_vars() {
            vars::set(&mut env, var, &device_list(&local));
        }
    }
    let container = Container {
        runtime: Some(RUNTIME_NAME.into()),
        image: Some(image.name.clone()),
        digest: Some(image.digest.clone()),
        limits: Some(serde_json::to_value(limits).expect("limits serialize")),
    };
    for (key, value) in std::iter::once(vars::isolation(Isolation::Docker)).chain(vars::container_env(&container)) {
        vars::set(&mut env, &key, &value);
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::Vendor;
    use crate::runtime::spec::{Bind, Labels, Resources};

    fn gpus(vendor: Vendor, devices: &[u32]) -> Option<ContainerGpus> {
        Some(ContainerGpus { vendor, devices: devices.iter().copied().map(DeviceIndex).collect() })
    }

    fn image() -> ImageFacts {
        ImageFacts { name: "mlb:ngc".into(), id: "sha256:1".into(), digest: "sha256:2".into() }
    }

    fn spec(gpus: Option<ContainerGpus>) -> ContainerSpec {
        ContainerSpec {
            argv: vec!["mlb".into(), "worker".into()],
            env: vec![("JOB_ID".into(), "1".into()), ("CUDA_VISIBLE_DEVICES".into(), "3".into())],
            workdir: Some("/out".into()),
            resources: Resources {
                cpus: Some("4-7".into()),
                mems: Some("0".into()),
                memory_bytes: Some(1 << 30),
                gpus,
            },
            binds: vec![Bind::rw("/host/out", "/out"), Bind::ro("/host/data", "/data")],
            labels: Labels { run_id: "7".into(), job: "toy".into(), instance: 1 },
            prefix: "[toy 1] ".into(),
            shm_bytes: Some(1 << 28),
        }
    }

    #[test]
    fn nvidia_slot_gets_its_limits_device_request_and_binds() {
        let body = container_config(&spec(gpus(Vendor::Nvidia, &[3])), &image(), "s1");
        let hc = body.host_config.as_ref().unwrap();
        assert_eq!(body.image.as_deref(), Some("sha256:1"));
        assert_eq!(hc.cpuset_cpus.as_deref(), Some("4-7"));
        assert_eq!(hc.cpuset_mems.as_deref(), Some("0"));
        assert_eq!((hc.memory, hc.memory_swap, hc.shm_size), (Some(1 << 30), Some(1 << 30), Some(1 << 28)));
        let request = &hc.device_requests.as_ref().unwrap()[0];
        assert_eq!(request.device_ids.as_deref(), Some(&["3".to_string()][..]));
        assert_eq!(request.capabilities, Some(vec![vec!["gpu".to_string()]]));
        assert_eq!(hc.binds.as_deref().unwrap(), ["/host/out:/out:rw", "/host/data:/data:ro"]);
        assert_eq!((hc.privileged, hc.cap_add.as_ref(), hc.devices.as_ref()), (Some(false), None, None));
        let labels = body.labels.unwrap();
        assert_eq!((labels["mlb.run"].as_str(), labels["mlb.instance"].as_str()), ("7", "1"));
        assert_eq!(labels["mlb.session"], "s1");
        assert_eq!(Limits::from_host_config(hc), Limits::of(&spec(gpus(Vendor::Nvidia, &[3]))));
    }

    #[test]
    fn dry_run_text_is_the_api_body() {
        let body = serde_json::to_value(container_config(&spec(gpus(Vendor::Nvidia, &[3])), &image(), "s")).unwrap();
        assert_eq!(body["HostConfig"]["CpusetCpus"], "4-7");
        assert_eq!(body["HostConfig"]["Memory"], 1 << 30);
        assert_eq!(body["HostConfig"]["DeviceRequests"][0]["DeviceIDs"], serde_json::json!(["3"]));
        assert_eq!(body["Cmd"], serde_json::json!(["mlb", "worker"]));
    }

    #[test]
    fn rocm_slot_gets_kfd_its_render_node_and_video() {
        let body = container_config(&spec(gpus(Vendor::Amd, &[2])), &image(), "s");
        let hc = body.host_config.unwrap();
        let paths: Vec<_> = hc.devices.iter().flatten().map(|d| d.path_on_host.clone().unwrap()).collect();
        assert_eq!(paths, ["/dev/kfd", "/dev/dri/renderD130"]);
        assert_eq!(hc.group_add.as_ref().unwrap()[0], "video");
        assert!(hc.device_requests.is_none());
        // The host group of each device node that exists, numerically.
        let groups = device_groups(&["/dev/null".into()]);
        use std::os::unix::fs::MetadataExt;
        let gid = std::fs::metadata("/dev/null").unwrap().gid().to_string();
        assert!(groups.starts_with(&["video".to_string()]) && groups.contains(&gid), "{groups:?}");
    }

    #[test]
    fn env_renumbers_gpus_and_adds_provenance() {
        let s = spec(gpus(Vendor::Nvidia, &[3]));
        let env = container_env(&s, &image(), &Limits::of(&s));
        let get = |k: &str| env.iter().filter(|(key, _)| key == k).map(|(_, v)| v.as_str()).collect::<Vec<_>>();
        assert_eq!(get("CUDA_VISIBLE_DEVICES"), ["0"]);
        assert_eq!(get("JOB_ID"), ["1"]);
        assert_eq!(get(vars::CONTAINER_IMAGE), ["mlb:ngc"]);
        assert_eq!(get(vars::CONTAINER_DIGEST), ["sha256:2"]);
        assert_eq!(get(vars::CONTAINER_RUNTIME), ["docker"]);
        let limits: serde_json::Value = serde_json::from_str(get(vars::CONTAINER_LIMITS)[0]).unwrap();
        assert_eq!(limits["cpuset_cpus"], "4-7");
        assert_eq!(limits["memory_bytes"], 1u64 << 30);
        assert_eq!(limits["gpus"], serde_json::json!(["3"]));
        let cpu = spec(None);
        let env = container_env(&cpu, &image(), &Limits::of(&cpu));
        assert!(env.contains(&("CUDA_VISIBLE_DEVICES".into(), "3".into())), "no GPU: left as the launcher set it");
    }
}
