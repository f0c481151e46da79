//! The launcher (`mlb --jobs FILE`): reads and validates a jobs file, plans
//! one slot per device, isolates slots with cgroups, starts each config's
//! instances together, supervises them and writes the result lines.

mod args;
mod dry_run;
mod error;
pub mod outcome;
pub mod progress;
mod resume;
mod run;
pub mod runtime;
mod setup;
mod signals;
pub mod summary;
mod supervise;

pub use args::LaunchArgs;
pub use error::LaunchError;
pub use run::{run, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK};
