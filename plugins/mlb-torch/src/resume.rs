//! A libtorch workload's checkpoint folder ([`mlb_plugin::Workload::save`]
//! and `restore`): what it holds, how it is written, and how a fresh
//! instance reads it back in place.
//!
//! The folder holds:
//!
//! | file | what |
//! |---|---|
//! | [`WEIGHTS_FILE`] | every variable (parameters and buffers such as batch norm's running statistics), by name, in a libtorch archive (`Tensor::save_multi`) |
//! | [`STATE_FILE`] | the workload's other tensors ([`State::tensors`]: the optimizer's moments and step counts, fp32 master weights), by name, in a libtorch archive |
//! | [`COUNTERS_FILE`] | its numbers ([`State::counters`]: step counters, the data's position, the loss scale), a JSON object |
//! | [`mlb_plugin::HEADER_FILE`] | the header: the workload and the shapes and config fields a restore must match, written last |
//!
//! A restore checks the header first, then copies every saved tensor into
//! the fresh instance's tensor of the same name, in place and outside
//! autograd (`copy_` under `no_grad`): the optimizer's and the gradient
//! hooks' references to them stay valid. A name missing on either side, or
//! another shape or type, is refused by name. The copy keeps every bit, so a
//! deterministic instance restored steps on bit for bit.

use mlb_plugin::{CheckpointError, CheckpointHeader};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tch::{TchError, Tensor};

/// The variables, a libtorch archive.
pub const WEIGHTS_FILE: &str = "weights.pt";

/// The workload's other tensors, a libtorch archive.
pub const STATE_FILE: &str = "state.pt";

/// The workload's numbers, a JSON object.
pub const COUNTERS_FILE: &str = "counters.json";

/// Why a checkpoint could not be written or read back.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The header is missing, damaged or of another workload or config.
    #[error(transparent)]
    Header(#[from] CheckpointError),
    /// libtorch could not write or read an archive.
    #[error("{path}: {source}")]
    Archive {
        /// The archive.
        path: PathBuf,
        /// libtorch's error.
        source: TchError,
    },
    /// The counters could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A file is not what `save` writes for this instance.
    #[error("{path} does not fit this instance: {reason}; fix: restore from a folder a complete `save` of the same config wrote")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
}

/// What a libtorch workload saves beyond its variables.
#[derive(Debug, Default)]
pub struct State {
    /// Tensors by name (shallow clones of the instance's own): written by
    /// `save`, and copied into in place by a restore.
    pub tensors: Vec<(String, Tensor)>,
    /// Numbers by name, given back to the workload after a restore.
    pub counters: Counters,
}

/// A workload's numbers by name, and the file they were read from (which
/// the errors name).
#[derive(Debug, Default)]
pub struct Counters {
    path: PathBuf,
    values: Map<String, Value>,
}

impl Counters {
    /// Sets `name` to `value`.
    pub fn set(&mut self, name: &str, value: impl Into<Value>) {
        self.values.insert(name.to_string(), value.into());
    }

    /// The count `name`.
    pub fn u64(&self, name: &str) -> Result<u64, ResumeError> {
        self.values.get(name).and_then(Value::as_u64).ok_or_else(|| self.missing(name, "a count"))
    }

    /// The number `name`.
    pub fn f64(&self, name: &str) -> Result<f64, ResumeError> {
        self.values.get(name).and_then(Value::as_f64).ok_or_else(|| self.missing(name, "a number"))
    }

    /// Sets `name` to the 128-bit count `value`, written as text (JSON's
    /// integers stop at 64 bits).
    pub fn set_wide(&mut self, name: &str, value: u128) {
        self.set(name, value.to_string());
    }

    /// The 128-bit count `name` ([`set_wide`](Self::set_wide)).
    pub fn wide(&self, name: &str) -> Result<u128, ResumeError> {
        let text = self.values.get(name).and_then(Value::as_str);
        text.and_then(|t| t.parse().ok()).ok_or_else(|| self.missing(name, "a count written as text"))
    }

    fn missing(&self, name: &str, what: &str) -> ResumeError {
        ResumeError::Mismatch { path: self.path.clone(), reason: format!("no `{name}` ({what})") }
    }
}

/// Writes `variables` and `state` into `dir`, then `header`.
pub fn save(
    dir: &Path,
    header: &CheckpointHeader,
    variables: &[(String, Tensor)],
    state: &State,
) -> Result<(), ResumeError> {
    write_tensors(&dir.join(WEIGHTS_FILE), variables)?;
    write_tensors(&dir.join(STATE_FILE), &state.tensors)?;
    let path = dir.join(COUNTERS_FILE);
    let text = Value::Object(state.counters.values.clone()).to_string();
    std::fs::write(&path, text).map_err(|source| ResumeError::Io { path, source })?;
    // Last: a folder with a header is a complete one.
    Ok(header.write(dir)?)
}

/// Checks `dir`'s header against `header`, copies its tensors into
/// `variables` and `state`'s tensors, and returns its counters.
pub fn restore(
    dir: &Path,
    header: &CheckpointHeader,
    variables: &[(String, Tensor)],
    state: &State,
) -> Result<Counters, ResumeError> {
    header.check(dir)?;
    read_tensors(&dir.join(WEIGHTS_FILE), variables)?;
    read_tensors(&dir.join(STATE_FILE), &state.tensors)?;
    let path = dir.join(COUNTERS_FILE);
    let text = std::fs::read_to_string(&path).map_err(|source| ResumeError::Io { path: path.clone(), source })?;
    match serde_json::from_str(&text) {
        Ok(Value::Object(values)) => Ok(Counters { path, values }),
        _ => Err(ResumeError::Mismatch { path, reason: "not a JSON object".into() }),
    }
}

fn write_tensors(path: &Path, tensors: &[(String, Tensor)]) -> Result<(), ResumeError> {
    let named: Vec<(&str, &Tensor)> = tensors.iter().map(|(name, t)| (name.as_str(), t)).collect();
    Tensor::save_multi(&named, path).map_err(|source| ResumeError::Archive { path: path.to_path_buf(), source })
}

/// Copies the tensors of the archive `path` into `tensors`, by name: the
/// same names, shapes and types, or an error naming the first difference.
fn read_tensors(path: &Path, tensors: &[(String, Tensor)]) -> Result<(), ResumeError> {
    let archive = |source| ResumeError::Archive { path: path.to_path_buf(), source };
    let mismatch = |reason: String| ResumeError::Mismatch { path: path.to_path_buf(), reason };
    let device = tensors.first().map_or(tch::Device::Cpu, |(_, t)| t.device());
    let mut saved: BTreeMap<String, Tensor> =
        Tensor::load_multi_with_device(path, device).map_err(archive)?.into_iter().collect();
    for (name, target) in tensors {
        let source = saved.remove(name).ok_or_else(|| mismatch(format!("it has no tensor `{name}`")))?;
        let (want, got) = ((target.size(), target.kind()), (source.size(), source.kind()));
        if want != got {
            return Err(mismatch(format!("`{name}` is {got:?} there, {want:?} here")));
        }
        tch::no_grad(|| target.shallow_clone().f_copy_(&source)).map_err(archive)?;
    }
    match saved.keys().next() {
        Some(extra) => Err(mismatch(format!("it has a tensor `{extra}` this instance does not"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind};

    fn named(values: &[(&str, &[f32])]) -> Vec<(String, Tensor)> {
        values.iter().map(|(name, v)| (name.to_string(), Tensor::from_slice(v).set_requires_grad(true))).collect()
    }

    #[test]
    fn tensors_and_counters_come_back_in_place_and_a_mismatch_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let header = CheckpointHeader::new("toy").with("width", 2);
        let mut state = State { tensors: named(&[("m.0", &[0.5])]), counters: Counters::default() };
        state.counters.set("step", 7u64);
        state.counters.set_wide("position", u128::MAX);
        save(dir.path(), &header, &named(&[("a.w", &[1.0, 2.0]), ("b", &[3.0])]), &state).unwrap();

        let fresh = named(&[("a.w", &[0.0, 0.0]), ("b", &[0.0])]);
        let before = fresh[0].1.data_ptr();
        let fresh_state = State { tensors: named(&[("m.0", &[0.0])]), counters: Counters::default() };
        let counters = restore(dir.path(), &header, &fresh, &fresh_state).unwrap();
        assert_eq!(Vec::<f32>::try_from(&fresh[0].1).unwrap(), [1.0, 2.0]);
        assert_eq!(fresh[0].1.data_ptr(), before, "copied in place");
        assert!(fresh[0].1.requires_grad(), "still a parameter");
        assert_eq!(fresh_state.tensors[0].1.double_value(&[0]), 0.5);
        assert_eq!((counters.u64("step").unwrap(), counters.wide("position").unwrap()), (7, u128::MAX));
        let e = counters.f64("scale").unwrap_err().to_string();
        assert!(e.contains(COUNTERS_FILE) && e.contains("no `scale` (a number)"), "{e}");

        let wider = named(&[("a.w", &[0.0, 0.0, 0.0]), ("b", &[0.0])]);
        let e = restore(dir.path(), &header, &wider, &fresh_state).unwrap_err().to_string();
        assert!(e.contains(WEIGHTS_FILE) && e.contains("`a.w` is ([2], Float) there, ([3], Float) here"), "{e}");
        let fewer = named(&[("a.w", &[0.0, 0.0])]);
        let e = restore(dir.path(), &header, &fewer, &fresh_state).unwrap_err().to_string();
        assert!(e.contains("it has a tensor `b` this instance does not"), "{e}");
        let doubles = vec![("m.0".to_string(), Tensor::zeros([1], (Kind::Double, Device::Cpu)))];
        let e = restore(dir.path(), &header, &fresh, &State { tensors: doubles, ..State::default() }).unwrap_err();
        assert!(e.to_string().contains(STATE_FILE), "{e}");
    }
}
