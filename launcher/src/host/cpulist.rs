//! The kernel's CPU list notation (`0-3,8,10-11`).

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

/// Formats a list in the kernel's notation.
pub fn format(items: &[usize]) -> String {
    crate::worker::provenance::cpu_list(items)
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        assert_eq!(super::parse("0-3,8,10-11\n"), [0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(super::parse(""), Vec::<usize>::new());
        assert_eq!(super::format(&super::parse("4-7,0")), "0,4-7");
    }
}
