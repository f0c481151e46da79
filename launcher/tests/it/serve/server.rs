//! A running `mlb serve` to test, a plain HTTP/1.1 client, and a known
//! store: runs of two systems imported from generated reports.

use crate::store::backend::{import, TestStore};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `mlb serve` running on a port of its own, stopped (SIGTERM) when dropped.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    child: Child,
    /// What it wrote on stderr so far.
    pub stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `mlb serve --db URL --bind 127.0.0.1:0 ARGS` and waits until it listens.
    pub fn start(url: &str, args: &[&str]) -> Server {
        Server::start_on("127.0.0.1:0", url, args)
    }

    /// Starts it on `bind`.
    pub fn start_on(bind: &str, url: &str, args: &[&str]) -> Server {
        Server::spawn(Server::command(bind, url, args))
    }

    /// The command that starts `mlb serve --db URL --bind BIND ARGS`.
    pub fn command(bind: &str, url: &str, args: &[&str]) -> Command {
        let mut command = Command::new(crate::common::mlb());
        command.args(["serve", "--db", url, "--bind", bind]).args(args);
        command
    }

    /// Starts `command` (from [`Server::command`]) and waits until it listens.
    pub fn spawn(mut command: Command) -> Server {
        let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        lines.read_line(&mut first).unwrap();
        let at = first.find("http://").unwrap_or_else(|| panic!("mlb serve did not start: {first}"));
        let addr: SocketAddr = first[at + 7..].split('/').next().unwrap().parse().unwrap();
        let stderr = Arc::new(Mutex::new(first));
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = lines.read_to_string(&mut rest);
            sink.lock().unwrap().push_str(&rest);
        });
        Server { addr: SocketAddr::new("127.0.0.1".parse().unwrap(), addr.port()), child, stderr }
    }

    /// `GET path` with `headers`.
    pub fn get(&self, path: &str, headers: &[(&str, &str)]) -> Answer {
        let extra: String = headers.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
        self.raw(format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n{extra}Connection: close\r\n\r\n").as_bytes())
    }

    /// `GET path`, which must answer 200; its body as JSON.
    pub fn json(&self, path: &str) -> Value {
        let answer = self.get(path, &[]);
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        serde_json::from_str(&answer.body).unwrap_or_else(|e| panic!("{path}: {e}: {}", answer.body))
    }

    /// Sends `request` as it is; reads the whole answer.
    pub fn raw(&self, request: &[u8]) -> Answer {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        // The server may answer and close before the whole of a large request is sent.
        let _ = stream.write_all(request);
        let mut bytes = Vec::new();
        let _ = stream.read_to_end(&mut bytes);
        Answer::parse(&bytes)
    }

    /// Stops it with `signal`; returns its exit status.
    pub fn stop(mut self, signal: nix::sys::signal::Signal) -> Option<i32> {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.child.id() as i32), signal).unwrap();
        self.child.wait().unwrap().code()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.child.id() as i32), nix::sys::signal::SIGTERM);
        let _ = self.child.wait();
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    /// Its status (0: none came).
    pub status: u16,
    /// Its headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// Its body (chunks joined), as text.
    pub body: String,
}

impl Answer {
    fn parse(bytes: &[u8]) -> Answer {
        let text = String::from_utf8_lossy(bytes);
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            return Answer { status: 0, headers: Vec::new(), body: text.into_owned() };
        };
        let mut lines = head.lines();
        let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let chunked = headers.iter().any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let body = if chunked { unchunk(body) } else { body.to_string() };
        Answer { status, headers, body }
    }

    /// The value of the header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// A chunked body's chunks, joined.
fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// One report of `bench` on device `vcd` in `dir`, started at `start`
/// (`2026-01-02T03:04:05Z`), with `items` items/s (none: a failure record
/// whose log is `logs/BENCH.log`) and a telemetry timeline.
pub fn report(dir: &Path, bench: &str, vcd: usize, start: &str, items: Option<f64>) {
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    let stamp: String = start.chars().filter(char::is_ascii_digit).collect();
    let file = format!("s.{bench}.R0.D{vcd}.{}-{}-000000.json", &stamp[..8], &stamp[8..14]);
    let mut r = json!({
        "name": bench, "suite": "s", "vcd": vcd.to_string(), "run_id": 0, "jr_id": 0,
        "hostname": "host-a", "gpu": "Model X", "start_time": start, "batch_size": 64,
    });
    match items {
        Some(items) => {
            r["completed"] = json!(true);
            r["train_item"] =
                json!({"avg": items, "min": items - 1.0, "max": items + 1.0, "range": 2.0, "unit": "items/sec"});
            r["batch_loss"] = json!([1.0, 0.5]);
            r["telemetry"] = json!({"sample_hz": 1.0, "samples": 3, "window_seconds": 3.0, "items": 300,
                "energy": {"joules": 600.0, "joules_per_item": 2.0, "source": "gpu"},
                "gpus": [{"device": vcd.to_string(), "throttled_fraction": 0.0, "degraded_link": false}],
                "slot": {"cpu_throttled_fraction": null}, "throttled": false, "degraded_link": false,
                "timeline": {"t": [0.5, 1.5, 2.5], "gpu0.power_w": [100.0, 110.0, 120.0]}});
        }
        None => {
            let log = format!("logs/{bench}.log");
            std::fs::write(dir.join(&log), format!("starting {bench}\nTraceback: out of memory\n")).unwrap();
            r["completed"] = json!(false);
            r["failure"] = json!({"cause": "crashed", "message": "exit status 1"});
            r["log"] = json!(log);
        }
    }
    std::fs::write(dir.join(file), r.to_string()).unwrap();
}

/// The known store: system `A` with three runs (the third slower on `vae`,
/// with a failed `wlm` instance and an `acceptance.json`), system `B` with
/// one; each run has `vae` on two devices and `conv` on one. Returns the
/// folder the runs were written in (kept while the store is used).
pub fn known_store(store: &TestStore) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let runs = [
        ("A", "a1", "2026-01-01T10:00:00Z", 100.0, false),
        ("A", "a2", "2026-01-02T10:00:00Z", 102.0, false),
        ("A", "a3", "2026-01-03T10:00:00Z", 80.0, true),
        ("B", "b1", "2026-01-02T12:00:00Z", 200.0, false),
    ];
    for (system, name, start, vae, failed) in runs {
        let folder = dir.path().join(system).join(name);
        report(&folder, "vae", 0, start, Some(vae));
        report(&folder, "vae", 1, start, Some(vae + 2.0));
        report(&folder, "conv", 2, start, Some(vae * 3.0));
        if failed {
            report(&folder, "wlm", 2, start, None);
            std::fs::write(folder.join("acceptance.json"), r#"{"verdict": "accepted", "checks": []}"#).unwrap();
        }
    }
    for system in ["A", "B"] {
        let (code, stdout, stderr) = import(store, &[dir.path().join(system).to_str().unwrap(), "--system", system]);
        assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    }
    dir
}
