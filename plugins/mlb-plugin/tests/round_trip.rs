//! ABI round trip: a workload exported through the macro, driven only through
//! the raw table, as a host does.

use mlb_plugin::abi::{status, OwnedStr, PluginTable, SetupInfo, StepStats, StrRef, ABI_VERSION};
use mlb_plugin::{export_workload, workload_args, Setup, Step, Workload};
use std::ffi::c_void;

workload_args! {
    /// Arguments of the counter.
    struct Args {
        repeat = 20, number = 10;
        batch_size: u64 = 4,
        refuse: bool,
        fail_at: Option<u64>,
        panic_at: Option<u64>,
    }
}

struct Counter {
    step: u64,
    batch: u64,
    setup: Option<Setup>,
    fail_at: Option<u64>,
    panic_at: Option<u64>,
}

impl Workload for Counter {
    const NAME: &'static str = "counter";
    const VERSION: &'static str = "1.2.3";
    const DESCRIPTION: &'static str = "counts steps";
    type Args = Args;

    fn create(args: Args) -> mlb_plugin::Result<Self> {
        if args.refuse {
            return Err("refused by config".into());
        }
        Ok(Counter { step: 0, batch: args.batch_size, setup: None, fail_at: args.fail_at, panic_at: args.panic_at })
    }

    fn setup(&mut self, setup: &Setup) -> mlb_plugin::Result<()> {
        self.setup = Some(setup.clone());
        Ok(())
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        self.step += 1;
        if Some(self.step) == self.fail_at {
            return Err(format!("failed at step {}", self.step).into());
        }
        if Some(self.step) == self.panic_at {
            panic!("panicked at step {}", self.step);
        }
        Ok(Step::with_loss(self.batch, 1.0 / self.step as f64))
    }

    fn report(&self) -> mlb_plugin::Result<serde_json::Map<String, serde_json::Value>> {
        let setup = self.setup.as_ref().ok_or("report before setup")?;
        let mut m = serde_json::Map::new();
        m.insert("steps".into(), self.step.into());
        m.insert("device".into(), setup.device.clone().into());
        m.insert("threads".into(), setup.threads.into());
        Ok(m)
    }
}

export_workload!(Counter);

fn table() -> &'static PluginTable {
    unsafe { &*mlb_plugin_v1() }
}

fn take(t: &PluginTable, s: OwnedStr) -> String {
    let text = unsafe { std::str::from_utf8(std::slice::from_raw_parts(s.ptr, s.len)).unwrap().to_string() };
    unsafe { (t.free_string)(s) };
    text
}

fn last_error(t: &PluginTable) -> String {
    let mut out = OwnedStr::empty();
    assert_eq!(unsafe { (t.last_error)(&mut out) }, status::OK);
    take(t, out)
}

fn create(t: &PluginTable, config: &str) -> Result<*mut c_void, (i32, String)> {
    let mut inst = std::ptr::null_mut();
    let rc = unsafe { (t.create)(StrRef::borrow(config), &mut inst) };
    if rc == status::OK {
        Ok(inst)
    } else {
        Err((rc, last_error(t)))
    }
}

#[test]
fn table_metadata() {
    let t = table();
    assert_eq!(t.size, size_of::<PluginTable>());
    assert_eq!(t.abi_version, ABI_VERSION);
    unsafe {
        assert_eq!(t.name.as_str().unwrap(), "counter");
        assert_eq!(t.version.as_str().unwrap(), "1.2.3");
        assert_eq!(t.description.as_str().unwrap(), "counts steps");
        assert_eq!(t.default_args.as_str().unwrap(), r#"{"repeat": 20, "number": 10, "batch_size": 4}"#);
    }
}

#[test]
fn create_setup_step_sync_report_destroy() {
    let t = table();
    let inst = create(t, r#"{"batch_size": "8"}"#).unwrap();
    let info = SetupInfo { size: size_of::<SetupInfo>(), device: StrRef::borrow("cpu"), threads: 3 };
    assert_eq!(unsafe { (t.setup)(inst, &info) }, status::OK);
    let mut stats = StepStats::default();
    for i in 1..=3u64 {
        assert_eq!(unsafe { (t.step)(inst, &mut stats) }, status::OK);
        assert_eq!(stats, StepStats { items: 8, loss: 1.0 / i as f64, has_loss: 1 });
    }
    assert_eq!(unsafe { (t.sync)(inst) }, status::OK);
    let mut out = OwnedStr::empty();
    assert_eq!(unsafe { (t.report)(inst, &mut out) }, status::OK);
    let report: serde_json::Value = serde_json::from_str(&take(t, out)).unwrap();
    assert_eq!(report, serde_json::json!({"steps": 3, "device": "cpu", "threads": 3}));
    unsafe { (t.destroy)(inst) };
}

#[test]
fn errors_and_panics_become_status_codes_with_messages() {
    let t = table();
    assert_eq!(create(t, r#"{"refuse": ""}"#).unwrap_err(), (status::ERROR, "refused by config".to_string()));
    let (rc, msg) = create(t, "not json").unwrap_err();
    assert_eq!(rc, status::ERROR);
    assert!(msg.contains("not valid JSON"), "{msg}");
    // Declared arguments are read as their kind before the workload sees them.
    let (rc, msg) = create(t, r#"{"batch_size": "many"}"#).unwrap_err();
    assert_eq!(rc, status::ERROR);
    assert_eq!(msg, "argument `batch_size` must be a non-negative integer, got \"many\"");

    let inst = create(t, r#"{"fail_at": 2, "panic_at": 3}"#).unwrap();
    let mut stats = StepStats::default();
    assert_eq!(unsafe { (t.step)(inst, &mut stats) }, status::OK);
    assert_eq!(unsafe { (t.step)(inst, &mut stats) }, status::ERROR);
    assert_eq!(last_error(t), "failed at step 2");
    assert_eq!(unsafe { (t.step)(inst, &mut stats) }, status::PANIC);
    assert_eq!(last_error(t), "panicked at step 3");
    // A report before setup is an error, not a crash.
    let mut out = OwnedStr::empty();
    assert_eq!(unsafe { (t.report)(inst, &mut out) }, status::ERROR);
    assert_eq!(last_error(t), "report before setup");
    unsafe { (t.destroy)(inst) };
}

#[test]
fn null_instance_is_an_error() {
    let t = table();
    let mut stats = StepStats::default();
    assert_eq!(unsafe { (t.step)(std::ptr::null_mut(), &mut stats) }, status::ERROR);
    assert_eq!(last_error(t), "null workload instance");
    assert_eq!(unsafe { (t.setup)(std::ptr::null_mut(), std::ptr::null()) }, status::ERROR);
}
