//! The filters of `mlb db` queries as SQL conditions on a run (`r`) and its
//! system (`s`): every value bound, never written into the text.

use super::args::{Filters, RunFilters};
use super::sql::Sql;

/// Appends ` AND ...` for each filter of `f` to `sql`, whose `FROM` names
/// the run `r` and its system `s`.
pub fn restrict(sql: &mut Sql, f: &Filters) {
    if let Some(system) = &f.system {
        sql.push(" AND s.name = ").text(system);
    }
    restrict_runs(sql, &f.runs);
}

/// Appends ` AND ...` for each filter of `f` to `sql`, whose `FROM` names
/// the run `r`.
pub fn restrict_runs(sql: &mut Sql, f: &RunFilters) {
    if let Some(run) = f.run {
        sql.push(" AND r.id = ").bind(super::sql::Bind::Int(run));
    }
    for (key, value) in &f.tags {
        sql.push(" AND EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.id AND t.key = ").text(key);
        sql.push(" AND t.value = ").text(value).push(")");
    }
    if let Some(since) = &f.since {
        sql.push(" AND r.started_at >= ").text(since);
    }
    if let Some(until) = &f.until {
        sql.push(" AND r.started_at < ").text(until);
    }
    if let Some(config) = &f.config {
        sql.push(" AND EXISTS (SELECT 1 FROM instances c WHERE c.run_id = r.id AND (c.bench = ").text(config);
        sql.push(" OR c.config = ").text(config).push("))");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::query::sql::Bind;

    #[test]
    fn every_filter_is_a_bound_condition() {
        let f = Filters {
            system: Some("a'b".into()),
            runs: RunFilters {
                tags: vec![("k".into(), "v;--".into())],
                since: Some("2026-01-01T00:00:00Z".into()),
                until: None,
                config: Some("vae".into()),
                run: None,
            },
        };
        let mut sql = Sql::new("WHERE 1 = 1");
        restrict(&mut sql, &f);
        assert!(!sql.text.contains("a'b") && !sql.text.contains("v;--"), "{}", sql.text);
        assert_eq!(sql.binds.len(), 6);
        assert_eq!(sql.binds[0], Bind::Text("a'b".into()));
        assert!(sql.text.ends_with("(c.bench = $5 OR c.config = $6))"), "{}", sql.text);
    }
}
