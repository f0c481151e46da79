//! Host detection and slot planning on fixture trees of each kind of host
//! (no GPU exists here: the trees are laid out as the kernel lays out /proc
//! and /sys on such hosts).

use crate::common;

use common::hosts;
use mlb::gpu::{DeviceIndex, Vendor};
use mlb::host::{detect, HostKind, Probe};
use mlb::isolation::Version;
use std::path::Path;

fn probe(root: &Path) -> Probe {
    Probe { root: root.to_path_buf(), arch: "x86_64".into(), affinity: vec![0], library: false, euid: 0 }
}

#[test]
fn ngc_host_with_numa_placed_gpus() {
    let t = hosts::ngc();
    let h = detect(&probe(t.root()));
    assert_eq!(h.kind, HostKind::Ngc);
    assert_eq!(h.gpus.len(), 4, "the NIC is not a GPU");
    assert!(h.gpus.iter().all(|g| g.vendor == Vendor::Nvidia && g.name == "Tesla V100-SXM2-16GB"));
    let placed: Vec<(usize, &str, Option<usize>)> =
        h.gpus.iter().map(|g| (g.index.get(), g.pci_bus.as_str(), g.numa_node)).collect();
    assert_eq!(
        placed,
        [
            (0, "0000:1a:00.0", Some(1)),
            (1, "0000:3b:00.0", Some(1)),
            (2, "0000:86:00.0", Some(0)),
            (3, "0000:af:00.0", Some(0))
        ]
    );
    assert_eq!(h.cpus, (0..16).collect::<Vec<_>>());
    assert_eq!(h.numa.len(), 2);
    assert_eq!(h.memory.usable_bytes, 64 << 30);
    assert_eq!(h.cgroup.version, Version::V1);
    assert!(h.cgroup.can_create);

    // Slots follow the GPUs' NUMA nodes: GPUs 0 and 1 sit on node 1.
    let slots = mlb::plan::plan(&h, mlb::plan::count(&h, None).unwrap()).unwrap();
    let cpus: Vec<Vec<usize>> = slots.iter().map(|s| s.cpus.clone()).collect();
    assert_eq!(cpus, [vec![8, 9, 10, 11], vec![12, 13, 14, 15], vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
    assert!(slots.iter().all(|s| s.mems == [0, 1] && s.memory_bytes == 16 << 30));
}

#[test]
fn rocm_host_from_the_kfd_topology() {
    let t = hosts::rocm();
    let h = detect(&probe(t.root()));
    assert_eq!(h.kind, HostKind::Rocm);
    assert_eq!(h.gpus.len(), 2, "the KFD CPU node is not a GPU");
    let g = &h.gpus[1];
    assert_eq!((g.vendor, g.name.as_str(), g.memory_bytes), (Vendor::Amd, "Radeon Instinct MI50", Some(16 << 30)));
    assert_eq!((g.pci_bus.as_str(), g.numa_node, g.index), ("0000:43:00.0", Some(0), DeviceIndex(1)));
    assert_eq!(HostKind::Rocm.device_vars(), ["HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"]);
}

#[test]
fn powerai_is_ppc64le_with_nvidia_and_cgroup_v2() {
    let t = hosts::powerai();
    let h = detect(&probe(t.root()));
    assert_eq!((h.kind, h.arch.as_str()), (HostKind::Powerai, "ppc64le"));
    assert!(h.gpus.iter().all(|g| g.numa_node.is_none() && g.name == "Tesla P100-SXM2-16GB"));
    assert_eq!(h.cgroup.version, Version::V2);
    assert!(h.cgroup.can_create, "{:?}", h.cgroup.reason);
    // No NUMA information: contiguous blocks in CPU order.
    let slots = mlb::plan::plan(&h, 2).unwrap();
    assert_eq!((slots[0].cpus.clone(), slots[1].cpus.clone()), (vec![0, 1, 2, 3], vec![4, 5, 6, 7]));
}

#[test]
fn cpu_host_uses_its_affinity_and_enclosing_memory_limit() {
    let t = hosts::cpu();
    let h = detect(&probe(t.root()));
    assert_eq!(h.kind, HostKind::Cpu);
    assert!(h.gpus.is_empty());
    assert_eq!(h.cpus, [2, 3, 4, 5], "usable CPUs, not the machine's 8");
    assert_eq!((h.memory.total_bytes, h.memory.usable_bytes), (32 << 30, 8 << 30));
    assert_eq!(h.memory.cgroup_limit_bytes, Some(8 << 30));
    // --devices 3 on 4 usable CPUs: one CPU each, the fourth unused.
    let n = mlb::plan::count(&h, Some(3)).unwrap();
    let slots = mlb::plan::plan(&h, n).unwrap();
    assert_eq!(slots.iter().map(|s| s.cpus.clone()).collect::<Vec<_>>(), [vec![2], vec![3], vec![4]]);
    assert_eq!(slots[0].memory_bytes, (8u64 << 30) / 3 / 4096 * 4096);
    assert!(mlb::plan::plan(&h, 5).unwrap_err().to_string().contains("5 slots need at least one CPU each"));
    assert!(mlb::plan::count(&h, Some(0)).is_err());
    assert!(detect(&Probe { euid: 1000, ..probe(t.root()) }).cgroup.reason.unwrap().contains("not running as root"));
}

#[test]
fn detect_command_human_json_and_override() {
    let t = hosts::ngc();
    let root = t.root().to_str().unwrap();
    let out = common::run(&["detect", "--host-root", root]);
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    for expected in [
        "host kind      ngc",
        "GPUs           4",
        "│ 2     ┆ Tesla V100-SXM2-16GB ┆ unknown ┆ 0         ┆ 0000:86:00.0 ┆ sysfs │",
        "usable CPUs    16 (0-15)",
        "usable memory  64.00 GiB",
        "│ 1    ┆ 8-15 │",
        "cgroup-v1",
    ] {
        assert!(stdout.contains(expected), "missing {expected:?} in\n{stdout}");
    }
    let out = common::run(&["detect", "--host-root", root, "--format", "json", "--host", "rocm"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["kind"].as_str(), v["kind_overridden"].as_bool()), (Some("rocm"), Some(true)));
    assert_eq!(v["gpus"].as_array().unwrap().len(), 4);
    assert_eq!(v["cgroup"]["version"], "v1");
}

#[test]
fn detect_this_host() {
    let out = common::run(&["detect", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let affinity = mlb::linux::cpulist::affinity();
    let cpus: Vec<usize> = v["cpus"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap() as usize).collect();
    assert_eq!(cpus, affinity, "usable CPUs are this process's affinity");
    assert!(v["memory"]["usable_bytes"].as_u64().unwrap() > 0);
}
