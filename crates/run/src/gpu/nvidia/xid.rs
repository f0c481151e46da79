//! XID events of NVIDIA GPUs (driver-reported errors: 48 a double-bit ECC
//! error, 79 a GPU fallen off the bus...), through NVML's event sets. One
//! thread per run waits for them and counts them per device; each sample
//! reads the count as a counter (`xid_events`), so the window's events are
//! the difference at its edges, like ECC errors.

use nvml_wrapper::bitmasks::event::EventTypes;
use nvml_wrapper::enums::event::XidError;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::{EventSet, Nvml};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// How long one wait for an event lasts before the thread waits again, ms.
const WAIT_MS: u32 = 1000;

/// The XID events seen since the run's NVML was loaded.
#[derive(Debug, Default)]
pub struct XidLog {
    watching: AtomicBool,
    by_device: Mutex<BTreeMap<u32, Seen>>,
}

/// The events of one device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// How many.
    pub count: u64,
    /// The last one's XID (999: unknown).
    pub last: u64,
}

impl XidLog {
    /// Whether events are being watched for (NVML has event sets and some
    /// device accepted the registration).
    pub fn watching(&self) -> bool {
        self.watching.load(Ordering::Acquire)
    }

    /// The events of device `index` so far.
    pub fn of(&self, index: u32) -> Seen {
        self.by_device.lock().map(|m| m.get(&index).copied().unwrap_or_default()).unwrap_or_default()
    }

    fn record(&self, index: u32, xid: u64) {
        if let Ok(mut m) = self.by_device.lock() {
            let seen = m.entry(index).or_default();
            seen.count += 1;
            seen.last = xid;
        }
    }

    /// Starts the thread that counts `nvml`'s XID events into a new log.
    pub fn watch(nvml: Arc<Nvml>) -> Arc<XidLog> {
        let log = Arc::new(XidLog::default());
        let out = log.clone();
        std::thread::Builder::new()
            .name("mlb-xid".into())
            .spawn(move || {
                if let Some(set) = register(&nvml) {
                    log.watching.store(true, Ordering::Release);
                    wait(&set, &log);
                }
            })
            .ok();
        out
    }
}

/// An event set with every device that accepts XID events; `None` when
/// none does (or NVML has no event sets).
fn register(nvml: &Nvml) -> Option<EventSet<'_>> {
    let count = nvml.device_count().ok()?;
    let mut set = nvml.create_event_set().ok()?;
    let mut registered: Vec<u32> = Vec::new();
    for index in 0..count {
        let Ok(device) = nvml.device_by_index(index) else { continue };
        match device.register_events(EventTypes::CRITICAL_XID_ERROR, set) {
            Ok(s) => {
                set = s;
                registered.push(index);
            }
            // A refused registration frees the set: make it again with the
            // devices that accepted.
            Err(_) => {
                set = nvml.create_event_set().ok()?;
                for &i in &registered {
                    set = nvml.device_by_index(i).ok()?.register_events(EventTypes::CRITICAL_XID_ERROR, set).ok()?;
                }
            }
        }
    }
    (!registered.is_empty()).then_some(set)
}

fn wait(set: &EventSet<'_>, log: &XidLog) {
    loop {
        match set.wait(WAIT_MS) {
            Ok(event) => {
                let xid = match event.event_data {
                    Some(XidError::Value(v)) => v,
                    Some(XidError::Unknown) => 999,
                    None => continue,
                };
                if let Ok(index) = event.device.index() {
                    log.record(index, xid);
                }
            }
            Err(NvmlError::Timeout) => {}
            Err(_) => return,
        }
    }
}
