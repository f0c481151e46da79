//! `mlb report` ([`crate::report`]) against the target table it names (a
//! file, or the catalog's table of a GPU model: [`crate::targets::catalog`]),
//! and with `--db` each row of the report judged against the last runs of
//! the same system and config in the store ([`crate::report::history`]:
//! change, Welch's p-value, regression flag). Composed here, so that the
//! report imports neither the targets' catalog nor the store, and the store
//! no report's options.

use crate::report::history::{judge, Regressions};
use crate::report::{ReportArgs, ReportError, Rule, Targets};
use crate::store::query::regressions::{default_system, past_runs};
use crate::store::query::QueryError;
use crate::store::{Location, Store};

/// Runs `mlb report`: the report, or with `--write-rcp` the RCP file of its
/// runs, and with `--db URL` (`""`: the default store) the report with its
/// rows judged against their history; writes the HTML page when asked.
/// Returns what to print.
pub fn run(args: &ReportArgs) -> Result<String, QueryError> {
    if let Some(file) = &args.write_rcp {
        return Ok(crate::report::rcp::write(&args.reports, file)?);
    }
    let mut report = crate::report::report(args, targets(args)?)?;
    let Some(db) = &args.db else { return Ok(crate::report::show(args, &report)?) };
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

/// The target table `args` name: a file (`--targets`), else the catalog's
/// table of `--gpu-model`; `None` when neither is given.
fn targets(args: &ReportArgs) -> Result<Option<Targets>, ReportError> {
    match (&args.targets, &args.gpu_model) {
        (Some(path), _) => Targets::from_file(path).map(Some),
        (None, Some(model)) => crate::targets::catalog::find(&crate::targets::Folders::from_env(), model).map(Some),
        (None, None) => Ok(None),
    }
}
