//! `GET /api/compare?systems=a,b&benches=GLOB&metric=NAME&reference=SYSTEM`:
//! benches x systems, as `mlb db compare` computes them.

use super::params::{checked_name, Params};
use super::{DataError, Page, Reader};
use crate::store::query::compare::CompareOptions;
use crate::store::query::compare::{compare as matrix_of, system_names};
use crate::store::query::filters::RunFilters;
use crate::store::query::glob::Glob;
use crate::store::query::matrix::{Matrix, Metric};
use crate::store::query::render::{compare::render, Format};

/// The most systems compared at once.
pub const MAX_SYSTEMS: usize = 32;

/// The compare page's query.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareQuery {
    /// The systems, as columns in this order; none: every system of the store.
    pub systems: Vec<String>,
    /// Only the benches matching this pattern.
    pub benches: Option<Glob>,
    /// What the cells show.
    pub metric: Metric,
    /// The system every figure is normalised to (default: the first).
    pub reference: Option<String>,
}

impl CompareQuery {
    /// The page's parameters.
    pub const PARAMS: [&'static str; 4] = ["systems", "benches", "metric", "reference"];

    /// Reads the query string.
    pub fn parse(query: &str) -> Result<CompareQuery, DataError> {
        let p = Params::parse(query, &Self::PARAMS)?;
        let systems: Vec<&str> =
            p.one("systems")?.map(|s| s.split(',').filter(|n| !n.is_empty()).collect()).unwrap_or_default();
        if systems.len() > MAX_SYSTEMS {
            return Err(DataError::bad(
                "systems",
                systems[MAX_SYSTEMS],
                &format!("compare at most {MAX_SYSTEMS} systems"),
            ));
        }
        Ok(CompareQuery {
            systems: systems.into_iter().map(|s| checked_name("systems", s)).collect::<Result<_, _>>()?,
            benches: p.parsed("benches", Glob::parse)?,
            metric: p.metric("metric")?.unwrap_or(Metric::ItemsPerSecond),
            reference: p.name("reference")?,
        })
    }
}

/// The compare page: the matrix of `mlb db compare --format json`.
pub type Comparison = Matrix;

/// The comparison `query` asks for.
pub fn compare(reader: &Reader, query: &CompareQuery) -> Result<Comparison, DataError> {
    let store = reader.store();
    let mut systems = query.systems.clone();
    if systems.is_empty() {
        systems = system_names(store, reader.visible())?;
        systems.truncate(MAX_SYSTEMS);
    }
    if systems.is_empty() {
        return Err(DataError::Refused("the store holds no system yet; import runs with `mlb db import DIR`".into()));
    }
    let args = CompareOptions {
        systems,
        reference: query.reference.clone(),
        metric: query.metric,
        price: Vec::new(),
        benches: query.benches.clone(),
        filters: RunFilters { visible: reader.visible(), ..RunFilters::default() },
        strict: false,
    };
    Ok(matrix_of(store, &args)?)
}

impl Page for Matrix {
    /// `mlb db compare --format csv`: a row per bench, a column per system.
    fn csv(&self) -> String {
        render(self, Format::Csv)
    }
}
