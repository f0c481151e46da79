//! `mlb report` ([`crate::report`]), and with `--db` each row of the
//! report judged against the last runs of the same system and config in the
//! store ([`crate::report::history`]: change, Welch's p-value, regression
//! flag). Composed here, so that the report imports no store and the store
//! no report's options.

use crate::report::history::{judge, Regressions};
use crate::report::{ReportArgs, Rule};
use crate::store::query::regressions::{default_system, past_runs};
use crate::store::query::QueryError;
use crate::store::{Location, Store};

/// Runs `mlb report`; with `--db URL` (`""`: the default store) the report
/// with its rows judged against their history. Returns what to print.
pub fn run(args: &ReportArgs) -> Result<String, QueryError> {
    let Some(db) = &args.db else { return Ok(crate::report::run(args)?) };
    let mut report = crate::report::report(args)?;
    let location = Location::from_env(Some(db))?;
    let store = Store::open_existing(&location)?;
    let system = match &args.system {
        Some(name) => name.clone(),
        None => default_system(&args.reports)?,
    };
    let rule = Rule::strict_if(args.strict);
    let mut found = Regressions::new(location.to_string(), system, args.history);
    for row in &report.rows {
        let current: Vec<f64> = report.runs.iter().filter(|r| r.label == row.label).map(|r| r.value).collect();
        let past = past_runs(&store, &found.system, row, rule, &report.reports, args.history)?;
        if past.is_empty() {
            continue;
        }
        let (runs, values): (Vec<i64>, Vec<Vec<f64>>) = past.into_iter().unzip();
        found.rows.push(judge(&row.label, &current, &values.concat(), runs));
    }
    report.regressions = Some(found);
    Ok(crate::report::show(args, &report)?)
}
