//! Reading a plugin's manifest from its file, without loading the library.
//!
//! The manifest (format: `mlb_plugin::manifest`, docs/plugins.md) is the
//! metadata of every workload of a library, written at compile time by
//! `export_workload!` into the section `.mlb_manifest` (Mach-O:
//! `__DATA,__mlb_manifest`). Only what locating that section needs is read:
//! in an ELF file, the file header, the section headers and their names, and
//! the section itself (a few blocks of the file, never its symbol tables:
//! [`Blocks`]).

use super::blocks::Blocks;
use mlb_plugin::manifest::{self as format, ManifestError, PluginMeta};
use mlb_record::fix::Fix;
use object::read::elf::{FileHeader, SectionHeader};
use object::{elf, Endianness, FileKind, Object, ObjectSection, ReadRef};
use std::path::{Path, PathBuf};

/// A manifest section that is present but cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ManifestReadError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The section is there but damaged or inconsistent.
    #[error("{path} has a corrupt plugin manifest (section {section}): {source}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The section's name.
        section: &'static str,
        /// What is wrong.
        source: ManifestError,
    },
}

/// The workloads a library's manifest lists, in its order.
///
/// `Ok(None)` when the file has no manifest to go by: not an ELF or Mach-O
/// file (or one whose headers cannot be parsed), no manifest section (an
/// older build, a plugin written in C), or a manifest format this mlb does not
/// know. The caller then asks the library itself (the probe). Trust is the
/// caller's business: check it first.
pub fn read(path: &Path) -> Result<Option<Vec<PluginMeta>>, ManifestReadError> {
    let io = |source: std::io::Error| ManifestReadError::Io { path: path.to_path_buf(), source };
    let cache = object::ReadCache::new(Blocks::open(path).map_err(io)?);
    let corrupt = |section: &'static str, source: ManifestError| ManifestReadError::Corrupt {
        path: path.to_path_buf(),
        section,
        source,
    };
    let found = match FileKind::parse(&cache) {
        Ok(FileKind::Elf64) => elf_section::<elf::FileHeader64<Endianness>>(&cache),
        Ok(FileKind::Elf32) => elf_section::<elf::FileHeader32<Endianness>>(&cache),
        Ok(FileKind::MachO64 | FileKind::MachO32) => macho_section(&cache),
        _ => Found::NoSection,
    };
    let (section, bytes) = match found {
        Found::NoSection => return Ok(None),
        Found::Unreadable(section, e) => {
            return Err(corrupt(section, ManifestError::Invalid(format!("section not readable: {e}"))))
        }
        Found::Section(section, bytes) => (section, bytes),
    };
    match format::decode(bytes) {
        Ok(workloads) => Ok(Some(workloads)),
        Err(ManifestError::UnknownFormat { .. }) => Ok(None),
        Err(e) => Err(corrupt(section, e)),
    }
}

/// What looking for the manifest section found.
enum Found<'d> {
    /// No section of that name (or headers that cannot be parsed).
    NoSection,
    /// The section, named, with its bytes.
    Section(&'static str, &'d [u8]),
    /// The section header is there but its bytes are not in the file.
    Unreadable(&'static str, object::Error),
}

/// The manifest section of an ELF file, through its section headers only.
fn elf_section<'d, H: FileHeader<Endian = Endianness>>(data: impl ReadRef<'d>) -> Found<'d> {
    let Ok(header) = H::parse(data) else { return Found::NoSection };
    let Ok(endian) = header.endian() else { return Found::NoSection };
    let Ok(sections) = header.sections(endian, data) else { return Found::NoSection };
    match sections.section_by_name(endian, format::SECTION.as_bytes()) {
        None => Found::NoSection,
        Some((_, section)) => match section.data(endian, data) {
            Ok(bytes) => Found::Section(format::SECTION, bytes),
            Err(e) => Found::Unreadable(format::SECTION, e),
        },
    }
}

/// The manifest section of a Mach-O file.
fn macho_section<'d>(data: impl ReadRef<'d>) -> Found<'d> {
    let Ok(file) = object::File::parse(data) else { return Found::NoSection };
    match file.section_by_name(format::MACHO_SECTION) {
        None => Found::NoSection,
        Some(section) => match section.data() {
            Ok(bytes) => Found::Section(format::MACHO_SECTION, bytes),
            Err(e) => Found::Unreadable(format::MACHO_SECTION, e),
        },
    }
}

impl Fix for ManifestReadError {
    fn fix(&self) -> Option<String> {
        match self {
            ManifestReadError::Corrupt { .. } => Some(
                "rebuild the plugin with mlb-plugin's `export_workload!` and reinstall it \
                 (`mlb plugins list --verify` shows what the library itself says)"
                    .into(),
            ),
            ManifestReadError::Io { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_an_object_has_no_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("libtext.so");
        std::fs::write(&path, "not a library").unwrap();
        assert!(read(&path).unwrap().is_none());
        let elf_header_only = dir.path().join("libshort.so");
        std::fs::write(&elf_header_only, b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0").unwrap();
        assert!(read(&elf_header_only).unwrap().is_none());
        assert!(matches!(read(&dir.path().join("missing.so")), Err(ManifestReadError::Io { .. })));
    }
}
