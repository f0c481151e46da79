//! Report file names and timestamps.

use chrono::{DateTime, Utc};

/// `<suite>.<name>.R<run>.D<vcd>[.FAIL].<UTC yyyymmdd-HHMMSS-micro>.json`.
///
/// Path separators in the parts are replaced so a name can never escape the
/// output folder.
pub fn file_name(suite: &str, name: &str, run_id: u64, vcd: &str, failed: bool, at: DateTime<Utc>) -> String {
    let fail = if failed { "FAIL." } else { "" };
    format!("{}{fail}{}.json", file_name_prefix(suite, name, run_id, vcd), at.format("%Y%m%d-%H%M%S-%6f"))
}

/// What every report file name of one instance starts with:
/// `<suite>.<name>.R<run>.D<vcd>.`.
pub fn file_name_prefix(suite: &str, name: &str, run_id: u64, vcd: &str) -> String {
    format!("{}.{}.R{run_id}.D{}.", clean(suite), clean(name), clean(vcd))
}

/// `part` of a file name with its path separators replaced by `_`.
pub fn clean(part: &str) -> String {
    part.replace(['/', '\\'], "_")
}

/// A UTC time as the original suite wrote it: `2019-05-01 12:00:00.123456`.
pub fn timestamp(at: DateTime<Utc>) -> String {
    at.format(TIMESTAMP).to_string()
}

/// A time [`timestamp`] wrote, read back.
pub fn parse_timestamp(text: &str) -> Option<DateTime<Utc>> {
    chrono::NaiveDateTime::parse_from_str(text, TIMESTAMP).ok().map(|t| t.and_utc())
}

/// The format of [`timestamp`].
const TIMESTAMP: &str = "%Y-%m-%d %H:%M:%S%.6f";

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_timestamp_reads_back() {
        let at = Utc.with_ymd_and_hms(2026, 11, 21, 9, 5, 7).unwrap() + chrono::Duration::microseconds(42);
        assert_eq!(timestamp(at), "2026-11-21 09:05:07.000042");
        assert_eq!(parse_timestamp(&timestamp(at)), Some(at));
        assert_eq!(parse_timestamp("yesterday"), None);
    }

    #[test]
    fn names_follow_compat() {
        let at = Utc.with_ymd_and_hms(2026, 11, 21, 9, 5, 7).unwrap() + chrono::Duration::microseconds(42);
        assert_eq!(
            file_name("baselines", "toy_reg", 0, "3", false, at),
            "baselines.toy_reg.R0.D3.20261121-090507-000042.json"
        );
        assert_eq!(file_name("s", "a/b", 12, "0,1", true, at), "s.a_b.R12.D0,1.FAIL.20261121-090507-000042.json");
        assert_eq!(timestamp(at), "2026-11-21 09:05:07.000042");
    }
}
