//! The commands layer: one file per command that composes the layers below
//! it (a command that is one domain's alone is run by that domain, from
//! `main.rs`). Nothing below imports it.
//!
//! - [`launch`]: `mlb --jobs FILE ...`, and with `--db` the run stored;
//! - [`doctor`]: `mlb doctor`, its checks with the vendors' diagnostics and
//!   a short burn.

pub mod doctor;
pub mod launch;
