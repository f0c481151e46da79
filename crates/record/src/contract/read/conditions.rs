//! The conditions an instance ran in, from its report's `telemetry` block
//! (docs/telemetry.md): its energy per item, whether it throttled or ran on
//! a degraded link. Read leniently: a block of another shape gives no
//! conditions rather than an unreadable entry.

use crate::contract::telemetry::THROTTLE_FLAG;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

/// What the report uses of an instance's telemetry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Conditions {
    /// Energy of the timed window per item, joules (`energy.joules_per_item`).
    pub joules_per_item: Option<f64>,
    /// Where the energy was read: the GPUs' counters, or the host's
    /// packages (`false`: every process of the host counts).
    pub gpu_energy: bool,
    /// The largest share of the window a GPU, or the slot's CPU quota,
    /// spent throttled.
    pub throttled_share: Option<f64>,
    /// Some GPU's PCIe link ran below its maximum.
    pub degraded_link: bool,
    /// XID events of its GPUs inside the window (`totals.xid_events`).
    pub xid_events: f64,
}

impl Conditions {
    /// Items per joule, i.e. items/s per watt.
    pub fn items_per_watt(&self) -> Option<f64> {
        self.joules_per_item.filter(|j| *j > 0.0).map(|j| 1.0 / j)
    }

    /// Whether it throttled for more than [`THROTTLE_FLAG`] of its window
    /// (the limit of the block's own `throttled`).
    pub fn throttled(&self) -> bool {
        self.throttled_share.is_some_and(|s| s > THROTTLE_FLAG)
    }

    /// Whether its figure is doubtful: it throttled, ran on a degraded
    /// link, or its GPUs reported XID errors in its window.
    pub fn flagged(&self) -> bool {
        self.throttled() || self.degraded_link || self.xid_events > 0.0
    }
}

/// The `telemetry` value of a report, as read.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RawTelemetry {
    /// A block of the documented shape.
    Block(Block),
    /// Anything else.
    Other(IgnoredAny),
}

#[derive(Deserialize)]
pub(super) struct Block {
    #[serde(default)]
    energy: Option<Energy>,
    #[serde(default)]
    gpus: Vec<Gpu>,
    #[serde(default)]
    slot: Option<Slot>,
    #[serde(default)]
    degraded_link: bool,
}

#[derive(Deserialize)]
struct Energy {
    joules_per_item: Option<f64>,
    source: Option<String>,
}

#[derive(Deserialize)]
struct Gpu {
    throttled_fraction: Option<f64>,
    #[serde(default)]
    totals: std::collections::BTreeMap<String, f64>,
}

#[derive(Deserialize)]
struct Slot {
    cpu_throttled_fraction: Option<f64>,
}

impl RawTelemetry {
    /// The conditions, when the block has the documented shape.
    pub(super) fn conditions(self) -> Option<Conditions> {
        let RawTelemetry::Block(b) = self else { return None };
        let cpu = b.slot.and_then(|s| s.cpu_throttled_fraction);
        Some(Conditions {
            throttled_share: b
                .gpus
                .iter()
                .filter_map(|g| g.throttled_fraction)
                .chain(cpu)
                .filter(|s| s.is_finite())
                .reduce(f64::max),
            joules_per_item: b.energy.as_ref().and_then(|e| e.joules_per_item).filter(|j| j.is_finite()),
            gpu_energy: b.energy.as_ref().is_some_and(|e| e.source.as_deref() == Some("gpu")),
            degraded_link: b.degraded_link,
            xid_events: b.gpus.iter().filter_map(|g| g.totals.get("xid_events")).filter(|x| x.is_finite()).sum(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: serde_json::Value) -> Option<Conditions> {
        serde_json::from_value::<RawTelemetry>(v).unwrap().conditions()
    }

    #[test]
    fn a_block_gives_energy_throttling_and_link() {
        let c = read(json!({"energy": {"joules": 50.0, "joules_per_item": 0.25, "source": "gpu"},
            "gpus": [{"throttled_fraction": 0.005, "totals": {"xid_events": 1.0}}, {"throttled_fraction": 0.2}],
            "slot": {"cpu_throttled_fraction": null}, "degraded_link": true, "timeline": {"t": []}}))
        .unwrap();
        assert_eq!(
            c,
            Conditions {
                joules_per_item: Some(0.25),
                gpu_energy: true,
                throttled_share: Some(0.2),
                degraded_link: true,
                xid_events: 1.0
            }
        );
        assert_eq!((c.items_per_watt(), c.throttled()), (Some(4.0), true));
        let cpu = read(
            json!({"slot": {"cpu_throttled_fraction": 0.01}, "energy": {"joules_per_item": 2.0, "source": "package"}}),
        )
        .unwrap();
        assert_eq!(
            (cpu.throttled(), cpu.gpu_energy, cpu.items_per_watt()),
            (false, false, Some(0.5)),
            "1% exactly is not more than 1%"
        );
    }

    #[test]
    fn other_shapes_give_no_conditions() {
        for odd in [json!(5), json!("x"), json!([1]), json!({"gpus": 3}), json!({"energy": {"joules_per_item": "a"}})] {
            assert_eq!(read(odd.clone()), None, "{odd}");
        }
        assert_eq!(read(json!({})), Some(Conditions::default()), "an empty block: nothing measured");
    }
}
