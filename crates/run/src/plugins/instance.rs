//! A safe handle on one workload instance inside a loaded plugin.

use super::loader::Plugin;
use mlb_plugin::abi::{status, CheckpointFn, FingerprintInfo, OwnedStr, PluginTable, SetupInfo, StepStats, StrRef};
use mlb_plugin::Fault;
use std::ffi::c_void;
use std::path::Path;

/// How a plugin call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallFailure {
    /// The workload returned an error.
    Error,
    /// The workload panicked (caught at the ABI boundary).
    Panic,
}

/// A failed plugin call with the plugin's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{call} {}: {message}", match kind { CallFailure::Error => "failed", CallFailure::Panic => "panicked" })]
pub struct CallError {
    /// Error or panic.
    pub kind: CallFailure,
    /// The call that failed (`create`, `setup`, `step`...).
    pub call: &'static str,
    /// The plugin's message.
    pub message: String,
}

/// One live workload instance; destroyed on drop.
pub struct Instance<'p> {
    table: &'p PluginTable,
    raw: *mut c_void,
}

impl<'p> Instance<'p> {
    /// Creates an instance from a JSON object of arguments.
    pub fn create(plugin: &'p Plugin, config_json: &str) -> Result<Self, CallError> {
        let table = plugin.table();
        let mut raw = std::ptr::null_mut();
        // SAFETY: the table comes from a checked, never-unloaded plugin.
        let rc = unsafe { (table.create)(StrRef::borrow(config_json), &mut raw) };
        check(table, rc, "create")?;
        if raw.is_null() {
            return Err(CallError { kind: CallFailure::Error, call: "create", message: "returned no instance".into() });
        }
        Ok(Instance { table, raw })
    }

    /// Sets the instance up on `device` with `threads` intra-op threads,
    /// deterministically when `deterministic` (the caller checked that the
    /// workload can: [`Instance::fingerprint`]).
    pub fn setup(&mut self, device: &str, threads: u32, deterministic: bool) -> Result<(), CallError> {
        let info = SetupInfo {
            size: size_of::<SetupInfo>(),
            device: StrRef::borrow(device),
            threads,
            deterministic: deterministic as u8,
        };
        // SAFETY: `raw` is a live instance of this table.
        let rc = unsafe { (self.table.setup)(self.raw, &info) };
        check(self.table, rc, "setup")
    }

    /// Runs one step.
    #[inline]
    pub fn step(&mut self) -> Result<StepStats, CallError> {
        let mut stats = StepStats::default();
        // SAFETY: `raw` is a live instance of this table.
        let rc = unsafe { (self.table.step)(self.raw, &mut stats) };
        if rc == status::OK {
            Ok(stats)
        } else {
            Err(failure(self.table, rc, "step"))
        }
    }

    /// Waits for queued device work.
    pub fn sync(&mut self) -> Result<(), CallError> {
        // SAFETY: `raw` is a live instance of this table.
        let rc = unsafe { (self.table.sync)(self.raw) };
        check(self.table, rc, "sync")
    }

    /// Evaluates the current model on the workload's held-out data: the value
    /// of its quality metric (see [`PluginMeta::quality`](super::PluginMeta)).
    /// A plugin built before the evaluation entry, or a workload without one,
    /// fails with "workload `NAME` has no evaluation".
    pub fn eval(&mut self) -> Result<f64, CallError> {
        let Some(eval) = self.table.eval_entry() else {
            return Err(self.missing("eval", "has no evaluation"));
        };
        let mut value = f64::NAN;
        // SAFETY: `raw` is a live instance of this table.
        let rc = unsafe { eval(self.raw, &mut value) };
        check(self.table, rc, "eval")?;
        Ok(value)
    }

    /// What the instance has computed so far (a workload that can run
    /// deterministically); a workload that cannot fails with "workload
    /// `NAME` cannot run deterministically".
    pub fn fingerprint(&mut self) -> Result<FingerprintInfo, CallError> {
        let Some(fingerprint) = self.table.fingerprint_entry() else {
            return Err(self.missing("fingerprint", "cannot run deterministically"));
        };
        let mut out = FingerprintInfo::default();
        // SAFETY: `raw` is a live instance of this table.
        let rc = unsafe { fingerprint(self.raw, &mut out) };
        check(self.table, rc, "fingerprint")?;
        Ok(out)
    }

    /// Injects `fault` into the instance (tests, and sites checking the checks).
    pub fn inject(&mut self, fault: Fault) -> Result<(), CallError> {
        let Some(inject) = self.table.inject_entry() else {
            return Err(self.missing("inject", "cannot inject faults"));
        };
        // SAFETY: `raw` is a live instance of this table.
        let rc = unsafe { inject(self.raw, StrRef::borrow(fault.name())) };
        check(self.table, rc, "inject")
    }

    /// Writes the instance's state into the folder `dir`, which the caller
    /// made and left empty; called between steps, after `sync`, outside the
    /// timed blocks. A workload that cannot checkpoint (or a plugin built
    /// before the entry) fails with "workload `NAME` cannot checkpoint".
    pub fn save(&mut self, dir: &Path) -> Result<(), CallError> {
        self.checkpoint(self.table.save_entry(), "save", dir)
    }

    /// Reads back into this instance, set up and not stepped yet, the state
    /// [`save`](Self::save) wrote into `dir` from an instance of the same
    /// config: its next steps are the saved instance's. The workload refuses
    /// a folder of another workload or config; one that cannot checkpoint
    /// fails as `save` does.
    pub fn restore(&mut self, dir: &Path) -> Result<(), CallError> {
        self.checkpoint(self.table.restore_entry(), "restore", dir)
    }

    /// Calls the checkpoint `entry` (`call`) on the folder `dir`.
    fn checkpoint(&mut self, entry: Option<CheckpointFn>, call: &'static str, dir: &Path) -> Result<(), CallError> {
        let Some(entry) = entry else {
            return Err(self.missing(call, "cannot checkpoint"));
        };
        let Some(text) = dir.to_str() else {
            let message =
                format!("the checkpoint folder {} is not valid UTF-8; fix: use a folder whose path is", dir.display());
            return Err(CallError { kind: CallFailure::Error, call, message });
        };
        // SAFETY: `raw` is a live instance of this table; `text` outlives the call.
        let rc = unsafe { entry(self.raw, StrRef::borrow(text)) };
        check(self.table, rc, call)
    }

    /// The failure of `call`, an entry the plugin's table does not have.
    fn missing(&self, call: &'static str, what: &str) -> CallError {
        // SAFETY: the table's strings are static in the (never unloaded) library.
        let name = unsafe { self.table.name.as_str() }.unwrap_or("?");
        CallError { kind: CallFailure::Error, call, message: format!("workload `{name}` {what}") }
    }

    /// The workload's extra report fields.
    pub fn report(&mut self) -> Result<serde_json::Map<String, serde_json::Value>, CallError> {
        let mut out = OwnedStr::empty();
        // SAFETY: `raw` is a live instance of this table.
        let rc = unsafe { (self.table.report)(self.raw, &mut out) };
        check(self.table, rc, "report")?;
        let text = take_string(self.table, out);
        match serde_json::from_str(&text) {
            Ok(serde_json::Value::Object(map)) => Ok(map),
            _ => Err(CallError {
                kind: CallFailure::Error,
                call: "report",
                message: format!("report is not a JSON object: {text}"),
            }),
        }
    }
}

impl Drop for Instance<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` is live and dropped exactly once.
        unsafe { (self.table.destroy)(self.raw) }
    }
}

fn check(table: &PluginTable, rc: i32, call: &'static str) -> Result<(), CallError> {
    if rc == status::OK {
        Ok(())
    } else {
        Err(failure(table, rc, call))
    }
}

#[cold]
fn failure(table: &PluginTable, rc: i32, call: &'static str) -> CallError {
    let mut out = OwnedStr::empty();
    // SAFETY: last_error fills `out` with a string owned by the plugin.
    let message = if unsafe { (table.last_error)(&mut out) } == status::OK {
        take_string(table, out)
    } else {
        "(no message)".to_string()
    };
    let kind = if rc == status::PANIC { CallFailure::Panic } else { CallFailure::Error };
    CallError { kind, call, message }
}

/// Copies a plugin-owned string and gives it back to the plugin.
fn take_string(table: &PluginTable, s: OwnedStr) -> String {
    let text = if s.ptr.is_null() {
        String::new()
    } else {
        // SAFETY: the plugin returned `len` initialised bytes at `ptr`.
        String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(s.ptr, s.len) }).into_owned()
    };
    // SAFETY: `s` came from this plugin and is freed once.
    unsafe { (table.free_string)(s) };
    text
}
