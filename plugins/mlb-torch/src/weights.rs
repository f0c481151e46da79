//! Weights a user provides: pretrained weights cannot be fetched on
//! benchmark hosts, so models start from random initialisation unless a
//! workload's weights argument names a file.

use std::path::Path;
use tch::nn::VarStore;

/// A weights file that could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("cannot load weights from {path}: {reason}; the file must be safetensors (`.safetensors`) or a libtorch archive (`VarStore::save`, `torch.jit.save` of a dict) holding every variable of the model under its name")]
pub struct WeightsError {
    /// The file.
    pub path: String,
    /// What libtorch said.
    pub reason: String,
}

/// Loads every variable of `vs` from `path`: safetensors when the name ends
/// in `.safetensors`, a libtorch archive otherwise. Fails, naming the file,
/// when it is missing, unreadable or lacks a variable.
pub fn load(vs: &mut VarStore, path: &Path) -> Result<(), WeightsError> {
    let error = |reason: String| WeightsError { path: path.display().to_string(), reason };
    if !path.is_file() {
        return Err(error("no such file".into()));
    }
    vs.load(path).map_err(|e| error(e.to_string()))
}

/// The report's value for a weights argument: the file, or `"random init"`.
pub fn report_value(path: Option<&Path>) -> serde_json::Value {
    match path {
        Some(p) => p.display().to_string().into(),
        None => "random init".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{nn, Device, Kind};

    /// A fresh folder under the system's temporary directory.
    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("mlb-weights-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn store(value: f64) -> VarStore {
        let vs = VarStore::new(Device::Cpu);
        let _ = vs.root().var("w", &[2, 3], nn::Init::Const(value));
        vs
    }

    #[test]
    fn safetensors_and_libtorch_files_round_trip() {
        let dir = scratch("round-trip");
        for name in ["w.safetensors", "w.ot"] {
            let file = dir.join(name);
            store(1.5).save(&file).unwrap();
            let mut target = store(0.0);
            load(&mut target, &file).unwrap();
            let w = target.variables()["w"].shallow_clone();
            assert_eq!(w.sum(Kind::Float).double_value(&[]), 9.0, "{name}");
        }
        assert_eq!(report_value(None), "random init");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn missing_files_and_variables_are_named() {
        let dir = scratch("missing");
        let e = load(&mut store(0.0), &dir.join("absent.safetensors")).unwrap_err().to_string();
        assert!(e.contains("absent.safetensors") && e.contains("no such file"), "{e}");
        let other = VarStore::new(Device::Cpu);
        let _ = other.root().var("v", &[1], nn::Init::Const(0.0));
        let file = dir.join("other.safetensors");
        other.save(&file).unwrap();
        let e = load(&mut store(0.0), &file).unwrap_err().to_string();
        assert!(e.contains("other.safetensors"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
