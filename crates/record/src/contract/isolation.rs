//! What confines an instance: the [`Isolation`] the plan decides once per
//! instance, written as text only at the two edges that carry it (the
//! worker's `MLB_ISOLATION`, the report's `provenance.isolation`) and read
//! back from them once, into [`Isolation`] or, for a report, into
//! [`RecordedIsolation`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// What confines an instance to its slot's CPUs and memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Nothing: an `all` instance, `--no-cgroups`, or a host without cgroups.
    None,
    /// The launcher's cgroup v1 groups.
    CgroupV1,
    /// The launcher's cgroup v2 groups.
    CgroupV2,
    /// Docker applies the slot's limits to the instance's container.
    Docker,
    /// Slurm confines the task that runs the instance.
    Slurm,
}

impl Isolation {
    /// Every isolation, in the order of [`Isolation::name`]'s list.
    pub const ALL: [Isolation; 5] =
        [Isolation::None, Isolation::CgroupV1, Isolation::CgroupV2, Isolation::Docker, Isolation::Slurm];

    /// The name reports and `MLB_ISOLATION` carry: `none`, `cgroup-v1`,
    /// `cgroup-v2`, `docker`, `slurm`.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::None => "none",
            Isolation::CgroupV1 => "cgroup-v1",
            Isolation::CgroupV2 => "cgroup-v2",
            Isolation::Docker => "docker",
            Isolation::Slurm => "slurm",
        }
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A text that names no [`Isolation`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown isolation {0:?} (mlb names none, cgroup-v1, cgroup-v2, docker, slurm)")]
pub struct UnknownIsolation(pub String);

impl FromStr for Isolation {
    type Err = UnknownIsolation;

    /// The isolation [`Isolation::name`] names `text`, exactly.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Isolation::ALL.into_iter().find(|i| i.name() == text).ok_or_else(|| UnknownIsolation(text.to_string()))
    }
}

/// The isolation a report or a worker's environment records: one mlb
/// applied, or a text that names none (written by hand, or by another
/// writer), kept as it was written so that neither a report nor a worker
/// fails over it. Written back as the same text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordedIsolation {
    /// An isolation mlb applies.
    Applied(Isolation),
    /// Any other text; empty when a report's provenance has no
    /// `isolation` key.
    Other(String),
}

impl RecordedIsolation {
    /// `text` read once: the [`Isolation`] it names, else [`RecordedIsolation::Other`].
    pub fn read(text: &str) -> Self {
        text.parse().map_or_else(|_| RecordedIsolation::Other(text.to_string()), RecordedIsolation::Applied)
    }

    /// The isolation mlb applied; `None` for another text.
    pub fn applied(&self) -> Option<Isolation> {
        match self {
            RecordedIsolation::Applied(isolation) => Some(*isolation),
            RecordedIsolation::Other(_) => None,
        }
    }

    /// The text as it is written.
    pub fn as_str(&self) -> &str {
        match self {
            RecordedIsolation::Applied(isolation) => isolation.name(),
            RecordedIsolation::Other(text) => text,
        }
    }
}

impl From<Isolation> for RecordedIsolation {
    fn from(isolation: Isolation) -> Self {
        RecordedIsolation::Applied(isolation)
    }
}

/// The text of a provenance without an `isolation` key (empty, as before
/// the field was typed).
impl Default for RecordedIsolation {
    fn default() -> Self {
        RecordedIsolation::Other(String::new())
    }
}

impl Serialize for RecordedIsolation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RecordedIsolation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(RecordedIsolation::read(&String::deserialize(d)?))
    }
}

impl Isolation {
    /// The isolation of one instance in a run isolated by `self`: the
    /// launcher's groups hold slot instances only (an `all` instance is
    /// unconstrained); a container runtime or Slurm wraps every instance.
    pub fn of_instance(self, in_slot: bool) -> Isolation {
        match self {
            Isolation::CgroupV1 | Isolation::CgroupV2 if !in_slot => Isolation::None,
            run => run,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_as_reports_write_them() {
        let names: Vec<String> = Isolation::ALL.iter().map(Isolation::to_string).collect();
        assert_eq!(names, ["none", "cgroup-v1", "cgroup-v2", "docker", "slurm"]);
    }

    #[test]
    fn every_isolation_reads_back_from_its_name() {
        for isolation in Isolation::ALL {
            assert_eq!(isolation.name().parse::<Isolation>(), Ok(isolation));
            let recorded = RecordedIsolation::from(isolation);
            let written = serde_json::to_value(&recorded).unwrap();
            assert_eq!(written, json!(isolation.name()));
            assert_eq!(serde_json::from_value::<RecordedIsolation>(written).unwrap(), recorded);
            assert_eq!(RecordedIsolation::read(isolation.name()).applied(), Some(isolation));
        }
    }

    #[test]
    fn other_texts_are_no_isolation_but_are_kept_as_written() {
        for text in ["cgroup", "CgroupV2", "Docker", " none", "apptainer", ""] {
            assert_eq!(text.parse::<Isolation>(), Err(UnknownIsolation(text.to_string())), "{text:?}");
            let recorded: RecordedIsolation = serde_json::from_value(json!(text)).unwrap();
            assert_eq!(recorded, RecordedIsolation::Other(text.to_string()));
            assert_eq!(recorded.applied(), None);
            assert_eq!(serde_json::to_value(&recorded).unwrap(), json!(text), "written back unchanged");
        }
        assert!(UnknownIsolation("cgroup".into()).to_string().contains("cgroup-v1"), "the error names the choices");
    }

    #[test]
    fn only_a_string_is_an_isolation() {
        assert!(serde_json::from_value::<RecordedIsolation>(json!(2)).is_err());
        assert_eq!(RecordedIsolation::default().as_str(), "");
    }

    #[test]
    fn groups_hold_slot_instances_only_and_a_runtime_wraps_every_instance() {
        assert_eq!(Isolation::CgroupV2.of_instance(true), Isolation::CgroupV2);
        assert_eq!(Isolation::CgroupV1.of_instance(false), Isolation::None);
        assert_eq!(Isolation::Docker.of_instance(false), Isolation::Docker);
        assert_eq!(Isolation::Slurm.of_instance(false), Isolation::Slurm);
        assert_eq!(Isolation::None.of_instance(true), Isolation::None);
    }
}
