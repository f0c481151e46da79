//! ABI round trip: a workload exported through the macro, driven only through
//! the raw table, as a host does.

use mlb_plugin::abi::{status, FingerprintInfo, OwnedStr, PluginTable, SetupInfo, StepStats, StrRef, ABI_VERSION};
use mlb_plugin::{
    export_workload, workload_args, CheckpointHeader, Config, Fault, Fingerprint, ParamHasher, Quality, Setup, Step,
    Workload,
};
use std::ffi::c_void;
use std::path::Path;

workload_args! {
    /// Arguments of the counter.
    struct Args {
        repeat = 20, number = 10;
        /// Items a step counts.
        batch_size: u64 = 4,
        /// `create` fails.
        refuse: bool,
        /// Step that returns an error.
        fail_at: Option<u64>,
        /// Step that panics.
        panic_at: Option<u64>,
        /// `eval` fails.
        eval_fails: bool,
    }
}

struct Counter {
    step: u64,
    batch: u64,
    setup: Option<Setup>,
    fail_at: Option<u64>,
    panic_at: Option<u64>,
    eval_fails: bool,
}

impl Workload for Counter {
    const NAME: &'static str = "counter";
    const VERSION: &'static str = "1.2.3";
    const DESCRIPTION: &'static str = "counts steps";
    type Args = Args;
    const QUALITY: Option<Quality> =
        Some(Quality { metric: "steps", unit: "steps", higher_is_better: true, target: 3.0 });
    const DETERMINISTIC: bool = true;
    const CHECKPOINT: bool = true;

    fn create(args: Args) -> mlb_plugin::Result<Self> {
        if args.refuse {
            return Err("refused by config".into());
        }
        let (fail_at, panic_at, eval_fails) = (args.fail_at, args.panic_at, args.eval_fails);
        Ok(Counter { step: 0, batch: args.batch_size, setup: None, fail_at, panic_at, eval_fails })
    }

    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        if self.eval_fails {
            return Err("no held-out data".into());
        }
        Ok(self.step as f64)
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

    fn fingerprint(&mut self) -> mlb_plugin::Result<Fingerprint> {
        let mut hasher = ParamHasher::new();
        hasher.update(&self.step.to_le_bytes());
        let deterministic = self.setup.as_ref().is_some_and(|s| s.deterministic);
        Ok(Fingerprint { params: hasher.finish(), grad_norm: deterministic.then_some(0.5) })
    }

    fn inject(&mut self, fault: Fault) -> mlb_plugin::Result<()> {
        match fault {
            Fault::FlipBit => {
                self.step ^= 1 << 40;
                Ok(())
            }
            Fault::CorruptOutput => Err("the counter has no output".into()),
        }
    }

    fn save(&mut self, dir: &Path) -> mlb_plugin::Result<()> {
        self.header().write(dir)?;
        Ok(std::fs::write(dir.join("step"), self.step.to_string())?)
    }

    fn restore(&mut self, dir: &Path) -> mlb_plugin::Result<()> {
        self.header().check(dir)?;
        self.step = std::fs::read_to_string(dir.join("step"))?.parse()?;
        Ok(())
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

impl Counter {
    /// What a checkpoint of the counter must match: its batch.
    fn header(&self) -> CheckpointHeader {
        CheckpointHeader::new(Self::NAME).with("batch_size", self.batch)
    }
}

export_workload!(Counter);

/// A workload without an evaluation (its table is built, not exported).
struct Plain;

impl Workload for Plain {
    const NAME: &'static str = "plain";
    const VERSION: &'static str = "0.1.0";
    const DESCRIPTION: &'static str = "no eval";
    type Args = Config;
    fn create(_args: Config) -> mlb_plugin::Result<Self> {
        Ok(Plain)
    }
    fn step(&mut self) -> mlb_plugin::Result<Step> {
        Ok(Step::items(1))
    }
}

static PLAIN: PluginTable = mlb_plugin::ffi::table::<Plain>();

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
    let info = SetupInfo { size: size_of::<SetupInfo>(), device: StrRef::borrow("cpu"), threads: 3, deterministic: 0 };
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

/// Evaluates `inst` through the table: the value, or the status and message.
fn eval(t: &PluginTable, inst: *mut c_void) -> Result<f64, (i32, String)> {
    let entry = t.eval_entry().expect("the table has an eval entry");
    let mut value = f64::NAN;
    match unsafe { entry(inst, &mut value) } {
        status::OK => Ok(value),
        rc => Err((rc, last_error(t))),
    }
}

#[test]
fn eval_returns_the_quality_declared_in_the_table() {
    let t = table();
    let q = t.quality_info().expect("counter declares a quality");
    unsafe {
        assert_eq!((q.metric.as_str().unwrap(), q.unit.as_str().unwrap()), ("steps", "steps"));
    }
    assert_eq!((q.higher_is_better, q.target), (1, 3.0));
    let inst = create(t, "{}").unwrap();
    let mut stats = StepStats::default();
    assert_eq!(eval(t, inst), Ok(0.0));
    for _ in 0..2 {
        assert_eq!(unsafe { (t.step)(inst, &mut stats) }, status::OK);
    }
    assert_eq!(eval(t, inst), Ok(2.0), "eval sees the steps trained");
    unsafe { (t.destroy)(inst) };

    let inst = create(t, r#"{"eval_fails": ""}"#).unwrap();
    assert_eq!(eval(t, inst), Err((status::ERROR, "no held-out data".into())));
    assert_eq!(unsafe { t.eval_entry().unwrap()(std::ptr::null_mut(), &mut 0.0) }, status::ERROR);
    assert_eq!(last_error(t), "null workload instance");
    unsafe { (t.destroy)(inst) };
}

#[test]
fn a_workload_without_eval_declares_no_quality_and_its_eval_fails() {
    assert!(PLAIN.quality_info().is_none());
    let inst = create(&PLAIN, "{}").unwrap();
    assert_eq!(eval(&PLAIN, inst), Err((status::ERROR, "workload `plain` has no evaluation".into())));
    unsafe { (PLAIN.destroy)(inst) };
}

#[test]
fn a_table_of_the_first_v1_size_has_neither_eval_nor_quality() {
    // What a plugin built before `eval` was appended exports.
    let mut old = mlb_plugin::ffi::table::<Counter>();
    old.size = PluginTable::V1_FIRST_SIZE;
    assert!(old.eval_entry().is_none() && old.quality_info().is_none());
    assert!(PluginTable::V1_FIRST_SIZE < size_of::<PluginTable>());
    old.size = size_of::<PluginTable>();
    assert!(old.eval_entry().is_some() && old.quality_info().is_some());
}

#[test]
fn fingerprint_and_inject_cross_the_table_and_setup_says_deterministic() {
    let t = table();
    let inst = create(t, "{}").unwrap();
    let info = SetupInfo { size: size_of::<SetupInfo>(), device: StrRef::borrow("cpu"), threads: 1, deterministic: 1 };
    assert_eq!(unsafe { (t.setup)(inst, &info) }, status::OK);
    let print = |inst| {
        let mut out = FingerprintInfo::default();
        assert_eq!(unsafe { t.fingerprint_entry().unwrap()(inst, &mut out) }, status::OK);
        out
    };
    let before = print(inst);
    assert_eq!((before.size, before.grad_norm, before.has_grad_norm), (size_of::<FingerprintInfo>(), 0.5, 1));
    let inject = |name: &str| unsafe { t.inject_entry().unwrap()(inst, StrRef::borrow(name)) };
    assert_eq!(inject(Fault::FlipBit.name()), status::OK);
    assert_ne!(print(inst).params, before.params);
    assert_eq!(inject("corrupt_output"), status::ERROR);
    assert_eq!(last_error(t), "the counter has no output");
    assert_eq!(inject("melt"), status::ERROR);
    assert_eq!(last_error(t), "no fault is named `melt`");
    unsafe { (t.destroy)(inst) };

    // A host that predates the flag passes a shorter SetupInfo: not deterministic.
    let inst = create(t, "{}").unwrap();
    let old = SetupInfo { size: std::mem::offset_of!(SetupInfo, deterministic), ..info };
    assert_eq!(unsafe { (t.setup)(inst, &old) }, status::OK);
    assert_eq!(print(inst).has_grad_norm, 0);
    unsafe { (t.destroy)(inst) };
}

#[test]
fn a_workload_that_cannot_run_deterministically_has_no_fingerprint_entry() {
    assert!(PLAIN.fingerprint_entry().is_none() && PLAIN.inject_entry().is_some());
    assert!(table().fingerprint_entry().is_some());
    let mut old = mlb_plugin::ffi::table::<Counter>();
    old.size = std::mem::offset_of!(PluginTable, fingerprint);
    assert!(old.fingerprint_entry().is_none() && old.inject_entry().is_none(), "a table built before them");
}

/// Saves or restores `inst` through `entry`, with `dir`: the status, and
/// the message of a failure.
fn checkpoint(
    t: &PluginTable,
    entry: mlb_plugin::abi::CheckpointFn,
    inst: *mut c_void,
    dir: &Path,
) -> Result<(), (i32, String)> {
    match unsafe { entry(inst, StrRef::borrow(dir.to_str().unwrap())) } {
        status::OK => Ok(()),
        rc => Err((rc, last_error(t))),
    }
}

#[test]
fn save_and_restore_cross_the_table_and_a_restored_instance_goes_on_where_the_saved_one_was() {
    let t = table();
    let (save, restore) = (t.save_entry().unwrap(), t.restore_entry().unwrap());
    let dir = std::env::temp_dir().join(format!("mlb-plugin-round-trip-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut stats = StepStats::default();
    let saved = create(t, r#"{"batch_size": 3}"#).unwrap();
    for _ in 0..4 {
        assert_eq!(unsafe { (t.step)(saved, &mut stats) }, status::OK);
    }
    checkpoint(t, save, saved, &dir).unwrap();
    assert_eq!(unsafe { (t.step)(saved, &mut stats) }, status::OK);
    let uninterrupted = stats;
    unsafe { (t.destroy)(saved) };

    let fresh = create(t, r#"{"batch_size": 3}"#).unwrap();
    checkpoint(t, restore, fresh, &dir).unwrap();
    assert_eq!(unsafe { (t.step)(fresh, &mut stats) }, status::OK);
    assert_eq!(stats, uninterrupted, "step 5 after the restore is step 5");
    unsafe { (t.destroy)(fresh) };

    let other = create(t, r#"{"batch_size": 4}"#).unwrap();
    let (rc, message) = checkpoint(t, restore, other, &dir).unwrap_err();
    assert_eq!(rc, status::ERROR);
    assert!(message.contains("the checkpoint's `batch_size` is 3, this instance's is 4"), "{message}");
    unsafe { (t.destroy)(other) };
    assert_eq!(checkpoint(t, save, std::ptr::null_mut(), &dir), Err((status::ERROR, "null workload instance".into())));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_workload_that_cannot_checkpoint_has_no_checkpoint_entries() {
    assert!(PLAIN.save_entry().is_none() && PLAIN.restore_entry().is_none());
    let mut old = mlb_plugin::ffi::table::<Counter>();
    old.size = std::mem::offset_of!(PluginTable, save);
    assert!(old.save_entry().is_none() && old.restore_entry().is_none(), "a table built before them");
    assert!(old.inject_entry().is_some());
    let mut plain = Plain;
    let e = plain.save(Path::new("unused")).unwrap_err().to_string();
    assert_eq!(e, "workload `plain` cannot checkpoint");
    assert_eq!(plain.restore(Path::new("unused")).unwrap_err().to_string(), e);
}
