//! A run's name, `SUITE-PID-YYYYMMDDHHMMSS`: its groups are `mlb-<run>`,
//! and the host lock holds it so that the next run can find the groups of
//! a run killed before it could remove them. A name read back from the lock
//! file is checked against this grammar before it becomes a cgroup path.

/// The name of a run of `suite` started now by this process.
pub fn new(suite: &str) -> String {
    format!("{suite}-{}-{}", std::process::id(), chrono::Utc::now().format("%Y%m%d%H%M%S"))
}

/// Whether `run` is a name [`new`] makes: a suite (a file's base name before
/// its first `.`, so no `/`, `.` or control character), a pid and a UTC
/// time of 14 digits, joined by `-`.
pub fn is_valid(run: &str) -> bool {
    let mut parts = run.rsplitn(3, '-');
    let (Some(time), Some(pid), Some(suite)) = (parts.next(), parts.next(), parts.next()) else { return false };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(time) && time.len() == 14 && digits(pid) && !suite.chars().any(|c| c == '/' || c == '.' || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_mlb_makes_are_valid_and_nothing_that_leaves_the_group_folder() {
        assert!(is_valid(&new("baselines")));
        assert!(is_valid(&new("my-suite_2")), "a suite may hold dashes");
        assert!(is_valid("s-1-20250101100000"));
        for bad in [
            "",
            "x/../victim",
            "../../x",
            "s-1-20250101100000/../../x",
            "s/..-1-20250101100000",
            "..-1-20250101100000",
            "s-1-2025010110000",
            "s-x-20250101100000",
            "s-1-2025010110000a",
            "s\n-1-20250101100000",
            "1-20250101100000",
        ] {
            assert!(!is_valid(bad), "{bad:?}");
        }
    }
}
