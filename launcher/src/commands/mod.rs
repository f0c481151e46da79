//! The commands layer: one file per command, holding its options (clap's)
//! and turning them into the typed options of the crates below, whose
//! functions it puts in order. Nothing below imports it.
//!
//! - [`launch`]: `mlb --jobs FILE ...`, and with `--db` the run stored;
//! - [`accept`]: `mlb accept`, the verdicts and the acceptance record;
//! - [`targets`]: `mlb targets derive|list`;
//! - [`prepare`]: `mlb prepare`, the data sets;
//! - [`plugins`]: `mlb plugins list|show`;
//! - [`containers`]: `mlb containers build`;
//! - [`slurm`]: `mlb slurm submit|task`;
//! - [`report`]: `mlb report`, and with `--db` its rows against the store;
//! - [`db`]: `mlb db ...`, a file a subcommand;
//! - [`serve`]: `mlb serve`;
//! - [`detect`]: `mlb detect`, this host;
//! - [`doctor`]: `mlb doctor`, its checks with the vendors' diagnostics and
//!   a short burn;
//! - [`burn`]: `mlb burn`, the stress workloads through a launch, verdicts
//!   per slot, Slurm's drain commands;
//! - [`interfere`]: `mlb interfere`, the interference matrix: rounds of
//!   different workloads side by side through a launch, its heat map;
//! - [`output`]: the output flags every command that prints results shares.
//!
//! A command's options (clap's) stop here: what is below takes typed
//! options (the store's `CompareOptions`, serve's `Settings`), which `mlb
//! serve` builds from a request as a command builds them from its
//! arguments.

pub mod accept;
pub mod burn;
pub mod containers;
pub mod db;
pub mod detect;
pub mod doctor;
pub mod interfere;
pub mod launch;
pub mod output;
pub mod plugins;
pub mod prepare;
pub mod report;
pub mod serve;
pub mod slurm;
pub mod targets;
