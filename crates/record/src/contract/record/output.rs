//! A file the user names for mlb to write (`report --html`, `--write-rcp`,
//! `accept --out` and `--record`, `targets derive --out`, `db history
//! --svg`), looked at before anything is written: nothing there or a
//! regular file is replaced whole (a temporary file beside it, renamed over
//! it); a character device or a FIFO (`/dev/null`, a pipe a reader waits
//! on) is written into, never replaced; anything else is refused. Renaming
//! over `/dev/null` as root once replaced the host's null device with the
//! page, and a link into `/proc` was followed.

use super::Staged;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why mlb does not write at a path.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A symbolic link: replaced, its target would be lost; followed, it
    /// could point anywhere (`/proc`, a device).
    #[error("a symbolic link: mlb does not replace or follow it; name the file itself")]
    Link,
    /// A folder, a socket or a block device.
    #[error("{0}: mlb writes only a regular file (or into a character device or a FIFO); name a file")]
    Kind(&'static str),
    /// A FIFO that no process has open to read: writing would wait forever.
    #[error("a FIFO that no process reads: start its reader first, or name a regular file")]
    NoReader,
}

/// Where an output goes, decided before anything is written.
#[derive(Debug)]
pub struct Output {
    path: PathBuf,
    into: Option<File>,
}

/// An output written: staged beside its regular file until [`Written::finish`],
/// or already written into its device or FIFO.
pub struct Written {
    staged: Option<(Staged, PathBuf)>,
}

impl Output {
    /// Looks at what is at `path`, following no link. Errs with an
    /// [`OutputError`] inside an I/O error (kind `InvalidInput`) for a link,
    /// a folder, a socket, a block device or a FIFO without a reader.
    pub fn at(path: &Path) -> io::Result<Output> {
        let refuse = |why: OutputError| io::Error::new(io::ErrorKind::InvalidInput, why);
        let kind = match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Output { path: path.into(), into: None }),
            Err(e) => return Err(e),
            Ok(meta) => meta.file_type(),
        };
        if kind.is_file() {
            return Ok(Output { path: path.into(), into: None });
        }
        if kind.is_symlink() {
            return Err(refuse(OutputError::Link));
        }
        if !(kind.is_char_device() || kind.is_fifo()) {
            let what = if kind.is_dir() {
                "a folder"
            } else if kind.is_socket() {
                "a socket"
            } else {
                "a block device"
            };
            return Err(refuse(OutputError::Kind(what)));
        }
        // Not created, not truncated, no link followed; a FIFO without a
        // reader fails at once (ENXIO) instead of waiting.
        let flags = nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY | nix::libc::O_CLOEXEC;
        let file = match std::fs::OpenOptions::new().write(true).custom_flags(flags).open(path) {
            Err(e) if e.raw_os_error() == Some(nix::libc::ENXIO) && kind.is_fifo() => {
                return Err(refuse(OutputError::NoReader))
            }
            Err(e) if e.raw_os_error() == Some(nix::libc::ELOOP) => return Err(refuse(OutputError::Link)),
            other => other?,
        };
        let opened = file.metadata()?.file_type();
        if !(opened.is_char_device() || opened.is_fifo()) {
            return Err(refuse(OutputError::Kind("no longer a device or a FIFO")));
        }
        let blocking = OFlag::from_bits_truncate(fcntl(file.as_raw_fd(), FcntlArg::F_GETFL)?) - OFlag::O_NONBLOCK;
        fcntl(file.as_raw_fd(), FcntlArg::F_SETFL(blocking))?;
        Ok(Output { path: path.into(), into: Some(file) })
    }

    /// The path the user named.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes`: into the device or FIFO, or to a temporary file
    /// beside the regular file, which [`Written::finish`] puts in its place.
    pub fn write(self, bytes: &[u8]) -> io::Result<Written> {
        match self.into {
            Some(mut file) => {
                file.write_all(bytes)?;
                Ok(Written { staged: None })
            }
            None => {
                let folder = self.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                Ok(Written { staged: Some((Staged::write(folder, bytes)?, self.path)) })
            }
        }
    }

    /// [`Output::write`] and [`Written::finish`] in one.
    pub fn put(self, bytes: &[u8]) -> io::Result<()> {
        self.write(bytes)?.finish()
    }
}

impl Written {
    /// Renames a staged file over its target (a reader sees the old file or
    /// the new one, whole); nothing for a device or FIFO, written already.
    /// Dropped instead, a staged file is removed and the target left as it was.
    pub fn finish(self) -> io::Result<()> {
        match self.staged {
            Some((staged, path)) => staged.replace(&path),
            None => Ok(()),
        }
    }
}

/// Whether `e` is mlb refusing what is at an output path (an
/// [`OutputError`]): the user's path to change, not a write that failed.
pub fn refused(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<OutputError>())
}

/// `path` written whole with `bytes` as [`Output`] decides.
pub fn write_output(path: &Path, bytes: &[u8]) -> io::Result<()> {
    Output::at(path)?.put(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn absent_or_regular_replaced_links_and_folders_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("page.html");
        write_output(&file, b"one").unwrap();
        write_output(&file, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "two");
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("kept");
        std::fs::write(&target, "kept").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = write_output(&link, b"x").unwrap_err();
        assert_eq!(err.to_string(), "a symbolic link: mlb does not replace or follow it; name the file itself");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        let err = write_output(outside.path(), b"x").unwrap_err();
        assert!(err.to_string().starts_with("a folder: ") && refused(&err), "{err}");
        assert!(!refused(&io::Error::from(io::ErrorKind::PermissionDenied)));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary file left");
    }

    #[test]
    fn a_fifo_is_written_into_and_one_without_a_reader_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let err = write_output(&fifo, b"x").unwrap_err();
        assert!(matches!(err.get_ref().and_then(|e| e.downcast_ref()), Some(OutputError::NoReader)), "{err}");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        let output = loop {
            match Output::at(&fifo) {
                Ok(output) => break output,
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(5)),
            }
        };
        output.put(b"through").unwrap();
        assert_eq!(reader.join().unwrap(), "through");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing staged beside it");
    }
}
