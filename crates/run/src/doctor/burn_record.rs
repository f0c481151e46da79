//! The burn record: every burn (`mlb burn`, `mlb doctor --deep`) leaves its
//! per-slot verdicts where a later campaign finds them, one file per host
//! (`HOST.json` in [`dir`]: `MLB_BURN_DIR`, else `/var/lib/mlb/burn`), and
//! `mlb --jobs ... --strict-preflight` refuses a slot whose GPU failed its
//! last burn (docs/burn.md, "Before a campaign").
//!
//! A slot is known by its host, its device index and its GPU's model: a
//! record whose GPU at that index is another model (the GPU was replaced)
//! does not apply. A record older than [`MAX_AGE`], or none, is said (a
//! warning) and refuses nothing: a campaign is not held back by a host that
//! was never burnt.

use crate::check::{Check, Status};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The variable naming the folder of the records.
pub const DIR_VAR: &str = "MLB_BURN_DIR";
/// The folder of the records when [`DIR_VAR`] is not set.
pub const DEFAULT_DIR: &str = "/var/lib/mlb/burn";
/// A record older than this is stale: a week.
pub const MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// One host's last burn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The host (its name, or the Slurm node).
    pub host: String,
    /// When the burn was judged, seconds since the epoch.
    pub time: i64,
    /// The burn's verdict file.
    pub burn: PathBuf,
    /// Every slot of the host the burn judged.
    pub slots: Vec<SlotRecord>,
}

/// One slot's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlotRecord {
    /// The device index (`vcd`).
    pub slot: String,
    /// The GPU's model; `None` for a CPU slot.
    pub gpu: Option<String>,
    /// Whether every check of the slot passed.
    pub passed: bool,
    /// Its failed checks' reasons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A slot a campaign would use: its host, device index and GPU model
/// (`None` when not known, or a CPU slot).
#[derive(Clone, Debug, PartialEq)]
pub struct Wanted {
    /// The host.
    pub host: String,
    /// The device index.
    pub slot: String,
    /// The GPU's model.
    pub gpu: Option<String>,
}

/// The folder of the records: `MLB_BURN_DIR`, else [`DEFAULT_DIR`].
pub fn dir() -> PathBuf {
    std::env::var_os(DIR_VAR).filter(|d| !d.is_empty()).map_or_else(|| PathBuf::from(DEFAULT_DIR), PathBuf::from)
}

/// This host's name, as the records key it.
pub fn this_host() -> String {
    nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_else(|_| "unknown".into())
}

/// Writes `records` into `dir`, one `HOST.json` each (replacing the
/// host's last).
pub fn write(dir: &Path, records: &[Record]) -> std::io::Result<()> {
    for record in records {
        let value = serde_json::to_value(record).expect("a record serialises");
        mlb_record::contract::record::write_atomic(dir, &format!("{}.json", record.host), &value)?;
    }
    Ok(())
}

/// How far ahead of this host's clock a record may be dated (another
/// host's clock may be off): five minutes. A record dated later is not
/// taken: it would count as fresh for years.
pub const CLOCK_SKEW: Duration = Duration::from_secs(5 * 60);

/// The largest record read: 1 MiB (a record of 64 slots is under 10 KiB).
pub const RECORD_LIMIT: u64 = 1 << 20;

/// The pre-flight checks of `wanted` against the records of `dir` at
/// `now` (seconds since the epoch): a failed check per slot that failed its
/// last burn; a warning per host whose record is absent, unreadable, dated
/// in the future or older than `max_age`, and per host with a slot its
/// record does not cover (not burned, or burned with another GPU there);
/// a passed check per host whose every slot passed.
pub fn checks(dir: &Path, wanted: &[Wanted], now: i64, max_age: Duration) -> Vec<Check> {
    let mut hosts: Vec<&str> = wanted.iter().map(|w| w.host.as_str()).collect();
    hosts.dedup();
    let mut out = Vec::new();
    for host in hosts {
        let name = format!("burn {host}");
        let file = dir.join(format!("{host}.json"));
        let fix = format!("run `mlb burn` (or `mlb doctor --deep`) on {host} before the campaign");
        let record = match read(&file, now) {
            Ok(Some(r)) => r,
            Ok(None) => {
                out.push(Check::not(Status::Warn, name, format!("no burn recorded ({} absent)", file.display()), fix));
                continue;
            }
            Err(why) => {
                out.push(Check::not(Status::Warn, name, format!("cannot read {}: {why}", file.display()), fix));
                continue;
            }
        };
        let when = chrono::DateTime::from_timestamp(record.time, 0)
            .map_or_else(|| record.time.to_string(), |t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
        let age = now.saturating_sub(record.time);
        if age > max_age.as_secs() as i64 {
            let found = format!(
                "the last burn ({when}, {}) is {} h old, past {} h",
                record.burn.display(),
                age / 3600,
                max_age.as_secs() / 3600
            );
            out.push(Check::not(Status::Warn, name, found, fix));
            continue;
        }
        let mut failed = false;
        let mut not_burned = Vec::new();
        for w in wanted.iter().filter(|w| w.host == host) {
            let judged = record.slots.iter().find(|s| s.slot == w.slot);
            let Some(s) = judged.filter(|s| w.gpu.is_none() || s.gpu.is_none() || w.gpu == s.gpu) else {
                not_burned.push(w.slot.as_str());
                continue;
            };
            if !s.passed {
                failed = true;
                let what =
                    s.gpu.as_deref().map_or_else(|| format!("slot {}", w.slot), |g| format!("slot {} ({g})", w.slot));
                let found = format!(
                    "{what} failed its last burn ({when}, {}): {}",
                    record.burn.display(),
                    s.reason.as_deref().unwrap_or("failed")
                );
                let fix = format!(
                    "repair or replace the device and burn it again (`mlb burn` on {host}), or leave the slot out (`--devices`)"
                );
                out.push(Check::not(Status::Fail, format!("burn {host} slot {}", w.slot), found, fix));
            }
        }
        if !not_burned.is_empty() {
            let found = format!(
                "slot {} not burned: the last burn ({when}, {}) did not judge it (or judged another GPU there)",
                not_burned.join(", "),
                record.burn.display()
            );
            out.push(Check::not(Status::Warn, name, found, fix));
        } else if !failed {
            out.push(Check::pass(name, format!("every slot passed its last burn ({when}, {})", record.burn.display())));
        }
    }
    out
}

/// The record in `file`, read at `now`, its burn's path and reasons with
/// their control characters escaped: `None` when there is none; an error
/// when it is not a regular file of at most [`RECORD_LIMIT`] bytes (a FIFO
/// is refused without waiting), not a record, or dated more than
/// [`CLOCK_SKEW`] after `now`.
fn read(file: &Path, now: i64) -> Result<Option<Record>, String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let name = Path::new(file.file_name().unwrap_or_default());
    let bytes = match crate::linux::dir::Dir::open(dir).and_then(|d| d.read_bounded(name, RECORD_LIMIT)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        read => read.map_err(|e| e.to_string())?,
    };
    let mut record: Record = serde_json::from_slice(&bytes)
        .map_err(|e| format!("not a burn record (line {}, column {})", e.line(), e.column()))?;
    // Its text is shown in the checks: no control character reaches the terminal.
    let visible = |text: &str| mlb_record::untrusted::visible(text).into_owned();
    record.burn = PathBuf::from(visible(&record.burn.to_string_lossy()));
    for slot in &mut record.slots {
        slot.reason = slot.reason.as_deref().map(visible);
    }
    if record.time > now.saturating_add(CLOCK_SKEW.as_secs() as i64) {
        return Err(format!(
            "dated {} s in the future, past the {} s a clock may be off: not taken",
            record.time - now,
            CLOCK_SKEW.as_secs()
        ));
    }
    Ok(Some(record))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: i64 = 3600;

    fn record(time: i64, slots: &[(&str, bool)]) -> Record {
        Record {
            host: "h1".into(),
            time,
            burn: "/runs/burn/burn.json".into(),
            slots: slots
                .iter()
                .map(|&(slot, passed)| SlotRecord {
                    slot: slot.into(),
                    gpu: Some("NVIDIA H100".into()),
                    passed,
                    reason: (!passed).then(|| "gemm 0.5 TFLOPS, 50% of the best slot's 1.0 (at least 90%)".into()),
                })
                .collect(),
        }
    }

    fn wanted(slots: &[&str]) -> Vec<Wanted> {
        slots
            .iter()
            .map(|s| Wanted { host: "h1".into(), slot: s.to_string(), gpu: Some("NVIDIA H100".into()) })
            .collect()
    }

    fn outcome(dir: &Path, slots: &[&str], now: i64) -> Vec<(Status, String)> {
        checks(dir, &wanted(slots), now, MAX_AGE).into_iter().map(|c| (c.status, c.name)).collect()
    }

    #[test]
    fn a_slot_that_failed_its_last_burn_fails_and_the_others_pass() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &[record(100 * HOUR, &[("0", true), ("1", false)])]).unwrap();
        let got = checks(dir.path(), &wanted(&["0", "1"]), 101 * HOUR, MAX_AGE);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!((got[0].status, got[0].name.as_str()), (Status::Fail, "burn h1 slot 1"));
        let found = &got[0].found;
        assert!(
            found.starts_with(
                "slot 1 (NVIDIA H100) failed its last burn (1970-01-05T04:00:00Z, /runs/burn/burn.json): gemm"
            ),
            "{found}"
        );
        assert!(got[0].fix.contains("--devices"));
        assert_eq!(outcome(dir.path(), &["0"], 101 * HOUR), [(Status::Pass, "burn h1".to_string())]);
    }

    #[test]
    fn a_stale_absent_or_replaced_record_refuses_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(outcome(dir.path(), &["1"], 0), [(Status::Warn, "burn h1".to_string())]);
        write(dir.path(), &[record(0, &[("1", false)])]).unwrap();
        assert_eq!(outcome(dir.path(), &["1"], 8 * 24 * HOUR), [(Status::Warn, "burn h1".to_string())]);
        let mut other = wanted(&["1"]);
        other[0].gpu = Some("NVIDIA A100".into());
        let got = checks(dir.path(), &other, HOUR, MAX_AGE);
        assert_eq!(got[0].status, Status::Warn, "another GPU at the index: the record is not its: {got:?}");
        assert!(got[0].found.starts_with("slot 1 not burned"), "{got:?}");
    }

    #[test]
    fn a_slot_the_record_does_not_name_is_not_burned() {
        let dir = tempfile::tempdir().unwrap();
        for slots in [&[][..], &[("0", true)][..]] {
            write(dir.path(), &[record(100 * HOUR, slots)]).unwrap();
            let got = checks(dir.path(), &wanted(&["0", "1"]), 101 * HOUR, MAX_AGE);
            assert_eq!(got.len(), 1, "{got:?}");
            assert_eq!(got[0].status, Status::Warn, "{slots:?}: {got:?}");
            assert!(got[0].found.contains("1 not burned") && !got[0].found.contains("passed"), "{got:?}");
        }
    }

    #[test]
    fn a_record_dated_in_the_future_is_not_taken() {
        let dir = tempfile::tempdir().unwrap();
        let now = 100 * HOUR;
        write(dir.path(), &[record(now + 10 * 365 * 24 * HOUR, &[("0", true)])]).unwrap();
        let got = checks(dir.path(), &wanted(&["0"]), now, MAX_AGE);
        assert_eq!(got[0].status, Status::Warn, "{got:?}");
        assert!(got[0].found.contains("in the future"), "{got:?}");
        // A clock a minute off is no fault.
        write(dir.path(), &[record(now + 60, &[("0", true)])]).unwrap();
        assert_eq!(outcome(dir.path(), &["0"], now), [(Status::Pass, "burn h1".to_string())]);
    }

    #[test]
    fn a_records_text_reaches_the_checks_escaped() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = record(100 * HOUR, &[("0", false)]);
        r.burn = "/runs/\u{1b}[2J/burn.json".into();
        r.slots[0].reason = Some("slow\nburn h1: pass".into());
        write(dir.path(), &[r]).unwrap();
        let got = checks(dir.path(), &wanted(&["0"]), 101 * HOUR, MAX_AGE);
        assert!(!got[0].found.contains(char::is_control), "{got:?}");
        assert!(got[0].found.contains("/runs/\\u{1b}[2J/burn.json") && got[0].found.ends_with("slow\\nburn h1: pass"));
    }

    #[test]
    fn a_record_that_never_ends_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        nix::unistd::mkfifo(&dir.path().join("h1.json"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let got = checks(dir.path(), &wanted(&["0"]), 0, MAX_AGE);
        assert!(got[0].status == Status::Warn && got[0].found.contains("a FIFO"), "{got:?}");
        std::fs::remove_file(dir.path().join("h1.json")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("h1.json")).unwrap();
        let got = checks(dir.path(), &wanted(&["0"]), 0, MAX_AGE);
        assert!(got[0].status == Status::Warn && got[0].found.contains("symbolic link"), "{got:?}");
        std::fs::remove_file(dir.path().join("h1.json")).unwrap();
        std::fs::File::create(dir.path().join("h1.json")).unwrap().set_len(RECORD_LIMIT + 1).unwrap();
        let got = checks(dir.path(), &wanted(&["0"]), 0, MAX_AGE);
        assert!(got[0].status == Status::Warn && got[0].found.contains("over the limit"), "{got:?}");
    }
}
