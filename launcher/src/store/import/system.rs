//! Which system a run folder is of: its `system.json` (mlb's runs), else
//! what its reports say (the original suite's: host and device model), and
//! the name it is stored under (`--system NAME`, else the host's name).

use crate::contract::read::Entry;
use crate::system::SystemDesc;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::Path;

/// A system's row.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SystemRow {
    /// The name queries go by.
    pub name: String,
    /// The host's name.
    pub host: String,
    /// The CPU model.
    pub cpu: String,
    /// The first GPU's model.
    pub gpu_model: String,
    /// GPUs of a node.
    pub gpu_count: i64,
    /// The GPU driver's version.
    pub driver: String,
    /// CUDA's or ROCm's version and the framework.
    pub runtime_versions: String,
    /// `system.json` as read (JSON text), when there is one.
    pub description: Option<String>,
}

impl SystemRow {
    /// The system of the run folder `folder`, whose reports are `entries`,
    /// named `name` when given.
    pub fn of(folder: &Path, entries: &[&Entry], name: Option<&str>) -> SystemRow {
        let row = match crate::system::read(folder) {
            Some(desc) => SystemRow::described(&desc),
            None => SystemRow::from_reports(entries),
        };
        let fallback = || folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let name =
            name.map(str::to_string).unwrap_or_else(|| if row.host.is_empty() { fallback() } else { row.host.clone() });
        SystemRow { name, ..row }
    }

    /// From `system.json`.
    fn described(desc: &SystemDesc) -> SystemRow {
        let runtime = [desc.cuda_or_rocm_version.as_str(), desc.framework.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        SystemRow {
            name: String::new(),
            host: desc.system_name.clone(),
            cpu: desc.host_processor_model_name.clone(),
            gpu_model: desc.accelerator_model_name.clone(),
            gpu_count: desc.accelerators_per_node as i64,
            driver: desc.accelerator_driver_version.clone(),
            runtime_versions: runtime,
            description: serde_json::to_string(desc).ok(),
        }
    }

    /// From the reports alone: the first host and device model they name,
    /// and the count of single devices they ran on.
    fn from_reports(entries: &[&Entry]) -> SystemRow {
        let first =
            |get: fn(&Entry) -> Option<&str>| entries.iter().find_map(|e| get(e)).unwrap_or_default().to_string();
        let devices: BTreeSet<&str> = entries.iter().filter_map(|e| e.single_device()).collect();
        SystemRow {
            name: String::new(),
            host: first(|e| e.hostname.as_deref()),
            cpu: String::new(),
            gpu_model: first(|e| e.gpu.as_deref()),
            gpu_count: devices.len() as i64,
            driver: String::new(),
            runtime_versions: String::new(),
            description: None,
        }
    }

    /// sha256 (hex) of the name and the identity columns: two folders of one
    /// system share its row.
    pub fn fingerprint(&self) -> String {
        let mut hash = Sha256::new();
        let count = self.gpu_count.to_string();
        for part in [&self.name, &self.host, &self.cpu, &self.gpu_model, &count, &self.driver, &self.runtime_versions] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        crate::prepare::manifest::hex(&hash.finalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::read::read_file;

    #[test]
    fn system_json_names_the_system_else_the_reports_do() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("r.json");
        std::fs::write(
            &report,
            r#"[{"name": "a", "vcd": "0", "gpu": "V100", "hostname": "n7"}, {"name": "a", "vcd": "1"}]"#,
        )
        .unwrap();
        let entries = read_file(&report).unwrap();
        let refs: Vec<&Entry> = entries.iter().collect();
        let row = SystemRow::of(dir.path(), &refs, None);
        assert_eq!((row.name.as_str(), row.gpu_model.as_str(), row.gpu_count), ("n7", "V100", 2));
        let named = SystemRow::of(dir.path(), &refs, Some("lab 'B'; --"));
        assert_eq!(named.name, "lab 'B'; --");
        assert_ne!(named.fingerprint(), row.fingerprint());
        let desc = SystemDesc {
            system_name: "host9".into(),
            accelerator_model_name: "H100".into(),
            accelerators_per_node: 8,
            accelerator_driver_version: "550.1".into(),
            cuda_or_rocm_version: "12.4".into(),
            ..SystemDesc::default()
        };
        crate::system::write(dir.path(), &desc).unwrap();
        let row = SystemRow::of(dir.path(), &refs, None);
        assert_eq!((row.name.as_str(), row.gpu_model.as_str(), row.gpu_count), ("host9", "H100", 8));
        assert_eq!((row.driver.as_str(), row.runtime_versions.as_str()), ("550.1", "12.4"));
        assert!(row.description.unwrap().contains("host9"));
    }
}
