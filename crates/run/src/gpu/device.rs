//! A GPU's index as its vendor's runtime numbers it; formatted only where
//! it leaves mlb (the visible-devices variables, device requests, records).

use serde::{Deserialize, Serialize};

/// A device index (`nvidia-smi`, `rocm-smi` numbering on the host; on a host
/// without GPU, the slot's number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DeviceIndex(pub u32);

impl DeviceIndex {
    /// The index as a position in a list.
    pub fn get(self) -> usize {
        self.0 as usize
    }
}

impl From<usize> for DeviceIndex {
    fn from(i: usize) -> Self {
        DeviceIndex(u32::try_from(i).expect("a device index fits in 32 bits"))
    }
}

impl std::fmt::Display for DeviceIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Devices as the visible-devices variables write them: `0,1` (the
/// contract's [`device_list`](mlb_record::contract::env::device_list)).
pub fn device_list(devices: &[DeviceIndex]) -> String {
    mlb_record::contract::env::device_list(devices.iter().map(|d| d.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_json() {
        assert_eq!(device_list(&[DeviceIndex(0), DeviceIndex(3)]), "0,3");
        assert_eq!(device_list(&[]), "");
        let list = device_list(&[DeviceIndex(2), DeviceIndex(5), DeviceIndex(7)]);
        assert_eq!(mlb_record::contract::env::device_count(&list), 3, "the contract reads back what it wrote");
        assert_eq!(serde_json::to_string(&DeviceIndex::from(2usize)).unwrap(), "2");
    }
}
