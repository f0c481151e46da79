//! The slot's own telemetry, on every host: its cgroup's CPU time, CPU
//! throttling, memory and page faults, and its CPUs' frequency.
//!
//! | gauge / counter | v1 file | v2 file |
//! |---|---|---|
//! | `cpu_ns` | `cpuacct.usage` | `cpu.stat` `usage_usec` |
//! | `cpu_periods`, `cpu_throttled_periods` | `cpu.stat` `nr_periods`, `nr_throttled` | the same in `cpu.stat` |
//! | `cpu_throttled_ns` | `cpu.stat` `throttled_time` | `cpu.stat` `throttled_usec` |
//! | `memory_bytes` | `memory.usage_in_bytes` | `memory.current` |
//! | `memory_peak_bytes` | `memory.max_usage_in_bytes` | `memory.peak` |
//! | `page_faults`, `major_page_faults` | `memory.stat` `total_pgfault`, `total_pgmajfault` | `memory.stat` `pgfault`, `pgmajfault` |
//! | `cpu_mhz` | `cpufreq/scaling_cur_freq` of each slot CPU, else `cpu MHz` of `/proc/cpuinfo` | the same |

use crate::isolation::{SlotGroup, Version};
use mlb_figures::moments::mean;
use mlb_record::reading::{keyed, number, Counter, Reading};
use std::path::{Path, PathBuf};

/// Reads one slot's group and CPUs, under a root (`/` on a real host).
#[derive(Clone, Debug)]
pub struct SlotProbe {
    version: Version,
    memory: PathBuf,
    cpuacct: Option<PathBuf>,
    cpu: Option<PathBuf>,
    /// `scaling_cur_freq` of each slot CPU that has one.
    cpufreq: Vec<PathBuf>,
    /// `/proc/cpuinfo` and the slot's CPUs, when no CPU has cpufreq.
    cpuinfo: Option<(PathBuf, Vec<usize>)>,
}

impl SlotProbe {
    /// The probe of `group`, whose CPUs are `cpus`, on the host under `root`.
    pub fn of(group: &SlotGroup, cpus: &[usize], root: &Path) -> SlotProbe {
        let [cpuacct, cpu] = group.accounting_dirs();
        SlotProbe::at(group.version(), group.memory_dir(), cpuacct, cpu, cpus, root)
    }

    /// The probe of the group whose memory files are in `memory` and whose
    /// CPU counters are in `cpuacct` and `cpu` (v2: all one folder).
    pub fn at(
        version: Version,
        memory: &Path,
        cpuacct: Option<&Path>,
        cpu: Option<&Path>,
        cpus: &[usize],
        root: &Path,
    ) -> SlotProbe {
        let cpufreq: Vec<PathBuf> = cpus
            .iter()
            .map(|c| root.join(format!("sys/devices/system/cpu/cpu{c}/cpufreq/scaling_cur_freq")))
            .filter(|p| p.is_file())
            .collect();
        let cpuinfo = cpufreq.is_empty().then(|| (root.join("proc/cpuinfo"), cpus.to_vec()));
        SlotProbe {
            version,
            memory: memory.to_path_buf(),
            cpuacct: cpuacct.map(Path::to_path_buf),
            cpu: cpu.map(Path::to_path_buf),
            cpufreq,
            cpuinfo,
        }
    }

    /// Reads everything once; what cannot be read is left out.
    pub fn read(&self, into: &mut Reading) {
        let v2 = self.version == Version::V2;
        let cpu_stat = self.cpu.as_ref().and_then(|d| std::fs::read_to_string(d.join("cpu.stat")).ok());
        let cpu_stat = cpu_stat.as_deref().unwrap_or("");
        let cpu_ns = if v2 {
            keyed(cpu_stat, "usage_usec").map(|us| us * 1000)
        } else {
            self.cpuacct.as_ref().and_then(|d| number(&d.join("cpuacct.usage")))
        };
        if let Some(value) = cpu_ns {
            into.counters.push(Counter { name: "cpu_ns", value, wraps_at: None, rate: Some(("cpu_busy_cores", 1e-9)) });
        }
        into.counter("cpu_periods", keyed(cpu_stat, "nr_periods"));
        into.counter("cpu_throttled_periods", keyed(cpu_stat, "nr_throttled"));
        let throttled =
            if v2 { keyed(cpu_stat, "throttled_usec").map(|us| us * 1000) } else { keyed(cpu_stat, "throttled_time") };
        into.counter("cpu_throttled_ns", throttled);
        let [current, peak] =
            if v2 { ["memory.current", "memory.peak"] } else { ["memory.usage_in_bytes", "memory.max_usage_in_bytes"] };
        into.gauge("memory_bytes", number(&self.memory.join(current)).map(|b| b as f64));
        into.gauge("memory_peak_bytes", number(&self.memory.join(peak)).map(|b| b as f64));
        let stat = std::fs::read_to_string(self.memory.join("memory.stat")).unwrap_or_default();
        let [minor, major] = if v2 { ["pgfault", "pgmajfault"] } else { ["total_pgfault", "total_pgmajfault"] };
        into.counter("page_faults", keyed(&stat, minor));
        into.counter("major_page_faults", keyed(&stat, major));
        into.gauge("cpu_mhz", self.cpu_mhz());
    }

    /// Starts the memory peak again (v1: `memory.max_usage_in_bytes` takes
    /// a write of 0), so that the peak read in the window is the window's.
    /// v2's `memory.peak` only restarts per open file (Linux 6.12): it keeps
    /// the peak since the group was made.
    pub fn restart_peak(&self) {
        if self.version == Version::V1 {
            let _ = std::fs::write(self.memory.join("memory.max_usage_in_bytes"), "0");
        }
    }

    /// The mean current frequency of the slot's CPUs, MHz.
    fn cpu_mhz(&self) -> Option<f64> {
        let mhz: Vec<f64> = match &self.cpuinfo {
            None => self.cpufreq.iter().filter_map(|p| number(p)).map(|khz| khz as f64 / 1000.0).collect(),
            Some((file, cpus)) => cpuinfo_mhz(&std::fs::read_to_string(file).ok()?, cpus),
        };
        (!mhz.is_empty()).then(|| mean(&mhz))
    }
}

/// `cpu MHz` of each of `cpus` in the text of `/proc/cpuinfo`.
fn cpuinfo_mhz(text: &str, cpus: &[usize]) -> Vec<f64> {
    let mut out = Vec::new();
    let mut processor = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else { continue };
        match key.trim() {
            "processor" => processor = value.trim().parse::<usize>().ok(),
            "cpu MHz" if processor.is_some_and(|p| cpus.contains(&p)) => out.extend(value.trim().parse::<f64>().ok()),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(dir: &Path, files: &[(&str, &str)]) {
        std::fs::create_dir_all(dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }

    #[test]
    fn v1_files_and_cpufreq() {
        let root = tempfile::tempdir().unwrap();
        let (mem, acct, cpu) = (root.path().join("m"), root.path().join("a"), root.path().join("c"));
        put(
            &mem,
            &[
                ("memory.usage_in_bytes", "1000\n"),
                ("memory.max_usage_in_bytes", "5000\n"),
                ("memory.stat", "pgfault 1\ntotal_pgfault 40\ntotal_pgmajfault 2\n"),
            ],
        );
        put(&acct, &[("cpuacct.usage", "123456789\n")]);
        put(&cpu, &[("cpu.stat", "nr_periods 10\nnr_throttled 4\nthrottled_time 900\n")]);
        for (c, khz) in [(2, "2000000"), (3, "3000000")] {
            put(&root.path().join(format!("sys/devices/system/cpu/cpu{c}/cpufreq")), &[("scaling_cur_freq", khz)]);
        }
        let probe = SlotProbe::at(Version::V1, &mem, Some(&acct), Some(&cpu), &[2, 3], root.path());
        let mut r = Reading::default();
        probe.read(&mut r);
        assert_eq!(r.counter_of("cpu_ns").unwrap().value, 123_456_789);
        assert_eq!(r.counter_of("cpu_ns").unwrap().rate, Some(("cpu_busy_cores", 1e-9)));
        assert_eq!(r.counter_of("cpu_throttled_periods").unwrap().value, 4);
        assert_eq!(r.counter_of("cpu_throttled_ns").unwrap().value, 900);
        assert_eq!(r.counter_of("page_faults").unwrap().value, 40, "the group and its children");
        assert_eq!(r.counter_of("major_page_faults").unwrap().value, 2);
        assert_eq!((r.gauge_of("memory_bytes"), r.gauge_of("memory_peak_bytes")), (Some(1000.0), Some(5000.0)));
        assert_eq!(r.gauge_of("cpu_mhz"), Some(2500.0));
        probe.restart_peak();
        assert_eq!(std::fs::read_to_string(mem.join("memory.max_usage_in_bytes")).unwrap(), "0");
    }

    #[test]
    fn v2_files_and_cpuinfo() {
        let root = tempfile::tempdir().unwrap();
        let g = root.path().join("g");
        put(
            &g,
            &[
                ("cpu.stat", "usage_usec 2500\nuser_usec 2000\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n"),
                ("memory.current", "4096\n"),
                ("memory.stat", "pgfault 7\npgmajfault 1\n"),
            ],
        );
        put(
            &root.path().join("proc"),
            &[("cpuinfo", "processor\t: 0\ncpu MHz\t\t: 1000.0\n\nprocessor\t: 1\ncpu MHz\t\t: 3000.5\n")],
        );
        let probe = SlotProbe::at(Version::V2, &g, Some(&g), Some(&g), &[1], root.path());
        let mut r = Reading::default();
        probe.read(&mut r);
        assert_eq!(r.counter_of("cpu_ns").unwrap().value, 2_500_000);
        assert_eq!(r.counter_of("page_faults").unwrap().value, 7);
        assert_eq!(r.gauge_of("memory_peak_bytes"), None, "no memory.peak before Linux 5.19");
        assert_eq!(r.gauge_of("cpu_mhz"), Some(3000.5), "CPU 1 only");
    }
}
