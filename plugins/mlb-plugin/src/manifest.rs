//! The plugin manifest: a plugin's metadata in a section of the library file,
//! readable without loading (`dlopen`-ing) the library.
//!
//! [`export_workload!`](crate::export_workload) and
//! [`export_workloads!`](crate::export_workloads) build the manifest at
//! compile time from the same trait constants as the plugin tables, and place
//! it in the section [`SECTION`] (`.mlb_manifest` in ELF files; on Mach-O,
//! `__DATA,__mlb_manifest`, see [`MACHO_SECTION`]). mlb reads it to list
//! plugins and resolve a workload name to a file; the worker checks it against
//! the tables when it loads the library.
//!
//! # Format (version 1)
//!
//! The section holds one or more *records*, possibly separated by zero bytes
//! (alignment padding, should a linker ever merge several). Integers are
//! little-endian `u32`; a *string* is a `u32` byte length followed by that
//! many bytes of UTF-8.
//!
//! ```text
//! record  = magic "MLBMANIF" (8 bytes)
//!           u32 format version (1)
//!           u32 body length in bytes
//!           u32 FNV-1a (32-bit) checksum of the body
//!           body
//! body    = u32 workload count, then that many entries
//! entry   = u32 entry length in bytes (what follows this field)
//!           u32 ABI version of the workload's table
//!           string name, string version, string description,
//!           string default args (a JSON object)
//!           [u32 argument count, then per argument: string name, string kind]
//!           [string quality metric (empty: none), string unit,
//!            u32 higher is better (0 or 1), 8 bytes default target
//!            (IEEE 754 binary64, little-endian)]
//!           [string libtorch (empty: none)]
//!           [u32 argument count, then per argument, in the order of the
//!            argument list: string description]
//!           [u32 deterministic (0 or 1)]
//!           [u32 checkpoint (0 or 1)]
//!           [fields a later format appends; readers skip them]
//! ```
//!
//! The argument list (appended to format 1: a reader that predates it skips
//! it, and an entry without it declares no arguments) gives every declared
//! argument's [`ArgKind`](crate::ArgKind) by name (`count`, `number`, `text`,
//! `flag`); a reader treats a kind it does not know as unchecked.
//!
//! The quality (appended after the argument list, always written, with an
//! empty metric when the workload declares none) is the workload's
//! [`Quality`]: what its `eval` measures and the default target. An entry
//! without it (a plugin built before it) declares no quality.
//!
//! The libtorch (appended after the quality, always written, empty for a
//! workload that does not link libtorch) is the version of the libtorch the
//! library was built against, as [`Workload::LIBTORCH`](crate::Workload::LIBTORCH)
//! gives it (`2.11.0+cu130`): mlb refuses the library when the libtorch it
//! would load is another release ([`crate::libtorch`]). An entry without it
//! (a plugin built before it) declares none.
//!
//! The descriptions (appended after the libtorch, always written) say what
//! each argument of the list does, its unit and its range: the doc comment
//! of its field ([`Arg::help`]). An entry without them (a plugin built
//! before them) describes no argument.
//!
//! The deterministic flag (appended after the descriptions, always
//! written) is [`Workload::DETERMINISTIC`](crate::Workload::DETERMINISTIC):
//! whether the workload can run in deterministic mode. An entry without it
//! (a plugin built before it) cannot, and mlb refuses it in that mode.
//!
//! The checkpoint flag (appended after the deterministic flag, always
//! written) is [`Workload::CHECKPOINT`](crate::Workload::CHECKPOINT):
//! whether the workload can save its state and restore it into a fresh
//! instance. An entry without it (a plugin built before it) cannot.
//!
//! Fields are only ever appended to an entry (its length lets an older reader
//! skip what it does not know); an incompatible layout gets a new format
//! version, and a reader that meets a format version it does not know treats
//! the library as having no manifest.

use crate::{Arg, ArgKind, Quality, QualitySpec, Workload, WorkloadArgs};
use std::collections::BTreeMap;

/// Section name of the manifest in ELF files.
pub const SECTION: &str = ".mlb_manifest";

/// Section name of the manifest in Mach-O files (segment `__DATA`).
pub const MACHO_SECTION: &str = "__mlb_manifest";

/// First bytes of every record.
pub const MAGIC: [u8; 8] = *b"MLBMANIF";

/// Layout version written by this crate.
pub const FORMAT_VERSION: u32 = 1;

/// Bytes of a record before its body: magic, format version, body length,
/// checksum.
pub const HEADER_LEN: usize = 20;

/// Most workloads one record may list (a sanity bound for readers).
pub const MAX_WORKLOADS: u32 = 4096;

/// Bytes of the quality after its two strings: the direction (`u32`) and
/// the target (8 bytes).
const QUALITY_FIXED_LEN: usize = 4 + 8;

/// One workload's metadata as the macros encode it (static strings).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// ABI version of the workload's table.
    pub abi_version: u32,
    /// Workload name.
    pub name: &'static str,
    /// Workload version.
    pub version: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Default arguments, a JSON object.
    pub default_args: &'static str,
    /// Every declared argument, its kind and its description.
    pub args: &'static [Arg],
    /// What the workload's `eval` measures, if it has one.
    pub quality: Option<Quality>,
    /// The version of the libtorch the library links (empty: none).
    pub libtorch: &'static str,
    /// Whether the workload can run deterministically.
    pub deterministic: bool,
    /// Whether the workload can checkpoint (save and restore its state).
    pub checkpoint: bool,
}

impl Entry {
    /// The entry of workload `W` (the constants its table is built from).
    ///
    /// Fails to compile (when evaluated in a constant) for an empty name, or
    /// a quality with an empty metric or a target that is not finite.
    pub const fn of<W: Workload>() -> Self {
        assert!(!W::NAME.is_empty(), "a workload's NAME must not be empty");
        if let Some(q) = W::QUALITY {
            assert!(!q.metric.is_empty(), "a workload's QUALITY must name its metric");
            assert!(q.target.is_finite(), "a workload's QUALITY target must be finite");
        }
        Entry {
            abi_version: crate::abi::ABI_VERSION,
            name: W::NAME,
            version: W::VERSION,
            description: W::DESCRIPTION,
            default_args: W::Args::DEFAULTS,
            args: W::Args::DECLARED,
            quality: W::QUALITY,
            libtorch: W::LIBTORCH,
            deterministic: W::DETERMINISTIC,
            checkpoint: W::CHECKPOINT,
        }
    }

    /// The quality's metric and unit (empty when none is declared).
    const fn quality_strings(&self) -> [&'static str; 2] {
        match self.quality {
            Some(q) => [q.metric, q.unit],
            None => ["", ""],
        }
    }

    const fn strings(&self) -> [&'static str; 4] {
        [self.name, self.version, self.description, self.default_args]
    }

    /// Bytes of the entry after its length field.
    const fn content_len(&self) -> usize {
        let strings = self.strings();
        let mut len = 4; // abi_version
        let mut i = 0;
        while i < strings.len() {
            assert!(strings[i].len() <= u32::MAX as usize, "manifest string longer than 4 GiB");
            len += 4 + strings[i].len();
            i += 1;
        }
        len += 4; // argument count
        let mut a = 0;
        while a < self.args.len() {
            len += 4 + self.args[a].name.len() + 4 + self.args[a].kind.name().len();
            a += 1;
        }
        let [metric, unit] = self.quality_strings();
        len += 4 + metric.len() + 4 + unit.len() + QUALITY_FIXED_LEN + 4 + self.libtorch.len();
        len += 4; // description count
        let mut a = 0;
        while a < self.args.len() {
            len += 4 + self.args[a].help.len();
            a += 1;
        }
        len + 4 + 4 // deterministic, checkpoint
    }
}

/// Bytes of the record that [`encode`] writes for `entries`.
pub const fn encoded_len(entries: &[Entry]) -> usize {
    let mut len = HEADER_LEN + 4;
    let mut i = 0;
    while i < entries.len() {
        len += 4 + entries[i].content_len();
        i += 1;
    }
    len
}

/// The record for `entries`, in an array of exactly [`encoded_len`] bytes
/// (a compile-time error when `N` is not that length).
pub const fn encode<const N: usize>(entries: &[Entry]) -> [u8; N] {
    let mut out = [0u8; N];
    write(entries, &mut out);
    out
}

/// The record for `entries`, at run time (tests, tools).
pub fn to_vec(entries: &[Entry]) -> Vec<u8> {
    let mut out = vec![0u8; encoded_len(entries)];
    write(entries, &mut out);
    out
}

/// Writes the record for `entries` into `out`, which must be exactly
/// [`encoded_len`] bytes long.
const fn write(entries: &[Entry], out: &mut [u8]) {
    assert!(out.len() == encoded_len(entries), "manifest buffer has the wrong length");
    assert!(entries.len() <= MAX_WORKLOADS as usize, "too many workloads in one manifest");
    let mut at = put_bytes(out, 0, &MAGIC);
    at = put_u32(out, at, FORMAT_VERSION);
    at = put_u32(out, at, (out.len() - HEADER_LEN) as u32);
    at = put_u32(out, at, 0); // checksum, filled in below
    at = put_u32(out, at, entries.len() as u32);
    let mut i = 0;
    while i < entries.len() {
        let entry = &entries[i];
        at = put_u32(out, at, entry.content_len() as u32);
        at = put_u32(out, at, entry.abi_version);
        let strings = entry.strings();
        let mut s = 0;
        while s < strings.len() {
            at = put_u32(out, at, strings[s].len() as u32);
            at = put_bytes(out, at, strings[s].as_bytes());
            s += 1;
        }
        at = put_u32(out, at, entry.args.len() as u32);
        let mut a = 0;
        while a < entry.args.len() {
            let (name, kind) = (entry.args[a].name, entry.args[a].kind.name());
            at = put_u32(out, at, name.len() as u32);
            at = put_bytes(out, at, name.as_bytes());
            at = put_u32(out, at, kind.len() as u32);
            at = put_bytes(out, at, kind.as_bytes());
            a += 1;
        }
        let [metric, unit] = entry.quality_strings();
        at = put_u32(out, at, metric.len() as u32);
        at = put_bytes(out, at, metric.as_bytes());
        at = put_u32(out, at, unit.len() as u32);
        at = put_bytes(out, at, unit.as_bytes());
        let (higher, target) = match entry.quality {
            Some(q) => (q.higher_is_better as u32, q.target),
            None => (0, 0.0),
        };
        at = put_u32(out, at, higher);
        at = put_bytes(out, at, &target.to_bits().to_le_bytes());
        at = put_u32(out, at, entry.libtorch.len() as u32);
        at = put_bytes(out, at, entry.libtorch.as_bytes());
        at = put_u32(out, at, entry.args.len() as u32);
        let mut a = 0;
        while a < entry.args.len() {
            at = put_u32(out, at, entry.args[a].help.len() as u32);
            at = put_bytes(out, at, entry.args[a].help.as_bytes());
            a += 1;
        }
        at = put_u32(out, at, entry.deterministic as u32);
        at = put_u32(out, at, entry.checkpoint as u32);
        i += 1;
    }
    assert!(at == out.len(), "manifest length miscounted");
    let sum = fnv1a(out, HEADER_LEN, out.len());
    put_u32(out, 16, sum);
}

const fn put_u32(out: &mut [u8], at: usize, value: u32) -> usize {
    put_bytes(out, at, &value.to_le_bytes())
}

const fn put_bytes(out: &mut [u8], at: usize, bytes: &[u8]) -> usize {
    let mut i = 0;
    while i < bytes.len() {
        out[at + i] = bytes[i];
        i += 1;
    }
    at + bytes.len()
}

/// 32-bit FNV-1a of `bytes[start..end]`.
const fn fnv1a(bytes: &[u8], start: usize, end: usize) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    let mut i = start;
    while i < end {
        hash ^= bytes[i] as u32;
        hash = hash.wrapping_mul(0x0100_0193);
        i += 1;
    }
    hash
}

/// A workload's self-description as a host reads it back: from a manifest,
/// from the workload's table, or from `mlb worker --describe` (JSON).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PluginMeta {
    /// Workload name.
    pub name: String,
    /// Workload version.
    pub version: String,
    /// ABI version of its table.
    pub abi_version: u32,
    /// One-line description.
    pub description: String,
    /// Default arguments.
    pub default_args: serde_json::Value,
    /// The kind of every declared argument whose kind this reader knows
    /// (empty when the entry declares none; a table declares none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub arg_kinds: BTreeMap<String, ArgKind>,
    /// What every declared argument does, with its unit and range (empty
    /// when the entry describes none, or predates the field; a table
    /// describes none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub arg_help: BTreeMap<String, String>,
    /// What the workload's evaluation measures and its default target
    /// (`None`: the workload has no evaluation, or its entry predates it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<QualitySpec>,
    /// The version of the libtorch the library links, as built (`None` when
    /// the entry declares none, or predates the field; a table declares none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub libtorch: Option<String>,
    /// Whether the workload can run deterministically (`false` when the
    /// entry says it cannot, or predates the field).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deterministic: bool,
    /// Whether the workload can checkpoint: save its state and restore it
    /// into a fresh instance (`false` when the entry says it cannot, or
    /// predates the field).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub checkpoint: bool,
}

/// Why a manifest section could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// The section is empty (or only padding).
    #[error("the manifest section is empty")]
    Empty,
    /// Something other than a record starts at `offset`.
    #[error("no manifest record at byte {offset} (bad magic)")]
    BadMagic {
        /// Byte offset in the section.
        offset: usize,
    },
    /// A record written in a layout this reader does not know.
    #[error("manifest format v{found}, this mlb reads v{FORMAT_VERSION}")]
    UnknownFormat {
        /// The record's format version.
        found: u32,
    },
    /// The section ends before what a length field announces.
    #[error("the manifest is truncated: {what} needs {needed} bytes at byte {offset}, the section has {len}")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Byte offset in the section.
        offset: usize,
        /// Bytes needed from `offset`.
        needed: usize,
        /// Section length.
        len: usize,
    },
    /// The body's bytes do not match the record's checksum.
    #[error("the manifest is corrupt: checksum {found:#010x}, expected {expected:#010x}")]
    Checksum {
        /// Checksum of the body as read.
        found: u32,
        /// Checksum the header records.
        expected: u32,
    },
    /// A field is invalid (not UTF-8, empty name, bad counts...).
    #[error("the manifest is corrupt: {0}")]
    Invalid(String),
}

/// Reads every workload of a manifest section (records in order, zero
/// padding between them skipped).
///
/// Returns [`ManifestError::UnknownFormat`] when a record uses a format this
/// reader does not know, so that the caller can fall back to asking the
/// library itself.
pub fn decode(section: &[u8]) -> Result<Vec<PluginMeta>, ManifestError> {
    let mut workloads: Vec<PluginMeta> = Vec::new();
    let mut at = 0;
    loop {
        while at < section.len() && section[at] == 0 {
            at += 1;
        }
        if at == section.len() {
            break;
        }
        let mut r = Reader { bytes: section, at };
        if r.take(MAGIC.len(), "record magic")? != MAGIC {
            return Err(ManifestError::BadMagic { offset: at });
        }
        let format = r.u32("format version")?;
        if format != FORMAT_VERSION {
            return Err(ManifestError::UnknownFormat { found: format });
        }
        let body_len = r.u32("body length")? as usize;
        let expected = r.u32("checksum")?;
        let body_start = r.at;
        r.take(body_len, "record body")?;
        let found = fnv1a(section, body_start, body_start + body_len);
        if found != expected {
            return Err(ManifestError::Checksum { found, expected });
        }
        let end = r.at;
        workloads.extend(decode_body(Reader { bytes: &section[..end], at: body_start })?);
        at = end;
    }
    if workloads.is_empty() {
        return Err(ManifestError::Empty);
    }
    for (i, w) in workloads.iter().enumerate() {
        if workloads[..i].iter().any(|o| o.name == w.name) {
            return Err(ManifestError::Invalid(format!("workload `{}` is listed twice", w.name)));
        }
    }
    Ok(workloads)
}

fn decode_body(mut r: Reader<'_>) -> Result<Vec<PluginMeta>, ManifestError> {
    let count = r.u32("workload count")?;
    if count == 0 || count > MAX_WORKLOADS {
        return Err(ManifestError::Invalid(format!("workload count {count} (1 to {MAX_WORKLOADS})")));
    }
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let len = r.u32("entry length")? as usize;
        let start = r.at;
        r.take(len, "workload entry")?;
        // Read the fields inside the entry only; trailing bytes are fields of
        // a later format and are skipped.
        let mut e = Reader { bytes: &r.bytes[..start + len], at: start };
        let abi_version = e.u32("ABI version")?;
        let (name, version, description) = (e.string("name")?, e.string("version")?, e.string("description")?);
        let default_args = serde_json::from_str(&e.string("default args")?)
            .map_err(|err| ManifestError::Invalid(format!("default args of `{name}` are not JSON: {err}")))?;
        let mut w = PluginMeta {
            abi_version,
            name,
            version,
            description,
            default_args,
            arg_kinds: BTreeMap::new(),
            arg_help: BTreeMap::new(),
            quality: None,
            libtorch: None,
            deterministic: false,
            checkpoint: false,
        };
        // The argument list: absent from entries written before it existed.
        let mut args = Vec::new();
        if e.at < e.bytes.len() {
            let count = e.u32("argument count")?;
            for _ in 0..count {
                let name = e.string("argument name")?;
                // A kind this reader does not know leaves its argument unchecked.
                if let Some(kind) = ArgKind::from_name(&e.string("argument kind")?) {
                    w.arg_kinds.insert(name.clone(), kind);
                }
                args.push(name);
            }
        }
        // The quality: absent from entries written before it existed.
        if e.at < e.bytes.len() {
            w.quality = e.quality()?;
        }
        // The libtorch: absent from entries written before it existed.
        if e.at < e.bytes.len() {
            w.libtorch = Some(e.string("libtorch")?).filter(|v| !v.is_empty());
        }
        // The descriptions: absent from entries written before they existed.
        if e.at < e.bytes.len() {
            let count = e.u32("description count")? as usize;
            if count != args.len() {
                let list = args.len();
                return Err(ManifestError::Invalid(format!(
                    "`{}` describes {count} arguments, its argument list has {list}",
                    w.name
                )));
            }
            for name in args {
                w.arg_help.insert(name, e.string("argument description")?);
            }
        }
        // The deterministic flag: absent from entries written before it existed.
        if e.at < e.bytes.len() {
            w.deterministic = e.u32("deterministic")? != 0;
        }
        // The checkpoint flag: absent from entries written before it existed.
        if e.at < e.bytes.len() {
            w.checkpoint = e.u32("checkpoint")? != 0;
        }
        if w.name.is_empty() {
            return Err(ManifestError::Invalid("a workload has an empty name".into()));
        }
        out.push(w);
    }
    if r.at != r.bytes.len() {
        return Err(ManifestError::Invalid(format!("{} stray bytes after the last entry", r.bytes.len() - r.at)));
    }
    Ok(out)
}

/// A bounds-checked cursor.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ManifestError> {
        let end = self.at.checked_add(n).filter(|end| *end <= self.bytes.len()).ok_or(ManifestError::Truncated {
            what,
            offset: self.at,
            needed: n,
            len: self.bytes.len(),
        })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, ManifestError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn string(&mut self, what: &'static str) -> Result<String, ManifestError> {
        let len = self.u32(what)? as usize;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| ManifestError::Invalid(format!("{what} is not UTF-8")))
    }

    /// A quality: `None` when its metric is empty.
    fn quality(&mut self) -> Result<Option<QualitySpec>, ManifestError> {
        let metric = self.string("quality metric")?;
        let unit = self.string("quality unit")?;
        let higher_is_better = self.u32("quality direction")? != 0;
        let bits = self.take(8, "quality target")?;
        let target = f64::from_le_bytes(bits.try_into().expect("8 bytes"));
        if metric.is_empty() {
            return Ok(None);
        }
        if !target.is_finite() {
            return Err(ManifestError::Invalid(format!("the target of quality `{metric}` is {target}")));
        }
        Ok(Some(QualitySpec { metric, unit, higher_is_better, target }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Entry = Entry {
        abi_version: 1,
        name: "alpha",
        version: "1.0.0",
        description: "first, with \"quotes\" and ünïcode",
        default_args: r#"{"repeat": 2}"#,
        args: &[
            Arg { name: "repeat", kind: ArgKind::Count, help: "observations" },
            Arg { name: "lr", kind: ArgKind::Number, help: "learning rate, from 0 up" },
        ],
        quality: Some(Quality { metric: "top1", unit: "fraction", higher_is_better: true, target: 0.75 }),
        libtorch: "2.11.0+cu130",
        deterministic: true,
        checkpoint: true,
    };
    const B: Entry = Entry {
        abi_version: 1,
        name: "beta",
        version: "0.2.0",
        description: "",
        default_args: "{}",
        args: &[],
        quality: None,
        libtorch: "",
        deterministic: false,
        checkpoint: false,
    };
    /// Bytes of B's quality: two empty strings, the direction, the target.
    const B_QUALITY_LEN: usize = 4 + 4 + 4 + 8;
    /// Bytes of B's libtorch: an empty string.
    const B_LIBTORCH_LEN: usize = 4;
    /// Bytes of B's descriptions: a count of 0.
    const B_HELP_LEN: usize = 4;
    /// Bytes of an entry's deterministic flag.
    const DETERMINISTIC_LEN: usize = 4;
    /// Bytes of an entry's checkpoint flag.
    const CHECKPOINT_LEN: usize = 4;

    fn back(e: &Entry) -> PluginMeta {
        PluginMeta {
            abi_version: e.abi_version,
            name: e.name.into(),
            version: e.version.into(),
            description: e.description.into(),
            default_args: serde_json::from_str(e.default_args).unwrap(),
            arg_kinds: e.args.iter().map(|a| (a.name.to_string(), a.kind)).collect(),
            arg_help: e.args.iter().map(|a| (a.name.to_string(), a.help.to_string())).collect(),
            quality: e.quality.map(QualitySpec::from),
            libtorch: Some(e.libtorch.to_string()).filter(|v| !v.is_empty()),
            deterministic: e.deterministic,
            checkpoint: e.checkpoint,
        }
    }

    #[test]
    fn const_and_runtime_encodings_agree_and_round_trip() {
        const LEN: usize = encoded_len(&[A, B]);
        const BYTES: [u8; LEN] = encode::<LEN>(&[A, B]);
        assert_eq!(BYTES.to_vec(), to_vec(&[A, B]));
        assert_eq!(&BYTES[..8], b"MLBMANIF");
        assert_eq!(decode(&BYTES).unwrap(), vec![back(&A), back(&B)]);
    }

    #[test]
    fn records_separated_by_padding_are_concatenated() {
        let mut section = vec![0u8; 3];
        section.extend(to_vec(&[A]));
        section.extend([0u8; 5]);
        section.extend(to_vec(&[B]));
        section.extend([0u8; 7]);
        assert_eq!(decode(&section).unwrap(), vec![back(&A), back(&B)]);
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let bytes = to_vec(&[A, B]);
        for cut in 1..bytes.len() {
            let e = decode(&bytes[..cut]).unwrap_err();
            assert!(matches!(e, ManifestError::Truncated { .. }), "cut at {cut}: {e}");
        }
        assert_eq!(decode(&[]).unwrap_err(), ManifestError::Empty);
        assert_eq!(decode(&[0; 16]).unwrap_err(), ManifestError::Empty);
    }

    #[test]
    fn every_flipped_body_byte_is_detected() {
        let bytes = to_vec(&[A]);
        for i in HEADER_LEN..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x40;
            assert!(matches!(decode(&bad), Err(ManifestError::Checksum { .. })), "byte {i}");
        }
    }

    #[test]
    fn bad_magic_unknown_format_and_duplicates_are_refused() {
        let mut bytes = to_vec(&[A]);
        bytes[0] = b'X';
        assert_eq!(decode(&bytes).unwrap_err(), ManifestError::BadMagic { offset: 0 });

        let mut bytes = to_vec(&[A]);
        bytes[8] = 2;
        assert_eq!(decode(&bytes).unwrap_err(), ManifestError::UnknownFormat { found: 2 });

        let e = decode(&to_vec(&[A, A])).unwrap_err();
        assert_eq!(e, ManifestError::Invalid("workload `alpha` is listed twice".into()));

        let empty_name = Entry { name: "", ..B };
        assert!(decode(&to_vec(&[empty_name])).unwrap_err().to_string().contains("empty name"));
    }

    /// `bytes` with the entry of its only workload cut by `cut` bytes, and
    /// the lengths and checksum written again.
    fn shortened(mut bytes: Vec<u8>, cut: usize) -> Vec<u8> {
        let entry_len_at = HEADER_LEN + 4;
        let len = u32::from_le_bytes(bytes[entry_len_at..entry_len_at + 4].try_into().unwrap());
        bytes[entry_len_at..entry_len_at + 4].copy_from_slice(&(len - cut as u32).to_le_bytes());
        bytes.truncate(bytes.len() - cut);
        let body_len = (bytes.len() - HEADER_LEN) as u32;
        bytes[12..16].copy_from_slice(&body_len.to_le_bytes());
        let sum = fnv1a(&bytes, HEADER_LEN, bytes.len());
        bytes[16..20].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    #[test]
    fn an_entry_without_the_argument_list_declares_no_arguments() {
        // As a plugin built before the list existed wrote it: B's list is
        // the 4 bytes (a count of 0) before its quality.
        let bytes = shortened(
            to_vec(&[B]),
            4 + B_QUALITY_LEN + B_LIBTORCH_LEN + B_HELP_LEN + DETERMINISTIC_LEN + CHECKPOINT_LEN,
        );
        assert_eq!(decode(&bytes).unwrap(), vec![back(&B)]);
        let with_args = decode(&to_vec(&[A])).unwrap();
        let kinds = BTreeMap::from([("repeat".to_string(), ArgKind::Count), ("lr".into(), ArgKind::Number)]);
        assert_eq!(with_args[0].arg_kinds, kinds);
    }

    #[test]
    fn an_entry_without_the_quality_declares_none() {
        // As a plugin built before the quality existed wrote it.
        let bytes =
            shortened(to_vec(&[B]), B_QUALITY_LEN + B_LIBTORCH_LEN + B_HELP_LEN + DETERMINISTIC_LEN + CHECKPOINT_LEN);
        assert_eq!(decode(&bytes).unwrap(), vec![back(&B)]);
        let read = decode(&to_vec(&[A])).unwrap();
        let quality = read[0].quality.as_ref().expect("A declares a quality");
        assert_eq!((quality.metric.as_str(), quality.unit.as_str()), ("top1", "fraction"));
        assert_eq!((quality.higher_is_better, quality.target), (true, 0.75));
        assert_eq!(decode(&to_vec(&[B])).unwrap()[0].quality, None, "an empty metric declares none");
    }

    #[test]
    fn the_libtorch_round_trips_and_an_entry_without_it_declares_none() {
        let read = decode(&to_vec(&[A, B])).unwrap();
        assert_eq!(read[0].libtorch.as_deref(), Some("2.11.0+cu130"));
        assert_eq!(read[1].libtorch, None, "an empty libtorch declares none");
        // As a plugin built before the libtorch existed wrote it: A without
        // its libtorch and descriptions.
        let bytes = shortened(to_vec(&[A]), 4 + A.libtorch.len() + help_len(&A) + DETERMINISTIC_LEN + CHECKPOINT_LEN);
        let before = PluginMeta {
            libtorch: None,
            arg_help: BTreeMap::new(),
            deterministic: false,
            checkpoint: false,
            ..back(&A)
        };
        assert_eq!(decode(&bytes).unwrap(), vec![before]);
    }

    /// Bytes of `e`'s descriptions: their count, then each string.
    fn help_len(e: &Entry) -> usize {
        4 + e.args.iter().map(|a| 4 + a.help.len()).sum::<usize>()
    }

    #[test]
    fn the_descriptions_round_trip_and_an_entry_without_them_describes_nothing() {
        let read = decode(&to_vec(&[A])).unwrap();
        let help = BTreeMap::from([
            ("repeat".to_string(), "observations".to_string()),
            ("lr".into(), "learning rate, from 0 up".into()),
        ]);
        assert_eq!(read[0].arg_help, help);
        // As a plugin built before the descriptions existed wrote it.
        let bytes = shortened(to_vec(&[A]), help_len(&A) + DETERMINISTIC_LEN + CHECKPOINT_LEN);
        let before = PluginMeta { arg_help: BTreeMap::new(), deterministic: false, checkpoint: false, ..back(&A) };
        assert_eq!(decode(&bytes).unwrap(), vec![before]);
        // A count that is not the argument list's is corrupt: A's is the 4
        // bytes before its last two descriptions.
        let mut bytes = to_vec(&[A]);
        let at = bytes.len() - help_len(&A) - DETERMINISTIC_LEN - CHECKPOINT_LEN;
        bytes[at] = 1;
        let sum = fnv1a(&bytes, HEADER_LEN, bytes.len());
        bytes[16..20].copy_from_slice(&sum.to_le_bytes());
        let e = decode(&bytes).unwrap_err().to_string();
        assert!(e.contains("`alpha` describes 1 arguments, its argument list has 2"), "{e}");
    }

    #[test]
    fn the_deterministic_flag_round_trips_and_an_entry_without_it_cannot() {
        let read = decode(&to_vec(&[A, B])).unwrap();
        assert_eq!((read[0].deterministic, read[1].deterministic), (true, false));
        // As a plugin built before the flag existed wrote it.
        let bytes = shortened(to_vec(&[A]), DETERMINISTIC_LEN + CHECKPOINT_LEN);
        let before = PluginMeta { deterministic: false, checkpoint: false, ..back(&A) };
        assert_eq!(decode(&bytes).unwrap(), vec![before]);
    }

    #[test]
    fn the_checkpoint_flag_round_trips_and_an_entry_without_it_cannot() {
        let read = decode(&to_vec(&[A, B])).unwrap();
        assert_eq!((read[0].checkpoint, read[1].checkpoint), (true, false));
        // As a plugin built before the flag existed wrote it.
        let bytes = shortened(to_vec(&[A]), CHECKPOINT_LEN);
        assert_eq!(decode(&bytes).unwrap(), vec![PluginMeta { checkpoint: false, ..back(&A) }]);
    }

    #[test]
    fn a_target_that_is_not_finite_is_refused() {
        let nan = Entry { quality: Some(Quality { target: f64::NAN, ..A.quality.unwrap() }), ..A };
        let e = decode(&to_vec(&[nan])).unwrap_err();
        assert_eq!(e, ManifestError::Invalid("the target of quality `top1` is NaN".into()));
    }

    #[test]
    fn fields_appended_to_an_entry_are_skipped() {
        // A later format appends a field to the entry: an older reader skips it.
        let mut bytes = to_vec(&[A]);
        let entry_len_at = HEADER_LEN + 4;
        let len = u32::from_le_bytes(bytes[entry_len_at..entry_len_at + 4].try_into().unwrap());
        bytes[entry_len_at..entry_len_at + 4].copy_from_slice(&(len + 3).to_le_bytes());
        bytes.extend([7, 7, 7]);
        let body_len = (bytes.len() - HEADER_LEN) as u32;
        bytes[12..16].copy_from_slice(&body_len.to_le_bytes());
        let sum = fnv1a(&bytes, HEADER_LEN, bytes.len());
        bytes[16..20].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(decode(&bytes).unwrap(), vec![back(&A)]);
    }
}
