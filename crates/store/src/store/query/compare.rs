//! `mlb db compare`: the per-bench figures of each system from the store,
//! then the matrix ([`super::matrix`]).

use super::error::QueryError;
use super::figures::{kept_group, kept_under, unpack_group, Instances};
use super::filters::{restrict_runs, RunFilters, Visible};
use super::glob::Glob;
use super::matrix::{matrix, Figure, Matrix, Metric};
use super::sql::Sql;
use crate::store::Store;
use mlb_judge::report::Rule;
use std::collections::BTreeMap;

/// The names of the systems of `store`, sorted.
pub fn system_names(store: &Store, visible: Visible) -> Result<Vec<String>, QueryError> {
    let mut sql = Sql::new("SELECT DISTINCT s.name FROM systems s");
    if visible != Visible::All {
        // A system whose every run is under embargo is not named either.
        sql.push(" WHERE EXISTS (SELECT 1 FROM runs r WHERE r.system_id = s.id");
        restrict_runs(&mut sql, &RunFilters { visible, ..RunFilters::default() });
        sql.push(")");
    }
    sql.push(" ORDER BY s.name");
    Ok(sql.scalars(store, "listing systems")?)
}

/// Refuses a name of `names` that the store does not know (or holds only
/// under embargo from who sees `visible`).
pub fn known(store: &Store, names: &[String], visible: Visible) -> Result<(), QueryError> {
    let known = system_names(store, visible)?;
    match names.iter().find(|n| !known.contains(n)) {
        Some(name) => Err(QueryError::UnknownSystem { name: name.clone(), known }),
        None => Ok(()),
    }
}

/// What a comparison of systems shows (`mlb db compare`, `/compare`).
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// The systems, as columns in this order (at least one).
    pub systems: Vec<String>,
    /// The system every figure is normalised to (default: the first).
    pub reference: Option<String>,
    /// What the cells show.
    pub metric: Metric,
    /// Prices of systems in dollars, for items/s per dollar.
    pub price: Vec<(String, f64)>,
    /// Only the benches whose name matches.
    pub benches: Option<Glob>,
    /// Which runs of each system.
    pub filters: RunFilters,
    /// Failures judged by mlb's stricter check (as `mlb report --strict`).
    pub strict: bool,
}

/// The comparison `args` ask for.
pub fn compare(store: &Store, args: &CompareOptions) -> Result<Matrix, QueryError> {
    known(store, &args.systems, args.filters.visible)?;
    let reference = args.reference.clone().unwrap_or_else(|| args.systems[0].clone());
    let not_compared = |name: &String| !args.systems.contains(name);
    if let Some(name) = std::iter::once(&reference).chain(args.price.iter().map(|(n, _)| n)).find(|n| not_compared(n)) {
        return Err(QueryError::NotCompared { name: name.clone(), systems: args.systems.clone() });
    }
    let mut figures = figures(store, args)?;
    if let Some(glob) = &args.benches {
        figures.retain(|f| glob.matches(&f.bench));
    }
    let prices: BTreeMap<String, f64> = args.price.iter().cloned().collect();
    Ok(matrix(&figures, &args.systems, &reference, args.metric, &prices))
}

/// A system's kept figures of a bench, as the comparison reads them.
#[derive(sqlx::FromRow)]
struct Stored {
    system: String,
    bench: String,
    /// [`kept_group`]'s text.
    kept: String,
}

/// Per system and bench: the instances that count, their mean items/s and
/// mean joules per item (figures that cannot be a measure left out, as
/// `mlb report` leaves them out), from the figures each run keeps.
fn figures(store: &Store, args: &CompareOptions) -> Result<Vec<Figure>, QueryError> {
    let mut sql = Sql::new("SELECT s.name AS system, f.bench AS bench, ");
    sql.push(kept_group(store.backend())).push(" AS kept");
    sql.push(" FROM run_figures f JOIN runs r ON r.id = f.run_id ");
    sql.push("JOIN systems s ON s.id = r.system_id WHERE s.name IN (");
    for (k, system) in args.systems.iter().enumerate() {
        sql.push(if k == 0 { "" } else { ", " }).text(system);
    }
    sql.push(")");
    kept_under(&mut sql, Rule::strict_if(args.strict));
    restrict_runs(&mut sql, &args.filters);
    sql.push(" GROUP BY s.name, f.bench");
    let rows: Vec<Stored> = sql.rows(store, "comparing systems")?;
    let mut groups: BTreeMap<(String, String), Instances> = BTreeMap::new();
    for row in rows {
        let group = groups.entry((row.system, row.bench)).or_default();
        unpack_group(&row.kept).into_iter().for_each(|(_, instances)| group.extend(instances));
    }
    Ok(groups
        .into_iter()
        .map(|((system, bench), instances)| Figure {
            system,
            bench,
            n: instances.n(),
            items_per_s: instances.speed().mean,
            joules_per_item: instances.energy().mean,
        })
        .collect())
}
