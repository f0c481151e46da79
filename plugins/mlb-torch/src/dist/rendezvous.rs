//! Where a rank finds its group: torchrun's variables (set by mlb's
//! launcher for a `"group": "ddp"` job, and by torchrun itself), else
//! Slurm's task variables, else a group of one. An instance mlb's launcher
//! put in no group (`MLB_GROUP=alone`, [`mlb_plugin::group`]) is a group of
//! one whatever Slurm's variables say.

use mlb_plugin::group::{ALONE, GROUP_VAR};

/// torchrun's variables, in the order they are read.
pub const TORCHRUN_VARS: [&str; 5] = ["MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK"];

/// The first port of those a Slurm step without `MASTER_PORT` uses.
pub const SLURM_PORT_BASE: u16 = 20000;

/// Where a rank's group settings came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `MASTER_ADDR`, `MASTER_PORT`, `RANK`, `WORLD_SIZE`, `LOCAL_RANK`.
    Torchrun,
    /// `SLURM_PROCID`, `SLURM_NTASKS`, `SLURM_LOCALID`, the step's first node.
    Slurm,
    /// None of them: a group of one on this host.
    Alone,
}

impl Source {
    /// `torchrun`, `slurm` or `alone`, as reports write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Torchrun => "torchrun",
            Source::Slurm => "slurm",
            Source::Alone => "alone",
        }
    }
}

/// This process's place in its group and the store to meet at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendezvous {
    /// Rank 0's host, where the store listens.
    pub master_addr: String,
    /// The store's port (0 for a group of one: any free port).
    pub master_port: u16,
    /// This process's rank, `0..world`.
    pub rank: usize,
    /// The number of ranks.
    pub world: usize,
    /// The rank among those on this node.
    pub local_rank: usize,
    /// Where these came from.
    pub source: Source,
}

/// A rendezvous variable that is missing or malformed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{name}={value:?}: {reason}; fix: set {name} (mlb's `\"group\": \"ddp\"` jobs and torchrun set MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK; srun sets SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_STEP_NODELIST)")]
pub struct RendezvousError {
    /// The variable.
    pub name: String,
    /// Its value (empty when missing).
    pub value: String,
    /// What is wrong with it.
    pub reason: String,
}

impl Rendezvous {
    /// Reads the group from the environment through `var` (one variable's
    /// value): torchrun's variables when `RANK` or `WORLD_SIZE` is set, else
    /// Slurm's when `SLURM_PROCID` is set and mlb's launcher did not start
    /// the instance alone (`MLB_GROUP=alone`), else a group of one.
    ///
    /// Under Slurm, rank 0 is on the step's first node (`SLURM_STEP_NODELIST`,
    /// else `SLURM_JOB_NODELIST`; `MASTER_ADDR` wins when set), and the port
    /// is `MASTER_PORT`, else [`SLURM_PORT_BASE`] plus a number made of the
    /// job and step ids, so that the steps of one job differ.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Self, RendezvousError> {
        let var = |name: &str| var(name).filter(|v| !v.is_empty());
        let number = |name: &str| -> Result<Option<u64>, RendezvousError> {
            var(name).map(|v| v.trim().parse::<u64>().map_err(|_| error(name, &v, "not a whole number"))).transpose()
        };
        let required = |name: &str| number(name)?.ok_or_else(|| error(name, "", "missing"));
        let (master_addr, master_port, rank, world, local_rank, source) = if var("RANK").is_some()
            || var("WORLD_SIZE").is_some()
        {
            let addr = var("MASTER_ADDR").ok_or_else(|| error("MASTER_ADDR", "", "missing"))?;
            (
                addr,
                required("MASTER_PORT")?,
                required("RANK")?,
                required("WORLD_SIZE")?,
                number("LOCAL_RANK")?,
                Source::Torchrun,
            )
        } else if var("SLURM_PROCID").is_some() && var(GROUP_VAR).as_deref() != Some(ALONE) {
            let addr = match var("MASTER_ADDR") {
                Some(addr) => addr,
                None => {
                    let list = var("SLURM_STEP_NODELIST")
                        .or_else(|| var("SLURM_JOB_NODELIST"))
                        .ok_or_else(|| error("SLURM_STEP_NODELIST", "", "missing"))?;
                    first_host(&list).ok_or_else(|| error("SLURM_STEP_NODELIST", &list, "no host in it"))?
                }
            };
            let port = match number("MASTER_PORT")? {
                Some(port) => port,
                None => {
                    let (job, step) = (number("SLURM_JOB_ID")?.unwrap_or(0), number("SLURM_STEP_ID")?.unwrap_or(0));
                    u64::from(SLURM_PORT_BASE) + (job * 16 + step) % 40000
                }
            };
            (addr, port, required("SLURM_PROCID")?, required("SLURM_NTASKS")?, number("SLURM_LOCALID")?, Source::Slurm)
        } else {
            ("127.0.0.1".to_string(), 0, 0, 1, Some(0), Source::Alone)
        };
        let port_name =
            if source == Source::Slurm && var("MASTER_PORT").is_none() { "SLURM_JOB_ID" } else { "MASTER_PORT" };
        let master_port = u16::try_from(master_port)
            .map_err(|_| error(port_name, &master_port.to_string(), "not a port (0..65535)"))?;
        let (rank_name, world_name) =
            if source == Source::Slurm { ("SLURM_PROCID", "SLURM_NTASKS") } else { ("RANK", "WORLD_SIZE") };
        if world == 0 {
            return Err(error(world_name, "0", "a group has at least one rank"));
        }
        if rank >= world {
            return Err(error(rank_name, &rank.to_string(), &format!("a rank is below the group's size ({world})")));
        }
        Ok(Rendezvous {
            master_addr,
            master_port,
            rank: rank as usize,
            world: world as usize,
            local_rank: local_rank.unwrap_or(0) as usize,
            source,
        })
    }

    /// Whether this names a process group to join: torchrun's variables
    /// (mlb's `"group": "ddp"`, torchrun) always, a Slurm step when it has
    /// several tasks, a group of one never.
    pub fn names_group(&self) -> bool {
        match self.source {
            Source::Alone => false,
            Source::Slurm => self.world > 1,
            Source::Torchrun => true,
        }
    }
}

/// Whether this process's environment names a process group to join
/// ([`Rendezvous::names_group`]), for the workloads that train data parallel
/// when it does and alone otherwise.
pub fn in_group() -> Result<bool, RendezvousError> {
    Ok(Rendezvous::from_env(|name| std::env::var(name).ok())?.names_group())
}

/// `host` when this machine can resolve it, else the address Slurm gives
/// the node of that name (`NodeAddr` of `scontrol show node`): a cluster's
/// node names need not be host names. `host` itself when neither works
/// (the store's error then names it).
pub fn reachable(host: &str) -> String {
    use std::net::ToSocketAddrs;
    if (host, 0).to_socket_addrs().is_ok_and(|mut a| a.next().is_some()) {
        return host.to_string();
    }
    let out = std::process::Command::new("scontrol").args(["show", "node", "-o", host]).output();
    out.ok()
        .filter(|o| o.status.success())
        .and_then(|o| node_addr(&String::from_utf8_lossy(&o.stdout)))
        .unwrap_or_else(|| host.to_string())
}

/// The `NodeAddr` of a line of `scontrol show node -o`.
pub fn node_addr(line: &str) -> Option<String> {
    line.split_whitespace().find_map(|field| field.strip_prefix("NodeAddr=")).map(str::to_string)
}

fn error(name: &str, value: &str, reason: &str) -> RendezvousError {
    RendezvousError { name: name.into(), value: value.into(), reason: reason.into() }
}

/// The first host of a Slurm host list: `n1,n2` gives `n1`; `node[07-09,12]`
/// gives `node07`; `gpu[3]-ib,cpu1` gives `gpu3-ib`. `None` for an empty list.
pub fn first_host(list: &str) -> Option<String> {
    let mut depth = 0;
    let end = list
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            c == ',' && depth == 0
        })
        .map_or(list.len(), |(i, _)| i);
    let entry = list[..end].trim();
    let host = match (entry.find('['), entry.find(']')) {
        (Some(open), Some(close)) if open < close => {
            let range = &entry[open + 1..close];
            let first = range.split([',', '-']).next().unwrap_or_default();
            format!("{}{}{}", &entry[..open], first, &entry[close + 1..])
        }
        _ => entry.to_string(),
    };
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(vars: &[(&str, &str)]) -> Result<Rendezvous, RendezvousError> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Rendezvous::from_env(|name| map.get(name).cloned())
    }

    #[test]
    fn torchrun_and_slurm_steps_of_several_tasks_name_a_group_others_do_not() {
        let torchrun = [("MASTER_ADDR", "h"), ("MASTER_PORT", "1"), ("RANK", "0"), ("WORLD_SIZE", "1")];
        assert!(read(&torchrun).unwrap().names_group(), "torchrun's variables, even for one rank");
        let slurm = |tasks| [("SLURM_PROCID", "0"), ("SLURM_NTASKS", tasks), ("SLURM_STEP_NODELIST", "n1")];
        assert!(read(&slurm("2")).unwrap().names_group());
        assert!(!read(&slurm("1")).unwrap().names_group(), "a Slurm step of one task");
        assert!(!read(&[]).unwrap().names_group());
        let alone = [slurm("4").as_slice(), &[(GROUP_VAR, ALONE)]].concat();
        assert_eq!(read(&alone).unwrap().source, Source::Alone, "mlb's launcher started it in no group");
        assert!(read(&[torchrun.as_slice(), &[(GROUP_VAR, ALONE)]].concat()).unwrap().names_group());
    }

    #[test]
    fn torchrun_variables_win_over_slurm_ones() {
        let r = read(&[
            ("MASTER_ADDR", "10.0.0.5"),
            ("MASTER_PORT", "29511"),
            ("RANK", "3"),
            ("WORLD_SIZE", "4"),
            ("LOCAL_RANK", "1"),
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "2"),
        ])
        .unwrap();
        let want = Rendezvous {
            master_addr: "10.0.0.5".into(),
            master_port: 29511,
            rank: 3,
            world: 4,
            local_rank: 1,
            source: Source::Torchrun,
        };
        assert_eq!(r, want);
    }

    #[test]
    fn slurm_ranks_meet_on_the_steps_first_node() {
        let vars = [
            ("SLURM_PROCID", "1"),
            ("SLURM_NTASKS", "2"),
            ("SLURM_LOCALID", "0"),
            ("SLURM_JOB_NODELIST", "other[1-2]"),
            ("SLURM_STEP_NODELIST", "mlb-node[02-03]"),
            ("SLURM_JOB_ID", "17"),
            ("SLURM_STEP_ID", "2"),
        ];
        let r = read(&vars).unwrap();
        assert_eq!((r.master_addr.as_str(), r.rank, r.world, r.source), ("mlb-node02", 1, 2, Source::Slurm));
        assert_eq!(r.master_port, SLURM_PORT_BASE + 17 * 16 + 2);
        let other_step = read(&[vars[0], vars[1], vars[3], vars[5], ("SLURM_STEP_ID", "3")]).unwrap();
        assert_eq!(other_step.master_addr, "other1", "the job's list when the step's is not set");
        assert_ne!(other_step.master_port, r.master_port);
        let pinned = read(&[vars[0], vars[1], vars[4], ("MASTER_ADDR", "head"), ("MASTER_PORT", "1234")]).unwrap();
        assert_eq!((pinned.master_addr.as_str(), pinned.master_port), ("head", 1234));
    }

    #[test]
    fn no_variables_make_a_group_of_one() {
        let r = read(&[]).unwrap();
        assert_eq!((r.rank, r.world, r.master_port, r.source), (0, 1, 0, Source::Alone));
    }

    #[test]
    fn bad_variables_are_named_with_the_fix() {
        let e = read(&[("RANK", "0"), ("WORLD_SIZE", "2"), ("MASTER_PORT", "29500")]).unwrap_err();
        assert_eq!((e.name.as_str(), e.reason.as_str()), ("MASTER_ADDR", "missing"));
        assert!(e.to_string().contains("fix: set MASTER_ADDR"), "{e}");
        let base = [("MASTER_ADDR", "h"), ("MASTER_PORT", "29500"), ("WORLD_SIZE", "2")];
        let e = read(&[base[0], base[1], base[2], ("RANK", "2")]).unwrap_err();
        assert_eq!(e.name, "RANK");
        let e = read(&[base[0], base[1], base[2], ("RANK", "one")]).unwrap_err();
        assert_eq!((e.name.as_str(), e.value.as_str()), ("RANK", "one"));
        let e = read(&[base[0], ("MASTER_PORT", "70000"), base[2], ("RANK", "0")]).unwrap_err();
        assert_eq!(e.name, "MASTER_PORT");
        let e = read(&[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "2")]).unwrap_err();
        assert_eq!(e.name, "SLURM_STEP_NODELIST");
    }

    #[test]
    fn node_names_that_do_not_resolve_take_slurms_address() {
        let line = "NodeName=n1 Arch=x86_64 CoresPerSocket=1 NodeAddr=10.1.2.3 NodeHostName=host1 Port=17001";
        assert_eq!(node_addr(line).as_deref(), Some("10.1.2.3"));
        assert_eq!(node_addr("NodeName=n1 State=IDLE"), None);
        assert_eq!(reachable("localhost"), "localhost", "a name that resolves is kept");
    }

    #[test]
    fn first_hosts_of_slurm_lists() {
        assert_eq!(first_host("n1,n2").as_deref(), Some("n1"));
        assert_eq!(first_host("node[07-09,12],login").as_deref(), Some("node07"));
        assert_eq!(first_host("gpu[3]-ib,cpu1").as_deref(), Some("gpu3-ib"));
        assert_eq!(first_host("single").as_deref(), Some("single"));
        assert_eq!(first_host(""), None);
    }
}
