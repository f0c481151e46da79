//! mlb's record layer, the lowest of its crates: what the launcher and
//! `mlb worker` write and read the same way, and how mlb reads files it did
//! not write. Every crate above reads reports through it.
//!
//! - [`contract`]: the launcher-worker contract (command line, environment,
//!   stdout protocol, exit codes) and the report file: its model, its one
//!   tolerant reader and its folder walk;
//! - [`reading`]: a reading of a telemetry source, and bounded reads of a
//!   user's input file;
//! - [`untrusted`]: text mlb did not write, made safe for a terminal and a
//!   CSV cell;
//! - [`digest`]: SHA-256 as mlb names content;
//! - [`exit`]: the exit statuses of `mlb` and `mlb worker`, and whether an
//!   error refused the work or failed it;
//! - [`fix`]: what a person can do about an error.
//!
//! It imports no crate of mlb but the plugin ABI's (`mlb-plugin`); the
//! layers above are in docs/architecture.md.

pub mod contract;
pub mod digest;
pub mod exit;
pub mod fix;
pub mod reading;
pub mod untrusted;
