//! The jobs file model (docs/launcher.md, "Jobs files").

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashSet;
use std::fmt;

/// Arguments of a job in file order: option (or positional) -> value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Args(pub Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Args;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of option -> value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Args, A::Error> {
                let mut out = Vec::new();
                let mut seen = HashSet::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    if !seen.insert(k.clone()) {
                        return Err(serde::de::Error::custom(format!("argument `{k}` is given twice")));
                    }
                    out.push((k, v));
                }
                Ok(Args(out))
            }
            fn visit_unit<E>(self) -> Result<Args, E> {
                Ok(Args::default())
            }
        }
        d.deserialize_map(Ordered)
    }
}

/// Where a job's instances run (the original's `cgroup` key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One instance per slot, each confined to its slot.
    Student,
    /// One instance that sees every device, unconstrained (the original's default).
    #[default]
    All,
}

impl Scope {
    /// `student` or `all`, as in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Student => "student",
            Scope::All => "all",
        }
    }
}

/// A group the instances of a job config form (the `group` key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    /// One process group for data parallel training: each instance gets
    /// torchrun's `MASTER_ADDR`, `MASTER_PORT`, `RANK`, `WORLD_SIZE` and
    /// `LOCAL_RANK`.
    Ddp,
}

impl Group {
    /// `ddp`, as in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Group::Ddp => "ddp",
        }
    }
}

/// One entry of a jobs file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJob {
    /// Job name.
    pub name: String,
    /// External command (original-suite script).
    #[serde(default)]
    pub cmd: Option<String>,
    /// Workload plugin name.
    #[serde(default)]
    pub plugin: Option<String>,
    /// Ordered arguments.
    #[serde(default)]
    pub args: Args,
    /// `student` or `all` (unset: `all`, or `student` in a group).
    #[serde(default)]
    pub cgroup: Option<Scope>,
    /// The group its instances form.
    #[serde(default)]
    pub group: Option<Group>,
}

/// What a job runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Program {
    /// An external command, as written (variables not yet expanded).
    Cmd(String),
    /// A workload plugin, by name.
    Plugin(String),
}

/// A validated job.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// 1-based position in the file.
    pub position: usize,
    /// Job name.
    pub name: String,
    /// What it runs.
    pub program: Program,
    /// Arguments as written.
    pub args: Args,
    /// Instance layout.
    pub scope: Scope,
    /// The group its instances form.
    pub group: Option<Group>,
}

/// One job config: a job with every list argument fixed to one value and
/// every variable expanded.
#[derive(Clone, Debug, PartialEq)]
pub struct JobConfig {
    /// 1-based position of the job in the file.
    pub position: usize,
    /// Job name.
    pub name: String,
    /// What it runs, variables expanded.
    pub program: Program,
    /// Scalar arguments in file order, variables expanded.
    pub args: Args,
    /// Instance layout.
    pub scope: Scope,
    /// The group its instances form.
    pub group: Option<Group>,
    /// 1-based index of this config among the job's configs.
    pub index: usize,
    /// Number of configs of the job.
    pub of: usize,
    /// The arguments whose value varies between the job's configs.
    pub varying: Vec<String>,
}

impl JobConfig {
    /// This config as instance `jr_id` runs it: per-instance variables
    /// (`$JOB_ID`) filled in the command, argument names and string values.
    pub fn for_instance(&self, jr_id: usize) -> JobConfig {
        let fill = |t: &str| super::vars::per_instance(t, jr_id);
        let program = match &self.program {
            Program::Cmd(c) => Program::Cmd(fill(c)),
            plugin => plugin.clone(),
        };
        let args = self
            .args
            .0
            .iter()
            .map(|(k, v)| (fill(k), if let Value::String(s) = v { Value::String(fill(s)) } else { v.clone() }))
            .collect();
        JobConfig { program, args: Args(args), ..self.clone() }
    }

    /// `name` alone for a job with one config, else `name[a=1 b=2]` naming the
    /// values that vary (control characters escaped: a label is one line).
    pub fn label(&self) -> String {
        if self.varying.is_empty() {
            return self.name.clone();
        }
        let parts: Vec<String> = self
            .args
            .0
            .iter()
            .filter(|(k, _)| self.varying.contains(k))
            .map(|(k, v)| {
                super::render::one_line(&format!("{}={}", k.trim_start_matches('-'), super::render::value(v)))
            })
            .collect();
        format!("{}[{}]", self.name, parts.join(" "))
    }
}
