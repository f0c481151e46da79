//! What a container runtime needs to wrap an instance: the launcher's
//! instance (host paths, slot) as a container instance
//! ([`runtime::spec::InstanceSpec`](crate::runtime::spec::InstanceSpec)):
//! the image's `mlb` and plugins, the slot's limits and GPUs, binds.
//!
//! The output, data and jobs folders are bound at their host paths, so
//! `OUTPUT_DIRECTORY`, `DATA_DIRECTORY` and the worker's `--outdir` mean the
//! same inside and out.

use super::setup::Prepared;
use crate::contract::argv;
use crate::host::{cpulist, HostKind};
use crate::plan::InstanceSpec;
use crate::runtime::images::{IMAGE_MLB, IMAGE_PLUGIN_DIR};
use crate::runtime::spec::{self, Bind, Gpus, Labels, Resources, RocmGpu};
use std::path::{Path, PathBuf};

/// The run-wide facts that decide how every instance is wrapped.
#[derive(Clone, Debug)]
pub struct Wrapping {
    /// The host kind (which GPU access).
    pub kind: HostKind,
    /// The host has GPUs to pass through.
    pub gpus: bool,
    /// The `mlb` that runs workers on the host (replaced by the image's).
    pub mlb: PathBuf,
    /// Binds of every instance.
    pub binds: Vec<Bind>,
    /// `/dev/shm` of an instance without slot (an `all` job).
    pub shm_all: u64,
}

impl Wrapping {
    /// The wrapping of `prepared`'s instances: the output folder read-write,
    /// the data folder (when it exists) and the jobs file's folder read-only.
    pub fn new(prepared: &Prepared, jobs: &Path) -> Self {
        let var = |name: &str| prepared.variables.iter().find(|(k, _)| k == name).map(|(_, v)| PathBuf::from(v));
        let mut binds = vec![Bind::rw(&prepared.outdir, &prepared.outdir)];
        if let Some(data) = var("DATA_DIRECTORY").filter(|d| d.is_dir()) {
            binds.push(Bind::ro(&data, &data));
        }
        let jobs_dir = std::path::absolute(jobs).ok().and_then(|p| p.parent().map(Path::to_path_buf));
        if let Some(dir) = jobs_dir.filter(|d| !binds.iter().any(|b| &b.host == d)) {
            binds.push(Bind::ro(&dir, &dir));
        }
        // A folder before the folders inside it, so that no bind hides another.
        binds.sort_by_key(|b| b.container.components().count());
        Wrapping {
            kind: prepared.host.kind,
            gpus: !prepared.host.gpus.is_empty(),
            mlb: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mlb")),
            binds,
            shm_all: prepared.host.memory.usable_bytes,
        }
    }

    /// `spec` as a container instance. A worker runs the image's `mlb` with
    /// the plugin file of the same name from the image's plugin folder; a
    /// `cmd` job's program is taken as a path inside the image.
    pub fn spec(&self, spec: &InstanceSpec) -> spec::InstanceSpec {
        let worker = spec.program == self.mlb;
        let mut argv = vec![if worker { IMAGE_MLB.to_string() } else { spec.program.display().to_string() }];
        if worker {
            argv.extend(argv::with_plugin(&spec.args, |host| {
                let file = Path::new(host).file_name().map(PathBuf::from).unwrap_or_default();
                Path::new(IMAGE_PLUGIN_DIR).join(file).display().to_string()
            }));
        } else {
            argv.extend(spec.args.iter().cloned());
        }
        let devices: Vec<u32> = spec.identity.vcd.split(',').filter_map(|d| d.trim().parse().ok()).collect();
        let gpus = match self.kind {
            _ if !self.gpus => Gpus::None,
            HostKind::Cpu => Gpus::None,
            HostKind::Ngc | HostKind::Powerai => Gpus::Nvidia(devices),
            HostKind::Rocm => Gpus::Rocm(devices.into_iter().map(RocmGpu::conventional).collect()),
        };
        let resources = Resources {
            cpus: spec.slot.as_ref().map(|s| cpulist::format(&s.cpus)),
            mems: spec.slot.as_ref().map(|s| cpulist::format(&s.mems)),
            memory_bytes: spec.slot.as_ref().map(|s| s.memory_bytes),
            gpus,
        };
        let id = &spec.identity;
        spec::InstanceSpec {
            argv,
            env: spec.env.clone(),
            workdir: None,
            resources,
            binds: self.binds.clone(),
            labels: Labels { run_id: id.run_id.to_string(), job: id.name.clone(), instance: id.jr_id },
            prefix: format!("[{} {}] ", id.name, id.jr_id),
            shm_bytes: Some(spec.slot.as_ref().map_or(self.shm_all, |s| s.memory_bytes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Slot;
    use crate::record::Identity;

    fn wrapping(kind: HostKind, gpus: bool) -> Wrapping {
        Wrapping { kind, gpus, mlb: "/host/bin/mlb".into(), binds: vec![Bind::rw("/res", "/res")], shm_all: 1 << 30 }
    }

    fn instance(vcd: &str, slot: Option<Slot>) -> InstanceSpec {
        InstanceSpec {
            identity: Identity { suite: "s".into(), name: "toy".into(), run_id: 3, jr_id: 1, vcd: vcd.into() },
            slot,
            seed: 201,
            program: "/host/bin/mlb".into(),
            args: ["worker", "--plugin", "/host/lib/libmlb_spin.so", "--vcd", "1"].map(String::from).into(),
            env: vec![("JOB_ID".into(), "1".into())],
            cpu_count: 2,
        }
    }

    #[test]
    fn a_worker_runs_the_image_mlb_and_plugin_in_its_slot() {
        let slot = Slot { index: 1, device: "1".into(), cpus: vec![2, 3], mems: vec![0], memory_bytes: 1 << 28 };
        let s = wrapping(HostKind::Ngc, true).spec(&instance("1", Some(slot)));
        assert_eq!(
            s.argv,
            [IMAGE_MLB, "worker", "--plugin", &format!("{IMAGE_PLUGIN_DIR}/libmlb_spin.so"), "--vcd", "1"]
        );
        assert_eq!(s.resources.cpus.as_deref(), Some("2-3"));
        assert_eq!(s.resources.memory_bytes, Some(1 << 28));
        assert_eq!(s.resources.gpus, Gpus::Nvidia(vec![1]));
        assert_eq!((s.labels.run_id.as_str(), s.labels.instance), ("3", 1));
        assert_eq!(s.shm_bytes, Some(1 << 28));
    }

    #[test]
    fn gpus_per_host_kind_and_unconstrained_all_jobs() {
        let all = instance("0,1", None);
        let rocm = wrapping(HostKind::Rocm, true).spec(&all);
        assert_eq!(rocm.resources.gpus, Gpus::Rocm(vec![RocmGpu::conventional(0), RocmGpu::conventional(1)]));
        assert_eq!((rocm.resources.cpus, rocm.resources.memory_bytes, rocm.shm_bytes), (None, None, Some(1 << 30)));
        assert_eq!(wrapping(HostKind::Cpu, false).spec(&all).resources.gpus, Gpus::None);
        let mut cmd = instance("0", None);
        cmd.program = "./run.sh".into();
        assert_eq!(wrapping(HostKind::Ngc, true).spec(&cmd).argv[3], "/host/lib/libmlb_spin.so", "not a worker");
    }
}
