//! Which runs a query of the store reads (`mlb db` and `mlb serve` alike),
//! how a person writes a filter, and the filters as SQL conditions on a run
//! (`r`) and its system (`s`): every value bound, never written into the
//! text.

use super::sql::Sql;

/// Which runs a query reads: every filter given must hold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filters {
    /// Only runs of this system (its name in `mlb db systems`).
    pub system: Option<String>,
    /// The other filters.
    pub runs: RunFilters,
}

/// Which runs of a system a query reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunFilters {
    /// Only runs with each of these tags.
    pub tags: Vec<(String, String)>,
    /// Only runs started on or after this time (RFC 3339, UTC: [`day_or_time`]).
    pub since: Option<String>,
    /// Only runs started before this time ([`end_of_day_or_time`]).
    pub until: Option<String>,
    /// Only runs holding this bench or config (`convnet`, `convnet[arch=resnet18]`).
    pub config: Option<String>,
    /// Only the run of this id (`mlb serve`'s run page).
    pub run: Option<i64>,
    /// Which runs under embargo are seen (none, by default).
    pub visible: Visible,
}

/// Which runs under embargo a query sees (a pushed run's `embargo_until`,
/// docs/serve.md): none unless asked, so that a query that forgets to say
/// publishes nothing early.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Visible {
    /// Public runs only: none under embargo.
    #[default]
    Public,
    /// Public runs and those the push key of this id pushed.
    Key(i64),
    /// Every run (`mlb db ... --embargoed`, the store's owner).
    All,
}

/// Parses a tag, `KEY=VALUE` (the key not empty, the value as it is).
pub fn tag(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("`{text}` is not KEY=VALUE")),
    }
}

/// A day (`2026-01-31`, its first second) or an RFC 3339 time, as an RFC 3339 UTC time.
pub fn day_or_time(text: &str) -> Result<String, String> {
    moment(text, false)
}

/// A day (`2026-01-31`, the first second of the next day) or an RFC 3339 time.
pub fn end_of_day_or_time(text: &str) -> Result<String, String> {
    moment(text, true)
}

fn moment(text: &str, end: bool) -> Result<String, String> {
    use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
    let utc = if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let day = if end { day.succ_opt().unwrap_or(day) } else { day };
        day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc()
    } else {
        DateTime::parse_from_rfc3339(text)
            .map_err(|_| format!("`{text}` is neither a day (2026-01-31) nor an RFC 3339 time"))?
            .with_timezone(&Utc)
    };
    Ok(utc.to_rfc3339_opts(SecondsFormat::Secs, true))
}

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
    if f.visible != Visible::All {
        sql.push(" AND (r.embargo_until IS NULL OR r.embargo_until <= ").text(&crate::store::import::rows::now());
        if let Visible::Key(key) = f.visible {
            sql.push(" OR r.pushed_by = ").bind(super::sql::Bind::Int(key));
        }
        sql.push(")");
    }
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
                visible: Visible::All,
            },
        };
        let mut sql = Sql::new("WHERE 1 = 1");
        restrict(&mut sql, &f);
        assert!(!sql.text.contains("a'b") && !sql.text.contains("v;--"), "{}", sql.text);
        assert_eq!(sql.binds.len(), 6);
        assert_eq!(sql.binds[0], Bind::Text("a'b".into()));
        assert!(sql.text.ends_with("(c.bench = $5 OR c.config = $6))"), "{}", sql.text);
    }

    #[test]
    fn days_and_times_become_utc_bounds() {
        assert_eq!(day_or_time("2026-01-31").unwrap(), "2026-01-31T00:00:00Z");
        assert_eq!(end_of_day_or_time("2026-01-31").unwrap(), "2026-02-01T00:00:00Z");
        assert_eq!(day_or_time("2026-01-31T10:00:00+02:00").unwrap(), "2026-01-31T08:00:00Z");
        assert!(day_or_time("yesterday").unwrap_err().contains("neither a day"));
    }

    #[test]
    fn tags_are_key_equals_value_the_value_as_it_is() {
        assert_eq!(tag("driver=550.1=x").unwrap(), ("driver".into(), "550.1=x".into()));
        assert_eq!(tag("site=lab b=c").unwrap(), ("site".into(), "lab b=c".into()));
        assert_eq!(tag("empty=").unwrap(), ("empty".into(), String::new()));
        assert!(tag("=x").is_err() && tag("novalue").is_err());
    }
}
