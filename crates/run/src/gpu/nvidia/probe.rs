//! NVIDIA GPUs through NVML (`nvml-wrapper`): one read of each of an
//! instance's devices per sample.
//!
//! | gauge / counter | NVML call | unit |
//! |---|---|---|
//! | `utilization_percent`, `memory_utilization_percent` | `nvmlDeviceGetUtilizationRates` | % of the driver's last sampling period |
//! | `memory_used_bytes` | `nvmlDeviceGetMemoryInfo_v2` | bytes |
//! | `temperature_c` | `nvmlDeviceGetTemperature` (GPU sensor) | °C |
//! | `power_w` | `nvmlDeviceGetFieldValues` `NVML_FI_DEV_POWER_INSTANT` | W, instant |
//! | `power_average_w` | `nvmlDeviceGetPowerUsage` | W, a 1-s average on Ampere and later |
//! | `sm_clock_mhz`, `memory_clock_mhz` | `nvmlDeviceGetClockInfo` | MHz |
//! | `pcie_gen`, `pcie_width` | `nvmlDeviceGetCurrPcieLinkGeneration`, `...Width` | |
//! | `energy_mj` (counter) | `nvmlDeviceGetTotalEnergyConsumption` | mJ since the driver loaded |
//! | `ecc_corrected`, `ecc_uncorrected` (counters) | `nvmlDeviceGetTotalEccErrors` (volatile) | errors |
//! | `xid_events` (counter), `xid_last` | NVML event sets ([`super::xid`]), where the driver has them | events, the last XID |
//! | reasons | `nvmlDeviceGetCurrentClocksThrottleReasons` | bits, see [`mlb_record::reading::reasons`] |
//!
//! The maxima (`nvmlDeviceGetMaxClockInfo`, `nvmlDeviceGetMaxPcieLinkGeneration`,
//! `...Width`) and the name are read once.

use super::xid::XidLog;
use crate::gpu::{DeviceIndex, GpuReader, Maxima};
use mlb_record::reading::Reading;
use nvml_wrapper::enum_wrappers::device::{Clock, EccCounter, MemoryError, TemperatureSensor};
use nvml_wrapper::enums::device::SampleValue;
use nvml_wrapper::structs::device::FieldId;
use nvml_wrapper::sys_exports::field_id::NVML_FI_DEV_POWER_INSTANT;
use nvml_wrapper::Nvml;
use std::sync::Arc;

/// The reader of NVIDIA devices through a loaded NVML (the process's, opened in [`crate::gpu`]),
/// made once per run and shared by the instances' samplers; it watches
/// their XID events from when it is made.
#[derive(Clone, Debug)]
pub struct NvidiaProbe {
    nvml: Arc<Nvml>,
    xids: Arc<XidLog>,
}

impl NvidiaProbe {
    /// The reader of `nvml`'s devices.
    pub fn of(nvml: Arc<Nvml>) -> NvidiaProbe {
        NvidiaProbe { xids: XidLog::watch(nvml.clone()), nvml }
    }
}

impl GpuReader for NvidiaProbe {
    fn source(&self) -> String {
        "nvml".into()
    }

    fn maxima(&self, device: DeviceIndex) -> Maxima {
        let Ok(d) = self.nvml.device_by_index(device.0) else { return Maxima::default() };
        Maxima {
            name: d.name().ok(),
            sm_clock_max_mhz: d.max_clock_info(Clock::SM).ok(),
            memory_clock_max_mhz: d.max_clock_info(Clock::Memory).ok(),
            pcie_gen_max: d.max_pcie_link_gen().ok(),
            pcie_width_max: d.max_pcie_link_width().ok(),
        }
    }

    fn read(&self, device: DeviceIndex) -> Reading {
        let mut r = Reading::default();
        let Ok(d) = self.nvml.device_by_index(device.0) else { return r };
        // First: the clocks and temperature read next belong with it.
        r.reasons = d.current_throttle_reasons().ok().map(|b| b.bits());
        let util = d.utilization_rates().ok();
        r.gauge("utilization_percent", util.as_ref().map(|u| u.gpu as f64));
        r.gauge("memory_utilization_percent", util.as_ref().map(|u| u.memory as f64));
        r.gauge("memory_used_bytes", d.memory_info().ok().map(|m| m.used as f64));
        r.gauge("temperature_c", d.temperature(TemperatureSensor::Gpu).ok().map(f64::from));
        let instant = d.field_values_for(&[FieldId(NVML_FI_DEV_POWER_INSTANT)]).ok().and_then(|mut v| v.pop());
        r.gauge("power_w", instant.and_then(|s| s.ok()?.value.ok()).and_then(milliwatts).map(|mw| mw / 1000.0));
        r.gauge("power_average_w", d.power_usage().ok().map(|mw| mw as f64 / 1000.0));
        r.gauge("sm_clock_mhz", d.clock_info(Clock::SM).ok().map(f64::from));
        r.gauge("memory_clock_mhz", d.clock_info(Clock::Memory).ok().map(f64::from));
        r.gauge("pcie_gen", d.current_pcie_link_gen().ok().map(f64::from));
        r.gauge("pcie_width", d.current_pcie_link_width().ok().map(f64::from));
        r.counter("energy_mj", d.total_energy_consumption().ok());
        r.counter("ecc_corrected", d.total_ecc_errors(MemoryError::Corrected, EccCounter::Volatile).ok());
        r.counter("ecc_uncorrected", d.total_ecc_errors(MemoryError::Uncorrected, EccCounter::Volatile).ok());
        if self.xids.watching() {
            let seen = self.xids.of(device.0);
            r.counter("xid_events", Some(seen.count));
            r.gauge("xid_last", (seen.count > 0).then_some(seen.last as f64));
        }
        r
    }
}

/// A power field's value, milliwatts.
fn milliwatts(v: SampleValue) -> Option<f64> {
    match v {
        SampleValue::U32(x) => Some(x as f64),
        SampleValue::U64(x) => Some(x as f64),
        SampleValue::I64(x) => Some(x as f64),
        SampleValue::F64(x) => Some(x),
    }
}
