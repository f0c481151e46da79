//! Charts drawn in the browser by a charting library vendored into the
//! binary (ECharts, docs/charts.md): hover values, zoom on time series,
//! legends, and axis labels that rotate or thin out rather than overlap.
//! Nothing is loaded from the network: the page carries the library.
//!
//! - [`library`]: the vendored script, its licence and version;
//! - [`spec`]: a chart described from data ([`spec::Chart`]) and the
//!   library's option it becomes;
//! - [`embed`]: the HTML that carries the library and mounts each chart.
//!
//! The report page (`mlb report --html`) builds its charts here; any other
//! page can do the same.

pub mod embed;
pub mod library;
pub mod spec;

pub use spec::{Chart, Kind, Point, Series, XAxis};
