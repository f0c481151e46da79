//! Instance logs: each instance's stdout and stderr in
//! `<outdir>/logs/<suite>.<name>.C<config>.R<run>.J<instance>.log`, never in
//! a file that already exists: a second launch into the same output folder
//! gets `<...>.J<instance>.2.log`, then `.3.log`, and so on.

use mlb_record::contract::record::{clean, Identity};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// How many numbered names are tried before giving up.
const MAX_TRIES: u32 = 10_000;

/// Creates the log of instance `identity` of the job's config `config`
/// (1-based) in `dir`: the first name of [`candidates`] that does not exist,
/// created exclusively (`create_new`), so no launch truncates or shares
/// another's log.
pub fn create(dir: &Path, identity: &Identity, config: usize) -> io::Result<(PathBuf, File)> {
    std::fs::create_dir_all(dir)?;
    for path in candidates(dir, identity, config) {
        match File::create_new(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{MAX_TRIES} logs of this instance already exist in {}", dir.display()),
    ))
}

/// The names [`create`] tries, in order: `<stem>.log`, `<stem>.2.log`, ...
fn candidates<'a>(dir: &'a Path, id: &'a Identity, config: usize) -> impl Iterator<Item = PathBuf> + 'a {
    (1..=MAX_TRIES).map(move |n| dir.join(file_name(id, config, n)))
}

/// The `n`-th name (1-based) [`create`] tries for the log of `id`'s
/// instance of config `config`.
fn file_name(id: &Identity, config: usize, n: u32) -> String {
    let stem = instance_stem(id, config);
    match n {
        1 => format!("{stem}.log"),
        n => format!("{stem}.{n}.log"),
    }
}

/// What names an instance of config `config` (1-based) among a run's
/// files: `<suite>.<name>.C<config>.R<run>.J<instance>`, its path
/// separators replaced. Its log and its checkpoint folder are named so.
pub fn instance_stem(id: &Identity, config: usize) -> String {
    format!("{}.{}.C{config}.R{}.J{}", clean(&id.suite), clean(&id.name), id.run_id, id.jr_id)
}

/// The longest name [`create`] may give the log of `id`'s instance of
/// config `config`.
pub fn longest_name(id: &Identity, config: usize) -> String {
    file_name(id, config, MAX_TRIES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn identity(name: &str) -> Identity {
        Identity { suite: "s".into(), name: name.into(), run_id: 3, jr_id: 1, vcd: "1".into() }
    }

    #[test]
    fn an_existing_log_is_never_reused() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let (first, mut f) = create(&logs, &identity("a/b"), 2).unwrap();
        assert_eq!(first, logs.join("s.a_b.C2.R3.J1.log"));
        f.write_all(b"kept").unwrap();
        let (second, _) = create(&logs, &identity("a/b"), 2).unwrap();
        assert_eq!(second, logs.join("s.a_b.C2.R3.J1.2.log"));
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "kept", "not truncated");
        let (third, _) = create(&logs, &identity("a/b"), 2).unwrap();
        assert_eq!(third, logs.join("s.a_b.C2.R3.J1.3.log"));
        let (other, _) = create(&logs, &identity("a/b"), 1).unwrap();
        assert_eq!(other, logs.join("s.a_b.C1.R3.J1.log"), "another config, another name");
    }
}
