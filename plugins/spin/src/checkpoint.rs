//! spin's checkpoint: what a fresh instance needs to step on as the saved
//! one would have.
//!
//! The folder holds the header ([`mlb_plugin::HEADER_FILE`]: the workload,
//! `size` and `seed`), [`STATE_FILE`] (the step counter, the items trained,
//! the last product's checksum as the bits of its f64, the ballast's MiB)
//! and [`MATRICES_FILE`] (`a`, `b` and `c`, little-endian f32, row after
//! row: `a` may carry an injected flipped bit, and `c` is what the
//! fingerprint hashes before the next step).

use crate::{touch, Spin};
use mlb_plugin::{CheckpointError, CheckpointHeader};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The counters of the instance, a JSON object.
pub const STATE_FILE: &str = "state.json";

/// The three matrices.
pub const MATRICES_FILE: &str = "matrices.f32";

/// Why spin's state could not be saved or restored.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The header is missing, damaged or of another workload or config.
    #[error(transparent)]
    Header(#[from] CheckpointError),
    /// A file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A file is not what `save` writes.
    #[error("{path} is damaged: {reason}; fix: restore from a folder a complete `save` wrote")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// What a checkpoint of `spin` must match: the shape of its matrices and
/// the seed they were drawn from.
fn header(spin: &Spin) -> CheckpointHeader {
    CheckpointHeader::new("spin").with("size", spin.size).with("seed", spin.faults.seed.unwrap_or(0))
}

/// Writes `spin`'s state into `dir`.
pub fn save(spin: &Spin, dir: &Path) -> Result<(), StateError> {
    let state = json!({
        "step": spin.step,
        "trained": spin.trained,
        "checksum": spin.checksum.to_bits(),
        "ballast_mb": spin.ballast.len() >> 20,
    });
    write(&dir.join(STATE_FILE), state.to_string().as_bytes())?;
    let bytes: Vec<u8> = [&spin.a, &spin.b, &spin.c].into_iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    write(&dir.join(MATRICES_FILE), &bytes)?;
    // Last: a folder with a header is a complete one.
    Ok(header(spin).write(dir)?)
}

/// Reads the state [`save`] wrote into `dir` back into `spin`.
pub fn restore(spin: &mut Spin, dir: &Path) -> Result<(), StateError> {
    header(spin).check(dir)?;
    let path = dir.join(STATE_FILE);
    let damaged = |path: &Path, reason: String| StateError::Damaged { path: path.to_path_buf(), reason };
    let state: Value = serde_json::from_slice(&read(&path)?).map_err(|e| damaged(&path, e.to_string()))?;
    let counter = |key: &str| state[key].as_u64().ok_or_else(|| damaged(&path, format!("no count `{key}`")));
    let (step, trained, checksum, ballast_mb) =
        (counter("step")?, counter("trained")?, counter("checksum")?, counter("ballast_mb")?);
    let path = dir.join(MATRICES_FILE);
    let bytes = read(&path)?;
    let len = spin.size * spin.size;
    if bytes.len() != 3 * len * 4 {
        return Err(damaged(
            &path,
            format!("{} bytes, three {n}x{n} matrices are {}", bytes.len(), 12 * len, n = spin.size),
        ));
    }
    let mut values = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    for matrix in [&mut spin.a, &mut spin.b, &mut spin.c] {
        matrix.iter_mut().zip(values.by_ref()).for_each(|(x, v)| *x = v);
    }
    (spin.step, spin.trained, spin.checksum) = (step, trained, f64::from_bits(checksum));
    spin.ballast = if ballast_mb > 0 { touch(ballast_mb as usize) } else { Vec::new() };
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    std::fs::write(path, bytes).map_err(|source| StateError::Io { path: path.to_path_buf(), source })
}

fn read(path: &Path) -> Result<Vec<u8>, StateError> {
    std::fs::read(path).map_err(|source| StateError::Io { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_plugin::{Config, Fault, Workload, WorkloadArgs};

    fn spin(config: &str) -> Spin {
        Spin::create(crate::Args::from_config(&Config::parse(config).unwrap()).unwrap()).unwrap()
    }

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mlb-spin-checkpoint-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The next `n` steps of `s`: each loss's bits and the fingerprint after it.
    fn steps(s: &mut Spin, n: usize) -> Vec<(u64, mlb_plugin::Fingerprint)> {
        (0..n).map(|_| (s.step().unwrap().loss.unwrap().to_bits(), s.fingerprint().unwrap())).collect()
    }

    #[test]
    fn a_restored_instance_steps_on_as_the_saved_one_would_have() {
        let dir = folder("resume");
        let config = r#"{"size": 8, "seed": 3, "alloc_mb": 1, "alloc_at": 2, "error_at": 7}"#;
        let mut saved = spin(config);
        let _ = steps(&mut saved, 3);
        saved.inject(Fault::FlipBit).unwrap();
        saved.save(&dir).unwrap();
        let at_save = (saved.fingerprint().unwrap(), saved.eval().unwrap());
        let uninterrupted = steps(&mut saved, 3);
        assert!(saved.step().is_err(), "step 7 fails on request");

        let mut fresh = spin(config);
        fresh.restore(&dir).unwrap();
        assert_eq!((fresh.fingerprint().unwrap(), fresh.eval().unwrap()), at_save);
        assert_eq!(fresh.ballast.len() >> 20, 1, "the ballast of step 2 is held again");
        assert_eq!(steps(&mut fresh, 3), uninterrupted, "steps 4 to 6, the flipped bit included");
        assert!(fresh.step().unwrap_err().to_string().contains("step 7"), "the fault fires at the same step");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn another_size_or_seed_and_a_damaged_folder_are_refused() {
        let dir = folder("refused");
        spin(r#"{"size": 4, "seed": 1}"#).save(&dir).unwrap();
        let e = spin(r#"{"size": 5, "seed": 1}"#).restore(&dir).unwrap_err().to_string();
        assert!(e.contains("the checkpoint's `size` is 4, this instance's is 5"), "{e}");
        let e = spin(r#"{"size": 4}"#).restore(&dir).unwrap_err().to_string();
        assert!(e.contains("`seed` is 1, this instance's is 0"), "{e}");
        std::fs::write(dir.join(MATRICES_FILE), [0u8; 12]).unwrap();
        let e = spin(r#"{"size": 4, "seed": 1}"#).restore(&dir).unwrap_err().to_string();
        assert!(e.contains(MATRICES_FILE) && e.contains("is damaged: 12 bytes, three 4x4 matrices are 192"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
