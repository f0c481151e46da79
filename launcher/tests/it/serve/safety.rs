//! `mlb serve`'s safety: a token beyond loopback, the store opened
//! read-only (on both backends; on PostgreSQL through a read-only role too),
//! hostile requests answered 4xx while the server keeps serving, 200
//! requests at once, the security headers, a clean stop on SIGTERM.

use super::server::{known_store, Server};
use crate::store::backend::{on_both, Kind, TestStore};
use mlb::serve::data::Reader;
use mlb::store::Location;
use std::process::Command;

on_both!(the_store_cannot_be_written_through_the_server, two_hundred_requests_at_once_are_all_answered,);

/// A token file in `dir`.
fn token_file(dir: &std::path::Path, token: &str) -> String {
    let path = dir.join("token");
    std::fs::write(&path, format!("{token}\n")).unwrap();
    path.to_str().unwrap().to_string()
}

const TOKEN: &str = "8f4e2a91c3b7d6051e9f8a7c";

#[test]
fn beyond_loopback_a_token_is_required_and_checked() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    // No token file: refused before listening, exit 2, with the fix.
    let out =
        Command::new(crate::common::mlb()).args(["serve", "--db", &store.url, "--bind", "0.0.0.0:0"]).output().unwrap();
    let (_, stderr) = crate::common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("without a token") && stderr.contains("--token-file"), "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    let file = token_file(dir.path(), TOKEN);
    let server = Server::start_on("0.0.0.0:0", &store.url, &["--token-file", &file]);
    let none = server.get("/api/systems", &[]);
    assert_eq!(none.status, 401, "{}", none.body);
    assert!(none.body.contains("Authorization: Bearer"), "{}", none.body);
    assert_eq!(server.get("/api/systems", &[("Authorization", "Bearer wrong-token-of-some-length")]).status, 401);
    assert_eq!(server.get("/api/systems", &[("Cookie", "mlb_token=8f4e2a91c3b7d6051e9f8a7")]).status, 401);
    assert_eq!(server.get("/nowhere/../../etc/passwd", &[]).status, 401, "the token comes before anything");
    let bearer = format!("Bearer {TOKEN}");
    assert_eq!(server.get("/api/systems", &[("Authorization", &bearer)]).status, 200);
    let cookie = format!("other=1; mlb_token={TOKEN}");
    assert_eq!(server.get("/api/runs", &[("Cookie", &cookie)]).status, 200);
    // A login: the cookie set, the token gone from the address.
    let login = server.get(&format!("/api/runs?system=A&token={TOKEN}"), &[]);
    assert_eq!(login.status, 303, "{}", login.body);
    assert_eq!(login.header("location"), Some("/api/runs?system=A"));
    let set = login.header("set-cookie").unwrap();
    assert!(set.contains(&format!("mlb_token={TOKEN}")) && set.contains("HttpOnly") && set.contains("SameSite=Strict"));
    assert_eq!(server.get("/api/runs?token=wrong-token-of-some-length", &[]).status, 401);
}

#[test]
fn hostile_requests_get_4xx_and_the_server_keeps_serving() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    let server = Server::start(&store.url, &[]);
    let long = "x".repeat(5000);
    let many = "tag=a%3Db&".repeat(40);
    let stars = "*".repeat(40);
    let paths = [
        "/assets/../../etc/passwd".to_string(),
        "/assets/%2e%2e/%2e%2e/etc/passwd".to_string(),
        "/api/runs/..%2f..%2fetc%2fpasswd".to_string(),
        "/api/runs/../../../etc/passwd".to_string(),
        "/api/runs/-1".to_string(),
        "/api/runs/0".to_string(),
        "/api/runs/1e3".to_string(),
        "/api/runs/99999999999999999999999999".to_string(),
        "/api/runs?page=0".to_string(),
        "/api/runs?page=abc".to_string(),
        "/api/runs?page=1&page=2".to_string(),
        "/api/runs?since=yesterday".to_string(),
        "/api/runs?outcome=maybe".to_string(),
        "/api/runs?tag=novalue".to_string(),
        format!("/api/runs?{many}"),
        format!("/api/runs?system={long}"),
        "/api/runs?system=%00%01".to_string(),
        "/api/runs?bogus=1".to_string(),
        "/api/systems?format=xml".to_string(),
        format!("/api/compare?benches={stars}"),
        "/api/compare?metric=speed".to_string(),
        "/api/history?system=A&last=-3".to_string(),
        "/api/history?system=A&metric=%ZZ".to_string(),
        "/api/runs/1?extra=1".to_string(),
    ];
    for path in &paths {
        let answer = server.get(path, &[]);
        assert!((400..500).contains(&answer.status), "{path}: {} {}", answer.status, answer.body);
        let error: serde_json::Value =
            serde_json::from_str(&answer.body).unwrap_or_else(|_| panic!("{path}: {}", answer.body));
        assert!(error["error"].is_string(), "{path}: {error}");
        assert!(!answer.body.contains("root:"), "{path}");
    }
    // Malformed or oversized at the HTTP level.
    let raw: [Vec<u8>; 4] = [
        b"GARBAGE\r\n\r\n".to_vec(),
        format!(
            "GET /api/systems HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
            "y".repeat(1_000_000)
        )
        .into_bytes(),
        format!(
            "POST /api/systems HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n{}",
            "z".repeat(100_000)
        )
        .into_bytes(),
        b"GET /api/systems?\xff\xfe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
    ];
    for request in &raw {
        let answer = server.raw(request);
        let shown = String::from_utf8_lossy(&request[..40.min(request.len())]).into_owned();
        assert!(answer.status == 0 || (400..500).contains(&answer.status), "{shown}: {answer:?}");
    }
    let ok = server.json("/api/systems");
    assert_eq!(ok["systems"].as_array().unwrap().len(), 2);
}

#[test]
fn every_answer_carries_the_security_headers() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    let server = Server::start(&store.url, &[]);
    for path in ["/api/systems", "/api/runs?format=csv", "/api/runs/abc", "/nowhere"] {
        let answer = server.get(path, &[]);
        let csp = answer.header("content-security-policy").unwrap_or_else(|| panic!("{path}: {answer:?}"));
        assert!(csp.starts_with("default-src 'none'; script-src 'sha256-"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-eval"), "{csp}");
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(answer.header("referrer-policy"), Some("no-referrer"), "{path}");
    }
}

/// 200 requests sent at once each get the answer a lone request gets.
fn two_hundred_requests_at_once_are_all_answered(kind: Kind) {
    let store = TestStore::new(kind);
    let _runs = known_store(&store);
    let server = Server::start(&store.url, &[]);
    let paths = ["/api/systems", "/api/runs", "/api/compare?systems=A,B", "/api/history?system=A"];
    let expected: Vec<String> = paths.iter().map(|p| server.get(p, &[]).body).collect();
    let answers: Vec<(usize, u16, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..200)
            .map(|k| {
                let server = &server;
                scope.spawn(move || {
                    let answer = server.get(paths[k % paths.len()], &[]);
                    (k % paths.len(), answer.status, answer.body)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (k, status, body) in answers {
        assert_eq!(status, 200, "{}: {body}", paths[k]);
        assert_eq!(body, expected[k], "{}", paths[k]);
    }
}

#[test]
fn sigterm_stops_the_server_cleanly() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    let server = Server::start(&store.url, &[]);
    assert_eq!(server.get("/api/systems", &[]).status, 200);
    let stderr = std::sync::Arc::clone(&server.stderr);
    assert_eq!(server.stop(nix::sys::signal::SIGTERM), Some(0), "{}", stderr.lock().unwrap());
}

#[test]
fn a_store_that_is_not_there_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("none.db").display());
    let out = Command::new(crate::common::mlb()).args(["serve", "--db", &url]).output().unwrap();
    let (_, stderr) = crate::common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!dir.path().join("none.db").exists(), "nothing is made");
}

#[test]
fn a_store_of_an_older_schema_is_refused_with_the_fix_and_not_migrated() {
    let store = TestStore::new(Kind::Sqlite);
    let _runs = known_store(&store);
    // As a store an mlb of schema version 2 left.
    let version = store.count("SELECT MAX(version) FROM _sqlx_migrations");
    let opened = store.open();
    let sql = format!("DELETE FROM _sqlx_migrations WHERE version = {version}");
    opened.block_on(sqlx::query(&sql).execute(opened.pool())).unwrap();
    drop(opened);
    let out = Command::new(crate::common::mlb()).args(["serve", "--db", &store.url]).output().unwrap();
    let (_, stderr) = crate::common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("schema version {}", version - 1)) && stderr.contains("mlb db runs"), "{stderr}");
    // Not migrated: a migration first copies the file beside it.
    let file = store.url.strip_prefix("sqlite:").unwrap();
    assert!(!std::path::Path::new(&format!("{file}.schema-{}.bak", version - 1)).exists());
}

/// The store opened as `mlb serve` opens it refuses every write; on
/// PostgreSQL a role granted only SELECT reads it as well.
fn the_store_cannot_be_written_through_the_server(kind: Kind) {
    let store = TestStore::new(kind);
    let _runs = known_store(&store);
    // The server's runtime, which its store's queries share.
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let open = |url: &str| {
        Reader::open(&Location::parse(url).unwrap(), mlb::targets::Folders::default(), None, runtime.handle().clone())
            .unwrap()
    };
    let reader = open(&store.url);
    let writes = [
        "INSERT INTO store_info (key, value) VALUES ('x', 'y')",
        "UPDATE runs SET folder = 'elsewhere'",
        "DELETE FROM instances",
        "CREATE TABLE evil (x INTEGER)",
    ];
    let db = reader.store();
    for sql in writes {
        let done = db.block_on(sqlx::query(sql).execute(db.pool()));
        assert!(done.is_err(), "{sql} was written");
    }
    drop(reader);
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), 13);
    assert_eq!(store.count("SELECT COUNT(*) FROM store_info WHERE key = 'x'"), 0);
    if kind == Kind::Postgres {
        let url = crate::store::backend::read_only_role(&store);
        let server = Server::start(&url, &[]);
        assert_eq!(server.json("/api/runs")["total"], 4);
        let reader = open(&url);
        let db = reader.store();
        // Even with the session made writable again, the role may not write.
        let done = db.block_on(async {
            let mut conn = db.pool().acquire().await?;
            sqlx::query("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE").execute(&mut *conn).await?;
            sqlx::query("DELETE FROM tags").execute(&mut *conn).await
        });
        let error = done.expect_err("the role may not write").to_string();
        assert!(error.contains("permission denied"), "{error}");
    }
}
