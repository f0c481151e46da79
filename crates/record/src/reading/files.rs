//! The integers of the kernel's text files (sysfs, cgroupfs, procfs).

/// The first integer of the line of `text` starting with `key` and a space
/// (`cpu.stat`, `memory.stat` style files).
pub fn keyed(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
}

/// A file holding one integer.
pub fn number(path: &std::path::Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_lines_and_numbers() {
        let stat = "nr_periods 10\nnr_throttled 3\nthrottled_time 12345\n";
        assert_eq!(keyed(stat, "nr_throttled"), Some(3));
        assert_eq!(keyed(stat, "nr_periods"), Some(10));
        assert_eq!(keyed(stat, "throttled"), None, "a whole key only");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("n"), "42\n").unwrap();
        assert_eq!(number(&dir.path().join("n")), Some(42));
        assert_eq!(number(&dir.path().join("missing")), None);
    }
}
