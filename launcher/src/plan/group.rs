//! The process group of a `"group": "ddp"` config: where its rank 0 listens
//! and what each instance is told, as torchrun tells its processes.

use std::net::{Ipv4Addr, TcpListener};

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
    /// the loopback address), at a port free on this host now (as torchrun
    /// picks one; a multi-node run's rank 0 is on the first node, usually
    /// the one mlb runs on). Falls back to torchrun's 29500 when no port
    /// can be bound.
    pub fn new(first_node: Option<&str>, world: usize) -> Self {
        let addr = first_node.map_or_else(|| Ipv4Addr::LOCALHOST.to_string(), str::to_string);
        let port =
            TcpListener::bind((Ipv4Addr::UNSPECIFIED, 0)).and_then(|l| l.local_addr()).map_or(29500, |a| a.port());
        Meeting { addr, port, world }
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

#[cfg(test)]
mod tests {
    use super::*;

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
