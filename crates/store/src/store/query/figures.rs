//! The figures of `mlb report` over the instances `i` of a query: which
//! instances count (by the check the import stored, under the report's
//! rule), in SQL; their items/s and joules per item (where it can be a
//! measure), whose figures [`mlb_figures`] computes, as for `mlb report`
//! (its sums do not depend on the order of the rows), so that a view of
//! the store and the report cannot disagree. Comparisons and histories
//! read the same values as each run keeps them (`f`, [`kept_group`]).

use super::sql::{Bind, Sql};
use crate::store::run_figures::check_name;
use crate::store::Backend;
use mlb_figures::Sample;
use mlb_judge::report::{Check, Rule};
use std::collections::BTreeMap;

/// Appends ` AND` the condition that instance `i` counts under `rule`: it
/// fails no check, or only checks `rule` lets pass (docs/report.md,
/// "mlb's stricter check").
pub fn counts(sql: &mut Sql, rule: Rule) {
    sql.push(" AND (i.fails_check IS NULL");
    let passing: Vec<Check> = Check::ALL.into_iter().filter(|c| !rule.fails(Some(*c))).collect();
    if !passing.is_empty() {
        sql.push(" OR i.fails_check IN (");
        for (k, check) in passing.into_iter().enumerate() {
            sql.push(if k == 0 { "" } else { ", " }).bind(Bind::Text(check_name(check)));
        }
        sql.push(")");
    }
    sql.push(")");
}

/// Appends `, i.items_per_s` and the joules per item of instance `i` where
/// it can be a measure, NULL elsewhere, as `mlb report` leaves them out
/// ([`mlb_record::contract::physical::joules_per_item`]: at or below its
/// floor, above its ceiling; a store imported before the rule may hold
/// them): the columns of [`Measured`].
pub fn select_figures(sql: &mut Sql) {
    use mlb_record::contract::physical::{FLOOR, MAX_JOULES_PER_ITEM};
    sql.push(", i.items_per_s AS items_per_s, CASE WHEN i.joules_per_item > ").bind(Bind::Real(FLOOR));
    sql.push(" AND i.joules_per_item <= ").bind(Bind::Real(MAX_JOULES_PER_ITEM));
    sql.push(" THEN i.joules_per_item END AS joules_per_item");
}

/// One instance's figures, as [`select_figures`] selects them.
#[derive(Clone, Copy, Debug, Default, PartialEq, sqlx::FromRow)]
pub struct Measured {
    /// Its items/s.
    pub items_per_s: Option<f64>,
    /// Its joules per item, where it can be a measure.
    pub joules_per_item: Option<f64>,
}

/// The figures of a group of instances that count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instances {
    /// Items/s of each (NaN without one: counted in `n`, as `mlb report`).
    speeds: Vec<f64>,
    /// Joules per item of those with a measure.
    joules: Vec<f64>,
}

impl Instances {
    /// Adds an instance.
    pub fn add(&mut self, instance: Measured) {
        self.speeds.push(instance.items_per_s.unwrap_or(f64::NAN));
        self.joules.extend(instance.joules_per_item);
    }

    /// Adds the instances of `other`.
    pub fn extend(&mut self, other: Instances) {
        self.speeds.extend(other.speeds);
        self.joules.extend(other.joules);
    }

    /// The instances.
    pub fn n(&self) -> usize {
        self.speeds.len()
    }

    /// Their items/s, as the report's rows give them.
    pub fn speed(&self) -> Sample {
        Sample::of(&self.speeds)
    }

    /// The joules per item of those with a measure.
    pub fn energy(&self) -> Sample {
        Sample::of(&self.joules)
    }

    /// Their finite items/s, or with `energy` their joules per item: what a point of a history is the mean of, and what the
    /// regression rule judges.
    pub fn measures(&self, energy: bool) -> Vec<f64> {
        let values = if energy { &self.joules } else { &self.speeds };
        values.iter().copied().filter(|v| v.is_finite()).collect()
    }
}

/// The SQL of one text holding the figures runs keep (`f`, of the runs
/// `r`) of a group of rows: each row's `RUN:SPEEDS:JOULES` (the run's id,
/// then the packed values in hexadecimal), joined by commas. A group is
/// read as one row ([`unpack_group`]): a row per run and bench cost more in
/// passing rows between the database's thread and the query's than the
/// database took to find them (20,000 rows, 136 ms, for a comparison of
/// five systems).
pub fn kept_group(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "group_concat(r.id || ':' || hex(f.speeds) || ':' || hex(f.joules), ',')",
        Backend::Postgres => {
            "string_agg(r.id::text || ':' || encode(f.speeds, 'hex') || ':' || encode(f.joules, 'hex'), ',')"
        }
    }
}

/// The rows of a group [`kept_group`] wrote: each run's id and its
/// instances' figures. A part that is not one is left out (it never writes
/// one).
pub fn unpack_group(text: &str) -> Vec<(i64, Instances)> {
    use crate::store::run_figures::unpack;
    let hex = |h: &str| -> Option<Vec<u8>> {
        let digits = h.as_bytes();
        digits.len().is_multiple_of(2).then_some(())?;
        digits.chunks(2).map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()).collect()
    };
    text.split(',')
        .filter_map(|part| {
            let mut fields = part.split(':');
            let run = fields.next()?.parse().ok()?;
            let (speeds, joules) = (hex(fields.next()?)?, hex(fields.next()?)?);
            Some((run, Instances { speeds: unpack(&speeds), joules: unpack(&joules) }))
        })
        .collect()
}

/// Appends ` AND` the condition that the kept figures `f` are those of `rule`.
pub fn kept_under(sql: &mut Sql, rule: Rule) {
    sql.push(" AND f.strict = ").bind(Bind::Int(crate::store::run_figures::strict(rule)));
}

/// Groups instances by key.
pub fn grouped<K: Ord>(rows: impl IntoIterator<Item = (K, Measured)>) -> BTreeMap<K, Instances> {
    let mut groups: BTreeMap<K, Instances> = BTreeMap::new();
    for (key, instance) in rows {
        groups.entry(key).or_default().add(instance);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_original_rule_lets_the_stricter_checks_pass() {
        let mut sql = Sql::new("WHERE 1 = 1");
        counts(&mut sql, Rule::Original);
        assert_eq!(sql.text, "WHERE 1 = 1 AND (i.fails_check IS NULL OR i.fails_check IN ($1, $2, $3))");
        let names: Vec<Bind> =
            ["skipped_nan_loss", "infinite_loss", "no_throughput"].map(|n| Bind::Text(n.into())).into();
        assert_eq!(sql.binds, names);
        let mut sql = Sql::new("");
        counts(&mut sql, Rule::Strict);
        assert_eq!((sql.text.as_str(), sql.binds.len()), (" AND (i.fails_check IS NULL)", 0));
    }

    #[test]
    fn groups_keep_every_instance_in_n_and_only_measures_in_the_figures() {
        let measured = |items_per_s, joules_per_item| Measured { items_per_s, joules_per_item };
        let rows = [
            ("vae", measured(Some(100.0), Some(2.0))),
            ("wlm", measured(None, None)),
            ("vae", measured(Some(80.0), None)),
            ("vae", measured(None, None)),
        ];
        let groups = grouped(rows);
        let vae = &groups["vae"];
        assert_eq!((vae.n(), vae.speed().n, vae.speed().count, vae.speed().mean), (3, 3, 2, Some(90.0)));
        assert_eq!((vae.energy().n, vae.energy().mean), (1, Some(2.0)));
        assert_eq!((vae.measures(false), vae.measures(true)), (vec![100.0, 80.0], vec![2.0]));
        assert_eq!((groups["wlm"].n(), groups["wlm"].speed().mean), (1, None));
    }

    #[test]
    fn a_group_of_kept_figures_reads_back_bit_for_bit_in_either_case() {
        use crate::store::run_figures::pack;
        let hex = |v: &[f64]| pack(v).iter().map(|b| format!("{b:02X}")).collect::<String>();
        let text =
            format!("7:{}:{},12:{}:,junk", hex(&[0.1 + 0.2, f64::NAN]), hex(&[2.5]), hex(&[1e-300]).to_lowercase());
        let rows = unpack_group(&text);
        assert_eq!(rows.len(), 2, "the part that is not one is left out");
        assert_eq!(
            (rows[0].0, rows[0].1.speeds[0].to_bits(), rows[0].1.joules.clone()),
            (7, (0.1 + 0.2f64).to_bits(), vec![2.5])
        );
        assert!(rows[0].1.speeds[1].is_nan());
        assert_eq!((rows[1].0, rows[1].1.speeds.clone(), rows[1].1.n()), (12, vec![1e-300], 1));
    }
}
