//! Workload plugins: where they are searched for, how a file is trusted,
//! loaded and called, and how `mlb plugins list` describes them.

mod instance;
pub mod listing;
mod loader;
mod search;
mod trust;

pub use instance::{CallError, CallFailure, Instance};
pub use listing::{list, Entry, Status};
pub use loader::{load, LoadError, Plugin, PluginMeta};
pub use search::{SearchError, SearchPath};
pub use trust::{check_trusted, TrustError};
