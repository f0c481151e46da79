//! The process group of a `"group": "ddp"` config: where its rank 0 listens
//! and what each instance is told, as torchrun tells its processes.

use rand::Rng;
use std::net::{Ipv4Addr, TcpListener};
use std::ops::Range;

/// Rank 0's store address (torchrun's `MASTER_ADDR`, as in the original suite).
pub const MASTER_ADDR: &str = "MASTER_ADDR";
/// Rank 0's store port.
pub const MASTER_PORT: &str = "MASTER_PORT";
/// The instance's rank in the group.
pub const RANK: &str = "RANK";
/// The number of ranks.
pub const WORLD_SIZE: &str = "WORLD_SIZE";
/// The instance's rank on its node.
pub const LOCAL_RANK: &str = "LOCAL_RANK";

/// Where the ranks of one config meet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meeting {
    /// Rank 0's host.
    pub addr: String,
    /// Its store's port.
    pub port: u16,
    /// The number of ranks.
    pub world: usize,
}

impl Meeting {
    /// A meeting of `world` ranks on `first_node` (`None`: this host, on
    /// the loopback address), at a port free on this host now (a multi-node
    /// run's rank 0 is on the first node, usually the one mlb runs on).
    /// Falls back to torchrun's 29500 when no port can be bound.
    pub fn new(first_node: Option<&str>, world: usize) -> Self {
        let addr = first_node.map_or_else(|| Ipv4Addr::LOCALHOST.to_string(), str::to_string);
        Meeting { addr, port: store_port(), world }
    }

    /// The variables of rank `rank`, `local_rank` on its node.
    pub fn env(&self, rank: usize, local_rank: usize) -> Vec<(String, String)> {
        [
            (MASTER_ADDR, self.addr.clone()),
            (MASTER_PORT, self.port.to_string()),
            (RANK, rank.to_string()),
            (WORLD_SIZE, self.world.to_string()),
            (LOCAL_RANK, local_rank.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// A port for a rank 0's store, free on this host now (torchrun's 29500
/// when none can be bound); a group restarted meets at a new one, so that
/// no rank of the failed attempt can reach it.
pub fn store_port() -> u16 {
    free_port(&below_ephemeral(&ephemeral_range())).unwrap_or(29500)
}

/// The kernel's range of ephemeral ports (`ip_local_port_range`), from
/// which it gives every outgoing connection its local port; Linux's default
/// when the file cannot be read.
fn ephemeral_range() -> Range<u16> {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").unwrap_or_default();
    let mut ends = text.split_whitespace().filter_map(|n| n.parse::<u16>().ok());
    match (ends.next(), ends.next()) {
        (Some(low), Some(high)) if low <= high => low..high.saturating_add(1),
        _ => 32768..61000,
    }
}

/// Where a store port is drawn from: below the ephemeral range. A port the
/// kernel hands out (bind to port 0) is free when it is picked, but an
/// outgoing connection of this host (srun's, slurmd's, another rank's) may
/// take it as its local port before rank 0 listens on it, and rank 0 then
/// fails with "address already in use"; torchrun's 29500 is below the
/// range for the same reason.
fn below_ephemeral(ephemeral: &Range<u16>) -> Range<u16> {
    let top = ephemeral.start.clamp(1025, 32768);
    top.saturating_sub(12_000).max(1024)..top
}

/// A port of `range` that can be bound on every address now: up to 64
/// random tries, so that two runs planned at once rarely pick the same.
fn free_port(range: &Range<u16>) -> Option<u16> {
    let mut rng = rand::rng();
    (0..64).map(|_| rng.random_range(range.clone())).find(|&p| TcpListener::bind((Ipv4Addr::UNSPECIFIED, p)).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_ports_are_drawn_below_the_ephemeral_ports_and_are_free() {
        assert_eq!(below_ephemeral(&(32768..61000)), 20768..32768);
        assert_eq!(below_ephemeral(&(1024..65535)), 1024..1025);
        let ephemeral = ephemeral_range();
        for _ in 0..20 {
            let port = Meeting::new(None, 2).port;
            assert!(!ephemeral.contains(&port) || port == 29500, "{port} is ephemeral ({ephemeral:?})");
        }
        let busy = TcpListener::bind((Ipv4Addr::UNSPECIFIED, 0)).unwrap();
        let taken = busy.local_addr().unwrap().port();
        assert_eq!(free_port(&(taken..taken + 1)), None, "a port in use is never picked");
    }

    #[test]
    fn ranks_are_told_torchruns_variables() {
        let m = Meeting::new(None, 4);
        assert_eq!(m.addr, "127.0.0.1");
        assert_ne!(m.port, 0);
        let env = m.env(3, 1);
        let text: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let port = m.port;
        assert_eq!(
            text,
            ["MASTER_ADDR=127.0.0.1", &format!("MASTER_PORT={port}"), "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1"]
        );
        assert_eq!(Meeting::new(Some("node1"), 2).addr, "node1");
    }
}
