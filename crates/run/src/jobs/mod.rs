//! Jobs files (docs/launcher.md, "Jobs files"): the original suite's JSON list of jobs, or the same
//! shape in YAML; `cmd` (external command) or `plugin` jobs; list arguments
//! expanded into a cartesian product of configs; `$VAR` expanded.

mod error;
mod expand;
mod model;
mod parse;
pub mod render;
mod select;
pub(crate) mod suite;
mod vars;

pub use error::JobsError;
pub use expand::{configs, count, ConfigCount, ExpandError};
pub use model::{Args, Group, Job, JobConfig, Program, RawJob, Scope};
pub use parse::{load, parse, suite_name, JobsFile};
pub use select::select;
pub use suite::{find as find_suite, STANDARD as STANDARD_SUITE};
pub use vars::{UnknownVariable, Variables};
