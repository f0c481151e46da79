//! The numeric precision a workload trains in, as its report names it
//! under `"precision"` (docs/workloads.md, "FLOPs and MFU"): the key of the
//! peak table (`mlb_run::gpu::peak`) and of the MFU of `mlb report`. The
//! type is the plugin SDK's, shared with the workloads that take a
//! `precision` argument (`mlb_plugin::precision`).

pub use mlb_plugin::precision::{Precision, UnknownPrecision};
