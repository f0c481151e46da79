//! The `extern "C"` shims that [`export_workload!`](crate::export_workload)
//! puts in a plugin's table. Each one catches panics and records the message
//! of any failure for `last_error`.

use crate::abi::{
    status, FingerprintInfo, OwnedStr, PluginTable, QualityInfo, SetupInfo, StepStats, StrRef, ABI_VERSION,
};
use crate::{Config, Fault, Result, Setup, Workload, WorkloadArgs};
use std::any::Any;
use std::cell::RefCell;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The table for workload `W`; evaluated at compile time into a static.
pub const fn table<W: Workload>() -> PluginTable {
    PluginTable {
        size: size_of::<PluginTable>(),
        abi_version: ABI_VERSION,
        name: StrRef::from_static(W::NAME),
        version: StrRef::from_static(W::VERSION),
        description: StrRef::from_static(W::DESCRIPTION),
        default_args: StrRef::from_static(W::Args::DEFAULTS),
        create: create::<W>,
        setup: setup::<W>,
        step: step::<W>,
        sync: sync::<W>,
        report: report::<W>,
        last_error,
        free_string,
        destroy: destroy::<W>,
        eval: Some(eval::<W>),
        quality: QualityInfo::of(W::QUALITY),
        fingerprint: if W::DETERMINISTIC { Some(fingerprint::<W>) } else { None },
        inject: Some(inject::<W>),
        save: if W::CHECKPOINT { Some(save::<W>) } else { None },
        restore: if W::CHECKPOINT { Some(restore::<W>) } else { None },
    }
}

/// The static table of workload `W`, for the export macros.
pub struct Exported<W>(std::marker::PhantomData<W>);

impl<W: Workload> Exported<W> {
    /// `W`'s table, evaluated at compile time.
    pub const TABLE: &'static PluginTable = &table::<W>();
}

/// Runs `f`, catching panics; returns a status code.
fn guard(f: impl FnOnce() -> Result<()>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => status::OK,
        Ok(Err(e)) => {
            set_last_error(e.to_string());
            status::ERROR
        }
        Err(payload) => {
            set_last_error(panic_message(payload.as_ref()));
            status::PANIC
        }
    }
}

fn set_last_error(message: String) {
    LAST_ERROR.with(|slot| *slot.borrow_mut() = message);
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

fn into_owned(s: String) -> OwnedStr {
    let mut s = std::mem::ManuallyDrop::new(s);
    OwnedStr { ptr: s.as_mut_ptr(), len: s.len(), cap: s.capacity() }
}

/// # Safety
/// `inst` must come from `create::<W>` and not be destroyed.
unsafe fn instance<'a, W>(inst: *mut c_void) -> Result<&'a mut W> {
    (inst as *mut W).as_mut().ok_or_else(|| "null workload instance".into())
}

unsafe extern "C" fn create<W: Workload>(config: StrRef, out: *mut *mut c_void) -> i32 {
    guard(|| {
        let text = config.as_str()?;
        let config = Config::parse(text)?;
        let workload = W::create(W::Args::from_config(&config)?)?;
        *out = Box::into_raw(Box::new(workload)) as *mut c_void;
        Ok(())
    })
}

unsafe extern "C" fn setup<W: Workload>(inst: *mut c_void, info: *const SetupInfo) -> i32 {
    guard(|| {
        let info = info.as_ref().ok_or("null setup info")?;
        let setup = Setup {
            device: info.device.as_str()?.to_string(),
            threads: info.threads,
            deterministic: info.deterministic(),
        };
        instance::<W>(inst)?.setup(&setup)
    })
}

unsafe extern "C" fn step<W: Workload>(inst: *mut c_void, out: *mut StepStats) -> i32 {
    guard(|| {
        let step = instance::<W>(inst)?.step()?;
        *out = StepStats { items: step.items, loss: step.loss.unwrap_or(0.0), has_loss: step.loss.is_some() as u8 };
        Ok(())
    })
}

unsafe extern "C" fn sync<W: Workload>(inst: *mut c_void) -> i32 {
    guard(|| instance::<W>(inst)?.sync())
}

unsafe extern "C" fn report<W: Workload>(inst: *mut c_void, out: *mut OwnedStr) -> i32 {
    guard(|| {
        let fields = instance::<W>(inst)?.report()?;
        *out = into_owned(serde_json::Value::Object(fields).to_string());
        Ok(())
    })
}

unsafe extern "C" fn eval<W: Workload>(inst: *mut c_void, out: *mut f64) -> i32 {
    guard(|| {
        let value = instance::<W>(inst)?.eval()?;
        *out.as_mut().ok_or("null eval output")? = value;
        Ok(())
    })
}

unsafe extern "C" fn fingerprint<W: Workload>(inst: *mut c_void, out: *mut FingerprintInfo) -> i32 {
    guard(|| {
        let print = instance::<W>(inst)?.fingerprint()?;
        *out.as_mut().ok_or("null fingerprint output")? = FingerprintInfo {
            size: size_of::<FingerprintInfo>(),
            params: print.params,
            grad_norm: print.grad_norm.unwrap_or(0.0),
            has_grad_norm: print.grad_norm.is_some() as u8,
        };
        Ok(())
    })
}

unsafe extern "C" fn inject<W: Workload>(inst: *mut c_void, fault: StrRef) -> i32 {
    guard(|| {
        let name = fault.as_str()?;
        let fault = Fault::from_name(name).ok_or_else(|| format!("no fault is named `{name}`"))?;
        instance::<W>(inst)?.inject(fault)
    })
}

unsafe extern "C" fn save<W: Workload>(inst: *mut c_void, dir: StrRef) -> i32 {
    guard(|| instance::<W>(inst)?.save(std::path::Path::new(dir.as_str()?)))
}

unsafe extern "C" fn restore<W: Workload>(inst: *mut c_void, dir: StrRef) -> i32 {
    guard(|| instance::<W>(inst)?.restore(std::path::Path::new(dir.as_str()?)))
}

unsafe extern "C" fn last_error(out: *mut OwnedStr) -> i32 {
    guard(|| {
        *out = into_owned(LAST_ERROR.with(|slot| slot.borrow().clone()));
        Ok(())
    })
}

unsafe extern "C" fn free_string(s: OwnedStr) {
    if !s.ptr.is_null() {
        drop(String::from_raw_parts(s.ptr, s.len, s.cap));
    }
}

unsafe extern "C" fn destroy<W: Workload>(inst: *mut c_void) {
    if !inst.is_null() {
        // Dropping workload state may itself panic; never let it unwind.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(inst as *mut W))));
    }
}
