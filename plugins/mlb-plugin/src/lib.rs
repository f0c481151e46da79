//! The contract between mlb and its workload plugins.
//!
//! A workload plugin is a `cdylib` that exports one entry symbol,
//! [`abi::ENTRY_SYMBOL`] (`mlb_plugin_v1`), returning a pointer to a
//! [`abi::PluginTable`]: a size-prefixed `#[repr(C)]` table of `extern "C"`
//! functions (create / setup / step / sync / report / last_error /
//! free_string / destroy, then the appended eval, fingerprint, inject, save
//! and restore) plus static metadata (with the [`Quality`] that eval
//! measures).
//!
//! Plugin authors never touch the raw ABI: they declare their arguments with
//! [`workload_args!`] (one struct: defaults, kinds, parsing), implement the
//! safe [`Workload`] trait and call [`export_workload!`], which builds the
//! table and the [`manifest`] (the same metadata in a section of the library
//! file, which mlb reads without loading the library). [`export_workloads!`]
//! exports several workloads from one library.
//! Every exported function catches panics and turns them into an error code
//! whose message is kept for `last_error`.
//!
//! ```
//! use mlb_plugin::{export_workload, workload_args, Setup, Step, Workload};
//!
//! workload_args! {
//!     /// Arguments of noop.
//!     pub struct Args {
//!         repeat = 20, number = 10;
//!         /// Items a step claims.
//!         pub items: u64 = 1,
//!     }
//! }
//! struct Noop(u64);
//! impl Workload for Noop {
//!     const NAME: &'static str = "noop";
//!     const VERSION: &'static str = env!("CARGO_PKG_VERSION");
//!     const DESCRIPTION: &'static str = "does nothing";
//!     type Args = Args;
//!     fn create(args: Args) -> mlb_plugin::Result<Self> { Ok(Noop(args.items)) }
//!     fn step(&mut self) -> mlb_plugin::Result<Step> { Ok(Step::items(self.0)) }
//! }
//! export_workload!(Noop);
//! ```

pub mod abi;
mod args;
mod checkpoint;
mod config;
#[doc(hidden)]
pub mod ffi;
mod fingerprint;
pub mod group;
pub mod libtorch;
pub mod manifest;
pub mod precision;
mod quality;
mod workload;

pub use args::{read_arg, Arg, ArgKind, ArgValue, WorkloadArgs, COUNTS};
pub use checkpoint::{CheckpointError, CheckpointHeader, HEADER_FILE};
pub use config::{Config, ConfigError};
pub use fingerprint::{flip_bit_f32, Fault, Fingerprint, ParamHasher};
pub use precision::{Precision, UnknownPrecision};
pub use quality::{Quality, QualitySpec};
pub use workload::{Error, Result, Setup, Step, Workload};

/// Exports a [`Workload`] implementation as an mlb plugin.
///
/// Same as [`export_workloads!`] with one workload: the versioned entry
/// symbol returning the type's static [`abi::PluginTable`], the workload list
/// symbol, and the [`manifest`] section. Use it once per `cdylib`.
#[macro_export]
macro_rules! export_workload {
    ($ty:ty) => {
        $crate::export_workloads!($ty);
    };
}

/// Exports one or more [`Workload`] implementations from one library.
///
/// Expands to:
/// - `mlb_plugin_v1_workloads` ([`abi::WORKLOADS_SYMBOL`]), returning the
///   [`abi::WorkloadList`] of every workload's table, in the order given;
/// - `mlb_plugin_v1` ([`abi::ENTRY_SYMBOL`]), returning the first workload's
///   table (what a host that predates the list loads);
/// - the [`manifest`]: every workload's metadata, built at compile time, in the
///   section [`manifest::SECTION`], which mlb reads without loading the
///   library.
///
/// Use it once per `cdylib`; names must differ (the worker refuses a library
/// listing a name twice).
///
/// ```
/// use mlb_plugin::{export_workloads, Config, Step, Workload};
/// struct Small;
/// struct Large;
/// impl Workload for Small {
///     const NAME: &'static str = "small";
///     const VERSION: &'static str = "1.0.0";
///     const DESCRIPTION: &'static str = "the small variant";
///     type Args = Config; // no declared arguments
///     fn create(_args: Config) -> mlb_plugin::Result<Self> { Ok(Small) }
///     fn step(&mut self) -> mlb_plugin::Result<Step> { Ok(Step::items(1)) }
/// }
/// impl Workload for Large {
///     const NAME: &'static str = "large";
///     const VERSION: &'static str = "1.0.0";
///     const DESCRIPTION: &'static str = "the large variant";
///     type Args = Config;
///     fn create(_args: Config) -> mlb_plugin::Result<Self> { Ok(Large) }
///     fn step(&mut self) -> mlb_plugin::Result<Step> { Ok(Step::items(64)) }
/// }
/// export_workloads!(Small, Large);
/// ```
#[macro_export]
macro_rules! export_workloads {
    ($($ty:ty),+ $(,)?) => {
        #[doc(hidden)]
        static __MLB_PLUGIN_TABLES: [&'static $crate::abi::PluginTable; [$(stringify!($ty)),+].len()] =
            [$(<$crate::ffi::Exported<$ty>>::TABLE),+];

        /// The mlb plugin entry point (ABI v1): the first workload's table.
        #[no_mangle]
        pub extern "C" fn mlb_plugin_v1() -> *const $crate::abi::PluginTable {
            __MLB_PLUGIN_TABLES[0]
        }

        /// Every workload of this library (ABI v1).
        #[no_mangle]
        pub extern "C" fn mlb_plugin_v1_workloads() -> *const $crate::abi::WorkloadList {
            static LIST: $crate::abi::WorkloadList = $crate::abi::WorkloadList::new(&__MLB_PLUGIN_TABLES);
            &LIST
        }

        const _: () = {
            const ENTRIES: &[$crate::manifest::Entry] = &[$($crate::manifest::Entry::of::<$ty>()),+];
            const LEN: usize = $crate::manifest::encoded_len(ENTRIES);
            /// The plugin manifest (see `mlb_plugin::manifest`).
            #[used]
            #[cfg_attr(not(target_vendor = "apple"), link_section = ".mlb_manifest")]
            #[cfg_attr(target_vendor = "apple", link_section = "__DATA,__mlb_manifest")]
            static MANIFEST: [u8; LEN] = $crate::manifest::encode::<LEN>(ENTRIES);
        };
    };
}
