//! Writing a data set so that an interruption never leaves a half set that
//! looks complete: files go into `.<folder>.partial` beside the final
//! folder, each written under a temporary name, synced and renamed when
//! complete, then recorded with its size and SHA-256 in the folder's
//! journal; once every file is there, the folders are synced, the manifest
//! written and synced, the partial folder synced and renamed into place,
//! and the data folder synced.
//!
//! A later run with the same settings finds the partial folder and keeps a
//! file only when the journal records it and it still hashes to what was
//! recorded: a file damaged since, cut short, or never recorded (the run
//! stopped between its rename and its record) is written again.
//!
//! Every name is reached through folders held open, following no link
//! ([`Dir`]): a link planted in the partial folder (the folder itself
//! included) is removed, never written through.

use super::generate::Generator;
use super::manifest::{Entry, Manifest, FILE_NAME as MANIFEST};
use mlb_record::digest::{hex, sha256_of};
use mlb_run::linux::dir::Dir;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::btree_map::Entry as Slot;
use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The file in a partial folder naming the settings its files were made with.
const SETTINGS: &str = ".settings";

/// The file in a partial folder recording each complete file: `SHA-256 bytes path` a line.
const JOURNAL: &str = ".journal";

/// The name of the folder a data set is written into before it is complete.
pub fn partial_name(folder: &str) -> OsString {
    format!(".{folder}.partial").into()
}

/// A write that failed: the file and the error.
#[derive(Debug)]
pub struct WriteFailed {
    /// The file or folder.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

impl WriteFailed {
    /// Whether it stopped for an interrupt (Ctrl-C, SIGTERM, a hang-up), not a failure.
    pub fn interrupted(&self) -> bool {
        self.source.kind() == ErrorKind::Interrupted
    }
}

fn at(path: PathBuf) -> impl FnOnce(std::io::Error) -> WriteFailed {
    move |source| WriteFailed { path, source }
}

/// A partial folder being written.
#[derive(Debug)]
pub struct Partial {
    dir: Dir,
    name: OsString,
    /// What the journal recorded when the folder was opened: path, size and SHA-256.
    recorded: HashMap<String, (u64, String)>,
    journal: Mutex<std::fs::File>,
}

impl Partial {
    /// Opens the partial folder of `folder` in `data` for files made with
    /// `settings` (e.g. `ImageNet small 0`): a partial folder of other
    /// settings (or none) is emptied, its files being of no use.
    pub fn open(data: &Dir, folder: &str, settings: &str) -> Result<Partial, WriteFailed> {
        let name = partial_name(folder);
        let path = data.at(&name);
        let existing = data.open_sub(Path::new(&name)).ok();
        let same = existing.as_ref().and_then(|d| read_small(d, SETTINGS)).is_some_and(|s| s == settings);
        let recorded = match (&existing, same) {
            (Some(d), true) => read_small(d, JOURNAL).map(|text| parse_journal(&text)).unwrap_or_default(),
            _ => {
                data.remove(&name).map_err(at(path.clone()))?;
                HashMap::new()
            }
        };
        let dir = data.own(Path::new(&name)).map_err(at(path))?;
        let mut stamp = dir.create(OsStr::new(SETTINGS)).map_err(at(dir.at(SETTINGS)))?;
        stamp.write_all(settings.as_bytes()).map_err(at(dir.at(SETTINGS)))?;
        // The journal is written afresh with what it recorded, in whole lines.
        let mut journal = dir.create(OsStr::new(JOURNAL)).map_err(at(dir.at(JOURNAL)))?;
        let lines: String = recorded.iter().map(|(path, (bytes, sha))| line(path, *bytes, sha)).collect();
        journal.write_all(lines.as_bytes()).map_err(at(dir.at(JOURNAL)))?;
        Ok(Partial { dir, name, recorded, journal: Mutex::new(journal) })
    }

    /// The partial folder's path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes every file of `generator` (files and their chunks in
    /// parallel), keeping the files recorded and intact; calls `tick` with
    /// the size of each file done. Stops between two files, or two windows
    /// of chunks, once `interrupt` is set (an error of kind `Interrupted`).
    /// The manifest entries, in the generator's order.
    pub fn write_all(
        &self,
        generator: &dyn Generator,
        tick: &(dyn Fn(u64) + Sync),
        interrupt: &AtomicBool,
    ) -> Result<Vec<Entry>, WriteFailed> {
        let files = generator.files();
        // The folders first, one at a time: each made once, links in their place removed.
        let mut folders = BTreeMap::new();
        for spec in &files {
            let parent = spec.path.parent().unwrap_or(Path::new("")).to_path_buf();
            if let Slot::Vacant(vacant) = folders.entry(parent) {
                let dir = self.dir.own(vacant.key()).map_err(at(self.dir.at(vacant.key())))?;
                vacant.insert(dir);
            }
        }
        let entries = files
            .par_iter()
            .enumerate()
            .map(|(index, spec)| {
                if interrupt.load(Ordering::Relaxed) {
                    return Err(stopped(self.dir.at(&spec.path)));
                }
                let folder = &folders[spec.path.parent().unwrap_or(Path::new(""))];
                let name = spec.path.file_name().expect("a file inside the data set");
                let path = spec.path.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
                let (bytes, sha256) = match self.kept(&path, folder, name) {
                    Some(kept) => kept,
                    None => {
                        // Whatever is there (damaged, a link, a folder) makes way.
                        folder.remove(name).map_err(at(folder.at(name)))?;
                        let made = write_file(generator, index, spec.chunks, folder, name, interrupt)?;
                        self.record(&path, made.0, &made.1)?;
                        made
                    }
                };
                tick(bytes);
                Ok(Entry { path, bytes, sha256 })
            })
            .collect::<Result<Vec<Entry>, WriteFailed>>()?;
        for (parent, dir) in &folders {
            dir.sync().map_err(at(self.dir.at(parent)))?;
        }
        Ok(entries)
    }

    /// Ends the partial folder: writes and syncs `manifest`, removes the
    /// settings and the journal, syncs the folder, renames it to `folder`
    /// in `data` and syncs `data`.
    pub fn close(self, manifest: &Manifest, data: &Dir, folder: &str) -> Result<(), WriteFailed> {
        let path = self.dir.at(MANIFEST);
        let mut file = self.dir.create(OsStr::new(MANIFEST)).map_err(at(path.clone()))?;
        file.write_all(manifest.text().as_bytes()).and_then(|()| file.sync_all()).map_err(at(path))?;
        for name in [SETTINGS, JOURNAL] {
            self.dir.remove(OsStr::new(name)).map_err(at(self.dir.at(name)))?;
        }
        self.dir.sync().map_err(at(self.dir.path().to_path_buf()))?;
        data.rename(&self.name, OsStr::new(folder)).map_err(at(data.at(folder)))?;
        data.sync().map_err(at(data.path().to_path_buf()))
    }

    /// Size and SHA-256 of `name` in `folder` when the journal recorded
    /// `path` and the file (a regular file, not a link) still hashes to it.
    fn kept(&self, path: &str, folder: &Dir, name: &OsStr) -> Option<(u64, String)> {
        let recorded = self.recorded.get(path)?;
        let found = folder.open_file(Path::new(name)).and_then(sha256_of).ok()?;
        (found == *recorded).then_some(found)
    }

    /// Records the complete file `path` in the journal.
    fn record(&self, path: &str, bytes: u64, sha256: &str) -> Result<(), WriteFailed> {
        let mut journal = self.journal.lock().unwrap_or_else(|e| e.into_inner());
        journal.write_all(line(path, bytes, sha256).as_bytes()).map_err(at(self.dir.at(JOURNAL)))
    }
}

/// One line of the journal.
fn line(path: &str, bytes: u64, sha256: &str) -> String {
    format!("{sha256} {bytes} {path}\n")
}

/// The complete lines of a journal: a line cut short by a crash, or not
/// of the form, records nothing.
fn parse_journal(text: &str) -> HashMap<String, (u64, String)> {
    text.split_inclusive('\n')
        .filter_map(|l| {
            let mut fields = l.strip_suffix('\n')?.splitn(3, ' ');
            let (sha, bytes, path) = (fields.next()?, fields.next()?, fields.next()?);
            let hex = sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit());
            (hex && !path.is_empty()).then(|| Some((path.to_string(), (bytes.parse().ok()?, sha.to_string()))))?
        })
        .collect()
}

/// The text of the small file `name` in `dir` (settings, journal), if it is a regular file.
fn read_small(dir: &Dir, name: &str) -> Option<String> {
    let mut text = String::new();
    dir.open_file(Path::new(name)).ok()?.read_to_string(&mut text).ok()?;
    Some(text)
}

/// The error that stops a write at `path` for an interrupt.
fn stopped(path: PathBuf) -> WriteFailed {
    WriteFailed { path, source: std::io::Error::new(ErrorKind::Interrupted, "interrupted") }
}

/// Writes file `index` (`chunks` chunks) as `name` in `folder` through a
/// temporary name, synced before it is renamed.
fn write_file(
    generator: &dyn Generator,
    index: usize,
    chunks: usize,
    folder: &Dir,
    name: &OsStr,
    interrupt: &AtomicBool,
) -> Result<(u64, String), WriteFailed> {
    let mut temporary = OsString::from(".");
    temporary.push(name);
    temporary.push(".tmp");
    let failed = || at(folder.at(&temporary));
    let mut file = std::io::BufWriter::new(folder.create(&temporary).map_err(failed())?);
    let mut hash = Sha256::new();
    let mut bytes = 0u64;
    // Chunks are made in parallel windows and written in order.
    let window = 2 * rayon::current_num_threads();
    for start in (0..chunks).step_by(window) {
        if start > 0 && interrupt.load(Ordering::Relaxed) {
            return Err(stopped(folder.at(&temporary)));
        }
        let made: Vec<Vec<u8>> =
            (start..(start + window).min(chunks)).into_par_iter().map(|c| generator.chunk(index, c)).collect();
        for chunk in made {
            file.write_all(&chunk).map_err(failed())?;
            hash.update(&chunk);
            bytes += chunk.len() as u64;
        }
    }
    let file = file.into_inner().map_err(|e| failed()(e.into_error()))?;
    file.sync_all().map_err(failed())?;
    folder.rename(&temporary, name).map_err(at(folder.at(name)))?;
    Ok((bytes, hex(&hash.finalize())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_line_cut_short_or_malformed_records_nothing() {
        let sha = "a".repeat(64);
        let text =
            format!("{sha} 12 train/a b.JPEG\n{sha} 7 x\nnot a line\n{sha} 3\n{} 5 y\n{sha} 9 cut", "z".repeat(64));
        let recorded = parse_journal(&text);
        let expected: HashMap<String, (u64, String)> =
            [("train/a b.JPEG".to_string(), (12, sha.clone())), ("x".to_string(), (7, sha.clone()))].into();
        assert_eq!(recorded, expected);
    }
}
