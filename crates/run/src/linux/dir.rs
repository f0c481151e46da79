//! Folders mlb reads from or writes into, held open: every name is looked
//! up inside a folder it holds (`openat`, `mkdirat`, `renameat`), never as a
//! path from `/` again, and no link is followed below the folder opened
//! first (the folder the user named, which may well be a link to another
//! disk).
//!
//! Below that, a link is never what mlb made: reading, it is refused ("a
//! symbolic link, not followed"), and so is anything that is not a regular
//! file (a FIFO would block the read, a device never ends). A path that a
//! file names (a report's `log`, a record's inputs) is read only through
//! [`Dir::read_bounded`]: inside the folder, no `..`, no root, no link, a
//! regular file, and at most a given number of bytes. Writing into a
//! partial folder, which is mlb's own (`mlb prepare`), a link or a file in
//! the place of a folder or a file is removed, and the folder or file is
//! made in its place.

use nix::errno::Errno;
use nix::fcntl::{openat, renameat, AtFlags, OFlag};
use nix::sys::stat::{fstatat, mkdirat, Mode, SFlag};
use nix::unistd::{unlinkat, UnlinkatFlags};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::FileTypeExt;
use std::path::{Component, Path, PathBuf};

/// An open folder and the path it was reached by (for messages).
#[derive(Debug)]
pub struct Dir {
    file: File,
    path: PathBuf,
}

/// What an entry of a folder is, as [`Dir::list`] lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A folder.
    Folder,
    /// A regular file.
    File,
    /// A symbolic link (to anything: it is not followed).
    Link,
    /// A FIFO, a socket or a device.
    Other,
}

/// Flags of every open below the first folder: no link followed, no
/// blocking on a FIFO, no terminal taken, closed on exec.
const NO_FOLLOW: OFlag = OFlag::O_NOFOLLOW.union(OFlag::O_NONBLOCK).union(OFlag::O_NOCTTY).union(OFlag::O_CLOEXEC);

impl Dir {
    /// The folder at `path`, made (with its parents) when missing; a link
    /// on the way is followed: it is the user's path.
    pub fn create_all(path: &Path) -> io::Result<Dir> {
        std::fs::create_dir_all(path)?;
        Dir::open(path)
    }

    /// The folder at `path` (a link on the way followed: the user's path).
    pub fn open(path: &Path) -> io::Result<Dir> {
        let file = File::open(path)?;
        if !file.metadata()?.is_dir() {
            return Err(io::Error::from(io::ErrorKind::NotADirectory));
        }
        Ok(Dir { file, path: path.to_path_buf() })
    }

    /// The path of `rel` in this folder, for messages.
    pub fn at(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.path.join(rel)
    }

    /// The path this folder was reached by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder `rel` (names, no `..`) below this one, following no link.
    pub fn open_sub(&self, rel: &Path) -> io::Result<Dir> {
        names(rel)?.try_fold(self.try_clone()?, |dir, name| dir.open_dir(name))
    }

    /// The regular file `rel` below this folder, to read, following no link.
    pub fn open_file(&self, rel: &Path) -> io::Result<File> {
        let (parent, name) = split(rel)?;
        let dir = self.open_sub(parent)?;
        let file = dir.open_at(name, OFlag::O_RDONLY)?;
        let kind = file.metadata()?.file_type();
        match kind.is_file() {
            true => Ok(file),
            false if kind.is_fifo() => Err(io::Error::other("a FIFO, not a regular file")),
            false => Err(io::Error::other("not a regular file")),
        }
    }

    /// The bytes of the regular file `rel` below this folder, following no
    /// link, refusing `..` and a root, and reading at most `limit` bytes:
    /// a larger file is an error (kind `InvalidData`) that says so.
    pub fn read_bounded(&self, rel: &Path, limit: u64) -> io::Result<Vec<u8>> {
        use std::io::Read;
        let file = self.open_file(rel)?;
        let size = file.metadata()?.len();
        let over = |size: u64| {
            io::Error::new(io::ErrorKind::InvalidData, format!("{size} bytes, over the limit of {limit} bytes"))
        };
        if size > limit {
            return Err(over(size));
        }
        let mut bytes = Vec::with_capacity(size as usize);
        file.take(limit + 1).read_to_end(&mut bytes)?;
        match bytes.len() as u64 > limit {
            true => Err(over(bytes.len() as u64)),
            false => Ok(bytes),
        }
    }

    /// The entries of this folder, in the order the file system lists
    /// them, each with its kind as listed (a link is a [`Entry::Link`],
    /// never followed); a folder of more than `limit` entries is an error
    /// (kind `InvalidData`) that says so, after `limit + 1` names read.
    pub fn list(&self, limit: usize) -> io::Result<Vec<(OsString, Entry)>> {
        // The folder held open, not its path looked up again.
        let listing = std::fs::read_dir(format!("/proc/self/fd/{}", self.file.as_raw_fd()))?;
        let mut out = Vec::new();
        for item in listing {
            if out.len() == limit {
                return Err(io::Error::new(io::ErrorKind::InvalidData, format!("more than {limit} entries")));
            }
            let item = item?;
            let kind = item.file_type()?;
            let entry = match () {
                _ if kind.is_symlink() => Entry::Link,
                _ if kind.is_dir() => Entry::Folder,
                _ if kind.is_file() => Entry::File,
                _ => Entry::Other,
            };
            out.push((item.file_name(), entry));
        }
        Ok(out)
    }

    /// The folder `rel` below this one, made when missing, as mlb's own: a
    /// link, a file or anything else in the place of a folder on the way
    /// is removed first.
    pub fn own(&self, rel: &Path) -> io::Result<Dir> {
        names(rel)?.try_fold(self.try_clone()?, |dir, name| dir.own_dir(name))
    }

    /// A new file `name` in this folder, to write: what was there (a link
    /// included, never what it points to) is removed first.
    pub fn create(&self, name: &OsStr) -> io::Result<File> {
        self.remove_entry(name)?;
        self.open_at(name, OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL)
    }

    /// Renames `from` to `to`, both in this folder (a link at `to` is
    /// replaced, not followed).
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        let fd = Some(self.file.as_raw_fd());
        Ok(renameat(fd, from, fd, to)?)
    }

    /// Removes `name` from this folder: a file or a link (never what it
    /// points to), or a folder with all it holds. Nothing there is no error.
    pub fn remove(&self, name: &OsStr) -> io::Result<()> {
        match unlinkat(Some(self.file.as_raw_fd()), name, UnlinkatFlags::NoRemoveDir) {
            Ok(()) | Err(Errno::ENOENT) => Ok(()),
            // `remove_dir_all` follows no link inside either.
            Err(Errno::EISDIR) => std::fs::remove_dir_all(self.at(name)),
            Err(e) => Err(e.into()),
        }
    }

    /// Flushes the folder's entries (names made, renamed, removed) to disk.
    pub fn sync(&self) -> io::Result<()> {
        self.file.sync_all()
    }

    /// Unlinks the file or link `name`; nothing there is no error.
    fn remove_entry(&self, name: &OsStr) -> io::Result<()> {
        match unlinkat(Some(self.file.as_raw_fd()), name, UnlinkatFlags::NoRemoveDir) {
            Ok(()) | Err(Errno::ENOENT) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Opens `name` in this folder with `flags`, following no link.
    fn open_at(&self, name: &OsStr, flags: OFlag) -> io::Result<File> {
        self.open_raw(name, flags).map_err(|e| match e {
            Errno::ELOOP => io::Error::other("a symbolic link, not followed"),
            e => e.into(),
        })
    }

    fn open_raw(&self, name: &OsStr, flags: OFlag) -> nix::Result<File> {
        let fd = openat(Some(self.file.as_raw_fd()), name, flags | NO_FOLLOW, Mode::from_bits_truncate(0o644))?;
        // SAFETY: `fd` was just opened here and is owned by nothing else.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// The folder `name` in this one, following no link.
    fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
        match self.open_raw(name, OFlag::O_RDONLY | OFlag::O_DIRECTORY) {
            Ok(file) => Ok(Dir { file, path: self.at(name) }),
            // With O_DIRECTORY a link says ENOTDIR (or ELOOP): which one it was.
            Err(Errno::ELOOP | Errno::ENOTDIR) if self.is_link(name) => {
                Err(io::Error::other("a symbolic link, not followed"))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Whether `name` in this folder is a link.
    fn is_link(&self, name: &OsStr) -> bool {
        fstatat(Some(self.file.as_raw_fd()), name, AtFlags::AT_SYMLINK_NOFOLLOW)
            .is_ok_and(|st| SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFLNK)
    }

    /// The folder `name` in this one, made when missing; a link or a file
    /// in its place (`ELOOP`, `ENOTDIR`) removed first.
    fn own_dir(&self, name: &OsStr) -> io::Result<Dir> {
        match self.open_raw(name, OFlag::O_RDONLY | OFlag::O_DIRECTORY) {
            Ok(file) => return Ok(Dir { file, path: self.at(name) }),
            Err(Errno::ENOENT) => {}
            Err(Errno::ELOOP | Errno::ENOTDIR) => self.remove_entry(name)?,
            Err(e) => return Err(e.into()),
        }
        match mkdirat(Some(self.file.as_raw_fd()), name, Mode::from_bits_truncate(0o755)) {
            Ok(()) | Err(Errno::EEXIST) => self.open_dir(name),
            Err(e) => Err(e.into()),
        }
    }

    fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir { file: self.file.try_clone()?, path: self.path.clone() })
    }
}

/// The names of the relative path `rel`, `.` left out; `None` when it has
/// a `..`, a root or a prefix: a path that could name something outside
/// the folder it is taken in.
pub fn inside(rel: &Path) -> Option<Vec<&OsStr>> {
    rel.components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect()
}

/// The names of the relative path `rel` ([`inside`]), as an I/O error when it is refused.
fn names(rel: &Path) -> io::Result<impl Iterator<Item = &OsStr>> {
    let names =
        inside(rel).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a path inside the folder"))?;
    Ok(names.into_iter())
}

/// The folder and the name of the file `rel`.
fn split(rel: &Path) -> io::Result<(&Path, &OsStr)> {
    match (rel.parent(), rel.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(io::Error::new(io::ErrorKind::InvalidInput, "not a file inside the folder")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_below_the_folder_are_not_followed_reading_and_are_replaced_writing() {
        let (root, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::write(outside.path().join("f"), "outside").unwrap();
        symlink(outside.path(), root.path().join("sub")).unwrap();
        symlink(outside.path().join("f"), root.path().join("f")).unwrap();
        let dir = Dir::open(root.path()).unwrap();
        for rel in ["f", "sub/f"] {
            let e = dir.open_file(Path::new(rel)).unwrap_err();
            assert_eq!(e.to_string(), "a symbolic link, not followed", "{rel}");
        }
        let mut file = dir.create(OsStr::new("f")).unwrap();
        file.write_all(b"mine").unwrap();
        let sub = dir.own(Path::new("sub/deeper")).unwrap();
        sub.create(OsStr::new("g")).unwrap();
        assert_eq!(std::fs::read_to_string(outside.path().join("f")).unwrap(), "outside");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1, "nothing written outside");
        assert!(root.path().join("sub/deeper/g").is_file() && !root.path().join("sub").is_symlink());
        assert!(dir.open_file(Path::new("../f")).is_err(), "no way out by `..`");
    }

    #[test]
    fn bounded_reads_stay_inside_and_under_the_limit() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("d")).unwrap();
        std::fs::write(root.path().join("d/log"), "0123456789").unwrap();
        let dir = Dir::open(root.path()).unwrap();
        assert_eq!(dir.read_bounded(Path::new("d/log"), 10).unwrap(), b"0123456789");
        let e = dir.read_bounded(Path::new("d/log"), 9).unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string()),
            (io::ErrorKind::InvalidData, "10 bytes, over the limit of 9 bytes".into())
        );
        for hostile in ["/etc/passwd", "../etc/passwd", "d/../../etc/passwd", ""] {
            assert!(dir.read_bounded(Path::new(hostile), 100).is_err(), "{hostile}");
        }
        symlink("/dev/zero", root.path().join("zero")).unwrap();
        assert_eq!(dir.read_bounded(Path::new("zero"), 100).unwrap_err().to_string(), "a symbolic link, not followed");
    }

    #[test]
    fn a_listing_names_links_and_special_files_as_such_and_is_bounded() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("d")).unwrap();
        std::fs::write(root.path().join("f"), "").unwrap();
        symlink("/", root.path().join("l")).unwrap();
        nix::unistd::mkfifo(&root.path().join("p"), Mode::from_bits_truncate(0o644)).unwrap();
        let dir = Dir::open(root.path()).unwrap();
        let mut listed = dir.list(4).unwrap();
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        let expected = [("d", Entry::Folder), ("f", Entry::File), ("l", Entry::Link), ("p", Entry::Other)];
        assert_eq!(listed, expected.map(|(n, e)| (OsString::from(n), e)));
        let e = dir.list(3).unwrap_err();
        assert_eq!((e.kind(), e.to_string()), (io::ErrorKind::InvalidData, "more than 3 entries".into()));
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let root = tempfile::tempdir().unwrap();
        nix::unistd::mkfifo(&root.path().join("p"), Mode::from_bits_truncate(0o644)).unwrap();
        let e = Dir::open(root.path()).unwrap().open_file(Path::new("p")).unwrap_err();
        assert_eq!(e.to_string(), "a FIFO, not a regular file");
    }
}
