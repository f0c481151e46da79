//! What is read for one instance: its slot, the host's packages, its GPUs;
//! and the run-wide sources they come from, opened once.

use super::block::Context;
use super::powercap::Powercap;
use super::process_group::ProcessGroup;
use super::sample::Sample;
use super::slot::SlotProbe;
use crate::gpu::{vendor_of, DeviceIndex, GpuReader, Maxima, Unavailable};
use crate::host::Host;
use crate::isolation::{SlotGroup, Version};
use mlb_record::contract::window;
use mlb_record::reading::Reading;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The sources of a run, opened once and shared by its instances.
#[derive(Clone, Debug)]
pub struct Sources {
    /// Samples per second (0: no sampling).
    pub hz: f64,
    /// The reader of the host's GPUs, made by their vendor, or why there is
    /// none (`None`: the host has no GPU, or nothing is sampled).
    pub gpu: Option<Result<Arc<dyn GpuReader>, Unavailable>>,
    /// The packages' energy zones.
    pub powercap: Powercap,
    /// The cgroup mount and its layout, where the groups of processes the
    /// launcher did not place (containers') are read.
    pub cgroup: (PathBuf, Version),
}

impl Sources {
    /// The sources of `host` (read under `/`), sampled `hz` times a second.
    /// The GPUs' reader is made by their vendor, through its library of this
    /// process; a library that does not load is a reason, not an error.
    pub fn open(host: &Host, hz: f64) -> Sources {
        let gpu = vendor_of(&host.gpus).filter(|_| hz > 0.0).map(|v| v.ops().telemetry(&host.gpus));
        let cgroup = (host.cgroup.mount.clone(), host.cgroup.version);
        Sources { hz, gpu, powercap: Powercap::find(Path::new("/")), cgroup }
    }

    /// A warning for the run, when a source the host should have is missing.
    pub fn warning(&self) -> Option<String> {
        match &self.gpu {
            Some(Err(Unavailable { why, fix })) => Some(format!("no GPU telemetry: {why}; fix: {fix}")),
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
    gpus: Option<(Arc<dyn GpuReader>, Vec<DeviceIndex>)>,
    /// What the block is built with.
    pub context: Context,
}

impl Probes {
    /// The probes of an instance in `group` (if any) on `cpus`, using
    /// `devices` (on a GPU host).
    pub fn new(sources: &Sources, group: Option<&SlotGroup>, cpus: &[usize], devices: &[DeviceIndex]) -> Probes {
        let mut context = Context { sample_hz: sources.hz, ..Context::default() };
        let slot = group.map(|g| SlotProbe::of(g, cpus, Path::new("/")));
        let mut sources_named = BTreeMap::new();
        sources_named.insert(
            "slot".to_string(),
            match group {
                Some(g) => format!("{} {}", g.version().isolation(), g.display_path()),
                None => "none: the instance has no slot group of the launcher's".to_string(),
            },
        );
        if !sources.powercap.is_empty() {
            sources_named.insert("package".into(), "powercap".into());
        }
        let gpus = match &sources.gpu {
            Some(Ok(reader)) => {
                context.gpus = maxima(reader.as_ref(), devices);
                sources_named.insert("gpu".into(), reader.source());
                Some((reader.clone(), devices.to_vec()))
            }
            Some(Err(Unavailable { why, .. })) => {
                sources_named.insert("gpu".into(), format!("none: {why}"));
                None
            }
            None => None,
        };
        context.sources = sources_named;
        let (cpus, cgroup) = (cpus.to_vec(), sources.cgroup.clone());
        Probes { slot, cpus, cgroup, powercap: sources.powercap.clone(), gpus, context }
    }

    /// The instance's main process `pid` was started in the group of
    /// container `id`: that group is read as the slot from now on, or the
    /// slot source says why it cannot be.
    pub fn started(&mut self, pid: u32, id: &str) {
        let (mount, version) = &self.cgroup;
        let source = match ProcessGroup::of(pid, id, Path::new("/"), mount, *version) {
            Ok(group) => {
                self.slot = Some(group.probe(&self.cpus, Path::new("/")));
                format!("{} {} (the container's group)", version.isolation(), group.path)
            }
            Err(why) => format!("none: the container's group cannot be read: {why}"),
        };
        self.context.sources.insert("slot".into(), source);
    }

    /// Probes of a slot alone (and the packages), for tests and benches.
    pub fn of_slot(slot: SlotProbe, powercap: Powercap, context: Context) -> Probes {
        Probes { slot: Some(slot), powercap, context, ..Probes::bare() }
    }

    /// Probes of GPUs alone, read through `reader`.
    pub fn of_gpus(reader: Arc<dyn GpuReader>, devices: Vec<DeviceIndex>, mut context: Context) -> Probes {
        context.gpus = maxima(reader.as_ref(), &devices);
        Probes { gpus: Some((reader, devices)), context, ..Probes::bare() }
    }

    /// Probes of nothing.
    fn bare() -> Probes {
        Probes {
            slot: None,
            cpus: Vec::new(),
            cgroup: (PathBuf::new(), Version::None),
            powercap: Powercap::default(),
            gpus: None,
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
        let gpus = match &self.gpus {
            Some((reader, devices)) => devices.iter().map(|&d| reader.read(d)).collect(),
            None => Vec::new(),
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

/// The name and maxima of each of `devices`, keyed as the block names them.
fn maxima(reader: &dyn GpuReader, devices: &[DeviceIndex]) -> Vec<(String, Maxima)> {
    devices.iter().map(|&d| (d.to_string(), reader.maxima(d))).collect()
}
