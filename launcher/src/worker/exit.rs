//! Exit codes of `mlb worker`, read by the launcher.
//!
//! A worker killed by a signal exits by that signal instead.

/// The instance completed and its report was written.
pub const OK: i32 = 0;
/// The configuration was refused (bad args, `repeat <= skip`).
pub const CONFIG: i32 = 2;
/// The workload returned an error.
pub const ERROR: i32 = 3;
/// The workload panicked.
pub const PANIC: i32 = 4;
/// A step reported a NaN (or infinite) loss.
pub const NAN: i32 = 5;
/// The plugin could not be loaded.
pub const LOAD: i32 = 6;
/// The report could not be written.
pub const REPORT: i32 = 7;
