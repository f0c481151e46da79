//! The commands layer: one file per command that composes the layers below
//! it (a command that is one domain's alone is run by that domain, from
//! `main.rs`). Nothing below imports it.
//!
//! - [`launch`]: `mlb --jobs FILE ...`, and with `--db` the run stored;
//! - [`report`]: `mlb report`, and with `--db` its rows against the store;
//! - [`db`]: `mlb db ...`, a file a subcommand;
//! - [`serve`]: `mlb serve`;
//! - [`doctor`]: `mlb doctor`, its checks with the vendors' diagnostics and
//!   a short burn.
//!
//! A command's options (clap's) stop here: what is below takes typed
//! options (the store's `CompareOptions`, serve's `Settings`), which `mlb
//! serve` builds from a request as a command builds them from its
//! arguments.

pub mod db;
pub mod doctor;
pub mod launch;
pub mod report;
pub mod serve;
