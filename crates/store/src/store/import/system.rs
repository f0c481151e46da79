//! Which system a run folder is of: its `system.json` (mlb's runs), else
//! what its reports say (the original suite's: host and device model), and
//! the name it is stored under: `--system NAME`, else the host's name, else
//! (the original suite's reports name no host) one name for the whole
//! import: the first host another of its folders names, else the name of
//! the folder imported. A name taken from a report is made to follow the
//! store's rule for names ([`crate::store::name`]).

use crate::store::name::tidy;
use mlb_record::contract::read::Entry;
use mlb_run::system::SystemDesc;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::Path;

/// A system's row (read by its columns' names, [`SystemRow::COLUMNS`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, sqlx::FromRow)]
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
    /// The columns of the `systems` table a row is read from, by name.
    pub const COLUMNS: &'static str = "name, host, cpu, gpu_model, gpu_count, driver, runtime_versions, description";

    /// The system of a run folder described by its `system.json` as
    /// `described`, whose reports are `entries`; named later ([`SystemRow::named`]).
    pub fn of(described: Option<&SystemDesc>, entries: &[&Entry]) -> SystemRow {
        match described {
            Some(desc) => SystemRow::described(desc),
            None => SystemRow::from_reports(entries),
        }
    }

    /// This system named `name` (`--system`) when given, else by its host,
    /// else `fallback` ([`fallback_name`]).
    pub fn named(self, name: Option<&str>, fallback: &str) -> SystemRow {
        let name = match name {
            Some(name) => name.to_string(),
            None if !self.host.is_empty() => tidy(&self.host),
            None => fallback.to_string(),
        };
        SystemRow { name, ..self }
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
        mlb_record::digest::hex(&hash.finalize())
    }
}

/// The name of the systems of an import whose run folders name no host
/// (`systems`: the import's systems, unnamed): the first host one of them
/// names, else the name of the folder imported, `imported`.
pub fn fallback_name(systems: &[SystemRow], imported: &Path) -> String {
    match systems.iter().find(|s| !s.host.is_empty()) {
        Some(system) => tidy(&system.host),
        None => tidy(&imported.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_record::contract::read::read_file;

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
        let row = SystemRow::of(None, &refs).named(None, "x");
        assert_eq!((row.name.as_str(), row.gpu_model.as_str(), row.gpu_count), ("n7", "V100", 2));
        let named = SystemRow::of(None, &refs).named(Some("lab 'B'; --"), "x");
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
        let row = SystemRow::of(Some(&desc), &refs).named(None, "x");
        assert_eq!((row.name.as_str(), row.gpu_model.as_str(), row.gpu_count), ("host9", "H100", 8));
        assert_eq!((row.driver.as_str(), row.runtime_versions.as_str()), ("550.1", "12.4"));
        assert!(row.description.unwrap().contains("host9"));
    }

    #[test]
    fn folders_naming_no_host_are_one_system_of_the_import() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        std::fs::write(&a, r#"{"name": "x", "vcd": "0"}"#).unwrap();
        std::fs::write(&b, "{\"name\": \"x\", \"vcd\": \"0\", \"hostname\": \"n\\u001b9\"}").unwrap();
        let (a, b) = (read_file(&a).unwrap(), read_file(&b).unwrap());
        let hostless = SystemRow::of(None, &[&a[0]]);
        let fallback = fallback_name(std::slice::from_ref(&hostless), Path::new("/data/lab-7"));
        assert_eq!(hostless.clone().named(None, &fallback).name, "lab-7");
        let hosted = SystemRow::of(None, &[&b[0]]);
        let fallback = fallback_name(&[hostless.clone(), hosted.clone()], Path::new("/data/lab-7"));
        assert_eq!(fallback, "n\u{FFFD}9", "a control character of a host name is replaced");
        assert_eq!(hostless.named(None, &fallback).name, hosted.named(None, "x").name);
    }
}
