//! Hostile pushes: each refused, with nothing left in the store and
//! nothing on the server's disk (its spool folder empty again), and the
//! server still taking the next push.

use super::{a_report, site_run, tarball, Collector};
use crate::store::backend::Kind;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tar::EntryType;

/// An entry of a tarball: its name, kind and bytes.
type Entry<'a> = (&'a str, EntryType, &'a [u8]);

/// A collector whose pushes may send 1 MiB and unpack to 4 MiB.
fn small() -> Collector {
    let keys: &[(&str, &[&str], u32)] = &[("site-a", &["sysA"], 1000), ("site-b", &["sysB"], 1000)];
    Collector::start(Kind::Sqlite, keys, &["--push-max-bytes", "1048576", "--push-max-unpacked", "4194304"])
}

/// The server takes a good push after the hostile ones.
fn still_takes_a_push(c: &Collector) {
    let dir = tempfile::tempdir().unwrap();
    site_run(&dir.path().join("good"), "2026-03-02T10:00:00Z", 90.0);
    let (code, stdout, stderr) = c.push(&dir.path().join("good"), "site-a", &[]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert_eq!(c.left(), (1, 0));
}

#[test]
fn a_key_for_another_system_and_a_revoked_key_push_nothing() {
    let c = small();
    let dir = tempfile::tempdir().unwrap();
    site_run(&dir.path().join("run"), "2026-03-01T10:00:00Z", 100.0);
    let (code, _, stderr) = c.push(&dir.path().join("missing"), "site-a", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is not a run folder"), "{stderr}");
    let (code, _, stderr) = c.push(&dir.path().join("run"), "site-b", &["--system", "sysA"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("answered 403: the key `site-b` may not push for the system `sysA`"), "{stderr}");
    assert_eq!(c.left(), (0, 0));
    let out = std::process::Command::new(crate::common::mlb())
        .args(["db", "keys", "revoke", "site-b", "--db", &c.store.url])
        .output()
        .unwrap();
    assert!(out.status.success());
    let (code, _, stderr) = c.push(&dir.path().join("run"), "site-b", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("answered 401") && stderr.contains("unknown or revoked"), "{stderr}");
    // No key, a made-up key, the server's own form of a key: 401.
    for key in ["", "mlbk_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"] {
        let answer = c.post("run=x", &[("Authorization", &format!("Bearer {key}"))], b"");
        assert_eq!(answer.status, 401, "{}", answer.body);
    }
    assert_eq!(c.left(), (0, 0));
    // The log holds the known keys' pushes, refused.
    let refused = c.store.count("SELECT COUNT(*) FROM push_log WHERE status IN (401, 403)");
    assert_eq!(refused, 1, "the revoked key is no longer known: its push goes to stderr only");
    still_takes_a_push(&c);
}

#[test]
fn archives_with_escaping_names_links_and_devices_are_refused_whole() {
    let c = small();
    let report = a_report();
    let outside = c.spool.path().parent().unwrap().join(format!("escaped-{}.json", std::process::id()));
    let escape = format!("../../../{}", outside.file_name().unwrap().to_str().unwrap());
    let cases: Vec<(&str, Vec<Entry>, &str)> = vec![
        (
            "dotdot",
            vec![("ok.json", EntryType::Regular, &report), (&escape, EntryType::Regular, &report)],
            "not a path inside",
        ),
        ("absolute", vec![("/tmp/absolute-push.json", EntryType::Regular, &report)], "not a path inside"),
        (
            "symlink",
            vec![("ok.json", EntryType::Regular, &report), ("passwd", EntryType::Symlink, b"")],
            "symbolic link",
        ),
        ("hardlink", vec![("passwd", EntryType::Link, b"")], "hard link"),
        ("device", vec![("null", EntryType::Char, b"")], "character device"),
        ("fifo", vec![("pipe", EntryType::Fifo, b"")], "FIFO"),
        ("twice", vec![("a.json", EntryType::Regular, &report), ("a.json", EntryType::Regular, &report)], "twice"),
        ("control", vec![("a\u{1b}[2J.json", EntryType::Regular, &report)], "control character"),
    ];
    for (name, entries, why) in cases {
        let answer = c.post_as("site-a", name, &tarball(&entries));
        assert_eq!(answer.status, 400, "{name}: {}", answer.body);
        assert!(answer.body.contains(why), "{name}: {}", answer.body);
        assert_eq!(c.left(), (0, 0), "{name}");
    }
    assert!(!outside.exists() && !std::path::Path::new("/tmp/absolute-push.json").exists());
    // Not a tarball at all; a tarball of no report.
    assert_eq!(c.post_as("site-a", "garbage", b"not gzip at all").status, 400);
    let empty = c.post_as("site-a", "empty", &tarball(&[("notes.txt", EntryType::Regular, b"hello")]));
    assert!(empty.status == 400 && empty.body.contains("no report file"), "{}", empty.body);
    assert_eq!(c.left(), (0, 0));
    still_takes_a_push(&c);
}

#[test]
fn a_ten_gigabyte_body_and_a_decompression_bomb_stop_at_their_bounds() {
    let c = small();
    let key = format!("Bearer {}", c.key("site-a"));
    // Announced: refused before a byte of it is read.
    let started = Instant::now();
    let mut stream = TcpStream::connect(c.server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "POST /api/push?run=big HTTP/1.1\r\nHost: localhost\r\nAuthorization: {key}\r\nContent-Length: {}\r\n\r\n",
        10u64 << 30
    );
    stream.write_all(head.as_bytes()).unwrap();
    let _ = stream.write_all(&vec![0u8; 1 << 20]);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(20));
    // Not announced (chunked): cut at the bound as it streams.
    let mut stream = TcpStream::connect(c.server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "POST /api/push?run=big HTTP/1.1\r\nHost: localhost\r\nAuthorization: {key}\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'x'; 64 << 10];
    let mut sent = 0u64;
    // 10 GB on offer; the server stops reading after 1 MiB.
    while sent < 10 << 30 {
        let frame = [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat();
        if stream.write_all(&frame).is_err() {
            break;
        }
        sent += chunk.len() as u64;
        if sent > 64 << 20 {
            break;
        }
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 413"), "{}", String::from_utf8_lossy(&answer));
    assert!(sent < 64 << 20, "the server read on past its bound: {sent} bytes sent");
    assert_eq!(c.left(), (0, 0));
    // A bomb: 64 MiB of zeros in a few tens of KiB, past the 4 MiB bound.
    let zeros = vec![0u8; 64 << 20];
    let bomb = tarball(&[("bomb.json", EntryType::Regular, &zeros)]);
    assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
    let answer = c.post_as("site-a", "bomb", &bomb);
    assert_eq!(answer.status, 413, "{}", answer.body);
    assert!(answer.body.contains("larger than") || answer.body.contains("inflates to more than"), "{}", answer.body);
    // Many small files past the bound on files.
    let c2 = Collector::start(Kind::Sqlite, &[("site-a", &["sysA"], 30)], &["--push-max-files", "100"]);
    let names: Vec<String> = (0..200).map(|i| format!("f{i}.txt")).collect();
    let entries: Vec<Entry> = names.iter().map(|n| (n.as_str(), EntryType::Regular, &b"x"[..])).collect();
    let answer = c2.post_as("site-a", "many", &tarball(&entries));
    assert!(answer.status == 413 && answer.body.contains("more than 100 files"), "{}", answer.body);
    assert_eq!(c2.left(), (0, 0));
    assert_eq!(c.left(), (0, 0));
    still_takes_a_push(&c);
}

#[test]
fn a_keys_own_bounds_hold_below_the_servers() {
    let c = small();
    let out = std::process::Command::new(crate::common::mlb())
        .args(["db", "keys", "add", "small", "--system", "sysS", "--max-files", "2", "--max-bytes", "4096"])
        .args(["--db", &c.store.url, "--key-file"])
        .arg(c.key_file("small"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", crate::common::text(&out));
    let dir = tempfile::tempdir().unwrap();
    site_run(&dir.path().join("run"), "2026-03-01T10:00:00Z", 100.0);
    // Three reports and a folder of logs: past two files.
    let (code, _, stderr) = c.push(&dir.path().join("run"), "small", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("answered 413") && stderr.contains("more than 2 files"), "{stderr}");
    let padding = vec![b'x'; 8192];
    let answer = c.post_as("small", "big", &padding);
    assert!(answer.status == 413 && answer.body.contains("at most 4096 bytes"), "{}", answer.body);
    assert_eq!(c.left(), (0, 0));
    let listed = std::process::Command::new(crate::common::mlb())
        .args(["db", "keys", "list", "--format", "csv", "--db", &c.store.url])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(listed.contains("small,sysS,30,4096,2,"), "{listed}");
    assert!(!listed.contains("mlbk_"), "a key is never shown again: {listed}");
    still_takes_a_push(&c);
}

#[test]
fn a_thousand_pushes_in_a_minute_stop_at_the_keys_rate() {
    let c = Collector::start(Kind::Sqlite, &[("site-a", &["sysA"], 30)], &[]);
    let body = tarball(&[("s.vae.R0.D0.20260301-100000-000000.json", EntryType::Regular, &a_report())]);
    let started = Instant::now();
    let mut statuses = std::collections::BTreeMap::new();
    let mut retry_after = None;
    for i in 0..1000 {
        let answer = c.post_as("site-a", &format!("run-{i}"), &body);
        if answer.status == 429 {
            retry_after = retry_after.or(answer.header("retry-after").map(str::to_string));
        }
        *statuses.entry(answer.status).or_insert(0) += 1;
    }
    let took = started.elapsed();
    assert!(took < Duration::from_secs(55), "the thousand took {took:?}: not within the window");
    assert_eq!(statuses, [(200, 30), (429, 970)].into_iter().collect(), "{statuses:?}");
    let wait: u64 = retry_after.unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    // Thirty runs admitted, one report among them: a single instance stored.
    assert_eq!(c.store.count("SELECT COUNT(*) FROM instances"), 1);
    assert_eq!(c.store.count("SELECT COUNT(*) FROM push_log WHERE status = 429"), 970);
    assert_eq!(std::fs::read_dir(c.spool.path()).unwrap().count(), 0);
}
