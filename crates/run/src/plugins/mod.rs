//! Workload plugins: where they are searched for, how a file is trusted,
//! described (from its manifest, without loading it), loaded and called,
//! what a config of one of their workloads asks for ([`plan`]: read by the
//! launcher before it runs one and by the worker that runs it), and how
//! `mlb plugins list` describes them.

pub mod accepts;
mod blocks;
mod instance;
mod interrupt;
pub mod libtorch;
pub mod listing;
mod loader;
pub mod manifest;
pub mod plan;
mod probe;
mod search;
pub mod show;
mod trust;

pub use instance::{CallError, CallFailure, Instance};
pub use listing::{list, verify, Entry, Status};
pub use loader::{describe, load, load_workload, LoadError, Plugin};
pub use manifest::ManifestReadError;
pub use mlb_plugin::manifest::PluginMeta;
pub use mlb_plugin::QualitySpec;
pub use plan::{effective_config, Plan, PlanError, DEFAULT_SKIP};
pub use search::{SearchError, SearchPath};
pub use trust::{check_trusted, TrustError};
