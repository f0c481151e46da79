//! `mlb serve` against those who reach it and those who wrote what it
//! shows: a login's redirect once led off the site (`//evil.example/`);
//! silent connections once held every file descriptor, so that no request
//! was answered again; a forged `acceptance.json` (unsigned, or over another
//! folder's reports) was shown as the run's acceptance, with no word.

use crate::serve::server::{known_store, report, Server};
use crate::store::backend::{import, Kind, TestStore};
use serde_json::{json, Value};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::time::{Duration, Instant};

const TOKEN: &str = "5b0c9e7d21a84f36c0d9e8b7";

/// A token file in `dir`.
fn token_file(dir: &Path) -> String {
    let path = dir.join("token");
    std::fs::write(&path, format!("{TOKEN}\n")).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_login_redirects_only_to_a_path_of_this_site() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&store.url, &["--token-file", &token_file(dir.path())]);
    let paths = [
        "//evil.example/",
        "//evil.example/runs?system=A",
        "///evil.example/",
        "/\\evil.example/",
        "/\\/evil.example/",
        "//evil.example:80@other.example/",
        "/%2F%2Fevil.example/",
        "/runs",
    ];
    for path in paths {
        let sep = if path.contains('?') { '&' } else { '?' };
        let answer = server.get(&format!("{path}{sep}token={TOKEN}"), &[]);
        if answer.status != 303 {
            assert!((400..500).contains(&answer.status), "{path}: {answer:?}");
            continue;
        }
        let location = answer.header("location").unwrap_or_default();
        assert!(location.starts_with('/'), "{path}: {location}");
        let second = location.chars().nth(1);
        assert!(second != Some('/') && second != Some('\\'), "{path} redirects off the site: {location}");
        assert!(!location.contains(TOKEN), "{path}: {location}");
    }
    let login = server.get(&format!("//evil.example/runs?system=A&token={TOKEN}"), &[]);
    assert_eq!(login.header("location"), Some("/evil.example/runs?system=A"));
}

/// `mlb serve` with at most `files` file descriptors.
fn with_files(store: &TestStore, files: u64) -> Server {
    let mut command = Server::command("127.0.0.1:0", &store.url, &[]);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs in the child before exec.
    unsafe {
        command.pre_exec(move || {
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, files, files)
                .map_err(std::io::Error::from)
        });
    }
    Server::spawn(command)
}

#[test]
fn silent_connections_do_not_stop_the_server() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    let server = with_files(&store, 256);
    assert_eq!(server.get("/api/systems", &[]).status, 200);
    // More silent connections than the server has file descriptors.
    let silent: Vec<TcpStream> = (0..300).filter_map(|_| TcpStream::connect(server.addr).ok()).collect();
    assert!(silent.len() >= 250, "{} connections", silent.len());
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let answer = server.get("/api/systems", &[]);
    let took = started.elapsed();
    assert_eq!(answer.status, 200, "{answer:?}\n{}", server.stderr.lock().unwrap());
    assert!(took < Duration::from_secs(5), "answered after {took:?}");
    // And again, with the silent ones still open.
    assert_eq!(server.json("/api/runs")["total"], 4);
    drop(silent);
}

#[test]
fn a_connection_that_sends_no_whole_request_is_closed() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    let server = Server::start(&store.url, &[]);
    let mut slow = TcpStream::connect(server.addr).unwrap();
    std::io::Write::write_all(&mut slow, b"GET /api/systems HTTP/1.1\r\nHost: x\r\n").unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let started = Instant::now();
    let mut rest = Vec::new();
    let _ = std::io::Read::read_to_end(&mut slow, &mut rest);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(30), "closed after {took:?}");
}

/// The SHA-256 of `bytes`, lower-case hex.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// An `mlb accept` record in `folder` whose inputs are the report files
/// `reports` (paths relative to `folder`), signed with `key` when given.
fn record(folder: &Path, reports: &[&str], key: Option<&mlb::accept::record::SigningKey>) -> String {
    let inputs: Vec<Value> = reports
        .iter()
        .map(|r| {
            let bytes = std::fs::read(folder.join(r)).unwrap();
            json!({"role": "report", "path": r, "sha256": sha256(&bytes), "size": bytes.len()})
        })
        .collect();
    let record = json!({
        "schema": 1, "mlb_version": "0.1.0", "written": "2026-01-05T10:00:00Z",
        "request": {"reports": ".", "rules": null, "targets": null, "gpu_model": "Model X", "baseline": null, "suite": null},
        "inputs": inputs, "verdicts": [], "accepted": true,
        "signer": key.map(|k| k.fingerprint()),
    });
    let text = serde_json::to_string_pretty(&record).unwrap() + "\n";
    std::fs::write(folder.join("acceptance.json"), &text).unwrap();
    if let Some(key) = key {
        std::fs::write(folder.join("acceptance.json.sig"), key.sign(text.as_bytes())).unwrap();
    }
    text
}

/// The report files of the run folder `folder`, sorted.
fn report_files(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && n != "acceptance.json")
        .collect();
    names.sort();
    names
}

#[test]
fn a_run_page_says_who_vouches_for_its_acceptance_and_over_which_reports() {
    let dir = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "alice@laptop", "-f"])
        .arg(dir.path().join("key"))
        .output()
        .expect("ssh-keygen runs (OpenSSH's client)");
    assert!(made.status.success());
    let public = std::fs::read_to_string(dir.path().join("key.pub")).unwrap();
    let signers = dir.path().join("allowed_signers");
    std::fs::write(&signers, format!("alice@site namespaces=\"mlb-acceptance\" {public}")).unwrap();
    let key = mlb::accept::record::SigningKey::read(&dir.path().join("key")).unwrap();

    let system = dir.path().join("A");
    let runs = ["forged", "signed", "tampered", "changed", "foreign", "partial", "plain"];
    for (k, name) in runs.iter().enumerate() {
        let folder = system.join(name);
        let start = format!("2026-01-0{}T10:00:00Z", k + 1);
        report(&folder, "vae", 0, &start, Some(100.0));
        report(&folder, "conv", 1, &start, Some(300.0));
    }
    let own = |name: &str| report_files(&system.join(name));
    let record_of = |name: &str, key| {
        let files = own(name);
        record(&system.join(name), &files.iter().map(String::as_str).collect::<Vec<_>>(), key)
    };
    // Unsigned, in `forged`, over the reports of `signed`.
    let text = record_of("signed", None).replace("\"path\": \"", "\"path\": \"../signed/");
    std::fs::write(system.join("forged").join("acceptance.json"), text).unwrap();
    // Signed over its own reports.
    record_of("signed", Some(&key));
    // Signed, then changed.
    let tampered = system.join("tampered");
    let text = record_of("tampered", Some(&key));
    std::fs::write(tampered.join("acceptance.json"), text.replace("\"accepted\": true", "\"accepted\": false"))
        .unwrap();
    // Its own names, other bytes.
    let changed = system.join("changed");
    let text = record_of("changed", Some(&key));
    let first = &own("changed")[0];
    let bytes = std::fs::read_to_string(changed.join(first)).unwrap();
    let forged_hash = sha256(bytes.replace("100.0", "999.0").as_bytes());
    let text = text.replacen(&sha256(bytes.as_bytes()), &forged_hash, 1);
    std::fs::write(changed.join("acceptance.json"), &text).unwrap();
    std::fs::write(changed.join("acceptance.json.sig"), key.sign(text.as_bytes())).unwrap();
    // A report from elsewhere (an absolute path), signed.
    let foreign = system.join("foreign");
    let elsewhere = dir.path().join("elsewhere.json");
    std::fs::copy(foreign.join(&own("foreign")[0]), &elsewhere).unwrap();
    let text = record_of("foreign", Some(&key));
    let text = text.replacen(
        &format!("\"path\": \"{}\"", own("foreign")[0]),
        &format!("\"path\": \"{}\"", elsewhere.display()),
        1,
    );
    std::fs::write(foreign.join("acceptance.json"), &text).unwrap();
    std::fs::write(foreign.join("acceptance.json.sig"), key.sign(text.as_bytes())).unwrap();
    // Signed over one of its two reports.
    record(&system.join("partial"), &[own("partial")[0].as_str()], Some(&key));
    // Not a record of mlb accept at all.
    std::fs::write(system.join("plain").join("acceptance.json"), r#"{"verdict": "accepted", "checks": []}"#).unwrap();

    let store = TestStore::new(Kind::Sqlite);
    let (code, stdout, stderr) = import(&store, &[system.to_str().unwrap(), "--system", "A"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let server = Server::start(&store.url, &["--allowed-signers", signers.to_str().unwrap()]);
    let listed = server.json("/api/runs");
    let id = |name: &str| {
        listed["runs"].as_array().unwrap().iter().find(|r| r["folder"].as_str().unwrap().ends_with(name)).unwrap()["id"]
            .as_i64()
            .unwrap()
    };
    let standing = |name: &str| {
        let page = server.json(&format!("/api/runs/{}", id(name)));
        let html = server.get(&format!("/runs/{}", id(name)), &[]).body;
        assert!(html.contains("id=\"acceptance-standing\""), "{name}: {html}");
        (page["acceptance_standing"].clone(), html)
    };
    let (good, html) = standing("signed");
    assert_eq!(good["trusted"], true, "{good}");
    assert_eq!(good["signature"]["principals"], "alice@site", "{good}");
    assert!(html.contains("Vouched for.") && html.contains("Signed by alice@site"), "{html}");
    for name in ["forged", "tampered", "changed", "foreign", "partial", "plain"] {
        let (s, html) = standing(name);
        assert_eq!(s["trusted"], false, "{name}: {s}");
        assert!(html.contains("Not vouched for."), "{name}: {html}");
        let summary = s["summary"].as_str().unwrap();
        let expected = match name {
            "forged" => "Unsigned",
            "tampered" => "does not vouch for it",
            "changed" => "with other contents",
            "foreign" => "this run does not have",
            "partial" => "1 of this run's 2 report",
            _ => "not a record mlb accept wrote",
        };
        assert!(summary.contains(expected), "{name}: {summary}");
    }
    let (forged, _) = standing("forged");
    assert!(forged["summary"].as_str().unwrap().contains("../signed/"), "{forged}");
    assert_eq!(forged["signature"]["state"], "unsigned");
}
