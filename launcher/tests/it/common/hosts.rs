//! Fixture trees of each kind of host, laid out as the kernel lays out
//! `/proc` and `/sys`, for detection to read under a root path.

use std::path::Path;

/// A fixture host tree.
pub struct Tree {
    pub dir: tempfile::TempDir,
}

impl Tree {
    /// A host with `cpus` usable CPUs (`Cpus_allowed_list`), NUMA nodes
    /// `(id, cpulist)`, `mem_kb` of memory and architecture `arch`.
    pub fn new(cpus: &str, nodes: &[(usize, &str)], mem_kb: u64, arch: &str) -> Tree {
        let t = Tree { dir: tempfile::tempdir().unwrap() };
        t.file("proc/meminfo", &format!("MemTotal:       {mem_kb} kB\nMemFree:        1000 kB\n"));
        t.file("proc/self/status", &format!("Name:\tmlb\nCpus_allowed:\tff\nCpus_allowed_list:\t{cpus}\n"));
        t.file("proc/self/cgroup", "4:memory:/\n3:cpuset:/\n0::/\n");
        t.file("proc/sys/kernel/arch", &format!("{arch}\n"));
        for (id, list) in nodes {
            t.file(&format!("sys/devices/system/node/node{id}/cpulist"), &format!("{list}\n"));
        }
        t
    }

    /// cgroup v1: cpuset and memory hierarchies.
    pub fn cgroup_v1(self) -> Tree {
        self.file("sys/fs/cgroup/cpuset/cgroup.procs", "");
        self.file("sys/fs/cgroup/memory/cgroup.procs", "");
        self.file("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
        self
    }

    /// cgroup v2 offering `controllers`.
    pub fn cgroup_v2(self, controllers: &str) -> Tree {
        self.file("sys/fs/cgroup/cgroup.controllers", &format!("{controllers}\n"));
        self.file("sys/fs/cgroup/cgroup.procs", "");
        self
    }

    /// An NVIDIA GPU at PCI `bus` on NUMA node `node` named `model`.
    pub fn nvidia(self, bus: &str, node: i32, model: &str) -> Tree {
        let dev = format!("sys/bus/pci/devices/{bus}");
        self.file(&format!("{dev}/vendor"), "0x10de\n");
        self.file(&format!("{dev}/class"), "0x030200\n");
        self.file(&format!("{dev}/numa_node"), &format!("{node}\n"));
        self.file(
            &format!("proc/driver/nvidia/gpus/{bus}/information"),
            &format!("Model: \t\t {model}\nIRQ:   \t\t 40\n"),
        );
        self
    }

    /// A PCI device of another vendor (a NIC), which detection must ignore.
    pub fn other_pci(self, bus: &str) -> Tree {
        self.file(&format!("sys/bus/pci/devices/{bus}/vendor"), "0x8086\n");
        self.file(&format!("sys/bus/pci/devices/{bus}/class"), "0x020000\n");
        self
    }

    /// A KFD topology node: a CPU node when `gpu` is `None`, else a GPU
    /// `(render minor, location_id, vram bytes, numa node, product name)`.
    pub fn kfd_node(self, id: usize, gpu: Option<(u32, u32, u64, i32, &str)>) -> Tree {
        let node = format!("sys/class/kfd/kfd/topology/nodes/{id}");
        match gpu {
            None => {
                self.file(&format!("{node}/properties"), "cpu_cores_count 16\nsimd_count 0\ndrm_render_minor 0\n");
                self.file(&format!("{node}/name"), "\n");
            }
            Some((minor, location, vram, numa, product)) => {
                self.file(
                    &format!("{node}/properties"),
                    &format!("cpu_cores_count 0\nsimd_count 240\nlocation_id {location}\ndomain 0\ndrm_render_minor {minor}\n"),
                );
                self.file(&format!("{node}/name"), "gfx906\n");
                self.file(&format!("{node}/mem_banks/0/properties"), &format!("heap_type 1\nsize_in_bytes {vram}\n"));
                self.file(&format!("{node}/mem_banks/1/properties"), "heap_type 0\nsize_in_bytes 1024\n");
                let dev = format!("sys/class/drm/renderD{minor}/device");
                self.file(&format!("{dev}/numa_node"), &format!("{numa}\n"));
                self.file(&format!("{dev}/product_name"), &format!("{product}\n"));
            }
        }
        self
    }

    /// Writes `text` at `rel` under the root.
    pub fn file(&self, rel: &str, text: &str) -> &Tree {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        self
    }

    /// The root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }
}

/// 16 CPUs in two NUMA nodes, 64 GiB, four V100s: two on node 1 first, then
/// two on node 0; cgroup v1.
pub fn ngc() -> Tree {
    Tree::new("0-15", &[(0, "0-7"), (1, "8-15")], 64 << 20, "x86_64")
        .cgroup_v1()
        .nvidia("0000:1a:00.0", 1, "Tesla V100-SXM2-16GB")
        .nvidia("0000:3b:00.0", 1, "Tesla V100-SXM2-16GB")
        .nvidia("0000:86:00.0", 0, "Tesla V100-SXM2-16GB")
        .nvidia("0000:af:00.0", 0, "Tesla V100-SXM2-16GB")
        .other_pci("0000:00:1f.6")
}

/// 8 CPUs in one node, 32 GiB, two MI50s in the KFD topology; cgroup v1.
pub fn rocm() -> Tree {
    Tree::new("0-7", &[(0, "0-7")], 32 << 20, "x86_64")
        .cgroup_v1()
        .kfd_node(0, None)
        .kfd_node(1, Some((128, 0x0300, 16 << 30, 0, "Radeon Instinct MI50")))
        .kfd_node(2, Some((129, 0x4300, 16 << 30, 0, "Radeon Instinct MI50")))
}

/// ppc64le, 8 CPUs, 16 GiB, two NVIDIA GPUs with no NUMA information; cgroup v2.
pub fn powerai() -> Tree {
    Tree::new("0-7", &[(0, "0-7")], 16 << 20, "ppc64le")
        .cgroup_v2("cpuset cpu io memory pids")
        .nvidia("0004:04:00.0", -1, "Tesla P100-SXM2-16GB")
        .nvidia("0004:05:00.0", -1, "Tesla P100-SXM2-16GB")
}

/// No GPU, CPUs 2-5 of 8 usable, 32 GiB but an enclosing memory cgroup of 8 GiB.
pub fn cpu() -> Tree {
    let t = Tree::new("2-5", &[(0, "0-7")], 32 << 20, "x86_64").cgroup_v1();
    t.file("proc/self/cgroup", "4:memory:/job\n3:cpuset:/\n0::/\n");
    t.file("sys/fs/cgroup/memory/job/memory.limit_in_bytes", "8589934592\n");
    t
}
