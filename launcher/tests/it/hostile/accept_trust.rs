//! What the author of an acceptance record can do to the host that
//! verifies it. `mlb accept --verify` once trusted the record before it
//! checked who signed it: it followed absolute and `..` paths of the
//! request (and printed the first line of a file outside in an error), read
//! the whole file system for `baseline: /`, hung on a FIFO, said
//! "unchanged" of an unsigned record whose verdict was edited, and exited 0
//! for a record re-signed by any key. It now reads the record and its
//! signature bounded, checks the signature and the signer first, opens only
//! files inside the record's folder (no `..`, no link, regular files,
//! bounded), and compares the whole record computed again with it.

use crate::accept_record::{accept_args, key, mlb, read_record, run, site, ssh_keygen, stderr, stdout};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A line of a file outside the record's folder, that no output may show.
const SECRET: &str = "root:$6$SECRETHASH$x:19000:0:99999:7:::";

/// `mlb ARGS` in `dir` as [`mlb`] runs it, killed after `limit`: its exit
/// status (`None` when killed), stdout and stderr together, and how long it took.
fn mlb_within(dir: &Path, args: &[&str], limit: Duration) -> (Option<i32>, String, Duration) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", dir)
        .env("HOME", dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let took = started.elapsed();
    let out = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code(), text, took)
}

/// An edit of a record's JSON.
type Edit = fn(&mut Value);

/// Rewrites the record `name` in `dir` with `edit` applied to its JSON.
fn edit_record(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) {
    let mut record = read_record(dir, name);
    edit(&mut record);
    std::fs::write(dir.join(name), serde_json::to_string_pretty(&record).unwrap() + "\n").unwrap();
}

/// A site with its unsigned record `acceptance.json` (every verdict
/// passed), and a folder beside it holding a secret file; the secret's path
/// from the site's folder (`../NAME/secret.yaml`).
fn recorded_site() -> (tempfile::TempDir, tempfile::TempDir, String) {
    let site = site();
    let out = mlb(site.path(), &accept_args("acceptance.json"));
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.yaml"), format!("{SECRET}\n")).unwrap();
    let up = format!("../{}/secret.yaml", outside.path().file_name().unwrap().to_str().unwrap());
    assert!(site.path().join(&up).is_file());
    (site, outside, up)
}

#[test]
fn verify_opens_nothing_outside_the_records_folder() {
    let (site, outside, up) = recorded_site();
    let dir = site.path();
    let secret = outside.path().join("secret.yaml");
    let absolute = secret.to_str().unwrap().to_string();
    std::os::unix::fs::symlink(&secret, dir.join("linked.yaml")).unwrap();
    let cases: Vec<(&str, &str, String)> = vec![
        ("rules absolute", "rules", absolute.clone()),
        ("rules by ..", "rules", up.clone()),
        ("rules through a link", "rules", "linked.yaml".into()),
        ("targets absolute", "targets", absolute.clone()),
        ("targets by ..", "targets", format!("delivery/../{up}")),
        ("reports absolute", "reports", dir.parent().unwrap().to_str().unwrap().into()),
        ("baseline by ..", "baseline", "..".into()),
    ];
    let original = std::fs::read(dir.join("acceptance.json")).unwrap();
    for (what, field, path) in cases {
        std::fs::write(dir.join("acceptance.json"), &original).unwrap();
        edit_record(dir, "acceptance.json", |r| r["request"][field] = path.clone().into());
        let (code, text, took) = mlb_within(dir, &["accept", "--verify", "acceptance.json"], Duration::from_secs(30));
        assert!(code.is_some() && code != Some(0), "{what}: not verified, in time ({took:?}): {code:?} {text}");
        assert!(!text.contains("SECRETHASH"), "{what}: nothing of the file outside is shown: {text}");
        assert!(text.contains("inside the record's folder"), "{what}: says why: {text}");
    }
    // An input path of the record outside its folder is not hashed either.
    let (site, _outside, _) = recorded_site();
    let dir = site.path();
    edit_record(dir, "acceptance.json", |r| {
        r["request"]["rules"] = "gone.yaml".into();
        r["inputs"][0]["path"] = up.clone().into();
    });
    let (code, text, _) = mlb_within(dir, &["accept", "--verify", "acceptance.json"], Duration::from_secs(30));
    assert_eq!(code, Some(1), "{text}");
    assert!(!text.contains("SECRETHASH") && !text.contains("sha256"), "no hash of the file outside: {text}");
}

#[test]
fn verify_neither_hangs_on_a_fifo_nor_walks_the_host() {
    let (site, _outside, _) = recorded_site();
    let dir = site.path();
    nix::unistd::mkfifo(&dir.join("rules.fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    nix::unistd::mkfifo(&dir.join("delivery/fifo.json"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let original = std::fs::read(dir.join("acceptance.json")).unwrap();
    let cases: Vec<(&str, &str, &str)> = vec![
        ("rules a FIFO", "rules", "rules.fifo"),
        ("targets a FIFO", "targets", "rules.fifo"),
        ("baseline the root", "baseline", "/"),
        ("reports the root", "reports", "/"),
    ];
    for (what, field, path) in cases {
        std::fs::write(dir.join("acceptance.json"), &original).unwrap();
        edit_record(dir, "acceptance.json", |r| r["request"][field] = path.into());
        let (code, text, took) = mlb_within(dir, &["accept", "--verify", "acceptance.json"], Duration::from_secs(30));
        assert!(took < Duration::from_secs(10), "{what}: at once, not after {took:?}: {text}");
        assert!(code.is_some() && code != Some(0), "{what}: not verified: {code:?} {text}");
    }
    // A FIFO among the reports is left out, not waited for.
    std::fs::write(dir.join("acceptance.json"), &original).unwrap();
    let (code, text, took) = mlb_within(dir, &["accept", "--verify", "acceptance.json"], Duration::from_secs(30));
    assert!(took < Duration::from_secs(10) && code == Some(1), "{took:?}: {text}");
    assert!(text.contains("delivery/fifo.json: not a regular file"), "{text}");
}

#[test]
fn an_unsigned_record_proves_nothing_and_every_field_is_checked() {
    let site = site();
    let dir = site.path();
    std::fs::remove_dir_all(dir.join("delivery")).unwrap();
    run(&dir.join("delivery"), 1.0, 0.7);
    assert_eq!(mlb(dir, &accept_args("acceptance.json")).status.code(), Some(1));
    // Untouched, it still proves nothing: no exit 0.
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(1), "{text}{}", stderr(&verified));
    assert!(text.contains("signature: unsigned: nothing proves it unchanged"), "{text}");
    assert!(!text.contains("result: unchanged"), "{text}");
    // The verdict edited to accepted, a verdict's note and margin edited:
    // each is named.
    let edits: [(&str, Edit); 5] = [
        ("accepted", |r| r["accepted"] = true.into()),
        ("note", |r| r["verdicts"][0]["note"] = "all fine".into()),
        ("margin", |r| r["verdicts"][0]["margin"] = 0.5.into()),
        ("origin", |r| r["verdicts"][0]["origin"]["line"] = 99.into()),
        ("request", |r| r["request"]["reports"] = "./delivery/.".into()),
    ];
    let original = std::fs::read(dir.join("acceptance.json")).unwrap();
    for (field, edit) in edits {
        std::fs::write(dir.join("acceptance.json"), &original).unwrap();
        edit_record(dir, "acceptance.json", edit);
        let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
        let text = stdout(&verified);
        assert_eq!(verified.status.code(), Some(1), "{field}: {text}{}", stderr(&verified));
        assert!(text.contains("result: CHANGED"), "{field}: {text}");
        let named =
            |l: &&str| l.starts_with(&format!("  changed  {field}:")) || l.contains(&format!("differs in {field}"));
        assert!(text.lines().any(|l| named(&l)), "{field}: named: {text}");
    }
}

#[test]
fn the_records_text_cannot_drive_the_terminal_nor_forge_a_line() {
    let (site, _outside, _) = recorded_site();
    let dir = site.path();
    let forged = "per_gpu#1\u{1b}]0;owned\u{7}\nresult: verified: forged";
    edit_record(dir, "acceptance.json", |r| {
        r["verdicts"][0]["rule"] = forged.into();
        r["written"] = "2026\u{1b}[2J".into();
        r["inputs"][0]["path"] = "delivery/\nresult: verified.json".into();
    });
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(1), "{text}");
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{text}");
    assert!(!text.lines().any(|l| l.starts_with("result: verified")), "{text}");
    assert!(text.contains("per_gpu#1\\u{1b}]0;owned"), "escaped, still readable: {text}");
}

#[test]
fn a_record_re_signed_by_another_key_is_not_verified() {
    let site = site();
    let dir = site.path();
    key(dir, "acceptance_key");
    let signed = [&accept_args("acceptance.json")[..], &["--sign", "acceptance_key"]].concat();
    assert_eq!(mlb(dir, &signed).status.code(), Some(0));
    let trusted = std::fs::read_to_string(dir.join("allowed_signers")).unwrap();
    // A forger's key signs an edited record naming the forger's key.
    let made = ssh_keygen(dir, &["-q", "-t", "ed25519", "-N", "", "-C", "forger", "-f", "forger_key"], None);
    assert!(made.status.success(), "{}", stderr(&made));
    let fingerprint = stdout(&ssh_keygen(dir, &["-l", "-f", "forger_key.pub"], None));
    let fingerprint = fingerprint.split_whitespace().nth(1).unwrap().to_string();
    edit_record(dir, "acceptance.json", |r| {
        r["signer"] = fingerprint.clone().into();
        r["verdicts"][0]["note"] = "forged".into();
    });
    std::fs::remove_file(dir.join("acceptance.json.sig")).unwrap();
    let resigned =
        ssh_keygen(dir, &["-Y", "sign", "-f", "forger_key", "-n", "mlb-acceptance", "acceptance.json"], None);
    assert!(resigned.status.success(), "{}", stderr(&resigned));
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    let text = stdout(&verified);
    assert_ne!(verified.status.code(), Some(0), "a record signed by any key verified: {text}");
    assert!(text.contains("NOT CHECKED"), "says loudly the signer was not checked: {text}");
    std::fs::write(dir.join("allowed_signers"), trusted).unwrap();
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json", "--allowed-signers", "allowed_signers"]);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(1), "{text}");
    assert!(text.contains("signature: BAD: made by the key"), "{text}");
}

#[test]
fn a_bad_signature_opens_nothing_the_record_names() {
    let site = site();
    let dir = site.path();
    key(dir, "acceptance_key");
    let signed = [&accept_args("acceptance.json")[..], &["--sign", "acceptance_key"]].concat();
    assert_eq!(mlb(dir, &signed).status.code(), Some(0));
    nix::unistd::mkfifo(&dir.join("rules.fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    edit_record(dir, "acceptance.json", |r| r["request"]["rules"] = "rules.fifo".into());
    let args = ["accept", "--verify", "acceptance.json", "--allowed-signers", "allowed_signers"];
    let (code, text, took) = mlb_within(dir, &args, Duration::from_secs(30));
    assert!(took < Duration::from_secs(10), "{took:?}: {text}");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("signature: BAD"), "{text}");
    assert!(text.contains("nothing the record names was opened"), "{text}");
}

/// Runs `mlb ARGS` in `dir` under a 4 GB address space limit, killed after
/// 30 s: its exit status, its stderr and stdout, and how long it took.
fn mlb_bounded(dir: &Path, args: &[&str]) -> (Option<i32>, String, Duration) {
    let mut shell = vec!["sh", "-c", "ulimit -v 4000000 && exec \"$@\"", "sh", env!("CARGO_BIN_EXE_mlb")];
    shell.extend_from_slice(args);
    let mut child = Command::new(shell[0])
        .args(&shell[1..])
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let took = started.elapsed();
    let out = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
    (out.status.code(), text, took)
}

/// Every file `mlb accept` reads that once had no bound, as `/dev/zero`
/// (through a link), a FIFO and a 50 GB file: each is refused at once,
/// exit status 2, naming the file and why.
#[test]
fn the_files_accept_reads_are_bounded() {
    let site = site();
    let dir = site.path();
    assert_eq!(mlb(dir, &accept_args("acceptance.json")).status.code(), Some(0));
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero")).unwrap();
    nix::unistd::mkfifo(&dir.join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    std::fs::File::create(dir.join("huge")).unwrap().set_len(50 << 30).unwrap();
    for hostile in ["zero", "fifo", "huge"] {
        let rules = ["accept", "--reports", "delivery", "--targets", "targets/H100.csv", "--rules", hostile];
        let key = [&accept_args("acceptance.json")[..], &["--sign", hostile]].concat();
        let cases: [(&str, &[&str]); 4] = [
            ("--verify", &["accept", "--verify", hostile]),
            ("--allowed-signers", &["accept", "--verify", "acceptance.json", "--allowed-signers", hostile]),
            ("--rules", &rules),
            ("--sign", &key),
        ];
        for (option, args) in cases {
            let (code, text, took) = mlb_bounded(dir, args);
            assert_eq!(code, Some(2), "{option} {hostile}: refused, not {code:?} after {took:?}: {text}");
            assert!(took < Duration::from_secs(10), "{option} {hostile}: at once ({took:?})");
            assert!(text.contains(hostile), "{option} {hostile}: names the file: {text}");
            let why = ["not a regular file", "over the limit", "a symbolic link", "a FIFO"];
            assert!(why.iter().any(|w| text.contains(w)), "{option} {hostile}: says why: {text}");
        }
    }
    // The signature beside the record, too: not read, so not good.
    for hostile in ["zero", "fifo"] {
        let _ = std::fs::remove_file(dir.join("acceptance.json.sig"));
        std::fs::rename(dir.join(hostile), dir.join("acceptance.json.sig")).unwrap();
        let (code, text, took) = mlb_bounded(dir, &["accept", "--verify", "acceptance.json"]);
        assert!(code == Some(1) && took < Duration::from_secs(10), "{hostile}: {code:?} {took:?}: {text}");
        assert!(text.contains("signature: BAD: cannot read acceptance.json.sig"), "{hostile}: {text}");
    }
}
