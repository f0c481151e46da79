//! Which entries fail: the original's two checks, bugs included, and mlb's
//! stricter ones (docs/report.md, "Algorithm", step 2).
//!
//! The original grouped entries by name, in the order it read them, then:
//! 1. removed every entry with a false `completed`;
//! 2. looked for a NaN in each remaining entry's `batch_loss` with
//!    `math.isnan` (an infinite loss passes), removing a failing entry from
//!    the list it was iterating over: the entry right after a removed one was
//!    never checked, so of two adjacent NaN entries only the first fails.
//!
//! A NaN (or missing) `train_item.avg` is no failure there: pandas leaves it
//! out of the mean but counts it in `n`. mlb's stricter check also fails the
//! skipped NaN, an infinite loss and an entry without a throughput that is
//! a measure ([`mlb_record::contract::physical`]).

use mlb_record::contract::read::Entry;
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use std::sync::Arc;

/// Why an entry fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// `completed` is false (the original's check).
    Incomplete,
    /// A NaN (or, in mlb's files, `null`) in `batch_loss` (the original's check).
    NanLoss,
    /// A NaN in `batch_loss` right after an entry the original removed: its
    /// check skipped it (mlb's stricter check only).
    SkippedNanLoss,
    /// An infinite value in `batch_loss` (mlb's stricter check only).
    InfiniteLoss,
    /// `train_item.avg` no measure (NaN, infinite, at or below 1e-9, at or
    /// above 1e15), null or missing (mlb's stricter check only).
    NoThroughput,
}

impl Check {
    /// Every check, in the order they are tried.
    pub const ALL: [Check; 5] =
        [Check::Incomplete, Check::NanLoss, Check::SkippedNanLoss, Check::InfiniteLoss, Check::NoThroughput];

    /// Whether the original fails an entry for this.
    pub fn original(self) -> bool {
        matches!(self, Check::Incomplete | Check::NanLoss)
    }

    /// Short words for tables.
    pub fn label(self) -> &'static str {
        match self {
            Check::Incomplete => "incomplete",
            Check::NanLoss => "nan",
            Check::SkippedNanLoss => "nan (the original skipped it)",
            Check::InfiniteLoss => "infinite loss",
            Check::NoThroughput => "no finite throughput",
        }
    }

    /// What it means.
    pub fn message(self) -> &'static str {
        match self {
            Check::Incomplete => "`completed` is false",
            Check::NanLoss => "a NaN in batch_loss",
            Check::SkippedNanLoss => {
                "a NaN in batch_loss right after another failing entry: the original's check never looked at it"
            }
            Check::InfiniteLoss => "an infinite value in batch_loss (math.isnan is false for it)",
            Check::NoThroughput => {
                "train_item.avg is missing or no measure (NaN, infinite, at most 1e-9 or at least 1e15)"
            }
        }
    }
}

/// Which checks the figures follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The original's checks (the default): the same figures as the original.
    #[default]
    Original,
    /// mlb's stricter checks (`--strict`).
    Strict,
}

impl Rule {
    /// mlb's stricter rule when `strict` (`--strict`), else the original's.
    pub fn strict_if(strict: bool) -> Rule {
        if strict {
            Rule::Strict
        } else {
            Rule::Original
        }
    }

    /// Whether an entry with `check` fails under this rule.
    pub fn fails(self, check: Option<Check>) -> bool {
        match (self, check) {
            (_, None) => false,
            (Rule::Original, Some(c)) => c.original(),
            (Rule::Strict, Some(_)) => true,
        }
    }

    /// The other rule.
    pub fn other(self) -> Rule {
        match self {
            Rule::Original => Rule::Strict,
            Rule::Strict => Rule::Original,
        }
    }
}

/// The first check each entry fails (in the order of [`Check`]), `None` for
/// an entry both rules keep. `entries` must be in the order the original
/// read them.
pub fn judge(entries: &[Entry]) -> Vec<Option<Check>> {
    let mut judge = Judge::default();
    entries.iter().map(|e| judge.next(e)).collect()
}

/// [`judge`] one entry at a time, in the order the original read them: an
/// entry's check depends only on the entries of its name read before it
/// (the original skipped the entry after a NaN loss among those of a
/// name that completed). `mlb db import` judges a folder as it reads it.
#[derive(Debug, Default)]
pub struct Judge {
    /// For each name, whether the next entry of that name that completed
    /// escapes the NaN check (the one after a NaN loss).
    skip_next: HashMap<Option<Arc<str>>, bool>,
}

impl Judge {
    /// The first check `entry`, read after every entry given before, fails.
    pub fn next(&mut self, entry: &Entry) -> Option<Check> {
        if entry.completed == Some(false) {
            return Some(Check::Incomplete);
        }
        let skip = self.skip_next.entry(entry.name.clone()).or_default();
        let nan = if std::mem::take(skip) {
            None
        } else if entry.losses.nan_or_null() {
            *skip = true;
            Some(Check::NanLoss)
        } else {
            None
        };
        nan.or_else(|| stricter(entry))
    }
}

/// mlb's stricter checks of an entry the original keeps.
fn stricter(e: &Entry) -> Option<Check> {
    if e.losses.nan_or_null() {
        Some(Check::SkippedNanLoss)
    } else if e.losses.infinite {
        Some(Check::InfiniteLoss)
    } else if e.avg.and_then(mlb_record::contract::physical::items_per_second).is_none() {
        Some(Check::NoThroughput)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_record::contract::read::Losses;
    use std::path::Path;
    use std::sync::Arc;

    fn e(name: Option<&str>, completed: Option<bool>, nan: bool, infinite: bool, avg: Option<f64>) -> Entry {
        Entry {
            file: Arc::from(Path::new("f.json")),
            name: name.map(Into::into),
            suite: None,
            vcd: Some("0".into()),
            gpu: None,
            slurm_node: None,
            hostname: None,
            completed,
            failure: None,
            avg,
            losses: Losses { nan, infinite, null: false },
            conditions: None,
            flops_per_item: None,
            probe_peak: None,
            args: vec![],
        }
    }

    fn ok(name: &str) -> Entry {
        e(Some(name), Some(true), false, false, Some(10.0))
    }

    fn nan(name: &str) -> Entry {
        e(Some(name), Some(true), true, false, Some(10.0))
    }

    #[test]
    fn adjacent_nans_the_second_is_skipped() {
        use Check::*;
        // a: NaN NaN NaN ok NaN ok NaN NaN -> the original fails the 1st, 3rd, 5th and 7th.
        let entries =
            vec![nan("a"), nan("a"), nan("a"), ok("a"), nan("a"), ok("a"), nan("a"), nan("a"), nan("b"), ok("a")];
        let checks = judge(&entries);
        assert_eq!(
            checks,
            [
                Some(NanLoss),
                Some(SkippedNanLoss),
                Some(NanLoss),
                None,
                Some(NanLoss),
                None,
                Some(NanLoss),
                Some(SkippedNanLoss),
                Some(NanLoss),
                None
            ]
        );
        let original = checks.iter().filter(|c| Rule::Original.fails(**c)).count();
        let strict = checks.iter().filter(|c| Rule::Strict.fails(**c)).count();
        assert_eq!((original, strict), (5, 7));
    }

    #[test]
    fn incomplete_entries_are_removed_first_and_do_not_skip() {
        // The incomplete entry leaves the list before the NaN pass: the NaN
        // after it is checked; groups are by name, null included.
        let entries = vec![
            e(Some("a"), Some(false), false, false, None),
            nan("a"),
            e(None, Some(false), false, false, None),
            e(None, None, false, false, None),
            ok("a"),
        ];
        let checks = judge(&entries);
        assert_eq!(
            checks,
            [Some(Check::Incomplete), Some(Check::NanLoss), Some(Check::Incomplete), Some(Check::NoThroughput), None]
        );
    }

    #[test]
    fn infinite_loss_and_nan_throughput_fail_only_the_strict_check() {
        let entries = vec![
            e(Some("a"), None, false, true, Some(5.0)),
            e(Some("a"), None, false, false, Some(f64::NAN)),
            e(Some("a"), None, false, false, Some(f64::INFINITY)),
            e(Some("a"), None, false, false, Some(-1.0)),
        ];
        let checks = judge(&entries);
        assert_eq!(
            checks,
            [
                Some(Check::InfiniteLoss),
                Some(Check::NoThroughput),
                Some(Check::NoThroughput),
                Some(Check::NoThroughput)
            ]
        );
        assert!(checks.iter().all(|c| !Rule::Original.fails(*c) && Rule::Strict.fails(*c)));
    }
}
