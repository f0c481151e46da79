//! libtorch workloads of mlb and the helpers they share.
//!
//! - [`runtime`]: threads, device and seeds of an instance; [`device`]: device
//!   requests and GPU names.
//! - [`amp`]: half precision with loss scaling and fp32 master weights;
//!   [`grad`]: gradient clipping without host syncs; [`ops`]: libtorch
//!   operations tch does not bind; [`dist`]: multi-process data parallelism
//!   (c10d's process group).
//! - [`data`]: loaders of the real formats (MNIST idx, image folders, word
//!   corpora) and [`synth`]: synthetic data of the same shapes.
//! - [`plugin`]: [`TorchWorkload`], the adaptor to the plugin SDK.
//! - [`workloads`]: the suite's models; each `plugins/<name>` crate exports one.

pub mod amp;
pub mod data;
pub mod device;
pub mod dist;
pub mod grad;
pub mod metrics;
pub mod ops;
pub mod parallel;
pub mod plugin;
pub mod runtime;
pub mod synth;
pub mod weights;
pub mod workloads;

pub use plugin::{TorchPlugin, TorchWorkload};
pub use runtime::Runtime;
