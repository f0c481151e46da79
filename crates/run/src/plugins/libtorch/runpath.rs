//! The folders a library's dynamic section tells the loader to search for
//! its dependencies: `DT_RUNPATH`, or the older `DT_RPATH`, read from its ELF
//! headers without loading it (the section headers, `.dynamic` and the
//! strings it names, through [`Blocks`]).

use crate::plugins::blocks::Blocks;
use object::read::elf::FileHeader;
use object::{elf, Endianness, FileKind, ReadRef};
use std::path::{Path, PathBuf};

/// A library's own search folders, `$ORIGIN` replaced by its folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnPath {
    /// `DT_RPATH`: searched before `LD_LIBRARY_PATH`, and only when the
    /// library has no `DT_RUNPATH`.
    pub rpath: Vec<PathBuf>,
    /// `DT_RUNPATH`: searched after `LD_LIBRARY_PATH` (what `-Wl,-rpath`
    /// writes with today's linkers, mlb-torch-build's included).
    pub runpath: Vec<PathBuf>,
}

/// The search folders of the library at `path` (its real path); none when
/// it is not an ELF file, has no dynamic section or cannot be read.
pub fn read(path: &Path) -> OwnPath {
    let Ok(blocks) = Blocks::open(path) else { return OwnPath::default() };
    let cache = object::ReadCache::new(blocks);
    let found = match FileKind::parse(&cache) {
        Ok(FileKind::Elf64) => entries::<elf::FileHeader64<Endianness>>(&cache),
        Ok(FileKind::Elf32) => entries::<elf::FileHeader32<Endianness>>(&cache),
        _ => None,
    };
    let origin = path.parent().unwrap_or(Path::new("/"));
    let dirs = |value: &Option<String>| value.as_deref().map(|v| folders(v, origin)).unwrap_or_default();
    let (rpath, runpath) = found.unwrap_or_default();
    OwnPath { rpath: dirs(&rpath), runpath: dirs(&runpath) }
}

/// The values of `DT_RPATH` and `DT_RUNPATH` in an ELF file's dynamic section.
fn entries<'d, H: FileHeader<Endian = Endianness>>(data: impl ReadRef<'d>) -> Option<(Option<String>, Option<String>)> {
    let header = H::parse(data).ok()?;
    let endian = header.endian().ok()?;
    let sections = header.sections(endian, data).ok()?;
    let table = sections.dynamic_table(endian, data).ok()?;
    let value = |tag| {
        let entry = table.iter().find(|d| d.tag == tag)?;
        table.string(entry).ok().map(|bytes| String::from_utf8_lossy(bytes).into_owned())
    };
    Some((value(elf::DT_RPATH), value(elf::DT_RUNPATH)))
}

/// The folders of a colon-separated search path as the loader reads it:
/// empty entries dropped, `$ORIGIN` (`${ORIGIN}`) replaced by `origin`.
fn folders(value: &str, origin: &Path) -> Vec<PathBuf> {
    let origin = origin.to_string_lossy();
    value
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| PathBuf::from(d.replace("${ORIGIN}", &origin).replace("$ORIGIN", &origin)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_is_the_library_s_folder_and_empty_entries_are_dropped() {
        let dirs = folders("$ORIGIN/../torch/lib::/opt/t/lib:${ORIGIN}", Path::new("/srv/mlb/plugins"));
        let dirs: Vec<&str> = dirs.iter().map(|d| d.to_str().unwrap()).collect();
        assert_eq!(dirs, ["/srv/mlb/plugins/../torch/lib", "/opt/t/lib", "/srv/mlb/plugins"]);
    }

    /// An empty C library `dir/name`, linked with `flags`.
    fn library(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
        let source = dir.join("empty.c");
        std::fs::write(&source, "int mlb_empty(void) { return 0; }\n").unwrap();
        let path = dir.join(name);
        let status = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(&path)
            .arg(&source)
            .args(flags)
            .status()
            .expect("cc runs");
        assert!(status.success(), "cc {flags:?}");
        path
    }

    #[test]
    fn runpath_and_rpath_are_read_from_the_dynamic_section() {
        let dir = tempfile::tempdir().unwrap();
        let (origin, d) = (dir.path(), dir.path().display());
        let runpath = library(origin, "librun.so", &["-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN/lib:/opt/t/lib"]);
        let own = read(&runpath);
        assert_eq!(own.runpath, [PathBuf::from(format!("{d}/lib")), PathBuf::from("/opt/t/lib")]);
        assert!(own.rpath.is_empty(), "{own:?}");
        let rpath = library(origin, "librpath.so", &["-Wl,--disable-new-dtags", "-Wl,-rpath,/opt/old/lib"]);
        assert_eq!(read(&rpath), OwnPath { rpath: vec!["/opt/old/lib".into()], runpath: vec![] });
        assert_eq!(read(&library(origin, "libnone.so", &[])), OwnPath::default());
    }

    #[test]
    fn a_file_that_is_not_a_library_has_no_search_folders() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("libtext.so");
        std::fs::write(&text, "not a library").unwrap();
        assert_eq!(read(&text), OwnPath::default());
        assert_eq!(read(&dir.path().join("missing.so")), OwnPath::default());
    }
}
