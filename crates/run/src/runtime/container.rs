//! What a container runtime needs to wrap an instance: the planned
//! [`Instance`] as a [`ContainerSpec`]: the image's `mlb` and plugins, the
//! slot's limits and GPUs, binds.
//!
//! The output, data and jobs folders are bound at their host paths, so
//! `OUTPUT_DIRECTORY`, `DATA_DIRECTORY` and the worker's `--outdir` mean the
//! same inside and out.

use crate::gpu::ContainerGpus;
use crate::host::HostKind;
use crate::linux::cpulist;
use crate::plan::{Instance, WorkerPaths};
use crate::runtime::images::{IMAGE_MLB, IMAGE_PLUGIN_DIR};
use crate::runtime::spec::{Bind, ContainerSpec, Labels, Resources};

/// The run-wide facts that decide how every instance is wrapped.
#[derive(Clone, Debug)]
pub struct Wrapping {
    /// The host kind (which GPU access).
    pub kind: HostKind,
    /// The host has GPUs to pass through.
    pub gpus: bool,
    /// Binds of every instance.
    pub binds: Vec<Bind>,
    /// `/dev/shm` of an instance without slot (an `all` job).
    pub shm_all: u64,
}

impl Wrapping {
    /// `instance` as a container instance. A worker runs the image's `mlb`
    /// with the plugin file of the same name from the image's plugin folder;
    /// a `cmd` job's program is taken as a path inside the image.
    pub fn spec(&self, instance: &Instance) -> ContainerSpec {
        let image = WorkerPaths { mlb: IMAGE_MLB.into(), plugin_dir: Some(IMAGE_PLUGIN_DIR.into()) };
        let placement = &instance.placement;
        let gpus = (self.kind.vendor().filter(|_| self.gpus))
            .map(|vendor| ContainerGpus { vendor, devices: placement.devices.clone() });
        let resources = Resources {
            cpus: placement.slot.as_ref().map(|s| cpulist::format(&s.cpus)),
            mems: placement.mems().map(cpulist::format),
            memory_bytes: placement.memory_bytes(),
            gpus,
        };
        let id = &instance.identity;
        ContainerSpec {
            argv: instance.argv(&image),
            env: instance.env.clone(),
            workdir: None,
            resources,
            binds: self.binds.clone(),
            labels: Labels { run_id: id.run_id.to_string(), job: id.name.clone(), instance: id.jr_id },
            prefix: format!("[{} {}] ", id.name, id.jr_id),
            shm_bytes: Some(placement.memory_bytes().unwrap_or(self.shm_all)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::{DeviceIndex, Vendor};
    use crate::isolation::Isolation;
    use crate::isolation::Slot;
    use crate::plan::{Placement, Work};
    use mlb_record::contract::record::Identity;
    use serde_json::Map;

    fn wrapping(kind: HostKind, gpus: bool) -> Wrapping {
        Wrapping { kind, gpus, binds: vec![Bind::rw("/res", "/res")], shm_all: 1 << 30 }
    }

    fn instance(devices: &[u32], slot: Option<Slot>) -> Instance {
        let devices: Vec<DeviceIndex> = devices.iter().copied().map(DeviceIndex).collect();
        Instance {
            identity: Identity {
                suite: "s".into(),
                name: "toy".into(),
                run_id: 3,
                jr_id: 1,
                vcd: crate::gpu::device_list(&devices),
            },
            work: Work::Workload {
                plugin: "/host/lib/libmlb_spin.so".into(),
                workload: "spin".into(),
                config: Map::new(),
                outdir: "/res".into(),
            },
            placement: Placement {
                cpus: slot.as_ref().map_or(vec![0, 1, 2, 3], |s| s.cpus.clone()),
                slot,
                devices,
                node: None,
            },
            seed: 201,
            isolation: Isolation::None,
            env: vec![("JOB_ID".into(), "1".into())],
        }
    }

    #[test]
    fn a_worker_runs_the_image_mlb_and_plugin_in_its_slot() {
        let slot = Slot { index: 1, device: DeviceIndex(1), cpus: vec![2, 3], mems: vec![0], memory_bytes: 1 << 28 };
        let s = wrapping(HostKind::Ngc, true).spec(&instance(&[1], Some(slot)));
        assert_eq!(&s.argv[..3], [IMAGE_MLB, "worker", &format!("--plugin={IMAGE_PLUGIN_DIR}/libmlb_spin.so")]);
        assert!(s.argv.contains(&"--vcd=1".to_string()), "{:?}", s.argv);
        assert_eq!(s.resources.cpus.as_deref(), Some("2-3"));
        assert_eq!(s.resources.mems.as_deref(), Some("0"));
        assert_eq!(s.resources.memory_bytes, Some(1 << 28));
        assert_eq!(s.resources.gpus, Some(ContainerGpus { vendor: Vendor::Nvidia, devices: vec![DeviceIndex(1)] }));
        assert_eq!((s.labels.run_id.as_str(), s.labels.instance), ("3", 1));
        assert_eq!(s.shm_bytes, Some(1 << 28));
    }

    #[test]
    fn gpus_per_host_kind_and_unconstrained_all_jobs() {
        let all = instance(&[0, 1], None);
        let rocm = wrapping(HostKind::Rocm, true).spec(&all);
        let devices = vec![DeviceIndex(0), DeviceIndex(1)];
        assert_eq!(rocm.resources.gpus, Some(ContainerGpus { vendor: Vendor::Amd, devices }));
        assert_eq!((rocm.resources.cpus, rocm.resources.memory_bytes, rocm.shm_bytes), (None, None, Some(1 << 30)));
        assert_eq!(wrapping(HostKind::Cpu, false).spec(&all).resources.gpus, None);
        assert_eq!(
            wrapping(HostKind::Ngc, false).spec(&all).resources.gpus,
            None,
            "a GPU kind forced on a host without GPU"
        );
        let mut cmd = instance(&[0], None);
        cmd.work = Work::Command { program: "./run.sh".into(), args: vec!["--x".into()] };
        assert_eq!(wrapping(HostKind::Ngc, true).spec(&cmd).argv, ["./run.sh", "--x"], "not a worker");
    }
}
