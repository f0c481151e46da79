//! What the store keeps of a run folder beyond its figures, for `mlb serve`
//! to show a run as `mlb report` shows it without reading a file outside
//! the store: each report file's text (deflated), the end of each failed
//! instance's log, and the documents beside the reports (`acceptance.json`,
//! `interference.json`).
//!
//! Every file is read inside the run folder ([`Dir`]): a path a record
//! names is confined to it ([`places`]), no link is followed, nothing but a regular file
//! is read, and only so much of it: a record naming `/etc/shadow`,
//! `../../x`, a link, a FIFO or `/dev/zero` has no tail stored.

use flate2::read::ZlibDecoder;
use flate2::{Compress, Compression, FlushCompress, Status};
use mlb_run::linux::dir::Dir;
use std::cell::RefCell;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

/// How much of the end of a failed instance's log is kept.
pub const LOG_TAIL_BYTES: u64 = 16 * 1024;

/// The documents of a run folder kept beside its reports, by file name:
/// `mlb accept`'s record and its signature (the run page checks it), and
/// `mlb interfere`'s matrix (whose cells are rows of their own too).
pub const DOCUMENTS: [&str; 3] = ["acceptance.json", "acceptance.json.sig", mlb_judge::interfere::FILE];

/// The largest document (and `system.json`) read from a run folder: an
/// acceptance record is kilobytes.
pub const DOCUMENT_BYTES: u64 = mlb_record::reading::input::INPUT_LIMIT;

/// The most a stored report text may inflate to: a report is a few
/// kilobytes to a few megabytes (telemetry timelines); a body that would
/// grow past this is not one the import wrote.
pub const MAX_TEXT_BYTES: u64 = mlb_record::contract::read::MAX_REPORT_BYTES as u64;

/// A report file's text as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredText {
    /// sha256 (hex) of the file's bytes.
    pub report_hash: String,
    /// The file, relative to the run's folder.
    pub file: String,
    /// Its text, deflated ([`deflate`]).
    pub body: Vec<u8>,
}

/// The end of a failed instance's log.
#[derive(Clone, Debug, PartialEq)]
pub struct LogTail {
    /// The instance's report file hash.
    pub report_hash: String,
    /// The instance's place in its file.
    pub entry: i64,
    /// The log as the record names it.
    pub log: String,
    /// Its last [`LOG_TAIL_BYTES`], as UTF-8 (invalid bytes replaced).
    pub tail: String,
}

/// `text` deflated (zlib, fast level: the import's time goes to reading),
/// no longer than it is: the import holds every file's until it is written.
/// Each reading thread keeps one compressor, reset between files: a new
/// one a file spent a tenth of an import zeroing its tables.
pub fn deflate(text: &str) -> Vec<u8> {
    thread_local! {
        static COMPRESSOR: RefCell<Compress> = RefCell::new(Compress::new(Compression::fast(), true));
    }
    COMPRESSOR.with_borrow_mut(|compressor| {
        compressor.reset();
        // zlib's bound on what deflating may add, with its header and checksum.
        let mut body = Vec::with_capacity(text.len() + text.len() / 1000 + 64);
        loop {
            let read = compressor.total_in() as usize;
            match compressor.compress_vec(&text.as_bytes()[read..], &mut body, FlushCompress::Finish) {
                Ok(Status::StreamEnd) => break,
                Ok(_) => body.reserve(body.capacity().max(64)),
                Err(e) => unreachable!("deflating into memory cannot fail: {e}"),
            }
        }
        body.shrink_to_fit();
        body
    })
}

/// The text of a stored body; `None` when it is not one [`deflate`] wrote
/// (damaged, or past [`MAX_TEXT_BYTES`]).
pub fn inflate(body: &[u8]) -> Option<String> {
    let mut text = String::new();
    let mut limited = ZlibDecoder::new(body).take(MAX_TEXT_BYTES + 1);
    limited.read_to_string(&mut text).ok()?;
    (text.len() as u64 <= MAX_TEXT_BYTES).then_some(text)
}

/// The last [`LOG_TAIL_BYTES`] of the log a record of the run folder
/// `folder` (held open as `dir`) names as `log`; `None` when none of its
/// [`places`] is a regular file inside the folder, or it cannot be read.
pub fn log_tail(dir: &Dir, folder: &Path, log: &str) -> Option<String> {
    let mut file = places(folder, log).iter().find_map(|rel| dir.open_file(rel).ok())?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(LOG_TAIL_BYTES))).ok()?;
    let mut bytes = Vec::new();
    file.take(LOG_TAIL_BYTES).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Where in the run folder `folder` the path `named` (a record's `log`)
/// may be, in order: a relative path as it is (`..` is refused by
/// [`Dir`]); an absolute one below the folder, relative to it (mlb names
/// its logs so); then, for a folder moved since it was written (or a path
/// relative to where mlb ran), the same `logs/NAME` in it (mlb writes its
/// logs there). Any other absolute path (`/etc/shadow`,
/// `/proc/self/environ`) is outside: no place.
pub fn places(folder: &Path, named: &str) -> Vec<PathBuf> {
    let path = Path::new(named);
    let mut places = Vec::new();
    if !path.is_absolute() {
        places.push(path.to_path_buf());
    } else if let Ok(inside) = path.strip_prefix(folder) {
        places.push(inside.to_path_buf());
    }
    let mut last = path.components().rev();
    if let (Some(Component::Normal(name)), Some(Component::Normal(logs))) = (last.next(), last.next()) {
        let in_logs = Path::new("logs").join(name);
        if logs == "logs" && !places.contains(&in_logs) {
            places.push(in_logs);
        }
    }
    places
}

/// The documents of [`DOCUMENTS`] in the run folder held open as `dir`, by
/// name: regular files of at most [`DOCUMENT_BYTES`] of UTF-8 text.
pub fn documents(dir: &Dir) -> Vec<(String, String)> {
    DOCUMENTS
        .iter()
        .filter_map(|name| {
            let bytes = dir.read_bounded(Path::new(name), DOCUMENT_BYTES).ok()?;
            Some((name.to_string(), String::from_utf8(bytes).ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_comes_back_as_it_went_in_and_a_damaged_body_is_none() {
        let text = "{\"name\": \"vae\", \"train_item\": {\"avg\": 1.5}}".repeat(100);
        let body = deflate(&text);
        assert!(body.len() < text.len() / 4, "{} bytes", body.len());
        assert_eq!(inflate(&body).as_deref(), Some(text.as_str()));
        assert_eq!(inflate(b"not deflated"), None);
    }

    #[test]
    fn the_compressor_kept_between_texts_carries_nothing_over() {
        // Incompressible enough to outgrow the first guess of the body's size.
        let noise: String =
            (0u64..50_000).map(|i| char::from(b'a' + (i.wrapping_mul(2_654_435_761) % 26) as u8)).collect();
        for text in ["{}", noise.as_str(), "", "{\"a\": 1}", noise.as_str()] {
            assert_eq!(inflate(&deflate(text)).as_deref(), Some(text));
        }
    }

    #[test]
    fn only_the_end_of_a_long_log_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let log = "a".repeat(LOG_TAIL_BYTES as usize) + "the end\n";
        std::fs::create_dir(dir.path().join("logs")).unwrap();
        std::fs::write(dir.path().join("logs/x.log"), &log).unwrap();
        let held = Dir::open(dir.path()).unwrap();
        let tail = log_tail(&held, dir.path(), "logs/x.log").unwrap();
        assert_eq!(tail.len() as u64, LOG_TAIL_BYTES);
        assert!(tail.ends_with("the end\n"));
        assert_eq!(log_tail(&held, dir.path(), "logs/missing.log"), None);
        std::fs::write(dir.path().join("acceptance.json"), "{}").unwrap();
        assert_eq!(documents(&held), [("acceptance.json".to_string(), "{}".to_string())]);
    }

    #[test]
    fn a_path_a_record_names_is_confined_to_its_run_folder() {
        let run = Path::new("/data/run");
        let inside = |named: &str| places(run, named).iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
        assert_eq!(inside("logs/a.log"), ["logs/a.log"]);
        assert_eq!(inside("/data/run/logs/a.log"), ["logs/a.log"]);
        assert_eq!(inside("/elsewhere/old/logs/a.log"), ["logs/a.log"], "a folder moved since");
        assert_eq!(inside("out/logs/a.log"), ["out/logs/a.log", "logs/a.log"], "relative to where mlb ran");
        for outside in ["/etc/shadow", "/proc/self/environ", "/dev/zero", "/x/logs/..", "/"] {
            assert!(inside(outside).is_empty(), "{outside}");
        }
    }
}
