//! The network interface an all-reduce's traffic crosses and its nominal
//! rate, for allreduce's report (docs/burn.md, "Collectives").
//!
//! The interface is the one Gloo binds when it is named (the `interface`
//! argument, else `GLOO_SOCKET_IFNAME`); otherwise the one the kernel routes
//! the master address through: loopback for `127.0.0.0/8`, else the longest
//! matching route of `/proc/net/route`. Its nominal rate is
//! `/sys/class/net/IF/speed` (Mb/s); the folder read is
//! [`SYS_CLASS_NET_VAR`] when set (a stand-in sysfs in tests).

use std::net::{Ipv4Addr, ToSocketAddrs};
use std::path::{Path, PathBuf};

/// Names a folder read instead of `/sys/class/net` (tests give a stand-in).
pub const SYS_CLASS_NET_VAR: &str = "MLB_SYS_CLASS_NET";

/// The kernel's IPv4 routing table.
const ROUTES: &str = "/proc/net/route";

/// An interface and what is known of its rate.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// The interface (`lo`, `eth0`, `ib0`); `None` when no route was found.
    pub interface: Option<String>,
    /// Its nominal rate in 10^9 bytes per second; `None` when not known.
    pub nominal_gbs: Option<f64>,
    /// Why the rate is not known (`loopback`, `speed unknown ...`).
    pub note: Option<String>,
}

impl Link {
    /// The link of a group meeting at `master` whose Gloo binds `named`
    /// (`None`: not named), read from this host.
    pub fn of(master: &str, named: Option<&str>) -> Link {
        let net = std::env::var_os(SYS_CLASS_NET_VAR).map_or_else(|| PathBuf::from("/sys/class/net"), PathBuf::from);
        let interface = named.map(str::to_string).or_else(|| {
            let addr = (master, 0).to_socket_addrs().ok()?.find_map(|a| match a.ip() {
                std::net::IpAddr::V4(v4) => Some(v4),
                std::net::IpAddr::V6(_) => None,
            })?;
            route(&std::fs::read_to_string(ROUTES).unwrap_or_default(), addr)
        });
        match interface {
            Some(interface) => Link::rated(&net, interface),
            None => Link { interface: None, nominal_gbs: None, note: Some(format!("no route to {master} found")) },
        }
    }

    /// `interface` with the rate `net/IF/speed` gives it.
    pub fn rated(net: &Path, interface: String) -> Link {
        let (nominal_gbs, note) = if interface == "lo" {
            (None, Some("loopback: no nominal rate".to_string()))
        } else {
            let file = net.join(&interface).join("speed");
            match std::fs::read_to_string(&file).map(|t| t.trim().parse::<f64>()) {
                Ok(Ok(mbps)) if mbps > 0.0 => (Some(mbps * 1e6 / 8.0 / 1e9), None),
                Ok(Ok(mbps)) => (None, Some(format!("speed unknown ({} says {mbps})", file.display()))),
                _ => (None, Some(format!("speed unknown (no {})", file.display()))),
            }
        };
        Link { interface: Some(interface), nominal_gbs, note }
    }
}

/// The interface the kernel routes `addr` through: `lo` for a loopback
/// address, else the longest prefix of `table` (the text of
/// `/proc/net/route`) holding it; `None` when none does.
pub fn route(table: &str, addr: Ipv4Addr) -> Option<String> {
    if addr.is_loopback() {
        return Some("lo".into());
    }
    let target = u32::from(addr);
    // Destination and mask are the address's bytes as they lie in memory,
    // read as a number of the host's order and written in hex.
    let field = |text: &str| u32::from_str_radix(text, 16).ok().map(|n| u32::from_be_bytes(n.to_ne_bytes()));
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (iface, dest, mask) = (f.first()?, field(f.get(1)?)?, field(f.get(7)?)?);
            (target & mask == dest & mask).then_some((mask.count_ones(), iface.to_string()))
        })
        .max_by_key(|(bits, _)| *bits)
        .map(|(_, iface)| iface)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table as a little-endian host writes it: a default route through
    /// eth0, `10.1.0.0/16` on ib0.
    const TABLE: &str = "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n\
        eth0\t00000000\t0100A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n\
        eth0\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n\
        ib0\t0000010A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n";

    #[test]
    fn the_longest_route_names_the_interface() {
        assert_eq!(route(TABLE, Ipv4Addr::new(10, 1, 2, 3)).as_deref(), Some("ib0"));
        assert_eq!(route(TABLE, Ipv4Addr::new(192, 168, 0, 7)).as_deref(), Some("eth0"));
        assert_eq!(route(TABLE, Ipv4Addr::new(8, 8, 8, 8)).as_deref(), Some("eth0"));
        assert_eq!(route(TABLE, Ipv4Addr::LOCALHOST).as_deref(), Some("lo"));
        assert_eq!(route("Iface\n", Ipv4Addr::new(10, 0, 0, 1)), None);
    }

    #[test]
    fn the_nominal_rate_comes_from_sysfs_and_loopback_has_none() {
        let net = tempfile::tempdir().unwrap();
        for (iface, speed) in [("eth0", "100000\n"), ("veth1", "-1\n")] {
            std::fs::create_dir(net.path().join(iface)).unwrap();
            std::fs::write(net.path().join(iface).join("speed"), speed).unwrap();
        }
        assert_eq!(Link::rated(net.path(), "eth0".into()).nominal_gbs, Some(12.5));
        let unknown = Link::rated(net.path(), "veth1".into());
        assert_eq!(unknown.nominal_gbs, None);
        assert!(unknown.note.unwrap().contains("says -1"));
        assert!(Link::rated(net.path(), "ib9".into()).note.unwrap().contains("no "));
        assert_eq!(Link::rated(net.path(), "lo".into()).note.as_deref(), Some("loopback: no nominal rate"));
    }
}
