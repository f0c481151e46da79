//! A run folder on the wire: a gzipped tar of its regular files, named
//! relative to the folder.
//!
//! [`pack`] writes one (`mlb db push`, and the server's `/api/runs/ID/archive`
//! for `mlb db pull`); [`unpack`] reads one sent by another host, hostile:
//! it writes only regular files and folders, only below the folder it was
//! given (no absolute name, no `..`, no link, device or FIFO, no name
//! twice, no control character), each new (`O_EXCL`, no link followed),
//! and stops as soon as the stream passes a bound of [`Limits`], counted on
//! the inflated stream (a decompression bomb stops at the bound, not at its
//! end). Any of these refuses the whole archive: the caller then removes
//! what was written.

use super::limits::Limits;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

/// Why an archive was refused.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The stream is not a gzipped tar, or ended early.
    #[error("the push is not a gzipped tar of a run folder: {0}")]
    Unreadable(#[source] std::io::Error),
    /// A name that would land outside the folder.
    #[error("the archive names `{name}`, which is not a path inside the run folder (absolute, or with `..`)")]
    Escapes {
        /// The name, control characters escaped.
        name: String,
    },
    /// A name with a control character or not UTF-8.
    #[error("the archive names `{name}`, which holds a control character or is not UTF-8")]
    BadName {
        /// The name, escaped.
        name: String,
    },
    /// A link, a device, a FIFO.
    #[error("the archive holds `{name}`, a {kind}: only regular files and folders are taken")]
    NotAFile {
        /// The name.
        name: String,
        /// What it is.
        kind: String,
    },
    /// The same name twice (or a file where a folder is).
    #[error("the archive holds `{name}` twice, or a file and a folder of that name")]
    Twice {
        /// The name.
        name: String,
    },
    /// Too many files.
    #[error("the archive holds more than {limit} files")]
    TooManyFiles {
        /// The bound.
        limit: u64,
    },
    /// One file too large.
    #[error("`{name}` in the archive is larger than {limit} bytes")]
    FileTooLarge {
        /// The name.
        name: String,
        /// The bound.
        limit: u64,
    },
    /// The whole too large once inflated.
    #[error("the archive inflates to more than {limit} bytes")]
    TooLarge {
        /// The bound.
        limit: u64,
    },
    /// A file could not be written here.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl ArchiveError {
    /// Whether a bound refused it (HTTP 413) rather than its content (400).
    pub fn is_too_large(&self) -> bool {
        matches!(
            self,
            ArchiveError::TooManyFiles { .. } | ArchiveError::FileTooLarge { .. } | ArchiveError::TooLarge { .. }
        )
    }
}

/// What an archive unpacked to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unpacked {
    /// Files and folders written.
    pub files: u64,
    /// Bytes of the files.
    pub bytes: u64,
}

/// Unpacks the gzipped tar `stream` into `into` (an empty folder this
/// process made), within `limits`.
pub fn unpack(stream: impl Read, into: &Path, limits: &Limits) -> Result<Unpacked, ArchiveError> {
    // The inflated stream, headers and padding with the files, bounded:
    // a tar adds a 512-byte header a file, and a folder's entry is one.
    let bound = limits.unpacked_bytes.saturating_add(limits.files.saturating_add(2).saturating_mul(2048));
    let inflated = Bounded { inner: GzDecoder::new(stream), left: bound };
    let mut archive = tar::Archive::new(inflated);
    let mut done = Unpacked::default();
    let entries = archive.entries().map_err(|e| read_error(e, limits))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| read_error(e, limits))?;
        let raw = entry.path_bytes().into_owned();
        let name = std::str::from_utf8(&raw)
            .map_err(|_| ArchiveError::BadName {
                name: mlb_record::untrusted::visible(&String::from_utf8_lossy(&raw)).into_owned(),
            })?
            .to_string();
        let kind = entry.header().entry_type();
        let relative = confined(&name)?;
        if relative.as_os_str().is_empty() && kind.is_dir() {
            // `./`, the folder itself (GNU tar's `tar -C DIR .`).
            continue;
        }
        if relative.as_os_str().is_empty() {
            return Err(ArchiveError::Escapes { name });
        }
        done.files += 1;
        if done.files > limits.files {
            return Err(ArchiveError::TooManyFiles { limit: limits.files });
        }
        let path = into.join(&relative);
        if kind.is_dir() {
            match std::fs::create_dir(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && path.is_dir() => {}
                Err(_) => return Err(ArchiveError::Twice { name }),
            }
            continue;
        }
        if !(kind.is_file() || kind == tar::EntryType::Continuous) {
            return Err(ArchiveError::NotAFile { name, kind: kind_name(kind).into() });
        }
        let size = entry.header().size().map_err(|e| read_error(e, limits))?;
        if size > limits.file_bytes {
            return Err(ArchiveError::FileTooLarge { name, limit: limits.file_bytes });
        }
        done.bytes += size;
        if done.bytes > limits.unpacked_bytes {
            return Err(ArchiveError::TooLarge { limit: limits.unpacked_bytes });
        }
        if let Some(parent) = path.parent() {
            // Folders below `into` only: no link is ever written, so none is followed.
            std::fs::create_dir_all(parent).map_err(|_| ArchiveError::Twice { name: name.clone() })?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => ArchiveError::Twice { name: name.clone() },
                _ => ArchiveError::Write { path: path.clone(), source: e },
            })?;
        let copied =
            std::io::copy(&mut (&mut entry).take(limits.file_bytes), &mut file).map_err(|e| read_error(e, limits))?;
        if copied != size {
            return Err(ArchiveError::Unreadable(std::io::ErrorKind::UnexpectedEof.into()));
        }
    }
    Ok(done)
}

/// `name` as a path below the folder (empty: the folder itself), or why it
/// is not one.
fn confined(name: &str) -> Result<PathBuf, ArchiveError> {
    if name.chars().any(char::is_control) {
        return Err(ArchiveError::BadName { name: mlb_record::untrusted::visible(name).into_owned() });
    }
    let mut path = PathBuf::new();
    for part in Path::new(name).components() {
        match part {
            Component::Normal(part) => path.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(ArchiveError::Escapes { name: name.to_string() })
            }
        }
    }
    Ok(path)
}

/// What a tar entry of `kind` is, for a person.
fn kind_name(kind: tar::EntryType) -> &'static str {
    match kind {
        tar::EntryType::Symlink => "symbolic link",
        tar::EntryType::Link => "hard link",
        tar::EntryType::Char => "character device",
        tar::EntryType::Block => "block device",
        tar::EntryType::Fifo => "FIFO",
        _ => "entry of another kind",
    }
}

/// A read error, or the bound on the inflated stream met.
fn read_error(error: std::io::Error, limits: &Limits) -> ArchiveError {
    match error.get_ref().is_some_and(|e| e.is::<PastBound>()) {
        true => ArchiveError::TooLarge { limit: limits.unpacked_bytes },
        false => ArchiveError::Unreadable(error),
    }
}

/// The inflated stream's bound was met.
#[derive(Debug, thiserror::Error)]
#[error("the archive inflates past its bound")]
struct PastBound;

/// A reader that fails once it has given `left` bytes.
struct Bounded<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Err(std::io::Error::other(PastBound));
        }
        let most = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..most])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// What [`pack`] left out of a folder, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// The path, relative to the folder.
    pub path: PathBuf,
    /// Why.
    pub why: &'static str,
}

/// Writes the regular files under `dir` into `out` as a gzipped tar, named
/// relative to `dir`; links are not followed (nor sent), nor are hidden
/// entries (`.checkpoints/`: a run's restart state, not its results).
/// Returns what was left out.
pub fn pack(dir: &Path, out: impl Write) -> std::io::Result<Vec<LeftOut>> {
    let mut builder = tar::Builder::new(GzEncoder::new(out, Compression::fast()));
    builder.mode(tar::HeaderMode::Deterministic);
    builder.follow_symlinks(false);
    let mut left_out = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(relative) = folders.pop() {
        let mut names: Vec<_> = std::fs::read_dir(dir.join(&relative))?.collect::<Result<_, _>>()?;
        names.sort_by_key(|e| e.file_name());
        for entry in names {
            let path = relative.join(entry.file_name());
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let kind = entry.file_type()?;
            if kind.is_dir() {
                folders.push(path);
            } else if kind.is_file() {
                let mut file = std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
                    .open(dir.join(&path))?;
                builder.append_file(&path, &mut file)?;
            } else {
                left_out.push(LeftOut { path, why: "not a regular file (a link, a device or a FIFO)" });
            }
        }
    }
    builder.into_inner()?.finish()?;
    Ok(left_out)
}

/// Writes `files` (a name relative to a run folder, and its bytes) into
/// `out` as the gzipped tar [`unpack`] reads.
pub fn pack_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>, out: impl Write) -> std::io::Result<()> {
    let mut builder = tar::Builder::new(GzEncoder::new(out, Compression::fast()));
    for (name, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        builder.append_data(&mut header, name, bytes)?;
    }
    builder.into_inner()?.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits { body_bytes: 1 << 20, files: 10, unpacked_bytes: 1 << 16, file_bytes: 1 << 15 }
    }

    #[test]
    fn a_folder_packs_and_unpacks_to_its_regular_files_without_links_or_hidden_entries() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir_all(run.join("logs")).unwrap();
        std::fs::create_dir_all(run.join(".checkpoints/x")).unwrap();
        std::fs::write(run.join("a.json"), b"{}").unwrap();
        std::fs::write(run.join("logs/a.log"), b"log").unwrap();
        std::fs::write(run.join(".checkpoints/x/state"), b"big").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", run.join("passwd")).unwrap();
        let mut packed = Vec::new();
        let left_out = pack(&run, &mut packed).unwrap();
        assert_eq!(left_out.len(), 1);
        assert_eq!(left_out[0].path, Path::new("passwd"));
        let into = dir.path().join("into");
        std::fs::create_dir(&into).unwrap();
        let done = unpack(packed.as_slice(), &into, &limits()).unwrap();
        assert_eq!(done.bytes, 5);
        assert_eq!(std::fs::read(into.join("a.json")).unwrap(), b"{}");
        assert_eq!(std::fs::read(into.join("logs/a.log")).unwrap(), b"log");
        assert!(!into.join(".checkpoints").exists() && !into.join("passwd").exists());
    }

    #[test]
    fn an_archive_of_the_folder_itself_as_gnu_tar_writes_it_unpacks() {
        // `tar czf - -C RUN .`: the folder as `./`, its files as `./NAME`.
        let mut builder = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
        let mut folder = tar::Header::new_gnu();
        folder.set_entry_type(tar::EntryType::Directory);
        folder.set_size(0);
        folder.set_mode(0o755);
        builder.append_data(&mut folder, "./", &[][..]).unwrap();
        let mut file = tar::Header::new_gnu();
        file.set_size(2);
        file.set_mode(0o644);
        builder.append_data(&mut file, "./a.json", &b"{}"[..]).unwrap();
        let packed = builder.into_inner().unwrap().finish().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let done = unpack(packed.as_slice(), dir.path(), &limits()).unwrap();
        assert_eq!((done.files, done.bytes), (1, 2));
        assert_eq!(std::fs::read(dir.path().join("a.json")).unwrap(), b"{}");
    }

    #[test]
    fn each_bound_refuses_the_archive() {
        let dir = tempfile::tempdir().unwrap();
        let packed = |files: &[(&str, Vec<u8>)]| {
            let mut out = Vec::new();
            pack_files(files.iter().map(|(n, b)| (*n, b.as_slice())), &mut out).unwrap();
            out
        };
        let into = |name: &str| {
            let path = dir.path().join(name);
            std::fs::create_dir(&path).unwrap();
            path
        };
        let big = packed(&[("big", vec![0; (1 << 15) + 1])]);
        assert!(matches!(unpack(big.as_slice(), &into("a"), &limits()), Err(ArchiveError::FileTooLarge { .. })));
        let names: Vec<String> = (0..11).map(|i| format!("f{i}")).collect();
        let many = packed(&names.iter().map(|n| (n.as_str(), vec![1])).collect::<Vec<_>>());
        assert!(matches!(
            unpack(many.as_slice(), &into("b"), &limits()),
            Err(ArchiveError::TooManyFiles { limit: 10 })
        ));
        let files: Vec<(&str, Vec<u8>)> = ["p", "q", "r"].iter().map(|n| (*n, vec![0; 30_000])).collect();
        let total = packed(&files);
        assert!(matches!(unpack(total.as_slice(), &into("c"), &limits()), Err(ArchiveError::TooLarge { .. })));
        let error = unpack(&b"not an archive"[..], &into("d"), &limits()).unwrap_err();
        assert!(matches!(error, ArchiveError::Unreadable(_)), "{error}");
    }
}
