//! Writing a data set so that an interruption never leaves a half set that
//! looks complete: files go into `.<folder>.partial` beside the final
//! folder, each written under a temporary name and renamed when complete;
//! the manifest is written last and the folder renamed into place. A later
//! run finds the partial folder and keeps its complete files (hashing them
//! instead of generating them again).

use super::generate::Generator;
use super::manifest::{hash_file, hex, Entry};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder a data set is written into before it is complete.
pub fn partial(data: &Path, folder: &str) -> PathBuf {
    data.join(format!(".{folder}.partial"))
}

/// The file in a partial folder naming the settings its files were made with.
const SETTINGS: &str = ".settings";

/// Opens the partial folder `dir` for files made with `settings` (e.g.
/// `ImageNet small 0`): a partial folder of other settings is emptied, its
/// files being of no use.
pub fn open(dir: &Path, settings: &str) -> Result<(), WriteFailed> {
    let stamp = dir.join(SETTINGS);
    if dir.exists() && std::fs::read_to_string(&stamp).ok().as_deref() != Some(settings) {
        std::fs::remove_dir_all(dir).map_err(at(dir))?;
    }
    std::fs::create_dir_all(dir).map_err(at(dir))?;
    std::fs::write(&stamp, settings).map_err(at(&stamp))
}

/// Ends the partial folder `dir`: removes its settings file and renames it to `target`.
pub fn close(dir: &Path, target: &Path) -> Result<(), WriteFailed> {
    let stamp = dir.join(SETTINGS);
    std::fs::remove_file(&stamp).map_err(at(&stamp))?;
    std::fs::rename(dir, target).map_err(at(target))
}

/// A write that failed: the file and the error.
#[derive(Debug)]
pub struct WriteFailed {
    /// The file or folder.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

fn at(path: &Path) -> impl FnOnce(std::io::Error) -> WriteFailed + '_ {
    move |source| WriteFailed { path: path.to_path_buf(), source }
}

/// Writes every file of `generator` under `dir` (files and their chunks in
/// parallel), keeping files already complete there; calls `tick` with the
/// size of each file done. The manifest entries, in the generator's order.
pub fn write_all(
    generator: &dyn Generator,
    dir: &Path,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Entry>, WriteFailed> {
    let files = generator.files();
    files
        .par_iter()
        .enumerate()
        .map(|(index, spec)| {
            let target = dir.join(&spec.path);
            let (bytes, sha256) = if target.is_file() {
                hash_file(&target).map_err(at(&target))?
            } else {
                write_file(generator, index, spec.chunks, &target)?
            };
            tick(bytes);
            let path = spec.path.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
            Ok(Entry { path, bytes, sha256 })
        })
        .collect()
}

/// Writes file `index` (`chunks` chunks) to `target` through a temporary name.
fn write_file(
    generator: &dyn Generator,
    index: usize,
    chunks: usize,
    target: &Path,
) -> Result<(u64, String), WriteFailed> {
    let parent = target.parent().expect("a file inside the data set");
    std::fs::create_dir_all(parent).map_err(at(parent))?;
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let temporary = parent.join(format!(".{name}.tmp"));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&temporary).map_err(at(&temporary))?);
    let mut hash = Sha256::new();
    let mut bytes = 0u64;
    // Chunks are made in parallel windows and written in order.
    let window = 2 * rayon::current_num_threads();
    for start in (0..chunks).step_by(window) {
        let made: Vec<Vec<u8>> =
            (start..(start + window).min(chunks)).into_par_iter().map(|c| generator.chunk(index, c)).collect();
        for chunk in made {
            file.write_all(&chunk).map_err(at(&temporary))?;
            hash.update(&chunk);
            bytes += chunk.len() as u64;
        }
    }
    file.into_inner().map_err(|e| at(&temporary)(e.into_error()))?;
    std::fs::rename(&temporary, target).map_err(at(target))?;
    Ok((bytes, hex(&hash.finalize())))
}
