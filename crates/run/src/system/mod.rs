//! What the host of a run is: `system.json` in the output folder of every
//! run, shaped after MLPerf's `system_desc` (its field names), filled with
//! what can be detected; `mlb report` shows it in a header section.

mod describe;

pub use describe::{describe, processor_model, read, write, SystemDesc, FILE};
