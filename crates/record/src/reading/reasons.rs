//! The throttle reasons of a GPU [`Reading`](super::Reading), by bit: NVML's
//! numbering, into which other vendors fold theirs so that every vendor's
//! throttle fractions read alike.

/// The throttle reasons, by bit (NVML's), with their names in reports.
pub const REASONS: [(u64, &str); 9] = [
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
];

/// The reasons that slow a busy GPU down (idle, application clocks, sync
/// boost and display clocks do not count as throttling).
pub const SLOWDOWN: u64 = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;
