//! The arguments every data parallel workload takes, and joining the group
//! they describe.

use super::buckets::{DataParallel, BUCKET_BYTES};
use super::group::ProcessGroup;
use super::rendezvous::Rendezvous;
use serde_json::{Map, Value};
use std::time::Duration;

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
}

impl Settings {
    /// From the arguments `timeout` (seconds), `bucket_mb` and `interface`
    /// (declared by each data parallel workload; a workload that lists no
    /// default for the first two gets 300 s and 25 MiB).
    pub fn new(timeout: Option<f64>, bucket_mb: Option<f64>, interface: Option<String>) -> mlb_plugin::Result<Self> {
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
        })
    }

    /// Joins the group the environment describes ([`Rendezvous::from_env`]).
    pub fn join(&self) -> mlb_plugin::Result<DataParallel> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let mut rendezvous = Rendezvous::from_env(var)?;
        rendezvous.master_addr = super::rendezvous::reachable(&rendezvous.master_addr);
        let interface = self.interface.clone().or_else(|| var(GLOO_SOCKET_IFNAME));
        let group = ProcessGroup::join(&rendezvous, self.timeout, interface.as_deref())?;
        Ok(DataParallel::new(group, self.bucket_bytes))
    }
}

/// The report's `ddp` object: rank, group size, local rank, where they came
/// from, the backend, the store, the bucket size and the timeout.
pub fn report(dp: &DataParallel, settings: &Settings) -> Value {
    let r = dp.group().rendezvous();
    let mut m = Map::new();
    m.insert("rank".into(), r.rank.into());
    m.insert("world_size".into(), r.world.into());
    m.insert("local_rank".into(), r.local_rank.into());
    m.insert("source".into(), r.source.as_str().into());
    m.insert("backend".into(), "gloo".into());
    m.insert("master".into(), format!("{}:{}", r.master_addr, r.master_port).into());
    m.insert("bucket_mb".into(), (settings.bucket_bytes as f64 / (1u64 << 20) as f64).into());
    m.insert("timeout_s".into(), settings.timeout.as_secs_f64().into());
    Value::Object(m)
}
