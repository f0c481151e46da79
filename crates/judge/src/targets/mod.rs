//! Target tables for any GPU model: derived from a reference run
//! ([`derive`]), and every table `--gpu-model` can find ([`catalog`]),
//! shipped or in a target folder ([`folders`]). The `mlb targets` command
//! that runs them is in the `mlb` crate (`commands/targets.rs`).

pub mod catalog;
pub mod derive;
mod error;
mod folders;

pub use error::TargetsError;
pub use folders::Folders;
