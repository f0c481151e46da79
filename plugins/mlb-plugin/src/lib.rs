//! The contract between mlb and its workload plugins.
//!
//! A workload plugin is a `cdylib` that exports one entry symbol,
//! [`abi::ENTRY_SYMBOL`] (`mlb_plugin_v1`), returning a pointer to a
//! [`abi::PluginTable`]: a size-prefixed `#[repr(C)]` table of `extern "C"`
//! functions (create / setup / step / sync / report / last_error /
//! free_string / destroy) plus static metadata.
//!
//! Plugin authors never touch the raw ABI: they implement the safe
//! [`Workload`] trait and call [`export_workload!`], which builds the table.
//! Every exported function catches panics and turns them into an error code
//! whose message is kept for `last_error`.
//!
//! ```
//! use mlb_plugin::{export_workload, Config, Setup, Step, Workload};
//!
//! struct Noop;
//! impl Workload for Noop {
//!     const NAME: &'static str = "noop";
//!     const VERSION: &'static str = env!("CARGO_PKG_VERSION");
//!     const DESCRIPTION: &'static str = "does nothing";
//!     const DEFAULT_ARGS: &'static str = r#"{"repeat": 20, "number": 10}"#;
//!     fn create(_config: &Config) -> mlb_plugin::Result<Self> { Ok(Noop) }
//!     fn step(&mut self) -> mlb_plugin::Result<Step> { Ok(Step::items(1)) }
//! }
//! export_workload!(Noop);
//! ```

pub mod abi;
mod config;
#[doc(hidden)]
pub mod ffi;
mod workload;

pub use config::{Config, ConfigError};
pub use workload::{Error, Result, Setup, Step, Workload};

/// Exports a [`Workload`] implementation as an mlb plugin.
///
/// Expands to the versioned entry symbol returning a static
/// [`abi::PluginTable`] for the type. Use it once per `cdylib`.
#[macro_export]
macro_rules! export_workload {
    ($ty:ty) => {
        /// The mlb plugin entry point (ABI v1).
        #[no_mangle]
        pub extern "C" fn mlb_plugin_v1() -> *const $crate::abi::PluginTable {
            static TABLE: $crate::abi::PluginTable = $crate::ffi::table::<$ty>();
            &TABLE
        }
    };
}
