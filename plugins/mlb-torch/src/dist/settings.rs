//! The arguments every data parallel workload takes, and joining the group
//! they describe.

use super::backend::{self, Choice};
use super::buckets::{DataParallel, BUCKET_BYTES};
use super::group::ProcessGroup;
use super::rendezvous::Rendezvous;
use serde_json::{Map, Value};
use std::time::Duration;
use tch::Device;

/// PyTorch's variable naming the network interface Gloo binds.
pub const GLOO_SOCKET_IFNAME: &str = "GLOO_SOCKET_IFNAME";

/// How a rank joins and uses its group.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Bound of the rendezvous and of every collective (`timeout`, seconds).
    pub timeout: Duration,
    /// Bucket size of the gradient all-reduce (`bucket_mb`, MiB).
    pub bucket_bytes: usize,
    /// The network interface Gloo binds (`interface`, else PyTorch's
    /// `GLOO_SOCKET_IFNAME`); `None`: the address this host's name resolves to.
    pub interface: Option<String>,
    /// The backend (`backend`: `auto`, `gloo` or `nccl`).
    pub backend: Choice,
    /// Whether the all-reduce overlaps the backward pass (`overlap`, on by
    /// default).
    pub overlap: bool,
}

impl Settings {
    /// From the arguments `timeout` (seconds), `bucket_mb`, `interface`,
    /// `backend` and `overlap` (declared by each data parallel workload; a
    /// workload that lists no default gets 300 s, 25 MiB, `auto` and
    /// overlap on).
    pub fn new(
        timeout: Option<f64>,
        bucket_mb: Option<f64>,
        interface: Option<String>,
        backend: Option<&str>,
        overlap: Option<bool>,
    ) -> mlb_plugin::Result<Self> {
        let timeout = timeout.unwrap_or(300.0);
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(format!("argument `timeout` must be a number of seconds above 0, got {timeout}").into());
        }
        let bucket_mb = bucket_mb.unwrap_or((BUCKET_BYTES >> 20) as f64);
        if !(bucket_mb.is_finite() && bucket_mb > 0.0) {
            return Err(format!("argument `bucket_mb` must be a number of MiB above 0, got {bucket_mb}").into());
        }
        Ok(Settings {
            timeout: Duration::from_secs_f64(timeout),
            bucket_bytes: (bucket_mb * (1u64 << 20) as f64) as usize,
            interface,
            backend: Choice::parse(backend)?,
            overlap: overlap.unwrap_or(true),
        })
    }

    /// Joins the group the environment describes ([`Rendezvous::from_env`])
    /// as a rank whose model is on `device`, over the backend chosen for it.
    /// Returns the group; the caller hooks its parameters when
    /// [`Self::overlap`] is set ([`DataParallel::overlap`]).
    pub fn join(&self, device: Device) -> mlb_plugin::Result<DataParallel> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let interface = self.interface.clone().or_else(|| var(GLOO_SOCKET_IFNAME));
        let backend = self.backend.resolve(device, interface, backend::nccl_built())?;
        let mut rendezvous = Rendezvous::from_env(var)?;
        rendezvous.master_addr = super::rendezvous::reachable(&rendezvous.master_addr);
        let group = ProcessGroup::join(&rendezvous, self.timeout, backend)?;
        Ok(DataParallel::new(group, self.bucket_bytes))
    }
}

/// The report's `ddp` object: rank, group size, local rank, where they came
/// from, the backend, the store, the bucket size, the timeout and whether
/// the all-reduce overlapped the backward pass.
pub fn report(dp: &DataParallel, settings: &Settings) -> Value {
    let r = dp.group().rendezvous();
    let mut m = Map::new();
    m.insert("rank".into(), r.rank.into());
    m.insert("world_size".into(), r.world.into());
    m.insert("local_rank".into(), r.local_rank.into());
    m.insert("source".into(), r.source.as_str().into());
    m.insert("backend".into(), dp.group().backend().name().into());
    m.insert("master".into(), format!("{}:{}", r.master_addr, r.master_port).into());
    m.insert("bucket_mb".into(), (settings.bucket_bytes as f64 / (1u64 << 20) as f64).into());
    m.insert("timeout_s".into(), settings.timeout.as_secs_f64().into());
    m.insert("overlap".into(), dp.hooks().is_some().into());
    Value::Object(m)
}
