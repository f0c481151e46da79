//! What each top-level key of a report file holds: a typed field of
//! [`Report`](super::Report), or a workload key, and of the workload keys
//! which are the configuration's arguments. Defined once, for the id of a
//! configuration ([`record::unique_id`](crate::contract::record::unique_id)), the
//! configs of `mlb report` and the launcher's failure records.

/// What a top-level key of a report file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A typed field of the report ([`FIELDS`]).
    Field,
    /// A workload key of the instance, not of its configuration ([`INSTANCE`]).
    Instance,
    /// An argument sizing the instance ([`SIZING`]).
    Sizing,
    /// An argument of the configuration (any other key).
    Config,
}

/// Defines each list of keys, and [`Key::of`] as one `match` over them
/// (the reader asks it of every key of every report).
macro_rules! key_lists {
    ($($(#[$doc:meta])* $list:ident => $kind:ident: [$($key:literal),* $(,)?];)*) => {
        $($(#[$doc])* pub const $list: &[&str] = &[$($key),*];)*

        impl Key {
            /// What `key` (as written in a report file, `batch_size`) holds.
            pub fn of(key: &str) -> Key {
                match key {
                    $($($key)|* => Key::$kind,)*
                    _ => Key::Config,
                }
            }
        }
    };
}

key_lists! {
    /// The typed fields of a report file (sorted): every other top-level key is
    /// a workload key (an argument, or a key of the plugin's report).
    FIELDS => Field: [
        "batch_loss",
        "completed",
        "cpu_cores",
        "determinism",
        "devices",
        "end_time",
        "epoch_loss",
        "failure",
        "faults",
        "hostname",
        "items",
        "jr_id",
        "log",
        "metrics",
        "name",
        "provenance",
        "quality",
        "run_id",
        "start_time",
        "suite",
        "telemetry",
        "train",
        "train_item",
        "unique_id",
        "vcd",
        "version",
    ];
    /// Workload keys that describe the instance, its host or its data rather
    /// than the configuration (docs/worker.md, "Report files"; sorted): they differ between the
    /// instances, GPUs and runs of one configuration.
    INSTANCE => Instance: [
        "backend",
        "cuda",
        "data",
        "dataset_dir",
        "flops_formula",
        "flops_per_item",
        "gpu",
        "ngpu",
        "no_cuda",
        "peak_source",
        "peak_tflops",
        "report",
        "seed",
    ];
    /// Arguments that size one instance (sorted): they tell configs apart in
    /// `mlb report`, but are left out of the configuration's id, which is the
    /// same whatever a GPU was given (docs/worker.md, "Report files").
    SIZING => Sizing: [
        "batch_size",
        "workers",
    ];
}

impl Key {
    /// Whether the key tells the configs of a bench apart in `mlb report`.
    pub fn splits_configs(self) -> bool {
        matches!(self, Key::Sizing | Key::Config)
    }

    /// Whether the key is part of the configuration's id.
    pub fn in_unique_id(self) -> bool {
        self == Key::Config
    }
}

/// Whether `key` is a workload key (an argument or a key of the plugin's
/// report) rather than a typed field.
pub fn is_argument(key: &str) -> bool {
    Key::of(key) != Key::Field
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary of one observation of one second.
    fn one_second() -> crate::contract::stats::Summary {
        crate::contract::stats::Summary { avg: 1.0, count: 1, max: 1.0, min: 1.0, sd: 0.0, unit: "s".into() }
    }

    #[test]
    fn lists_are_sorted_and_apart() {
        for list in [FIELDS, INSTANCE, SIZING] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
        assert!(FIELDS.iter().all(|k| Key::of(k) == Key::Field));
        assert!(INSTANCE.iter().all(|k| Key::of(k) == Key::Instance));
        assert!(SIZING.iter().all(|k| Key::of(k) == Key::Sizing));
    }

    #[test]
    fn each_use_sees_its_keys() {
        assert!(!Key::of("log").splits_configs(), "the log of a launcher's record is no argument");
        assert!(!Key::of("seed").splits_configs() && is_argument("seed"));
        assert!(Key::of("batch_size").splits_configs() && !Key::of("batch_size").in_unique_id());
        assert!(Key::of("lr").splits_configs() && Key::of("lr").in_unique_id());
        assert!(!is_argument("telemetry") && is_argument("lr"));
    }

    #[test]
    fn every_typed_field_of_a_report_is_listed() {
        let report = crate::contract::Report {
            failure: Some(crate::contract::record::Failure::new(crate::contract::record::Cause::Crash, "m")),
            start_time: Some(String::new()),
            end_time: Some(String::new()),
            unique_id: Some(String::new()),
            version: Some(String::new()),
            hostname: Some(String::new()),
            devices: Some(1),
            cpu_cores: Some(1),
            items: Some(1.0),
            train: Some(one_second()),
            train_item: Some(one_second().throughput(1.0)),
            batch_loss: Some(vec![]),
            epoch_loss: Some(vec![]),
            metrics: Some(serde_json::json!({})),
            log: Some(String::new()),
            provenance: Some(Default::default()),
            telemetry: Some(Default::default()),
            quality: Some(crate::contract::quality::fixtures::record()),
            determinism: Some(Default::default()),
            faults: Some(Default::default()),
            ..Default::default()
        };
        let value = report.to_value();
        let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, FIELDS);
    }
}
