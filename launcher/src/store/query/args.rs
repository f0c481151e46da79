//! The options of `mlb db runs|systems|compare|history|export`.

use super::matrix::Metric;
use super::render::Format;
use super::scale::Scale;
use crate::store::command::DbArg;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Which runs a query reads: every filter given must hold.
#[derive(Clone, Debug, Default, Args)]
pub struct Filters {
    /// Only runs of this system (its name in `mlb db systems`).
    #[arg(long, value_name = "NAME")]
    pub system: Option<String>,
    /// The other filters.
    #[command(flatten)]
    pub runs: RunFilters,
}

/// Which runs of a system a query reads.
#[derive(Clone, Debug, Default, Args)]
pub struct RunFilters {
    /// Only runs with this tag (repeatable: every one must be there).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag)]
    pub tags: Vec<(String, String)>,
    /// Only runs started on or after this day or time (`2026-01-31`, or RFC 3339).
    #[arg(long, value_name = "DATE", value_parser = day_or_time)]
    pub since: Option<String>,
    /// Only runs started before the end of this day, or before this time.
    #[arg(long, value_name = "DATE", value_parser = end_of_day_or_time)]
    pub until: Option<String>,
    /// Only runs holding this bench or config (`convnet`, `convnet[arch=resnet18]`).
    #[arg(long, value_name = "NAME")]
    pub config: Option<String>,
    /// Only the run of this id (`mlb serve`'s run page).
    #[arg(skip)]
    pub run: Option<i64>,
}

/// Parses `KEY=VALUE`.
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

/// `mlb db runs` and `mlb db systems`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The store.
    #[command(flatten)]
    pub store: DbArg,
    /// Which runs.
    #[command(flatten)]
    pub filters: Filters,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

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
    /// Prices of the systems in dollars, for items/s per dollar (`A=12000,B=30000`).
    #[arg(long, value_name = "NAME=USD", value_delimiter = ',', value_parser = price)]
    pub price: Vec<(String, f64)>,
    /// Only the benches whose name matches this pattern (`*`: any text, `?`: one character).
    #[arg(long, value_name = "GLOB", value_parser = super::glob::Glob::parse)]
    pub benches: Option<super::glob::Glob>,
    /// Which runs of each system.
    #[command(flatten)]
    pub filters: RunFilters,
    /// Judge failures by mlb's stricter check (as `mlb report --strict`).
    #[arg(long)]
    pub strict: bool,
    /// Output format (`csv`: rows benches, columns systems).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Parses `NAME=USD`: a positive finite price.
fn price(text: &str) -> Result<(String, f64), String> {
    let (name, usd) = text.rsplit_once('=').ok_or_else(|| format!("`{text}` is not NAME=USD"))?;
    match usd.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok((name.to_string(), v)),
        _ => Err(format!("`{usd}` is not a price in dollars (a positive number, e.g. 12000)")),
    }
}

/// `mlb db history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The store.
    #[command(flatten)]
    pub store: DbArg,
    /// Which runs (`--system` is required).
    #[command(flatten)]
    pub filters: Filters,
    /// Only this bench (or config).
    #[arg(long, value_name = "NAME")]
    pub bench: Option<String>,
    /// What the points show (`score`: items/s over the first run's).
    #[arg(long, value_enum, default_value_t = Metric::ItemsPerSecond)]
    pub metric: Metric,
    /// Judge failures by mlb's stricter check (as `mlb report --strict`).
    #[arg(long)]
    pub strict: bool,
    /// Also write the history as an SVG chart.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// The chart's y axis: each bench relative to its own median (a drop
    /// of any bench shows, whatever its items/s), or the values as they are.
    #[arg(long, value_enum, value_name = "SCALE", default_value_t = Scale::Relative, requires = "svg")]
    pub scale: Scale,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// What `mlb db export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Bencher Metric Format JSON of one run (`bencher run --adapter json`).
    Bencher,
    /// CSV of the long metrics table: one line per instance and metric.
    Csv,
}

/// `mlb db export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The store.
    #[command(flatten)]
    pub store: DbArg,
    /// What to write.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// With `bencher`: the run (its id in `mlb db runs`; default: the newest run the filters select).
    #[arg(long, value_name = "ID")]
    pub run: Option<i64>,
    /// Which runs.
    #[command(flatten)]
    pub filters: Filters,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_times_become_utc_bounds() {
        assert_eq!(day_or_time("2026-01-31").unwrap(), "2026-01-31T00:00:00Z");
        assert_eq!(end_of_day_or_time("2026-01-31").unwrap(), "2026-02-01T00:00:00Z");
        assert_eq!(day_or_time("2026-01-31T10:00:00+02:00").unwrap(), "2026-01-31T08:00:00Z");
        assert!(day_or_time("yesterday").unwrap_err().contains("neither a day"));
    }

    #[test]
    fn tags_and_prices_parse_names_as_they_are() {
        assert_eq!(tag("driver=550.1=x").unwrap(), ("driver".into(), "550.1=x".into()));
        assert!(tag("=x").is_err());
        assert_eq!(price("node=7; --=12000").unwrap(), ("node=7; --".into(), 12000.0));
        assert!(price("A=0").is_err() && price("A=nan").is_err() && price("A").is_err());
    }
}
