//! What every libtorch workload sets up first: threads, device, seeds and,
//! in a deterministic run, deterministic algorithms.

use crate::data::DataSource;
use crate::device;
use mlb_plugin::Setup;
use serde_json::{Map, Value};
use tch::Device;

/// The libtorch side of an instance's setup.
#[derive(Debug, Clone, Copy)]
pub struct Runtime {
    device: Device,
    threads: u32,
    seed: u64,
    deterministic: bool,
}

impl Runtime {
    /// Sets libtorch's intra-op threads to the slot's CPUs (before any
    /// parallel work), resolves the device request and seeds libtorch's CPU
    /// and CUDA generators with `seed`. A deterministic setup also makes
    /// libtorch use deterministic algorithms only, cuDNN's and MIOpen's
    /// included, and no cuDNN benchmarking ([`crate::ops::set_deterministic`]),
    /// for the whole process.
    ///
    /// Errors: a device request that cannot be met, or libtorch refusing
    /// deterministic algorithms.
    pub fn init(setup: &Setup, seed: u64) -> mlb_plugin::Result<Self> {
        let threads = setup.threads.max(1);
        tch::set_num_threads(threads as i32);
        let device = device::select(&setup.device)?;
        tch::manual_seed(seed as i64);
        if device.is_cuda() {
            tch::Cuda::manual_seed_all(seed);
        }
        if setup.deterministic {
            crate::ops::set_deterministic().map_err(|e| format!("deterministic algorithms: {e}"))?;
        }
        Ok(Runtime { device, threads, seed, deterministic: setup.deterministic })
    }

    /// A runtime on the CPU with one intra-op thread, seeded with `seed`: what
    /// a workload's own tests build it on.
    pub fn cpu(seed: u64) -> mlb_plugin::Result<Self> {
        Runtime::init(&Setup::new("cpu", 1), seed)
    }

    /// The device the workload runs on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The seed every generator was seeded with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether the run is deterministic: a workload then leaves cuDNN's
    /// benchmarking off and draws its data in an order that depends on the
    /// seed alone.
    pub fn deterministic(&self) -> bool {
        self.deterministic
    }

    /// Waits for queued GPU work (no-op on the CPU).
    pub fn sync(&self) {
        if let Device::Cuda(index) = self.device {
            tch::Cuda::synchronize(index as i64);
        }
    }

    /// The report fields every libtorch workload shares: `cuda`, `gpu` (the
    /// device name, on a GPU), `threads`, `data` ("synthetic" or the path),
    /// `data_missing` (a data folder asked for that does not exist) and, in a
    /// deterministic run, `deterministic: true`.
    pub fn report(&self, data: &DataSource) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("cuda".into(), self.device.is_cuda().into());
        if let Device::Cuda(index) = self.device {
            let name = device::gpu_name(index).unwrap_or_else(|| format!("cuda:{index}"));
            m.insert("gpu".into(), name.into());
        }
        m.insert("threads".into(), self.threads.into());
        if self.deterministic {
            m.insert("deterministic".into(), true.into());
        }
        m.insert("data".into(), data.report_value());
        if let DataSource::Synthetic { requested: Some(path) } = data {
            m.insert("data_missing".into(), path.display().to_string().into());
        }
        m
    }
}
