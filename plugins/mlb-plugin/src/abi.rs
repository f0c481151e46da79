//! The raw C ABI, version 1.
//!
//! Rules (see `docs/plugins.md`):
//! - The entry symbol's name carries the ABI major version. A breaking change
//!   gets a new symbol, so a host finds out which version a plugin was built for
//!   by the symbol it exports.
//! - [`PluginTable`] starts with its own size, then the ABI version. Fields are
//!   only ever appended: a host reads only the fields that fit in `size`.
//! - Strings cross as pointer + length. Borrowed strings ([`StrRef`]) stay
//!   owned by the side that passed them; strings a plugin returns
//!   ([`OwnedStr`]) are freed by the host through `free_string`.
//! - Every function returns a [`Status`] code; on failure the message is read
//!   with `last_error` (per thread, the last failing call's message).
//!
//! Appended to v1 since it first shipped: `eval` and `quality`, then
//! `fingerprint` and `inject`, then `save` and `restore` (a host reads them
//! only when the table's `size` covers them; an older plugin has no
//! evaluation, cannot run deterministically and cannot checkpoint), and
//! `deterministic` in [`SetupInfo`]. [`PluginTable::V1_FIRST_SIZE`] is the
//! least size a host accepts.
//!
//! [`Status`]: status

use crate::Quality;
use std::ffi::c_void;
use std::mem::offset_of;

/// ABI major version implemented by this crate.
pub const ABI_VERSION: u32 = 1;

/// Prefix of the entry symbol; the ABI major version follows it.
pub const ENTRY_SYMBOL_PREFIX: &str = "mlb_plugin_v";

/// Name of the entry symbol for [`ABI_VERSION`].
pub const ENTRY_SYMBOL: &str = "mlb_plugin_v1";

/// Signature of the entry symbol.
pub type EntryFn = unsafe extern "C" fn() -> *const PluginTable;

/// Name of the symbol listing every workload of a library (ABI v1). A library
/// that exports it may hold several workloads; [`ENTRY_SYMBOL`] then returns
/// the first one's table (what a host that predates the list sees).
pub const WORKLOADS_SYMBOL: &str = "mlb_plugin_v1_workloads";

/// Signature of [`WORKLOADS_SYMBOL`].
pub type WorkloadsFn = unsafe extern "C" fn() -> *const WorkloadList;

/// Opaque workload instance owned by the plugin.
pub type Instance = c_void;

/// Status codes returned by every table function.
pub mod status {
    /// The call succeeded.
    pub const OK: i32 = 0;
    /// The workload returned an error; see `last_error`.
    pub const ERROR: i32 = 1;
    /// The workload panicked; the panic was caught; see `last_error`.
    pub const PANIC: i32 = 2;
}

/// A borrowed UTF-8 string: pointer and length, not NUL terminated.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StrRef {
    /// First byte.
    pub ptr: *const u8,
    /// Length in bytes.
    pub len: usize,
}

// SAFETY: a StrRef is only ever built from `&'static str` in a static table or
// from a borrow that outlives the call it is passed to.
unsafe impl Sync for StrRef {}
unsafe impl Send for StrRef {}

impl StrRef {
    /// Borrows a static string (metadata in the plugin table).
    pub const fn from_static(s: &'static str) -> Self {
        StrRef { ptr: s.as_ptr(), len: s.len() }
    }

    /// Borrows a string for the duration of one call.
    pub fn borrow(s: &str) -> Self {
        StrRef { ptr: s.as_ptr(), len: s.len() }
    }

    /// Reads the string.
    ///
    /// # Safety
    /// `ptr` must point to `len` readable bytes that live as long as `'a`.
    pub unsafe fn as_str<'a>(&self) -> Result<&'a str, std::str::Utf8Error> {
        if self.len == 0 {
            return Ok("");
        }
        std::str::from_utf8(std::slice::from_raw_parts(self.ptr, self.len))
    }
}

/// A string allocated by the plugin and handed to the host, which must give it
/// back through `free_string`.
#[repr(C)]
#[derive(Debug)]
pub struct OwnedStr {
    /// First byte (null for an empty string).
    pub ptr: *mut u8,
    /// Length in bytes.
    pub len: usize,
    /// Allocation capacity, needed by the plugin to free it.
    pub cap: usize,
}

impl OwnedStr {
    /// An empty string that owns nothing.
    pub const fn empty() -> Self {
        OwnedStr { ptr: std::ptr::null_mut(), len: 0, cap: 0 }
    }
}

/// What one training step did.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Items (samples, images, sequences...) processed by the step.
    pub items: u64,
    /// The step's loss, meaningful when `has_loss` is 1.
    pub loss: f64,
    /// 1 when the step reports a loss, 0 otherwise.
    pub has_loss: u8,
}

/// What the host tells an instance before the timed loop.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SetupInfo {
    /// Size of this struct (fields are only appended).
    pub size: usize,
    /// Device request: `"auto"` (first visible GPU, else CPU), `"cpu"` or `"cuda:N"`.
    pub device: StrRef,
    /// CPUs of the instance's slot: the intra-op thread count to use.
    pub threads: u32,
    // Appended to v1: a plugin reads it only when `size` covers it.
    /// 1: the run is deterministic (the same seed, data order and initial
    /// weights on every instance, deterministic algorithms asked for).
    pub deterministic: u8,
}

impl SetupInfo {
    /// Whether the host asked for a deterministic run (0 from a host that
    /// predates the field).
    pub fn deterministic(&self) -> bool {
        self.size >= offset_of!(SetupInfo, deterministic) + size_of::<u8>() && self.deterministic != 0
    }
}

/// What a deterministic workload computed up to now, beside the loss the
/// step reported ([`FingerprintFn`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FingerprintInfo {
    /// Size of this struct (fields are only appended).
    pub size: usize,
    /// XXH3-128 of every parameter's bytes, in the workload's fixed order
    /// (big-endian).
    pub params: [u8; 16],
    /// The global L2 norm of the last step's gradients, meaningful when
    /// `has_grad_norm` is 1.
    pub grad_norm: f64,
    /// 1 when the workload has gradients, 0 otherwise.
    pub has_grad_norm: u8,
}

/// Signature of [`PluginTable::fingerprint`]: writes the instance's
/// fingerprint to `out`; a [`status`] code.
pub type FingerprintFn = unsafe extern "C" fn(inst: *mut Instance, out: *mut FingerprintInfo) -> i32;

/// Signature of [`PluginTable::inject`]: injects the fault named by `fault`
/// (`flip_bit`, `corrupt_output`) into the instance; a [`status`] code.
pub type InjectFn = unsafe extern "C" fn(inst: *mut Instance, fault: StrRef) -> i32;

/// Signature of [`PluginTable::save`] and [`PluginTable::restore`]: writes
/// the instance's state into the folder `dir` (an existing, empty folder the
/// host made), or reads it back from there into a fresh instance of the same
/// config (see `Workload::save` and `Workload::restore`); a [`status`] code.
pub type CheckpointFn = unsafe extern "C" fn(inst: *mut Instance, dir: StrRef) -> i32;

/// Signature of [`PluginTable::eval`]: evaluates the instance and writes the
/// value of its quality metric to `out`; a [`status`] code.
pub type EvalFn = unsafe extern "C" fn(inst: *mut Instance, out: *mut f64) -> i32;

/// What a workload's `eval` measures, and its default target (appended to
/// ABI v1). An empty `metric` declares no quality.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct QualityInfo {
    /// The metric's name (`top1`, `perplexity`...); empty: no quality.
    pub metric: StrRef,
    /// The metric's unit (may be empty).
    pub unit: StrRef,
    /// The default target.
    pub target: f64,
    /// 1 when a higher value is better, 0 when a lower one is.
    pub higher_is_better: u8,
}

impl QualityInfo {
    /// The quality `quality` declares (`None`: an empty metric).
    pub const fn of(quality: Option<Quality>) -> Self {
        match quality {
            Some(q) => QualityInfo {
                metric: StrRef::from_static(q.metric),
                unit: StrRef::from_static(q.unit),
                target: q.target,
                higher_is_better: q.higher_is_better as u8,
            },
            None => QualityInfo {
                metric: StrRef::from_static(""),
                unit: StrRef::from_static(""),
                target: 0.0,
                higher_is_better: 0,
            },
        }
    }
}

/// The function table a plugin exports (ABI v1).
#[repr(C)]
pub struct PluginTable {
    /// `size_of::<PluginTable>()` as the plugin was built.
    pub size: usize,
    /// [`ABI_VERSION`] as the plugin was built.
    pub abi_version: u32,
    /// Workload name (`toy_reg`, `spin`...).
    pub name: StrRef,
    /// Workload version (semver of its crate).
    pub version: StrRef,
    /// One-line description.
    pub description: StrRef,
    /// Default arguments, a JSON object.
    pub default_args: StrRef,
    /// Creates an instance from a JSON object of arguments.
    pub create: unsafe extern "C" fn(config: StrRef, out: *mut *mut Instance) -> i32,
    /// Prepares the instance (device, threads, model, data) before timing.
    pub setup: unsafe extern "C" fn(inst: *mut Instance, info: *const SetupInfo) -> i32,
    /// Runs one training step.
    pub step: unsafe extern "C" fn(inst: *mut Instance, out: *mut StepStats) -> i32,
    /// Waits until the device has finished all queued work.
    pub sync: unsafe extern "C" fn(inst: *mut Instance) -> i32,
    /// Writes a JSON object of report fields (metrics, device name...).
    pub report: unsafe extern "C" fn(inst: *mut Instance, out: *mut OwnedStr) -> i32,
    /// Copies the last error message of this thread.
    pub last_error: unsafe extern "C" fn(out: *mut OwnedStr) -> i32,
    /// Frees a string returned by `report` or `last_error`.
    pub free_string: unsafe extern "C" fn(s: OwnedStr),
    /// Drops the instance.
    pub destroy: unsafe extern "C" fn(inst: *mut Instance),
    // Appended to v1: read only through the accessors, which check `size`.
    /// Evaluates the instance on held-out data ([`EvalFn`]); null: the
    /// workload has no evaluation.
    pub eval: Option<EvalFn>,
    /// What `eval` measures and its default target.
    pub quality: QualityInfo,
    /// Fingerprints the instance ([`FingerprintFn`]); null: the workload
    /// cannot run deterministically.
    pub fingerprint: Option<FingerprintFn>,
    /// Injects a test fault ([`InjectFn`]); null: the workload has none.
    pub inject: Option<InjectFn>,
    /// Saves the instance's state into a folder ([`CheckpointFn`]); null:
    /// the workload cannot checkpoint.
    pub save: Option<CheckpointFn>,
    /// Restores a fresh instance from a folder `save` wrote
    /// ([`CheckpointFn`]); null: the workload cannot checkpoint.
    pub restore: Option<CheckpointFn>,
}

impl PluginTable {
    /// Size of the table as v1 first shipped it (up to `destroy`): the least
    /// a host accepts, and the size of a plugin built before `eval`.
    pub const V1_FIRST_SIZE: usize = offset_of!(PluginTable, eval);

    /// Whether the plugin's table holds the field ending at byte `end`.
    fn covers(&self, end: usize) -> bool {
        self.size >= end
    }

    /// The appended entry at byte `offset`, which `read` reads: `None`
    /// when the table ends before it (a table built before it), and nothing
    /// past the table's end is read.
    fn appended<F>(&self, offset: usize, read: impl FnOnce(&Self) -> Option<F>) -> Option<F> {
        if self.covers(offset + size_of::<Option<F>>()) {
            read(self)
        } else {
            None
        }
    }

    /// The evaluation entry: `None` for a table built before it (or null).
    pub fn eval_entry(&self) -> Option<EvalFn> {
        self.appended(offset_of!(PluginTable, eval), |t| t.eval)
    }

    /// The fingerprint entry: `None` for a table built before it, or a
    /// workload that cannot run deterministically.
    pub fn fingerprint_entry(&self) -> Option<FingerprintFn> {
        self.appended(offset_of!(PluginTable, fingerprint), |t| t.fingerprint)
    }

    /// The fault injection entry: `None` for a table built before it.
    pub fn inject_entry(&self) -> Option<InjectFn> {
        self.appended(offset_of!(PluginTable, inject), |t| t.inject)
    }

    /// The checkpoint entry that saves: `None` for a table built before it,
    /// or a workload that cannot checkpoint.
    pub fn save_entry(&self) -> Option<CheckpointFn> {
        self.appended(offset_of!(PluginTable, save), |t| t.save)
    }

    /// The checkpoint entry that restores: `None` for a table built before
    /// it, or a workload that cannot checkpoint.
    pub fn restore_entry(&self) -> Option<CheckpointFn> {
        self.appended(offset_of!(PluginTable, restore), |t| t.restore)
    }

    /// The declared quality: `None` for a table built before it, or one
    /// whose metric is empty.
    pub fn quality_info(&self) -> Option<&QualityInfo> {
        let declared = self.covers(offset_of!(PluginTable, quality) + size_of::<QualityInfo>());
        (declared && self.quality.metric.len > 0).then_some(&self.quality)
    }
}

// SAFETY: the table holds function pointers and pointers to static strings.
unsafe impl Sync for PluginTable {}

/// The tables of every workload of a library, returned by
/// [`WORKLOADS_SYMBOL`].
#[repr(C)]
#[derive(Debug)]
pub struct WorkloadList {
    /// `size_of::<WorkloadList>()` as the plugin was built (fields are only appended).
    pub size: usize,
    /// Number of tables.
    pub count: usize,
    /// `count` pointers to static tables, in the library's order.
    pub tables: *const *const PluginTable,
}

impl WorkloadList {
    /// The list of static `tables`.
    pub const fn new(tables: &'static [&'static PluginTable]) -> Self {
        WorkloadList {
            size: size_of::<WorkloadList>(),
            count: tables.len(),
            tables: tables.as_ptr() as *const *const PluginTable,
        }
    }
}

// SAFETY: the list points to static, immutable tables.
unsafe impl Sync for WorkloadList {}
