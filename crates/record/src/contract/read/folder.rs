//! Finding and reading report files: mlb's, the original suite's (with
//! `NaN`/`Infinity` tokens) and the oldest appended-array files, in a folder
//! and its sub-folders, listed and parsed in parallel.
//!
//! Entries come out in the order the original read them, since its NaN
//! check depends on which entries are adjacent: its two globs listed the
//! files one folder below first (folder by folder), then the top-level
//! files, each folder in the order the file system lists it (Python's glob
//! does not sort). Files deeper down, which the original did not read, come
//! last: folder by folder, a folder's files before its sub-folders'.
//!
//! Only the top level is listed before reading starts: each folder one
//! below is listed by the thread that reads it, so that listing 100,000
//! files in 800 folders does not hold up their reading.
//!
//! `mlb report` reads the light view of each entry ([`read_folder`]);
//! `mlb db import` reads each file once, whole: its entries with their
//! [`Extra`], and its text to keep ([`walk_folder_no_links`]); `mlb burn`
//! takes only the files' paths from the same walk, none opened
//! ([`report_files`]), and reads each into the full report model.

use super::entry::{Entry, Parsed, RawEntry};
use super::extra::Extra;
use super::text::{close_appended_array, replace_non_finite, Tokens};
use crate::contract::step_plan::is_step_plan;
use rayon::prelude::*;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::ops::ControlFlow;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Everything read from a reports folder.
#[derive(Debug, Default)]
pub struct Reading {
    /// Report files found (`*.json`).
    pub files: usize,
    /// Entries, in file order.
    pub entries: Vec<Entry>,
    /// Files (or folders) that could not be read, with the reason.
    pub unreadable: Vec<Unreadable>,
}

/// A reports folder that cannot be listed.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the reports folder {}: {source}", path.display())]
pub struct FolderError {
    /// The folder.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// A file or folder left out, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unreadable {
    /// The path.
    pub path: PathBuf,
    /// Why it was left out.
    pub reason: String,
}

/// Reads every `*.json` file under `dir` (any depth; hidden files and
/// folders left out, as the original's glob left them out), in parallel, keeping
/// the original's order. Errs only when `dir` itself cannot be listed; a bad
/// file is listed in `unreadable`.
pub fn read_folder(dir: &Path) -> Result<Reading, FolderError> {
    read_folder_told(dir, &|| ())
}

/// [`read_folder`], calling `file_read` (from any of the reading threads)
/// each time a file's text is read, its reports parsed or not: how a
/// command shows the progress of a large folder.
pub fn read_folder_told(dir: &Path, file_read: &(dyn Fn() + Sync)) -> Result<Reading, FolderError> {
    let mut entries = Vec::new();
    let read = |text: &str, path: &Path| {
        file_read();
        found_in(text, path)
    };
    let reader = Reader::new(dir, Links::Follow, &read)?;
    let (files, unreadable) = walk_tree(dir, Links::Follow, &reader, |found| {
        found.move_into(&mut entries);
        ControlFlow::Continue(())
    })?;
    Ok(Reading { files, entries, unreadable })
}

/// [`read_folder`] of a folder mlb did not write (`mlb db import`), each
/// file read once and parsed once: its entries with their [`Extra`], and
/// what `keep` makes of its text (its hash, its text to store), handed to
/// `take` one file at a time, in the order of [`read_folder`]'s entries
/// (a folder's files one after another), while the next folders are read.
/// The walk stops when `take` breaks. Returns the files (or folders) that
/// could not be read. A link below `dir` (to a report or a folder) is
/// neither followed nor read, but listed there ("a symbolic link, not
/// followed"); nothing but a regular file is read, each folder and file
/// opened below `dir` without following a link (one put in the place of
/// either since the listing).
pub fn walk_folder_no_links<K: Send>(
    dir: &Path,
    keep: impl Fn(&str) -> K + Sync,
    take: impl FnMut(WholeFile<K>) -> ControlFlow<()> + Send,
) -> Result<Vec<Unreadable>, FolderError> {
    let read = |text: &str, path: &Path| {
        let path: Arc<Path> = Arc::from(path);
        Ok(WholeFile { entries: read_whole(text, &path)?, path, kept: keep(text) })
    };
    let reader = Reader::new(dir, Links::Refuse, &read)?;
    let (_, unreadable) = walk_tree(dir, Links::Refuse, &reader, take)?;
    Ok(unreadable)
}

/// The report files under `dir` (any depth), found as [`read_folder`]
/// finds them (hidden names, the run's own files and Slurm step plans left
/// out, a link to a folder followed once) but none of them opened: for a
/// reader that reads each file itself, into the full report model
/// (`mlb burn`). In [`read_folder`]'s order. Errs only when `dir` itself
/// cannot be listed; a folder or entry below it that cannot be listed, or a
/// `*.json` name that is not a regular file, is in the second list.
pub fn report_files(dir: &Path) -> Result<(Vec<PathBuf>, Vec<Unreadable>), FolderError> {
    let mut files = Vec::new();
    let (_, unreadable) = walk_tree(dir, Links::Follow, &Paths, |path| {
        files.push(path);
        ControlFlow::Continue(())
    })?;
    Ok((files, unreadable))
}

/// A report file read whole.
#[derive(Debug)]
pub struct WholeFile<K> {
    /// The file (its entries' `file`).
    pub path: Arc<Path>,
    /// Its entries in file order, each with what the store keeps beyond it.
    pub entries: Vec<(Entry, Extra)>,
    /// What the reader's `keep` made of its text.
    pub kept: K,
}

/// What the walk does with a link below the folder it reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Links {
    /// Follows it (once: a loop is caught).
    Follow,
    /// Leaves it out, saying so.
    Refuse,
}

/// How each file of a walk is read: its text (and its path) into a `T`.
type ReadOne<'a, T> = dyn Fn(&str, &Path) -> Result<T, Unreadable> + Sync + 'a;

/// What a walk makes of each folder's report files, in order: what their
/// texts give ([`Reader`]), or only their paths ([`Paths`]).
trait Files<T>: Sync {
    /// What the files of `listing` give, in its order.
    fn of(&self, listing: &Listing) -> Vec<Result<T, Unreadable>>;
}

/// The reader of the files below the folder `dir`: links below it taken as
/// `links` says, each file's text read by `read`.
struct Reader<'a, T> {
    dir: &'a Path,
    links: Links,
    /// `dir`, held open when no link is followed: every folder below is
    /// opened from it, one name at a time.
    root: Option<std::fs::File>,
    read: &'a ReadOne<'a, T>,
}

impl<'a, T> Reader<'a, T> {
    /// The reader of the files below `dir`; errs when `dir` is to be held
    /// open and cannot be.
    fn new(dir: &'a Path, links: Links, read: &'a ReadOne<'a, T>) -> Result<Self, FolderError> {
        let root = match links {
            Links::Follow => None,
            Links::Refuse => {
                Some(std::fs::File::open(dir).map_err(|source| FolderError { path: dir.to_path_buf(), source })?)
            }
        };
        Ok(Reader { dir, links, root, read })
    }
}

/// Each file's text read, opened relative to its folder's handle: one
/// path component to look up, not the whole path.
impl<T: Send> Files<T> for Reader<'_, T> {
    fn of(&self, listing: &Listing) -> Vec<Result<T, Unreadable>> {
        if listing.names.is_empty() {
            return Vec::new();
        }
        let folder = match &self.root {
            None => std::fs::File::open(&listing.folder),
            Some(root) => open_below(root, listing.folder.strip_prefix(self.dir).unwrap_or(&listing.folder)),
        };
        listing
            .names
            .par_iter()
            .map(|name| {
                let path = listing.folder.join(name);
                let file = match &folder {
                    Ok(folder) => open_at(folder, name, self.links),
                    Err(e) => Err(std::io::Error::new(e.kind(), format!("cannot open its folder: {e}"))),
                };
                with_text(file, &path, |text| (self.read)(text, &path))
            })
            .collect()
    }
}

/// The files' paths, none of them opened: a walk that only lists.
struct Paths;

impl Files<PathBuf> for Paths {
    fn of(&self, listing: &Listing) -> Vec<Result<PathBuf, Unreadable>> {
        listing.names.iter().map(|name| Ok(listing.folder.join(name))).collect()
    }
}

/// Walks `dir` ([`read_folder`]'s order), links below it taken as `links`
/// says, each folder's files made into `T`s by `files` and handed to
/// `take`, in order, until `take` breaks; returns how many files were found
/// and what could not be listed or read.
fn walk_tree<T: Send>(
    dir: &Path,
    links: Links,
    files: &dyn Files<T>,
    mut take: impl FnMut(T) -> ControlFlow<()> + Send,
) -> Result<(usize, Vec<Unreadable>), FolderError> {
    let listing = std::fs::read_dir(dir).map_err(|source| FolderError { path: dir.to_path_buf(), source })?;
    let mut top = Listing::of(dir, Ok(listing), links);
    let mut found =
        Taken { files: 0, unreadable: std::mem::take(&mut top.unreadable), take: &mut take, stopped: false };
    let mut seen = HashSet::new();
    if let Ok(m) = std::fs::metadata(dir) {
        seen.insert((m.dev(), m.ino()));
    }
    // One folder below, as the original's first glob: each folder listed by
    // the thread that reads it.
    let below = unseen(std::mem::take(&mut top.folders), &mut seen, &mut found.unreadable);
    // A batch is moved into the list while the next one is read.
    let mut deeper = Vec::new();
    let mut done: Vec<(Listing, Vec<Result<T, Unreadable>>)> = Vec::new();
    for batch in below.chunks(FOLDERS_A_BATCH) {
        if found.stopped {
            return Ok((found.files, found.unreadable));
        }
        let previous = std::mem::take(&mut done);
        (done, ()) = rayon::join(
            || {
                batch
                    .par_iter()
                    .map(|folder| Listing::of(folder, std::fs::read_dir(folder), links))
                    .map(|listing| {
                        let read = files.of(&listing);
                        (listing, read)
                    })
                    .collect()
            },
            || found.take_folders(previous, &mut deeper),
        );
    }
    found.take_folders(done, &mut deeper);
    if found.stopped {
        return Ok((found.files, found.unreadable));
    }
    // The top level, as the original's second glob.
    let read = files.of(&top);
    found.take(top.names.len(), read);
    // Deeper, which the original did not read: listed first (a link loop is
    // caught in one order), then read a batch at a time.
    let mut listings = Vec::new();
    list_below(deeper, links, &mut seen, &mut listings, &mut found.unreadable);
    for batch in listings.chunks(FOLDERS_A_BATCH) {
        if found.stopped {
            break;
        }
        let done: Vec<Vec<_>> = batch.par_iter().map(|listing| files.of(listing)).collect();
        for (listing, read) in batch.iter().zip(done) {
            found.take(listing.names.len(), read);
        }
    }
    Ok((found.files, found.unreadable))
}

/// Folders read in parallel at a time: only two batches' entries are held
/// twice while they move into the list.
const FOLDERS_A_BATCH: usize = 32;

/// What a walk found so far: files counted, what they gave handed on
/// until the taker stopped the walk.
struct Taken<'a, T> {
    files: usize,
    unreadable: Vec<Unreadable>,
    take: &'a mut (dyn FnMut(T) -> ControlFlow<()> + Send),
    stopped: bool,
}

impl<T> Taken<'_, T> {
    /// Takes what reading `folders` gave, in order, and their sub-folders.
    fn take_folders(&mut self, folders: Vec<(Listing, Vec<Result<T, Unreadable>>)>, deeper: &mut Vec<PathBuf>) {
        for (listing, read) in folders {
            self.take(listing.names.len(), read);
            self.unreadable.extend(listing.unreadable);
            deeper.extend(listing.folders);
        }
    }

    /// Counts `files` more files and takes what reading them gave, in order.
    fn take(&mut self, files: usize, read: Vec<Result<T, Unreadable>>) {
        self.files += files;
        for result in read {
            match result {
                Ok(_) if self.stopped => {}
                Ok(found) => self.stopped = (self.take)(found).is_break(),
                Err(bad) => self.unreadable.push(bad),
            }
        }
    }
}

/// One folder's report files and sub-folders, each in the order the file
/// system lists them (as Python's glob), hidden names left out (as the
/// glob left them out), and what could not be listed.
struct Listing {
    /// The folder.
    folder: PathBuf,
    /// Its `*.json` files' names (regular files, or links to them).
    names: Vec<OsString>,
    /// Its sub-folders (and links to folders), not yet checked for loops.
    folders: Vec<PathBuf>,
    /// Entries that could not be listed, and `*.json` names that are not
    /// regular files: a FIFO or a device would block the read.
    unreadable: Vec<Unreadable>,
}

impl Listing {
    /// Lists `dir` from its `read_dir`. The listing's file type needs no
    /// `stat`; only a link is followed, when `links` says so.
    fn of(dir: &Path, listing: std::io::Result<std::fs::ReadDir>, links: Links) -> Listing {
        let mut out =
            Listing { folder: dir.to_path_buf(), names: Vec::new(), folders: Vec::new(), unreadable: Vec::new() };
        let bad = |path: PathBuf, reason: String| Unreadable { path, reason };
        let listing = match listing {
            Ok(l) => l,
            Err(e) => {
                out.unreadable.push(bad(dir.to_path_buf(), e.to_string()));
                return out;
            }
        };
        for item in listing {
            let item = match item {
                Ok(i) => i,
                Err(e) => {
                    out.unreadable.push(bad(dir.to_path_buf(), e.to_string()));
                    continue;
                }
            };
            let name = item.file_name();
            if hidden(&name) || is_step_plan(&item.path()) {
                continue;
            }
            let json = is_report_name(&name);
            let kind = match item.file_type() {
                Ok(t) if !t.is_symlink() => Kind::of(t),
                Ok(_) if links == Links::Refuse => {
                    // Said of a report's name or a folder only (a stat, no read).
                    if json || std::fs::metadata(item.path()).is_ok_and(|m| m.is_dir()) {
                        out.unreadable.push(bad(item.path(), "a symbolic link, not followed".into()));
                    }
                    continue;
                }
                _ => std::fs::metadata(item.path()).map_or(Kind::Other, |m| Kind::of(m.file_type())),
            };
            match kind {
                Kind::Folder => out.folders.push(item.path()),
                Kind::File if json => out.names.push(name),
                Kind::Other if json => out
                    .unreadable
                    .push(bad(item.path(), "not a regular file (a FIFO, socket, device or broken link)".into())),
                _ => {}
            }
        }
        out
    }
}

/// Whether a file named `name` may be a report: `*.json` (with a stem, as
/// `Path::extension` reads it), not one of the run's own files.
fn is_report_name(name: &OsStr) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let bytes = name.as_bytes();
    bytes.len() > ".json".len() && bytes.ends_with(b".json") && !crate::contract::is_run_file_name(name)
}

/// The folders of `folders` not listed yet, in order. A link to a folder is
/// followed once: a folder already listed (`loop -> .`) is left out, so no
/// report counts twice and no loop hangs.
fn unseen(folders: Vec<PathBuf>, seen: &mut HashSet<(u64, u64)>, unreadable: &mut Vec<Unreadable>) -> Vec<PathBuf> {
    folders
        .into_iter()
        .filter(|path| match std::fs::metadata(path) {
            Ok(m) if !seen.insert((m.dev(), m.ino())) => {
                unreadable.push(Unreadable {
                    path: path.clone(),
                    reason: "a link to a folder already read (left out: its reports would count twice)".into(),
                });
                false
            }
            _ => true,
        })
        .collect()
}

/// Lists `folders` and everything below them, depth first: each folder,
/// then its sub-folders' trees in listing order.
fn list_below(
    folders: Vec<PathBuf>,
    links: Links,
    seen: &mut HashSet<(u64, u64)>,
    out: &mut Vec<Listing>,
    unreadable: &mut Vec<Unreadable>,
) {
    for folder in unseen(folders, seen, unreadable) {
        let mut listing = Listing::of(&folder, std::fs::read_dir(&folder), links);
        unreadable.append(&mut listing.unreadable);
        let below = std::mem::take(&mut listing.folders);
        out.push(listing);
        list_below(below, links, seen, out, unreadable);
    }
}

/// Opens `name` in `folder` to read it. Non-blocking: a file replaced by a
/// FIFO since the listing does not hang the open. When `links` refuses
/// them, a link in its place is not followed, and nothing but a regular
/// file is opened.
fn open_at(folder: &std::fs::File, name: &OsStr, links: Links) -> std::io::Result<std::fs::File> {
    use nix::fcntl::OFlag;
    let flags = OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_NOCTTY;
    if links == Links::Follow {
        return open_in(folder, name, flags);
    }
    let file = open_in(folder, name, flags | OFlag::O_NOFOLLOW)?;
    if !file.metadata()?.is_file() {
        let why = "not a regular file (a FIFO, socket or device)";
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, why));
    }
    Ok(file)
}

/// The folder `rel` below `root`, opened a name at a time, following no
/// link.
fn open_below(root: &std::fs::File, rel: &Path) -> std::io::Result<std::fs::File> {
    use nix::fcntl::OFlag;
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW;
    let mut folder = root.try_clone()?;
    for name in rel.components() {
        folder = open_in(&folder, name.as_os_str(), flags)?;
    }
    Ok(folder)
}

/// `name` in `folder`, opened with `flags` (and closed on exec).
fn open_in(folder: &std::fs::File, name: &OsStr, flags: nix::fcntl::OFlag) -> std::io::Result<std::fs::File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let flags = flags | nix::fcntl::OFlag::O_CLOEXEC;
    let fd = nix::fcntl::openat(Some(folder.as_raw_fd()), name, flags, nix::sys::stat::Mode::empty())?;
    // SAFETY: `fd` was just opened here and is owned by nothing else.
    Ok(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// Whether a name is hidden (`.ipynb_checkpoints`, `.x.json`): the
/// original's glob patterns never matched one, at any level, so the walk
/// leaves hidden files and folders out as it did.
fn hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// What a folder entry is, for the walk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Folder,
    File,
    Other,
}

impl Kind {
    fn of(t: std::fs::FileType) -> Kind {
        if t.is_dir() {
            Kind::Folder
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }
}

/// Reads one report file: one report object, or an array of them (closed or
/// appended). Non-finite tokens are read as `null`.
pub fn read_file(path: &Path) -> Result<Vec<Entry>, Unreadable> {
    with_text(std::fs::File::open(path), path, |text| found_in(text, path)).map(|found| {
        let mut entries = Vec::new();
        found.move_into(&mut entries);
        entries
    })
}

/// What `read` gives of the text of the file at `path`, opened as `file`.
fn with_text<T>(
    file: std::io::Result<std::fs::File>,
    path: &Path,
    read: impl FnOnce(&str) -> Result<T, Unreadable>,
) -> Result<T, Unreadable> {
    let bad = |reason: String| Unreadable { path: path.to_path_buf(), reason };
    BUFFER.with_borrow_mut(|buf| {
        let len = file.and_then(|f| read_into(f, buf)).map_err(|e| bad(e.to_string()))?;
        let text = std::str::from_utf8(&buf[..len]).map_err(|e| bad(format!("not UTF-8 text: {e}")))?;
        read(text)
    })
}

/// The entries of `text`, the content of the report file `path` as read
/// before (the results store keeps it), as [`read_file`] reads them.
pub fn read_text(path: &Path, text: &str) -> Result<Vec<Entry>, Unreadable> {
    let mut entries = Vec::new();
    found_in(text, path)?.move_into(&mut entries);
    Ok(entries)
}

/// The entries of `text`, read from the file `path`, a lone report kept
/// without a list of its own.
fn found_in(text: &str, path: &Path) -> Result<Found<Entry>, Unreadable> {
    let found = entries_in::<false>(text, &Arc::from(path))?;
    Ok(match found {
        Found::One((entry, _)) => Found::One(entry),
        Found::Many(entries) => Found::Many(entries.into_iter().map(|(entry, _)| entry).collect()),
    })
}

/// The entries of `text`, read from the file `file`, each with its
/// [`Extra`]: what `mlb db import` reads of a file.
pub fn read_whole(text: &str, file: &Arc<Path>) -> Result<Vec<(Entry, Extra)>, Unreadable> {
    let mut entries = Vec::new();
    entries_in::<true>(text, file)?.move_into(&mut entries);
    Ok(entries)
}

/// The entries of `text`, read from the file `file`, with their [`Extra`]
/// when `EXTRA` (else empty ones).
fn entries_in<const EXTRA: bool>(text: &str, file: &Arc<Path>) -> Result<Found<(Entry, Extra)>, Unreadable> {
    let bad = |reason: String| Unreadable { path: file.to_path_buf(), reason };
    let raws = parse::<EXTRA>(text).map_err(bad)?;
    raws.try_map(|i, raw| raw.into_entry(file).map_err(|why| bad(format!("entry {}: {why}", i + 1))))
}

/// What one file holds: one report (most files: no list allocated for it,
/// 100,000 files read are 100,000 allocations fewer), or a list of them.
enum Found<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> Found<T> {
    /// Each item through `f` (with its index), stopping at the first error.
    fn try_map<U, E>(self, mut f: impl FnMut(usize, T) -> Result<U, E>) -> Result<Found<U>, E> {
        Ok(match self {
            Found::One(item) => Found::One(f(0, item)?),
            Found::Many(items) => {
                Found::Many(items.into_iter().enumerate().map(|(i, item)| f(i, item)).collect::<Result<_, _>>()?)
            }
        })
    }

    /// Moves the items, in order, to the end of `out`.
    fn move_into(self, out: &mut Vec<T>) {
        match self {
            Found::One(item) => out.push(item),
            Found::Many(items) => out.extend(items),
        }
    }
}

thread_local! {
    /// The text of the file a reading thread parses: one buffer a thread,
    /// grown to the largest file, rather than one allocation a file.
    static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The size `BUFFER` starts at: larger than any one report.
const BUFFER_START: usize = 64 * 1024;

/// The largest report file read: a report is kilobytes to a few megabytes
/// (telemetry timelines); a larger file (a 50 GB file named `*.json`) is
/// left out, not read until memory runs out.
pub const MAX_REPORT_BYTES: usize = 256 << 20;

/// Reads `file` into the start of `buf`, grown as needed up to
/// [`MAX_REPORT_BYTES`]; returns the length read. One system call for a
/// file shorter than the buffer: a read of a regular file that returns less
/// than asked has reached its end (the next read would return 0).
fn read_into(mut file: std::fs::File, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    use std::io::Read;
    if buf.len() < BUFFER_START {
        buf.resize(BUFFER_START, 0);
    }
    let mut filled = 0;
    loop {
        let n = match file.read(&mut buf[filled..]) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            read => read?,
        };
        filled += n;
        if n == 0 || filled < buf.len() {
            return Ok(filled);
        }
        if buf.len() >= MAX_REPORT_BYTES {
            let why = format!("larger than the limit of {MAX_REPORT_BYTES} bytes for a report file");
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, why));
        }
        buf.resize((buf.len() * 2).min(MAX_REPORT_BYTES), 0);
    }
}

/// Parses report text once: strictly when it holds no `NaN`/`Infinity`
/// token (mlb's files: the fast path), else tolerantly with the tokens
/// replaced by markers (the original's). Only strict text that fails is
/// parsed a second time, as an appended array.
fn parse<const EXTRA: bool>(text: &str) -> Result<Found<RawEntry>, String> {
    let tolerant = replace_non_finite(text, Tokens::Markers);
    let result = match &tolerant {
        Cow::Borrowed(strict) => {
            parse_as::<false, EXTRA>(strict).or_else(|_| parse_as::<true, EXTRA>(&close_appended_array(strict)))
        }
        Cow::Owned(marked) => match close_appended_array(marked) {
            Cow::Borrowed(whole) => parse_as::<true, EXTRA>(whole),
            Cow::Owned(closed) => parse_as::<true, EXTRA>(&closed),
        },
    };
    result.map_err(|e| format!("not a report (JSON object or array of objects): {e}"))
}

fn parse_as<const TOLERANT: bool, const EXTRA: bool>(text: &str) -> Result<Found<RawEntry>, serde_json::Error> {
    if text.trim_start().starts_with('[') {
        serde_json::from_str::<Vec<Parsed<TOLERANT, EXTRA>>>(text)
            .map(|v| Found::Many(v.into_iter().map(|p| p.0).collect()))
    } else {
        serde_json::from_str::<Parsed<TOLERANT, EXTRA>>(text).map(|one| Found::One(one.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn the_reader_is_told_of_every_file_read_from_every_thread_parsed_or_not() {
        let dir = tempfile::tempdir().unwrap();
        for folder in 0..5 {
            for file in 0..20 {
                write(dir.path(), &format!("run{folder}/r{file}.json"), r#"{"name": "vae", "vcd": "0"}"#);
            }
        }
        write(dir.path(), "run0/bad.json", "{");
        write(dir.path(), "deeper/still/r.json", r#"{"name": "wlm", "vcd": "0"}"#);
        let told = std::sync::atomic::AtomicUsize::new(0);
        let reading =
            read_folder_told(dir.path(), &|| _ = told.fetch_add(1, std::sync::atomic::Ordering::Relaxed)).unwrap();
        assert_eq!((reading.files, reading.entries.len(), reading.unreadable.len()), (102, 101, 1));
        assert_eq!(told.into_inner(), 102);
    }

    #[test]
    fn original_file_with_nan_tokens() {
        let dir = tempfile::tempdir().unwrap();
        let text =
            r#"{"name": "vae", "vcd": "0", "batch_loss": [0.5, NaN, -Infinity], "train_item": {"avg": Infinity}}"#;
        let path = write(dir.path(), "fast.vae.json", text);
        let entries = read_file(&path).unwrap();
        assert_eq!(entries.len(), 1);
        assert!(entries[0].losses.nan && entries[0].losses.infinite && !entries[0].losses.null);
        assert_eq!(entries[0].avg, Some(f64::INFINITY));
    }

    #[test]
    fn oldest_appended_array() {
        let dir = tempfile::tempdir().unwrap();
        let text = "[\n{\"name\": \"vae\", \"vcd\": \"0\", \"batch_loss\": [1.0], \"train_item\": {\"avg\": 10.0}},\n\
                    {\"name\": \"wlm\", \"vcd\": \"0\", \"batch_loss\": [NaN], \"train_item\": {\"avg\": 20.0}},\n";
        let path = write(dir.path(), "baselines_0.json", text);
        let entries = read_file(&path).unwrap();
        assert_eq!(entries.iter().map(|e| e.name.as_deref().unwrap()).collect::<Vec<_>>(), ["vae", "wlm"]);
        assert_eq!((entries[0].avg, entries[0].losses.nan), (Some(10.0), false));
        assert!(entries[1].losses.nan);
    }

    #[test]
    fn sub_folder_files_come_first_in_listing_order() {
        let dir = tempfile::tempdir().unwrap();
        let one = |name: &str| format!(r#"{{"name": "{name}", "vcd": "0", "train_item": {{"avg": 1.0}}}}"#);
        for (path, name) in
            [("top1.json", "t1"), ("a/x.json", "a"), ("top2.json", "t2"), ("b/y.json", "b"), ("b/c/z.json", "deep")]
        {
            write(dir.path(), path, &one(name));
        }
        let names: Vec<String> =
            read_folder(dir.path()).unwrap().entries.into_iter().map(|e| e.name.unwrap().to_string()).collect();
        // The file system's own order of each folder decides within a group.
        let listed = |d: &Path| -> Vec<String> {
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
        };
        let folders: Vec<String> = listed(dir.path()).into_iter().filter(|n| n == "a" || n == "b").collect();
        let tops: Vec<String> = listed(dir.path())
            .into_iter()
            .filter(|n| n.ends_with(".json"))
            .map(|n| n.replace("top", "t").replace(".json", ""))
            .collect();
        let mut want: Vec<String> = folders.clone();
        want.extend(tops);
        want.push("deep".into());
        assert_eq!(names, want);
    }

    #[test]
    fn folder_sub_folders_and_unreadable_files() {
        let dir = tempfile::tempdir().unwrap();
        let ok = r#"{"name": "vae", "vcd": "0", "train_item": {"avg": 10.0}}"#;
        write(dir.path(), "a.json", ok);
        write(dir.path(), "run1/b.json", ok);
        write(dir.path(), "run1/deeper/c.json", ok);
        write(dir.path(), "notes.txt", "not a report");
        let truncated = write(dir.path(), "run1/truncated.json", r#"{"name": "vae", "vcd""#);
        let nameless = write(dir.path(), "nameless.json", r#"[{"vcd": "0"}]"#);
        let binary = dir.path().join("binary.json");
        std::fs::write(&binary, [0xff, 0xfe, 0x00]).unwrap();
        let reading = read_folder(dir.path()).unwrap();
        assert_eq!(reading.files, 6);
        assert_eq!(reading.entries.len(), 3);
        let bad: Vec<_> = reading.unreadable.iter().map(|u| (u.path.clone(), u.reason.clone())).collect();
        assert_eq!(bad.len(), 3, "{bad:?}");
        assert!(bad.iter().any(|(p, r)| *p == truncated && r.contains("EOF")), "{bad:?}");
        assert!(bad.iter().any(|(p, r)| *p == nameless && r.contains("entry 1") && r.contains("name")));
        assert!(bad.iter().any(|(p, r)| *p == binary && r.contains("UTF-8")));
    }

    #[test]
    fn the_step_plans_of_a_slurm_run_are_no_reports_and_a_users_slurm_folder_is_read() {
        use crate::contract::step_plan::{file_name, PLAN_DIR};
        let dir = tempfile::tempdir().unwrap();
        let ok = r#"{"name": "a", "completed": true, "train_item": {"avg": 1.0}}"#;
        write(dir.path(), "n1/s.a.R0.D0.json", ok);
        let plan = format!("{PLAN_DIR}/{}", file_name("s", "a", 0, 0));
        write(dir.path(), &plan, r#"{"tasks": [{"rank": 0}]}"#);
        write(dir.path(), &format!("older/{plan}"), r#"{"tasks": []}"#);
        write(dir.path(), &format!("{PLAN_DIR}/s.b.R0.D0.json"), ok);
        let reading = read_folder(dir.path()).unwrap();
        assert!(reading.unreadable.is_empty(), "no plan is read as a report: {:?}", reading.unreadable);
        let mut names: Vec<String> = reading.entries.iter().map(|e| e.file.display().to_string()).collect();
        names.sort();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names[0].ends_with("n1/s.a.R0.D0.json") && names[1].ends_with("slurm/s.b.R0.D0.json"), "{names:?}");
    }

    #[test]
    fn a_folder_link_loop_and_a_fifo_neither_hang_nor_count_twice() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "s.a.R0.D0.json", r#"{"name": "a", "completed": true, "train_item": {"avg": 1.0}}"#);
        std::os::unix::fs::symlink(".", dir.path().join("loop")).unwrap();
        nix::unistd::mkfifo(&dir.path().join("s.fifo.json"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let path = dir.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(read_folder(&path).unwrap()).unwrap());
        let reading = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the read ends");
        assert_eq!(reading.entries.len(), 1, "the report counts once");
        let reasons: Vec<String> = reading.unreadable.iter().map(|u| u.reason.clone()).collect();
        assert!(reasons.iter().any(|r| r.starts_with("a link to a folder already read")), "{reasons:?}");
        assert!(reasons.iter().any(|r| r.starts_with("not a regular file")), "{reasons:?}");
    }

    #[test]
    fn a_report_file_past_the_limit_is_left_out_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("huge.json");
        std::fs::File::create(&path).unwrap().set_len(MAX_REPORT_BYTES as u64 + 1).unwrap();
        let bad = read_file(&path).unwrap_err();
        assert!(bad.reason.starts_with("larger than the limit of 268435456 bytes"), "{}", bad.reason);
    }

    #[test]
    fn without_links_a_link_below_the_folder_is_neither_followed_nor_read() {
        let (dir, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        write(dir.path(), "s.a.R0.D0.json", r#"{"name": "a", "completed": true, "train_item": {"avg": 1.0}}"#);
        write(outside.path(), "s.b.R0.D0.json", r#"{"name": "b", "completed": true, "train_item": {"avg": 1.0}}"#);
        std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("s.b.R0.D0.json"), dir.path().join("s.b.R0.D1.json")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("notes.txt")).unwrap();
        let mut files = Vec::new();
        let unreadable = walk_folder_no_links(dir.path(), str::len, |file| {
            files.push(file);
            ControlFlow::Continue(())
        })
        .unwrap();
        let names: Vec<&str> = files.iter().flat_map(|f| &f.entries).filter_map(|e| e.0.name.as_deref()).collect();
        assert_eq!(names, ["a"]);
        let mut left: Vec<(String, &str)> = unreadable
            .iter()
            .map(|u| (u.path.file_name().unwrap().to_string_lossy().into_owned(), u.reason.as_str()))
            .collect();
        left.sort();
        let link = "a symbolic link, not followed";
        assert_eq!(left, [("notes.txt".to_string(), link), ("s.b.R0.D1.json".into(), link), ("sub".into(), link)]);
        assert_eq!(read_folder(dir.path()).unwrap().entries.len(), 3, "read_folder follows them");
    }

    #[test]
    fn report_files_lists_what_read_folder_reads_and_opens_none() {
        use crate::contract::step_plan::{file_name, PLAN_DIR};
        let dir = tempfile::tempdir().unwrap();
        let ok = r#"{"name": "a", "completed": true, "train_item": {"avg": 1.0}}"#;
        let mut want = vec![
            write(dir.path(), "s.a.R0.D0.json", ok),
            write(dir.path(), "n1/s.a.R0.D1.json", ok),
            write(dir.path(), "n1/deeper/s.a.R0.D2.json", ok),
            // Listed, not read: neither its text nor its size is looked at.
            write(dir.path(), "n2/truncated.json", r#"{"name": "#),
        ];
        let huge = dir.path().join("huge.json");
        std::fs::File::create(&huge).unwrap().set_len(MAX_REPORT_BYTES as u64 + 1).unwrap();
        want.push(huge);
        write(dir.path(), ".hidden/s.a.R0.D3.json", ok);
        write(dir.path(), ".s.a.R0.D4.json", ok);
        write(dir.path(), &format!("n1/{}", crate::contract::BURN_FILE), "{}");
        write(dir.path(), &format!("{PLAN_DIR}/{}", file_name("s", "a", 0, 0)), r#"{"tasks": []}"#);
        write(dir.path(), "notes.txt", "not a report");
        let (mut files, unreadable) = report_files(dir.path()).unwrap();
        assert!(unreadable.is_empty(), "{unreadable:?}");
        files.sort();
        want.sort();
        assert_eq!(files, want);
        assert!(report_files(Path::new("/nonexistent/reports")).is_err());
    }

    #[test]
    fn missing_folder_is_an_error_naming_it() {
        let err = read_folder(Path::new("/nonexistent/reports")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/reports"), "{err}");
    }
}
