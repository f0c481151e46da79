//! Package energy from `/sys/class/powercap` (Intel RAPL, and AMD's on
//! recent kernels), where the host has it: the energy of the whole package,
//! every process on it counted, not the slot's alone.

use mlb_record::reading::{number, Counter, Reading};
use std::path::{Path, PathBuf};

/// The package zones of a host.
#[derive(Clone, Debug, Default)]
pub struct Powercap {
    /// `energy_uj` of each package zone, and the value it wraps at.
    zones: Vec<(PathBuf, Option<u64>)>,
}

impl Powercap {
    /// The package zones under `root` (`sys/class/powercap/*/name` starting
    /// `package`); none where the host has no powercap.
    pub fn find(root: &Path) -> Powercap {
        let dir = root.join("sys/class/powercap");
        let mut zones: Vec<(PathBuf, Option<u64>)> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| std::fs::read_to_string(p.join("name")).is_ok_and(|n| n.starts_with("package")))
            .map(|p| {
                let wraps_at = number(&p.join("max_energy_range_uj")).map(|max| max + 1);
                (p.join("energy_uj"), wraps_at)
            })
            .collect();
        zones.sort();
        Powercap { zones }
    }

    /// Whether the host has any package zone.
    pub fn is_empty(&self) -> bool {
        self.zones.is_empty()
    }

    /// Adds each package's energy counter (each wraps on its own):
    /// `package_energy_uj` on a one-package host, `package<i>_energy_uj`
    /// on others (the first four), with its rate, `package<i>_w`.
    pub fn read(&self, into: &mut Reading) {
        let one = self.zones.len() == 1;
        for (i, (file, wraps_at)) in self.zones.iter().enumerate().take(PACKAGES.len()) {
            let (name, watts) = if one { ("package_energy_uj", "package_w") } else { PACKAGES[i] };
            if let Some(value) = number(file) {
                into.counters.push(Counter { name, value, wraps_at: *wraps_at, rate: Some((watts, 1e-6)) });
            }
        }
    }
}

/// Counter and rate names of the packages of a host with several.
const PACKAGES: [(&str, &str); 4] = [
    ("package0_energy_uj", "package0_w"),
    ("package1_energy_uj", "package1_w"),
    ("package2_energy_uj", "package2_w"),
    ("package3_energy_uj", "package3_w"),
];

/// Whether counter `name` is a package's energy.
pub fn is_package_energy(name: &str) -> bool {
    name.starts_with("package") && name.ends_with("_energy_uj")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(root: &Path, name: &str, zone: &str, energy: &str) {
        let d = root.join("sys/class/powercap").join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("name"), format!("{zone}\n")).unwrap();
        std::fs::write(d.join("energy_uj"), energy).unwrap();
        std::fs::write(d.join("max_energy_range_uj"), "262143999999\n").unwrap();
    }

    #[test]
    fn package_zones_only_with_their_wrap() {
        let root = tempfile::tempdir().unwrap();
        assert!(Powercap::find(root.path()).is_empty());
        zone(root.path(), "intel-rapl:0", "package-0", "1000\n");
        zone(root.path(), "intel-rapl:0:0", "core", "10\n");
        let p = Powercap::find(root.path());
        let mut r = Reading::default();
        p.read(&mut r);
        assert_eq!(r.counters.len(), 1);
        assert_eq!(r.counters[0].value, 1000);
        assert_eq!(r.counters[0].wraps_at, Some(262_144_000_000));
        zone(root.path(), "intel-rapl:1", "package-1", "5\n");
        let mut r = Reading::default();
        Powercap::find(root.path()).read(&mut r);
        let names: Vec<_> = r.counters.iter().map(|c| (c.name, c.value)).collect();
        assert_eq!(names, [("package0_energy_uj", 1000), ("package1_energy_uj", 5)]);
    }
}
