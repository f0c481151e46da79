//! The figures a run keeps (table `run_figures`, schema 5): for each bench
//! and config of the run and each rule of `mlb report`, the items/s and
//! joules per item of the instances that count, written when the run is
//! imported. `mlb db compare`, `mlb db history` and their pages read a row
//! per run, bench and config instead of a row per instance (a system's
//! whole history of 100,000 instances is 12,500 rows), and compute the
//! figures from these values with [`mlb_figures`], as from the instances.
//!
//! The values are kept exactly: each list is its `f64`s' little-endian
//! bytes ([`pack`]), since neither backend's text of a float is sure to
//! read back as the same bits. An instance without a throughput counts
//! with NaN among the speeds (as `mlb report` counts it in `n`); an energy
//! that cannot be a measure is left out of the joules.

use super::{Backend, Store, StoreError};
use mlb_judge::report::{Check, Rule};
use sqlx::{AnyConnection, Row};
use std::collections::BTreeMap;

/// What the figures of one instance are kept from.
#[derive(Clone, Copy, Debug)]
pub struct Counted<'a> {
    pub bench: &'a str,
    pub config: &'a str,
    /// The first check of `mlb report` it fails, by its stored name.
    pub fails_check: Option<&'a str>,
    pub items_per_s: Option<f64>,
    pub joules_per_item: Option<f64>,
}

/// The kept figures of a run's instances of one bench and config that
/// count under one rule.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    pub bench: String,
    pub config: String,
    pub rule: Rule,
    /// Items/s of each instance (NaN without one).
    pub speeds: Vec<f64>,
    /// Joules per item of those with a measure.
    pub joules: Vec<f64>,
}

/// The name the import stores for `check` (instances' `fails_check`): its
/// JSON name, `nan_loss`.
pub fn check_name(check: Check) -> String {
    serde_json::to_value(check).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The check named `name` as the import stores it; an unknown name fails
/// under both rules (a newer mlb's check).
fn check(name: &str) -> Option<Check> {
    Check::ALL.into_iter().find(|c| check_name(*c) == name)
}

/// Whether an instance that fails the check named `fails_check` counts under `rule`.
fn counts(fails_check: Option<&str>, rule: Rule) -> bool {
    match fails_check {
        None => true,
        Some(name) => check(name).is_some_and(|c| !rule.fails(Some(c))),
    }
}

/// The groups of `instances`, under both rules, by bench and config.
pub fn groups<'a>(instances: impl IntoIterator<Item = Counted<'a>>) -> Vec<Group> {
    let mut groups: BTreeMap<(i64, &str, &str), Group> = BTreeMap::new();
    for instance in instances {
        for rule in [Rule::Original, Rule::Strict].into_iter().filter(|r| counts(instance.fails_check, *r)) {
            let group = groups.entry((strict(rule), instance.bench, instance.config)).or_insert_with(|| Group {
                bench: instance.bench.to_string(),
                config: instance.config.to_string(),
                rule,
                ..Group::default()
            });
            group.speeds.push(instance.items_per_s.unwrap_or(f64::NAN));
            group.joules.extend(instance.joules_per_item.and_then(mlb_record::contract::physical::joules_per_item));
        }
    }
    groups.into_values().collect()
}

/// `values` as their little-endian bytes.
pub fn pack(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The values [`pack`] wrote (a trailing partial value, which it never
/// writes, is left out).
pub fn unpack(bytes: &[u8]) -> Vec<f64> {
    bytes.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes"))).collect()
}

/// The column `rule` is kept under: 1 for mlb's stricter rule.
pub fn strict(rule: Rule) -> i64 {
    i64::from(rule == Rule::Strict)
}

/// Groups a statement: 6 values each.
const GROUPS_A_STATEMENT: usize = 1000;

/// Replaces the kept figures of the run `run_id` on `conn` (of `backend`)
/// with `groups`.
pub async fn write(
    conn: &mut AnyConnection,
    backend: Backend,
    run_id: i64,
    groups: &[Group],
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM run_figures WHERE run_id = $1").bind(run_id).execute(&mut *conn).await?;
    for batch in groups.chunks(GROUPS_A_STATEMENT) {
        let sql = format!(
            "INSERT INTO run_figures (run_id, strict, bench, config, speeds, joules) VALUES {}",
            backend.placeholders(batch.len(), 6)
        );
        let query = batch.iter().fold(sqlx::query(&sql), |q, g| {
            let q = q.bind(run_id).bind(strict(g.rule));
            let q = super::bind_text(super::bind_text(q, Some(g.bench.as_str())), Some(g.config.as_str()));
            q.bind(pack(&g.speeds)).bind(pack(&g.joules))
        });
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

/// The key in `store_info` that says every run's figures are kept (the
/// runs of a store older than schema 5 are filled once, when a writer
/// first opens it).
pub const KEPT: &str = "run_figures";

/// The schema version that brought the kept figures: a store migrated to it
/// or later whose figures are not kept yet reads as the version before.
pub const SINCE: i64 = 5;

impl Store {
    /// Whether every run's figures are kept.
    pub(super) fn run_figures_kept(&self) -> Result<bool, StoreError> {
        let query = sqlx::query_scalar::<_, String>("SELECT value FROM store_info WHERE key = $1").bind(KEPT);
        let found = self.block_on(query.fetch_optional(self.pool()));
        Ok(found.map_err(|e| StoreError::query(self.location(), "reading whether its figures are kept", &e))?.is_some())
    }

    /// Keeps the figures of every run from its stored instances, in one
    /// transaction, and records that they are kept: a store of schema 5
    /// whose runs were imported before it.
    pub(super) fn keep_run_figures(&self) -> Result<(), StoreError> {
        let failed = |e: sqlx::Error| StoreError::query(self.location(), "keeping the figures of its runs", &e);
        let backend = self.backend();
        self.block_on(async {
            let mut conn = self.pool().acquire().await?;
            let mut tx = sqlx::Connection::begin(&mut *conn).await?;
            let runs: Vec<i64> = sqlx::query_scalar("SELECT id FROM runs ORDER BY id").fetch_all(&mut *tx).await?;
            for batch in runs.chunks(RUNS_A_READ) {
                refill(&mut tx, backend, batch).await?;
            }
            sqlx::query("INSERT INTO store_info (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
                .bind(KEPT)
                .bind("kept")
                .execute(&mut *tx)
                .await?;
            tx.commit().await
        })
        .map_err(failed)
    }
}

/// Runs whose instances are read at once when their figures are kept again.
pub const RUNS_A_READ: usize = 100;

/// Keeps the figures of the runs `runs` (at most [`RUNS_A_READ`]) again
/// from their stored instances, on `conn` (of `backend`): in the order they
/// were stored, the import's, so that the values are those the import kept,
/// in its order, and every figure summed from them the same bits.
pub async fn refill(conn: &mut AnyConnection, backend: Backend, runs: &[i64]) -> Result<(), sqlx::Error> {
    type Stored = (i64, String, String, Option<String>, Option<f64>, Option<f64>);
    let sql = format!(
        "SELECT run_id, bench, config, fails_check, items_per_s, joules_per_item FROM instances WHERE run_id IN {} \
         ORDER BY run_id, id",
        backend.placeholders(1, runs.len())
    );
    let rows = runs.iter().fold(sqlx::query(&sql), |q, id| q.bind(*id)).fetch_all(&mut *conn).await?;
    let mut by_run: BTreeMap<i64, Vec<Stored>> = runs.iter().map(|id| (*id, Vec::new())).collect();
    for row in rows {
        let stored: Stored =
            (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?, row.try_get(3)?, row.try_get(4)?, row.try_get(5)?);
        by_run.entry(stored.0).or_default().push(stored);
    }
    for (run, instances) in &by_run {
        let counted = instances.iter().map(|(_, bench, config, fails_check, items_per_s, joules_per_item)| Counted {
            bench,
            config,
            fails_check: fails_check.as_deref(),
            items_per_s: *items_per_s,
            joules_per_item: *joules_per_item,
        });
        write(conn, backend, *run, &groups(counted)).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted<'a>(
        bench: &'a str,
        fails_check: Option<&'a str>,
        items: Option<f64>,
        joules: Option<f64>,
    ) -> Counted<'a> {
        Counted { bench, config: "{}", fails_check, items_per_s: items, joules_per_item: joules }
    }

    #[test]
    fn each_rule_keeps_the_instances_it_counts_and_energies_that_are_measures() {
        let instances = [
            counted("vae", None, Some(100.0), Some(2.0)),
            counted("vae", Some("no_throughput"), None, None),
            counted("vae", Some("nan_loss"), Some(90.0), None),
            counted("vae", Some("a check of a newer mlb"), Some(80.0), None),
            counted("wlm", None, Some(5.0), Some(0.0)),
        ];
        let groups = groups(instances);
        let find = |bench: &str, rule| groups.iter().find(|g| g.bench == bench && g.rule == rule).unwrap();
        let original = find("vae", Rule::Original);
        assert_eq!(original.speeds.len(), 2, "the original counts an instance without a throughput");
        assert!(original.speeds[1].is_nan());
        assert_eq!(original.joules, [2.0]);
        assert_eq!(
            (find("vae", Rule::Strict).speeds.as_slice(), find("wlm", Rule::Strict).joules.len()),
            (&[100.0][..], 0)
        );
        assert_eq!(groups.len(), 4);
    }

    #[test]
    fn values_come_back_bit_for_bit() {
        let values = [0.1 + 0.2, f64::NAN, -0.0, f64::MIN_POSITIVE, 1e300];
        let back = unpack(&pack(&values));
        assert_eq!(back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), values.map(f64::to_bits));
        assert_eq!(unpack(&[1, 2, 3]), Vec::<f64>::new());
    }
}
