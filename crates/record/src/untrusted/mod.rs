//! Text mlb did not write (a report's names and fields, a record's paths,
//! a file's name) made safe for where mlb puts it: a terminal
//! ([`visible`]: no control character reaches it raw) and a CSV cell
//! ([`csv`]: quoted, and never a spreadsheet formula). It imports nothing
//! of the crate.

pub mod csv;
mod visible;

pub use visible::{printable, visible};
