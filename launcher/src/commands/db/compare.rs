//! `mlb db compare`: benches x systems ([`mlb_store::store::query::compare`]).

use super::filters::RunFilterArgs;
use super::{show, DbArg};
use crate::commands::output::OutputArgs;
use clap::Args;
use mlb_store::store::query::compare::{compare, CompareOptions};
use mlb_store::store::query::glob::Glob;
use mlb_store::store::query::render;
use mlb_store::store::query::{Metric, QueryError};

/// `mlb db compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The store.
    #[command(flatten)]
    pub store: DbArg,
    /// The systems, as columns in this order (comma-separated names).
    #[arg(long, value_name = "A,B,C", value_delimiter = ',', required = true)]
    pub systems: Vec<String>,
    /// The system every figure is normalised to (default: the first).
    #[arg(long, value_name = "NAME")]
    pub reference: Option<String>,
    /// What the cells show.
    #[arg(long, value_enum, default_value_t = Metric::ItemsPerSecond)]
    pub metric: Metric,
    /// Price of a system in USD, for items/s per dollar: `NAME=USD`
    /// (repeatable, or comma-separated: `A=12000,B=30000`).
    #[arg(long, value_name = "NAME=USD", value_delimiter = ',', value_parser = price)]
    pub price: Vec<(String, f64)>,
    /// Only the benches whose name matches this pattern (`*`: any text, `?`: one character).
    #[arg(long, value_name = "GLOB", value_parser = Glob::parse)]
    pub benches: Option<Glob>,
    /// Which runs of each system.
    #[command(flatten)]
    pub filters: RunFilterArgs,
    /// Judge failures by mlb's stricter check (as `mlb report --strict`).
    #[arg(long)]
    pub strict: bool,
    /// `--format` (`csv`: rows benches, columns systems), `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl CompareArgs {
    /// The comparison asked for.
    pub fn options(&self) -> CompareOptions {
        CompareOptions {
            systems: self.systems.clone(),
            reference: self.reference.clone(),
            metric: self.metric,
            price: self.price.clone(),
            benches: self.benches.clone(),
            filters: self.filters.filters(),
            strict: self.strict,
        }
    }
}

/// Parses `NAME=USD`: a positive finite price.
fn price(text: &str) -> Result<(String, f64), String> {
    let (name, usd) = text.rsplit_once('=').ok_or_else(|| format!("`{text}` is not NAME=USD"))?;
    match usd.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok((name.to_string(), v)),
        _ => Err(format!("`{usd}` is not a price in dollars (a positive number, e.g. 12000)")),
    }
}

/// The comparison `args` ask for, as `--format` asks.
pub fn run(args: &CompareArgs) -> Result<String, QueryError> {
    let store = args.store.open_existing()?;
    let matrix = compare(&store, &args.options())?;
    Ok(show(&args.output, || render::compare::document(&matrix), |format| render::compare::render(&matrix, format)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_name_systems_as_they_are() {
        assert_eq!(price("node=7; --=12000").unwrap(), ("node=7; --".into(), 12000.0));
        assert!(price("A=0").is_err() && price("A=nan").is_err() && price("A").is_err());
    }
}
