//! The launcher (`mlb --jobs FILE`): reads and validates a jobs file, plans
//! one slot per device, isolates slots with cgroups, chooses how instances
//! are wrapped and where they run ([`crate::runtime`]), starts each config's
//! instances together, supervises them and writes the result lines and the
//! records of instances that could not write their own; [`mix`] starts
//! different configs side by side, one a slot.

mod attempts;
mod choice;
mod dry_run;
mod error;
pub mod host_lock;
mod lines;
mod logs;
pub mod mix;
mod names;
mod options;
pub mod progress;
mod resume;
mod run;
pub mod run_name;
mod session;
mod setup;
mod space;
pub mod summary;
mod supervise;

pub use error::LaunchError;
pub use options::{Options, Recovery, MAX_PAUSE_SECONDS, MAX_SAMPLE_HZ, SEED_STEP};
pub use run::remove_left_groups;
pub use run::{run, AfterRun};
