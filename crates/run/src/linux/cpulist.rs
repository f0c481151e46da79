//! CPU lists: the kernel's notation (`0-3,8,10-11`) and this process's
//! affinity mask. The launcher plans with them, the worker records them.

/// Parses a CPU (or NUMA node) list; malformed parts are skipped.
pub fn parse(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in text.trim().split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    out.extend(a..=b);
                }
            }
            None => out.extend(part.parse::<usize>().ok()),
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Formats a sorted list in the kernel's notation: `0-3,8,10-11`.
pub fn format(items: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let start = items[i];
        while i + 1 < items.len() && items[i + 1] == items[i] + 1 {
            i += 1;
        }
        parts.push(if items[i] == start { start.to_string() } else { format!("{start}-{}", items[i]) });
        i += 1;
    }
    parts.join(",")
}

/// The CPUs this process may run on (its affinity mask).
pub fn affinity() -> Vec<usize> {
    use nix::sched::{sched_getaffinity, CpuSet};
    use nix::unistd::Pid;
    match sched_getaffinity(Pid::from_raw(0)) {
        Ok(set) => (0..CpuSet::count()).filter(|&i| set.is_set(i).unwrap_or(false)).collect(),
        Err(_) => (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        assert_eq!(super::parse("0-3,8,10-11\n"), [0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(super::parse(""), Vec::<usize>::new());
        assert_eq!(super::format(&super::parse("4-7,0")), "0,4-7");
    }

    #[test]
    fn formats() {
        assert_eq!(super::format(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(super::format(&[5]), "5");
        assert_eq!(super::format(&[]), "");
    }

    #[test]
    fn affinity_is_a_usable_nonempty_set() {
        let cpus = super::affinity();
        assert!(!cpus.is_empty());
        assert!(cpus.windows(2).all(|w| w[0] < w[1]), "sorted, no duplicates: {cpus:?}");
    }
}
