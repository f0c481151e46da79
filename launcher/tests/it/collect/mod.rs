//! Collecting results from many sites: `mlb serve --accept-push` on
//! 127.0.0.1 taking the pushes of two "sites" (`mlb db push`, with keys
//! of `mlb db keys`), embargo and share links, `mlb db pull` into another
//! store, and hostile pushes, each refused with nothing left in the store
//! or on the server's disk.

mod hostile;
mod sites;

use crate::serve::server::{Answer, Server};
use crate::store::backend::{Kind, TestStore};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A collecting server over a store of its own, its pushes spooled in a
/// folder of its own (its `TMPDIR`), and the key files made for it.
pub struct Collector {
    pub store: TestStore,
    pub server: Server,
    /// The server's `TMPDIR`: where a push is written while it is taken.
    pub spool: tempfile::TempDir,
    /// Where the key files are.
    pub keys: tempfile::TempDir,
}

impl Collector {
    /// A store of `kind` with the keys `keys` (name, systems, pushes a
    /// minute), then `mlb serve --accept-push ARGS` over it.
    pub fn start(kind: Kind, keys: &[(&str, &[&str], u32)], args: &[&str]) -> Collector {
        let store = TestStore::new(kind);
        let dir = tempfile::tempdir().unwrap();
        for (name, systems, per_minute) in keys {
            let file = dir.path().join(format!("{name}.key"));
            let mut command = Command::new(crate::common::mlb());
            command.args(["db", "keys", "add", name, "--db", &store.url, "--key-file", file.to_str().unwrap()]);
            command.args(["--per-minute", &per_minute.to_string()]);
            for system in *systems {
                command.args(["--system", system]);
            }
            let out = command.output().unwrap();
            assert!(out.status.success(), "{:?}", crate::common::text(&out));
        }
        let spool = tempfile::tempdir().unwrap();
        let mut command = Server::command("127.0.0.1:0", &store.url, &[&["--accept-push"], args].concat());
        command.env("TMPDIR", spool.path());
        let server = Server::spawn(command);
        Collector { store, server, spool, keys: dir }
    }

    /// The server's address.
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr)
    }

    /// The key file of the key `name`.
    pub fn key_file(&self, name: &str) -> PathBuf {
        self.keys.path().join(format!("{name}.key"))
    }

    /// The key `name` itself.
    pub fn key(&self, name: &str) -> String {
        std::fs::read_to_string(self.key_file(name)).unwrap().trim().to_string()
    }

    /// `mlb db push DIR --to URL --key-file KEY ARGS`: exit status, stdout, stderr.
    pub fn push(&self, dir: &Path, key: &str, args: &[&str]) -> (Option<i32>, String, String) {
        let out = Command::new(crate::common::mlb())
            .args(["db", "push", dir.to_str().unwrap(), "--to", &self.url(), "--key-file"])
            .arg(self.key_file(key))
            .args(args)
            .output()
            .unwrap();
        let (stdout, stderr) = crate::common::text(&out);
        (out.status.code(), stdout, stderr)
    }

    /// `POST /api/push?QUERY` with `headers` and `body`, sent as they are.
    pub fn post(&self, query: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
        let extra: String = headers.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
        let mut request = format!(
            "POST /api/push?{query} HTTP/1.1\r\nHost: localhost\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        self.server.raw(&request)
    }

    /// `POST /api/push?run=RUN` of `body` with the key `key`.
    pub fn post_as(&self, key: &str, run: &str, body: &[u8]) -> Answer {
        self.post(&format!("run={run}"), &[("Authorization", &format!("Bearer {}", self.key(key)))], body)
    }

    /// `GET path` with the key `key` (none: without a credential).
    pub fn get_as(&self, key: Option<&str>, path: &str) -> Answer {
        match key {
            Some(key) => self.server.get(path, &[("Authorization", &format!("Bearer {}", self.key(key)))]),
            None => self.server.get(path, &[]),
        }
    }

    /// The runs the store holds, and what the spool folder holds: a push
    /// refused leaves neither.
    pub fn left(&self) -> (i64, usize) {
        let runs = self.store.count("SELECT COUNT(*) FROM runs");
        (runs, std::fs::read_dir(self.spool.path()).unwrap().count())
    }
}

/// A run folder `dir` of one site: `vae` on two devices and `conv` on one,
/// at `items` items/s, started at `start`.
pub fn site_run(dir: &Path, start: &str, items: f64) {
    crate::serve::server::report(dir, "vae", 0, start, Some(items));
    crate::serve::server::report(dir, "vae", 1, start, Some(items + 2.0));
    crate::serve::server::report(dir, "conv", 2, start, Some(items * 3.0));
}

/// A gzipped tar of `entries`, each a header filled by its function and its bytes.
pub fn tarball(entries: &[(&str, tar::EntryType, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
    for (name, kind, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        // The name written as it is: `set_path` refuses `..` and absolute names.
        let field = &mut header.as_old_mut().name;
        field[..name.len()].copy_from_slice(name.as_bytes());
        header.set_entry_type(*kind);
        header.set_mode(0o644);
        header.set_size(bytes.len() as u64);
        if matches!(kind, tar::EntryType::Symlink | tar::EntryType::Link) {
            header.set_link_name("/etc/passwd").unwrap();
        }
        if matches!(kind, tar::EntryType::Char) {
            header.set_device_major(1).unwrap();
            header.set_device_minor(3).unwrap();
        }
        header.set_cksum();
        builder.append(&header, *bytes).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

/// A report file's text, as a run folder holds it.
pub fn a_report() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    site_run(dir.path(), "2026-03-01T10:00:00Z", 10.0);
    let name = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    std::fs::read(name).unwrap()
}
