//! A PostgreSQL password never reaches output, logs or errors.

use super::backend::server_url;
use std::process::Command;

/// A password with characters a careless redaction would miss.
const SECRET: &str = "s3cr3t-Pw;--'x";

/// `mlb db import` with `url`: the exit status and everything it printed.
fn import_with(url: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("r.json"), r#"{"name": "a", "vcd": "0", "train_item": {"avg": 1.0}}"#).unwrap();
    let out = Command::new(crate::common::mlb())
        .args(["db", "import", "--db", url])
        .arg(dir.path())
        .env("MLB_BACKTRACE", "1")
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    (out.status.code(), format!("{stdout}{stderr}"))
}

fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

#[test]
fn a_password_of_a_server_not_reached_is_never_shown() {
    for url in [
        format!("postgres://mlb:{}@127.0.0.1:1/results", percent_encoded(SECRET)),
        format!("postgres://mlb@127.0.0.1:1/results?password={}", percent_encoded(SECRET)),
    ] {
        let (code, said) = import_with(&url);
        assert_eq!(code, Some(2), "{said}");
        assert!(said.contains("cannot open the store postgres://mlb"), "{said}");
        assert!(said.contains("***"), "{said}");
        assert!(!said.contains(SECRET) && !said.contains(&percent_encoded(SECRET)), "{said}");
    }
}

mod on_postgres {
    use super::*;

    #[test]
    fn a_wrong_password_is_never_shown() {
        let server = server_url();
        let (_, rest) = server.split_once('@').expect("the server URL has a user part");
        let url = format!("postgres://mlb:{}@{rest}", percent_encoded(SECRET));
        let (code, said) = import_with(&url);
        assert_eq!(code, Some(2), "{said}");
        assert!(said.contains("password authentication failed"), "{said}");
        assert!(!said.contains(SECRET) && !said.contains(&percent_encoded(SECRET)), "{said}");
    }
}
