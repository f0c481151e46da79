//! What is read for one instance: its slot, the host's packages, its GPUs;
//! and the run-wide sources they come from, opened once.

use super::amd::AmdProbe;
use super::amdsmi::{AmdSmi, AMDSMI_LIBRARY};
use super::block::Context;
use super::nvidia::NvidiaProbe;
use super::powercap::Powercap;
use super::process_group::ProcessGroup;
use super::reading::{Reading, Sample};
use super::slot::SlotProbe;
use crate::contract::window;
use crate::host::{Host, Vendor};
use crate::isolation::{SlotGroup, Version};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variable naming the NVML library to load instead of the driver's
/// `libnvidia-ml.so.1` (a path).
pub const NVML_LIBRARY: &str = "MLB_NVML_LIBRARY";

/// The sources of a run, opened once and shared by its instances.
#[derive(Clone, Debug)]
pub struct Sources {
    /// Samples per second (0: no sampling).
    pub hz: f64,
    /// NVML, or why it is not there (`None`: the host has no NVIDIA GPU).
    pub nvidia: Option<Result<NvidiaProbe, String>>,
    /// The packages' energy zones.
    pub powercap: Powercap,
    /// The host's AMD GPUs (AMD SMI when it loads, and sysfs).
    pub amd: AmdProbe,
    /// The cgroup mount and its layout, where the groups of processes the
    /// launcher did not place (containers') are read.
    pub cgroup: (PathBuf, Version),
}

impl Sources {
    /// The sources of `host` (read under `/`), sampled `hz` times a second.
    /// NVML is loaded when the host has NVIDIA GPUs, from `MLB_NVML_LIBRARY`
    /// when set; a library that does not load is a reason, not an error.
    pub fn open(host: &Host, hz: f64) -> Sources {
        let library: Option<OsString> = std::env::var_os(NVML_LIBRARY);
        let nvidia = (hz > 0.0 && host.gpus.iter().any(|g| g.vendor == Vendor::Nvidia))
            .then(|| NvidiaProbe::load(library.as_deref()).map_err(|e| format!("NVML did not load: {e}")));
        let amd = if hz > 0.0 && host.gpus.iter().any(|g| g.vendor == Vendor::Amd) {
            let smi = AmdSmi::load(std::env::var_os(AMDSMI_LIBRARY).as_deref());
            AmdProbe::of(&host.gpus, Path::new("/"), smi.as_ref().map_err(String::as_str))
        } else {
            AmdProbe::default()
        };
        let cgroup = (host.cgroup.mount.clone(), host.cgroup.version);
        Sources { hz, nvidia, powercap: Powercap::find(Path::new("/")), amd, cgroup }
    }

    /// A warning for the run, when a source the host should have is missing.
    pub fn warning(&self) -> Option<String> {
        match &self.nvidia {
            Some(Err(why)) => Some(format!(
                "no GPU telemetry: {why}; fix: install the NVIDIA driver's NVML library (libnvidia-ml.so.1) or set {NVML_LIBRARY}"
            )),
            _ => None,
        }
    }
}

/// The probes of one instance.
#[derive(Clone, Debug)]
pub struct Probes {
    slot: Option<SlotProbe>,
    /// The slot's CPUs, and where a container's group is looked for.
    cpus: Vec<usize>,
    cgroup: (PathBuf, Version),
    powercap: Powercap,
    nvidia: Option<(NvidiaProbe, Vec<u32>)>,
    amd: Option<(AmdProbe, Vec<usize>)>,
    /// What the block is built with.
    pub context: Context,
}

impl Probes {
    /// The probes of an instance in `group` (if any) on `cpus`, using
    /// `devices` (GPU indices, on a GPU host).
    pub fn new(sources: &Sources, group: Option<&SlotGroup>, cpus: &[usize], devices: &[String]) -> Probes {
        let mut context = Context { sample_hz: sources.hz, ..Context::default() };
        let slot = group.map(|g| SlotProbe::of(g, cpus, Path::new("/")));
        let mut sources_named = BTreeMap::new();
        sources_named.insert(
            "slot".to_string(),
            match group {
                Some(g) => format!("{} {}", g.version().isolation_name(), g.display_path()),
                None => "none: the instance has no slot group of the launcher's".to_string(),
            },
        );
        if !sources.powercap.is_empty() {
            sources_named.insert("package".into(), "powercap".into());
        }
        let nvidia = match &sources.nvidia {
            Some(Ok(probe)) => {
                let indices: Vec<u32> = devices.iter().filter_map(|d| d.parse().ok()).collect();
                context.gpus = indices.iter().map(|&i| (i.to_string(), probe.maxima(i))).collect();
                sources_named.insert("gpu".into(), "nvml".into());
                Some((probe.clone(), indices))
            }
            Some(Err(why)) => {
                sources_named.insert("gpu".into(), format!("none: {why}"));
                None
            }
            None => None,
        };
        let amd = (!sources.amd.is_empty()).then(|| {
            let indices: Vec<usize> = devices.iter().filter_map(|d| d.parse().ok()).collect();
            context.gpus = indices.iter().map(|&i| (i.to_string(), sources.amd.maxima(i))).collect();
            sources_named.insert("gpu".into(), sources.amd.source());
            (sources.amd.clone(), indices)
        });
        context.sources = sources_named;
        let (cpus, cgroup) = (cpus.to_vec(), sources.cgroup.clone());
        Probes { slot, cpus, cgroup, powercap: sources.powercap.clone(), nvidia, amd, context }
    }

    /// The instance's main process `pid` was started in the group of
    /// container `id`: that group is read as the slot from now on, or the
    /// slot source says why it cannot be.
    pub fn started(&mut self, pid: u32, id: &str) {
        let (mount, version) = &self.cgroup;
        let source = match ProcessGroup::of(pid, id, Path::new("/"), mount, *version) {
            Ok(group) => {
                self.slot = Some(group.probe(&self.cpus, Path::new("/")));
                format!("{} {} (the container's group)", version.isolation_name(), group.path)
            }
            Err(why) => format!("none: the container's group cannot be read: {why}"),
        };
        self.context.sources.insert("slot".into(), source);
    }

    /// Probes of a slot alone (and the packages), for tests and benches.
    pub fn of_slot(slot: SlotProbe, powercap: Powercap, context: Context) -> Probes {
        Probes { slot: Some(slot), powercap, context, ..Probes::bare() }
    }

    /// Probes of NVIDIA devices alone.
    pub fn of_nvidia(probe: NvidiaProbe, indices: Vec<u32>, mut context: Context) -> Probes {
        context.gpus = indices.iter().map(|&i| (i.to_string(), probe.maxima(i))).collect();
        Probes { nvidia: Some((probe, indices)), context, ..Probes::bare() }
    }

    /// Probes of nothing.
    fn bare() -> Probes {
        Probes {
            slot: None,
            cpus: Vec::new(),
            cgroup: (PathBuf::new(), Version::None),
            powercap: Powercap::default(),
            nvidia: None,
            amd: None,
            context: Context::default(),
        }
    }

    /// Reads everything once, stamped with the window's clock.
    pub fn read(&self) -> Sample {
        let mut slot = Reading::default();
        if let Some(p) = &self.slot {
            p.read(&mut slot);
        }
        self.powercap.read(&mut slot);
        let gpus = match (&self.nvidia, &self.amd) {
            (Some((probe, indices)), _) => indices.iter().map(|&i| probe.read(i)).collect(),
            (None, Some((probe, indices))) => indices.iter().map(|&i| probe.read(i)).collect(),
            (None, None) => Vec::new(),
        };
        Sample { t: window::now(), slot, gpus }
    }

    /// At the start of the window: restarts what keeps a peak.
    pub fn window_starts(&self) {
        if let Some(p) = &self.slot {
            p.restart_peak();
        }
    }
}
