//! The figures of `mlb report` in SQL, over the instances `i` of a query:
//! which instances count (by the check the import stored, under the
//! report's rule) and the mean joules per item of those with a measure.

use super::sql::{Bind, Sql};
use crate::report::{Check, Rule};

/// The name the import stores for `check` (its JSON name, `nan_loss`).
fn name(check: Check) -> String {
    serde_json::to_value(check).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Appends ` AND` the condition that instance `i` counts under `rule`: it
/// fails no check, or only checks `rule` lets pass (docs/report.md,
/// "mlb's stricter check").
pub fn counts(sql: &mut Sql, rule: Rule) {
    sql.push(" AND (i.fails_check IS NULL");
    let passing: Vec<Check> = Check::ALL.into_iter().filter(|c| !rule.fails(Some(*c))).collect();
    if !passing.is_empty() {
        sql.push(" OR i.fails_check IN (");
        for (k, check) in passing.into_iter().enumerate() {
            sql.push(if k == 0 { "" } else { ", " }).bind(Bind::Text(name(check)));
        }
        sql.push(")");
    }
    sql.push(")");
}

/// Appends the joules per item of instance `i` where it can be a measure
/// and NULL elsewhere, as `mlb report` leaves them out
/// ([`mlb_record::contract::physical::joules_per_item`]: at or below its floor,
/// above its ceiling; a store imported before the rule may hold them); its
/// square with `squared`.
fn joules(sql: &mut Sql, squared: bool) {
    use mlb_record::contract::physical::{FLOOR, MAX_JOULES_PER_ITEM};
    sql.push("CASE WHEN i.joules_per_item > ").bind(Bind::Real(FLOOR));
    sql.push(" AND i.joules_per_item <= ").bind(Bind::Real(MAX_JOULES_PER_ITEM));
    sql.push(if squared { " THEN i.joules_per_item * i.joules_per_item END" } else { " THEN i.joules_per_item END" });
}

/// Appends the mean joules per item of the instances `i` that can be a measure.
pub fn mean_energy(sql: &mut Sql) {
    sql.push("AVG(");
    joules(sql, false);
    sql.push(")");
}

/// Appends `AVG(x), COUNT(x), AVG(x * x)` of the figure `x` of the
/// instances `i`: items/s, or with `energy` joules per item where it can be
/// a measure. [`crate::report::welch::Moments::from_sums`] makes their
/// moments of them.
pub fn moments(sql: &mut Sql, energy: bool) {
    if !energy {
        sql.push("AVG(i.items_per_s), COUNT(i.items_per_s), AVG(i.items_per_s * i.items_per_s)");
        return;
    }
    mean_energy(sql);
    sql.push(", COUNT(");
    joules(sql, false);
    sql.push("), AVG(");
    joules(sql, true);
    sql.push(")");
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
}
