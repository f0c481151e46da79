//! Reading an input file a user names (a jobs file, a target table, an
//! image map) with a bound: only a regular file, of at most [`INPUT_LIMIT`]
//! bytes. `/dev/zero`, a FIFO or a 50 GB file was once read until memory ran
//! out (a FIFO without a writer waited forever); each is now refused at
//! once, with the reason and the limit.

use std::io::Read;
use std::path::Path;

/// The largest input file mlb reads: 16 MiB, far above any jobs file or
/// target table (a jobs file of the default config limit is under 1 MiB).
pub const INPUT_LIMIT: u64 = 16 << 20;

/// Why an input file was refused.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A FIFO, a device, a socket or a folder.
    #[error("not a regular file (a FIFO, a device or a folder): mlb reads this input only from a regular file; write it to one first")]
    NotRegular,
    /// Larger than the limit of the read ([`INPUT_LIMIT`] for [`read_input`]).
    #[error("{size} bytes, over the limit of {} MiB ({limit} bytes) for an input file", limit >> 20)]
    TooLarge {
        /// Its size, or the bytes read when it grew while read.
        size: u64,
        /// The limit it is over.
        limit: u64,
    },
    /// Not UTF-8 text.
    #[error("not UTF-8 text")]
    NotText,
}

/// The text of the input file at `path`. Errs (an [`InputError`] inside the
/// I/O error, kind `InvalidInput`) when it is not a regular file, is larger
/// than [`INPUT_LIMIT`] or is not UTF-8; other errors are the file's own.
pub fn read_input(path: &Path) -> std::io::Result<String> {
    read_limited(path, INPUT_LIMIT)
}

/// [`read_input`] with another limit than [`INPUT_LIMIT`] (a report file,
/// which may hold long telemetry timelines).
pub fn read_limited(path: &Path, limit: u64) -> std::io::Result<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let refuse = |why: InputError| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
    // Non-blocking: opening a FIFO without a writer returns at once.
    let file = std::fs::OpenOptions::new().read(true).custom_flags(nix::libc::O_NONBLOCK).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refuse(InputError::NotRegular));
    }
    if meta.len() > limit {
        return Err(refuse(InputError::TooLarge { size: meta.len(), limit }));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(refuse(InputError::TooLarge { size: bytes.len() as u64, limit }));
    }
    String::from_utf8(bytes).map_err(|_| refuse(InputError::NotText))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_within_the_limit_only() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("jobs.json");
        std::fs::write(&ok, "[]").unwrap();
        assert_eq!(read_input(&ok).unwrap(), "[]");
        let at_limit = dir.path().join("at.json");
        std::fs::write(&at_limit, vec![b' '; INPUT_LIMIT as usize]).unwrap();
        assert_eq!(read_input(&at_limit).unwrap().len() as u64, INPUT_LIMIT);
        let over = dir.path().join("over.json");
        std::fs::File::create(&over).unwrap().set_len(INPUT_LIMIT + 1).unwrap();
        let err = read_input(&over).unwrap_err().to_string();
        assert!(err.contains("16777217 bytes, over the limit of 16 MiB"), "{err}");
        for odd in [Path::new("/dev/zero"), dir.path()] {
            assert!(read_input(odd).unwrap_err().to_string().starts_with("not a regular file"), "{odd:?}");
        }
        let binary = dir.path().join("bin.json");
        std::fs::write(&binary, [0xff, 0xfe]).unwrap();
        assert_eq!(read_input(&binary).unwrap_err().to_string(), "not UTF-8 text");
        assert_eq!(read_input(&dir.path().join("missing")).unwrap_err().kind(), std::io::ErrorKind::NotFound);
    }
}
