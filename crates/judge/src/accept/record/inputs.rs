//! The files a record rests on, each with its SHA-256 and size: every
//! input an evaluation read (reports, `system.json`, `doctor.json`, rules,
//! target table, the baseline's), named relative to the record's folder.

use crate::accept::{Input, Role};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One input as the record lists it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Hashed {
    /// What the evaluation read it as.
    pub role: Role,
    /// The file, relative to the record's folder (`/` between parts).
    pub path: String,
    /// SHA-256 of its bytes, lower-case hex.
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
}

/// An input that could not be hashed.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the input {}: {source}", path.display())]
pub struct HashError {
    /// The file.
    pub path: std::path::PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// Every input of `inputs` hashed (in parallel), as `mlb prepare` hashes
/// its files, each named by `name`, sorted by role and path.
pub fn hash_all(inputs: &[Input], name: impl Fn(&Path) -> String + Sync) -> Result<Vec<Hashed>, HashError> {
    let mut hashed = inputs
        .par_iter()
        .map(|input| {
            let failed = |source| HashError { path: input.path.clone(), source };
            let (size, sha256) =
                std::fs::File::open(&input.path).and_then(mlb_record::digest::sha256_of).map_err(failed)?;
            Ok(Hashed { role: input.role, path: name(&input.path), sha256, size })
        })
        .collect::<Result<Vec<_>, _>>()?;
    hashed.sort();
    Ok(hashed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accept::record::paths::Place;

    #[test]
    fn each_input_gets_the_sha256_and_size_of_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("runs")).unwrap();
        std::fs::write(dir.path().join("runs/a.json"), "abc").unwrap();
        std::fs::write(dir.path().join("rules.yaml"), "").unwrap();
        let place = Place::of(&dir.path().join("acceptance.json")).unwrap();
        let inputs = [
            Input { role: Role::Rules, path: dir.path().join("rules.yaml") },
            Input { role: Role::Report, path: dir.path().join("runs/a.json") },
        ];
        let hashed = hash_all(&inputs, |p| place.relative(p)).unwrap();
        assert_eq!(
            hashed,
            [
                Hashed {
                    role: Role::Report,
                    path: "runs/a.json".into(),
                    sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into(),
                    size: 3
                },
                Hashed {
                    role: Role::Rules,
                    path: "rules.yaml".into(),
                    sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".into(),
                    size: 0
                },
            ]
        );
        let gone = [Input { role: Role::Report, path: dir.path().join("runs/gone.json") }];
        assert!(hash_all(&gone, |p| place.relative(p)).unwrap_err().to_string().contains("gone.json"));
    }
}
