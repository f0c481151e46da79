//! The acceptance record: `mlb accept --record FILE [--sign KEY]` and
//! `mlb accept --verify FILE [--allowed-signers FILE]`, the real binary on
//! report folders written as `mlb worker` writes them. Signatures are
//! checked by the real `ssh-keygen -Y verify` (OpenSSH's client).

use crate::common::records::{write_report, Run};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const H100: &str = "NVIDIA H100 80GB HBM3";

/// `mlb ARGS` in the folder `dir` (paths as a user gives them), with no
/// target folder of the machine's user read.
pub(crate) fn mlb(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", dir)
        .env("HOME", dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `ssh-keygen ARGS`, with `stdin` on its standard input.
pub(crate) fn ssh_keygen(dir: &Path, args: &[&str], stdin: Option<&Path>) -> Output {
    let mut command = Command::new("ssh-keygen");
    command.args(args).current_dir(dir);
    if let Some(file) = stdin {
        command.stdin(std::fs::File::open(dir.join(file)).unwrap());
    } else {
        command.stdin(Stdio::null());
    }
    command.output().expect("ssh-keygen runs (it is OpenSSH's client: apt-get install openssh-client)")
}

/// `ssh-keygen -Y verify` of `record` and `record.sig` in `dir`, as
/// `alice@site` of `allowed_signers`, in mlb's namespace.
fn ssh_keygen_verify(dir: &Path, record: &str) -> Output {
    let sig = format!("{record}.sig");
    let args = ["-Y", "verify", "-f", "allowed_signers", "-I", "alice@site", "-n", "mlb-acceptance", "-s", &sig];
    ssh_keygen(dir, &args, Some(Path::new(record)))
}

/// The record `name` in `dir`, parsed.
pub(crate) fn read_record(dir: &Path, name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

/// A new ed25519 key `name` in `dir` (no passphrase) and an allowed signers
/// file `allowed_signers` naming it `alice@site` for mlb's namespace.
pub(crate) fn key(dir: &Path, name: &str) {
    let made = ssh_keygen(dir, &["-q", "-t", "ed25519", "-N", "", "-C", "alice@laptop", "-f", name], None);
    assert!(made.status.success(), "{}", stderr(&made));
    let public = std::fs::read_to_string(dir.join(format!("{name}.pub"))).unwrap();
    std::fs::write(dir.join("allowed_signers"), format!("alice@site namespaces=\"mlb-acceptance\" {public}")).unwrap();
}

/// A run of three GPUs on one node, convnet and vae, at `factor` times the
/// vendor's throughput (GPU 1 and 2 a little faster than GPU 0), and GPU 2
/// of convnet `slow` times as fast as that, into `dir`.
pub(crate) fn run(dir: &Path, factor: f64, slow: f64) {
    for (bench, base) in [("convnet", 200.0), ("vae", 7000.0)] {
        for gpu in 0..3u64 {
            let vcd = gpu.to_string();
            let slowed = if bench == "convnet" && gpu == 2 { slow } else { 1.0 };
            let speed = base * factor * (1.0 + 0.01 * gpu as f64) * slowed;
            write_report(
                dir,
                &Run { suite: "fast", bench, run: gpu, vcd: &vcd, items_per_sec: speed, gpu: Some(H100) },
            );
        }
    }
}

/// A folder with the run `delivery/`, its target table and a rules file
/// (every GPU at least 0.9 of the best, throughput at least 0.9 of target).
pub(crate) fn site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    run(&dir.path().join("delivery"), 1.0, 1.0);
    std::fs::create_dir(dir.path().join("targets")).unwrap();
    std::fs::write(
        dir.path().join("targets/H100.csv"),
        "bench,target,perf_target,sd_target\nconvnet,200,0.9,0.05\nvae,7000,0.9,0.05\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("delivery.yaml"),
        "rules:\n  - kind: throughput\n    min: 0.9\n  - kind: per_gpu\n    min: 0.9\n",
    )
    .unwrap();
    dir
}

/// The arguments of `mlb accept` on the site's delivery, recorded to `record`.
pub(crate) fn accept_args(record: &str) -> Vec<&str> {
    vec![
        "accept",
        "--reports",
        "delivery",
        "--rules",
        "delivery.yaml",
        "--targets",
        "targets/H100.csv",
        "--record",
        record,
    ]
}

/// The report of `bench` on `gpu` in the site's delivery, written with
/// `items_per_sec` (a forger's rewrite) when given; its path.
fn report_of(dir: &Path, bench: &str, gpu: u64, items_per_sec: Option<f64>) -> PathBuf {
    let vcd = gpu.to_string();
    let r =
        Run { suite: "fast", bench, run: gpu, vcd: &vcd, items_per_sec: items_per_sec.unwrap_or(1.0), gpu: Some(H100) };
    match items_per_sec {
        Some(_) => write_report(&dir.join("delivery"), &r),
        None => dir.join("delivery").join(crate::common::records::file_name(&r)),
    }
}

fn sha256(path: &Path) -> String {
    format!("{:x}", Sha256::digest(std::fs::read(path).unwrap()))
}

/// Whether `out` of `--verify` found the record as computed again, but
/// could not vouch for it: unsigned, exit status 1.
fn unsigned_and_unchanged(out: &Output) -> bool {
    let text = stdout(out);
    out.status.code() == Some(1)
        && text.contains("signature: unsigned: nothing proves it unchanged")
        && text.ends_with("result: NOT VERIFIED: the files and verdicts are as recorded, but the record is unsigned\n")
}

#[test]
fn the_record_lists_every_input_with_its_hash_relative_to_itself_and_every_verdict() {
    let site = site();
    let dir = site.path();
    let out = mlb(dir, &accept_args("acceptance.json"));
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("record: acceptance.json ("), "{}", stdout(&out));
    let path = dir.join("acceptance.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o644);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(dir.to_str().unwrap()), "no absolute path of the host: {text}");
    let record: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(record["schema"], 1);
    assert_eq!(record["mlb_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(record["accepted"], true);
    assert_eq!(record["signer"], Value::Null);
    assert_eq!(record["request"]["reports"], "delivery");
    assert_eq!(record["request"]["rules"], "delivery.yaml");
    assert_eq!(record["request"]["targets"], "targets/H100.csv");
    let inputs = record["inputs"].as_array().unwrap();
    let roles: Vec<&str> = inputs.iter().map(|i| i["role"].as_str().unwrap()).collect();
    assert_eq!(roles.iter().filter(|r| **r == "report").count(), 6, "{roles:?}");
    assert!(roles.contains(&"rules") && roles.contains(&"targets"), "{roles:?}");
    for input in inputs {
        let file = dir.join(input["path"].as_str().unwrap());
        assert_eq!(input["sha256"], sha256(&file), "{input}");
        assert_eq!(input["size"], std::fs::metadata(&file).unwrap().len(), "{input}");
    }
    let verdicts = record["verdicts"].as_array().unwrap();
    assert!(verdicts.iter().any(|v| v["kind"] == "per_gpu" && v["subject"]["gpu"] == "2"), "{verdicts:?}");
    assert!(verdicts.iter().all(|v| v["outcome"] == "pass"), "{verdicts:?}");

    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    assert!(stdout(&verified).contains("inputs: 8 unchanged, 0 changed, 0 added, 0 removed"), "{}", stdout(&verified));
    assert!(unsigned_and_unchanged(&verified), "{}{}", stdout(&verified), stderr(&verified));
    // From another working folder, the record still finds its inputs.
    let elsewhere = mlb(&dir.join("targets"), &["accept", "--verify", "../acceptance.json"]);
    assert!(unsigned_and_unchanged(&elsewhere), "{}", stdout(&elsewhere));

    // A record in a folder that does not hold its inputs is refused: --verify
    // reads nothing outside the record's folder.
    std::fs::create_dir(dir.join("archive")).unwrap();
    let out = mlb(dir, &accept_args("archive/acceptance.json"));
    assert_eq!(out.status.code(), Some(2), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("the record archive/acceptance.json would not be in a folder holding the input delivery"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("archive/acceptance.json").exists());
}

#[test]
fn a_failed_acceptance_is_recorded_and_the_exit_status_is_the_verdicts() {
    let site = site();
    let dir = site.path();
    std::fs::remove_dir_all(dir.join("delivery")).unwrap();
    run(&dir.join("delivery"), 1.0, 0.7);
    let out = mlb(dir, &accept_args("acceptance.json"));
    assert_eq!(out.status.code(), Some(1), "{}{}", stdout(&out), stderr(&out));
    let record = read_record(dir, "acceptance.json");
    assert_eq!(record["accepted"], false);
    let failed: Vec<&Value> =
        record["verdicts"].as_array().unwrap().iter().filter(|v| v["outcome"] == "fail").collect();
    assert!(failed.iter().any(|v| v["kind"] == "per_gpu" && v["subject"]["gpu"] == "2"), "{failed:?}");
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    assert!(unsigned_and_unchanged(&verified), "a failed acceptance found unchanged: {}", stdout(&verified));
}

#[test]
fn a_tampered_report_is_named_with_the_verdicts_it_changed() {
    let site = site();
    let dir = site.path();
    std::fs::remove_dir_all(dir.join("delivery")).unwrap();
    run(&dir.join("delivery"), 1.0, 0.7);
    assert_eq!(mlb(dir, &accept_args("acceptance.json")).status.code(), Some(1));
    let forged = report_of(dir, "convnet", 2, Some(200.0));
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(1), "{text}{}", stderr(&verified));
    let name = format!("delivery/{}", forged.file_name().unwrap().to_str().unwrap());
    assert!(text.contains("inputs: 7 unchanged, 1 changed, 0 added, 0 removed"), "{text}");
    assert!(text.contains(&format!("  changed  report {name} (sha256 ")), "{text}");
    let line =
        text.lines().find(|l| l.contains("changed  per_gpu#2 convnet gpu 2")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("FAIL -> pass"), "{line}");
    assert!(text.ends_with("result: CHANGED since the record was written\n"), "{text}");

    // A report put into the folder, and one taken away, are named too.
    let vcd = "3";
    let added = write_report(
        &dir.join("delivery"),
        &Run { suite: "fast", bench: "vae", run: 3, vcd, items_per_sec: 7000.0, gpu: Some(H100) },
    );
    std::fs::remove_file(report_of(dir, "vae", 0, None)).unwrap();
    let text = stdout(&mlb(dir, &["accept", "--verify", "acceptance.json"]));
    assert!(
        text.contains(&format!("  added    report delivery/{}\n", added.file_name().unwrap().to_str().unwrap())),
        "{text}"
    );
    let removed = report_of(dir, "vae", 0, None);
    assert!(
        text.contains(&format!("  removed  report delivery/{}\n", removed.file_name().unwrap().to_str().unwrap())),
        "{text}"
    );
}

#[test]
fn a_tampered_rules_file_is_named() {
    let site = site();
    let dir = site.path();
    assert_eq!(mlb(dir, &accept_args("acceptance.json")).status.code(), Some(0));
    std::fs::write(
        dir.join("delivery.yaml"),
        "rules:\n  - kind: throughput\n    min: 0.5\n  - kind: per_gpu\n    min: 0.9\n",
    )
    .unwrap();
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(1), "{text}{}", stderr(&verified));
    assert!(text.contains("  changed  rules delivery.yaml (sha256 "), "{text}");
    assert!(text.contains("changed  throughput#1 convnet"), "the bound changed: {text}");

    // A rules file gone: the verdicts cannot be computed again, and it says so.
    std::fs::remove_file(dir.join("delivery.yaml")).unwrap();
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(1), "{text}{}", stderr(&verified));
    assert!(text.contains("  removed  rules delivery.yaml\n"), "{text}");
    assert!(text.contains("verdicts: not computed again: "), "{text}");
}

#[test]
fn a_signed_record_is_accepted_by_ssh_keygen_and_verify_and_a_tampered_one_by_neither() {
    let site = site();
    let dir = site.path();
    key(dir, "acceptance_key");
    let out = mlb(dir, &[&accept_args("acceptance.json")[..], &["--sign", "acceptance_key"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("signature: acceptance.json.sig (key SHA256:"), "{}", stdout(&out));
    let sig = std::fs::read_to_string(dir.join("acceptance.json.sig")).unwrap();
    assert!(sig.starts_with("-----BEGIN SSH SIGNATURE-----\n"), "{sig}");
    let record = read_record(dir, "acceptance.json");
    assert!(record["signer"].as_str().unwrap().starts_with("SHA256:"), "{record}");

    let checked = ssh_keygen_verify(dir, "acceptance.json");
    assert!(checked.status.success(), "ssh-keygen refused: {}{}", stdout(&checked), stderr(&checked));
    assert!(stdout(&checked).contains("Good \"mlb-acceptance\" signature for alice@site"), "{}", stdout(&checked));
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json", "--allowed-signers", "allowed_signers"]);
    assert_eq!(verified.status.code(), Some(0), "{}{}", stdout(&verified), stderr(&verified));
    assert!(stdout(&verified).contains("signature: good, by alice@site (key SHA256:"), "{}", stdout(&verified));
    let by_key_file = mlb(dir, &["accept", "--verify", "acceptance.json", "--allowed-signers", "acceptance_key.pub"]);
    assert!(stdout(&by_key_file).contains("signature: good, by alice@laptop"), "{}", stdout(&by_key_file));

    // The record tampered with: its date moved by a digit.
    let text = std::fs::read_to_string(dir.join("acceptance.json")).unwrap();
    std::fs::write(dir.join("acceptance.json"), text.replacen("\"written\": \"", "\"written\": \"1", 1)).unwrap();
    assert!(!ssh_keygen_verify(dir, "acceptance.json").status.success(), "ssh-keygen accepted a tampered record");
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json", "--allowed-signers", "allowed_signers"]);
    assert_eq!(verified.status.code(), Some(1), "{}{}", stdout(&verified), stderr(&verified));
    assert!(stdout(&verified).contains("signature: BAD: does not match the record"), "{}", stdout(&verified));

    // The signature taken away from a signed record is missed.
    std::fs::write(dir.join("acceptance.json"), &text).unwrap();
    std::fs::remove_file(dir.join("acceptance.json.sig")).unwrap();
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    assert_eq!(verified.status.code(), Some(1), "{}", stdout(&verified));
    assert!(stdout(&verified).contains("signature: MISSING"), "{}", stdout(&verified));
}

#[test]
fn a_record_signed_by_hand_with_ssh_keygen_is_checked_by_verify() {
    let site = site();
    let dir = site.path();
    key(dir, "acceptance_key");
    assert_eq!(mlb(dir, &accept_args("acceptance.json")).status.code(), Some(0));
    let signed =
        ssh_keygen(dir, &["-Y", "sign", "-f", "acceptance_key", "-n", "mlb-acceptance", "acceptance.json"], None);
    assert!(signed.status.success(), "{}", stderr(&signed));
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json", "--allowed-signers", "allowed_signers"]);
    assert_eq!(verified.status.code(), Some(0), "{}{}", stdout(&verified), stderr(&verified));
    assert!(stdout(&verified).contains("signature: good, by alice@site"), "{}", stdout(&verified));
    // Another namespace (a git commit signature) is no signed record.
    std::fs::remove_file(dir.join("acceptance.json.sig")).unwrap();
    let signed = ssh_keygen(dir, &["-Y", "sign", "-f", "acceptance_key", "-n", "git", "acceptance.json"], None);
    assert!(signed.status.success(), "{}", stderr(&signed));
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    assert_eq!(verified.status.code(), Some(1), "{}", stdout(&verified));
    assert!(stdout(&verified).contains("signature: BAD: made for the namespace `git`"), "{}", stdout(&verified));
}

#[test]
fn keys_that_cannot_sign_and_records_inside_the_reports_are_refused_with_nothing_written() {
    let site = site();
    let dir = site.path();
    let made = ssh_keygen(dir, &["-q", "-t", "ed25519", "-N", "secret", "-C", "", "-f", "locked_key"], None);
    assert!(made.status.success(), "{}", stderr(&made));
    let out = mlb(dir, &[&accept_args("acceptance.json")[..], &["--sign", "locked_key"]].concat());
    assert_eq!(out.status.code(), Some(2), "{}{}", stdout(&out), stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("the signing key locked_key is encrypted with a passphrase"), "{err}");
    assert!(err.contains("fix: ") && err.contains("ssh-keygen -Y sign -f locked_key -n mlb-acceptance FILE"), "{err}");
    assert!(!dir.join("acceptance.json").exists() && !dir.join("acceptance.json.sig").exists());

    let made = ssh_keygen(dir, &["-q", "-t", "ecdsa", "-N", "", "-C", "", "-f", "ecdsa_key"], None);
    assert!(made.status.success(), "{}", stderr(&made));
    let out = mlb(dir, &[&accept_args("acceptance.json")[..], &["--sign", "ecdsa_key"]].concat());
    assert_eq!(out.status.code(), Some(2), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains(
            "the signing key ecdsa_key is not an ed25519 key (ecdsa-sha2-nistp256); mlb signs with ed25519 keys"
        ),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("ssh-keygen -t ed25519"), "{}", stderr(&out));
    assert!(!dir.join("acceptance.json").exists());

    let rules = std::fs::read(dir.join("delivery.yaml")).unwrap();
    let out = mlb(dir, &accept_args("./delivery.yaml"));
    assert_eq!(out.status.code(), Some(2), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("the record ./delivery.yaml would replace the input delivery.yaml"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(dir.join("delivery.yaml")).unwrap(), rules);

    let out = mlb(dir, &accept_args("delivery/acceptance.json"));
    assert_eq!(out.status.code(), Some(2), "{}{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("would be inside the reports folder delivery"), "{}", stderr(&out));
    assert!(!dir.join("delivery/acceptance.json").exists());

    let out = mlb(dir, &["accept", "--reports", "delivery", "--sign", "locked_key"]);
    assert_eq!(out.status.code(), Some(2), "--sign needs --record: {}", stderr(&out));
    let out = mlb(dir, &["accept", "--verify", "acceptance.json", "--reports", "delivery"]);
    assert_eq!(out.status.code(), Some(2), "--verify takes the request from the record: {}", stderr(&out));
    let out = mlb(dir, &["accept"]);
    assert_eq!(out.status.code(), Some(2), "--reports or --verify: {}", stderr(&out));
}

#[test]
fn a_record_that_cannot_be_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = mlb(dir.path(), &["accept", "--verify", "none.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot read the acceptance record none.json"), "{}", stderr(&out));
    std::fs::write(dir.path().join("report.json"), "{\"bench\": \"convnet\"}").unwrap();
    let out = mlb(dir.path(), &["accept", "--verify", "report.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("report.json is not an acceptance record: it has no `schema` number"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("fix: pass the acceptance.json that `mlb accept --record FILE` wrote"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_procurement_walk_through_of_the_docs() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    key(dir, "acceptance_key");
    // 1. The vendor's run; 2. targets derived from it.
    run(&dir.join("vendor-h100"), 1.0, 1.0);
    let derive =
        ["targets", "derive", "--reports", "vendor-h100", "--gpu-model", "H100", "--output", "targets/H100.csv"];
    let out = mlb(dir, &derive);
    assert!(out.status.success(), "{}", stderr(&out));
    // 3. The delivery check at 90%, recorded and signed.
    std::fs::write(
        dir.join("delivery.yaml"),
        "rules:\n  - kind: throughput\n    min: 0.9\n  - kind: failures\n    max: 0\n  - kind: per_gpu\n    min: 0.95\n",
    )
    .unwrap();
    run(&dir.join("delivery"), 0.97, 1.0);
    let delivery = "accept --reports delivery --rules delivery.yaml --targets targets/H100.csv \
                    --record delivery-acceptance.json --sign acceptance_key";
    let out = mlb(dir, &delivery.split_whitespace().collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    // 4. Two years later, against the installation run at 90%: a slower
    // run fails, and the record names the baseline's files.
    std::fs::write(
        dir.join("revalidation.yaml"),
        "rules:\n  - kind: baseline\n    min: 0.9\n  - kind: failures\n    max: 0\n",
    )
    .unwrap();
    run(&dir.join("revalidation-2028"), 0.6, 1.0);
    let revalidation = "accept --reports revalidation-2028 --rules revalidation.yaml --baseline delivery \
                        --record revalidation-2028-acceptance.json --sign acceptance_key";
    let out = mlb(dir, &revalidation.split_whitespace().collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1), "{}{}", stdout(&out), stderr(&out));
    let record = read_record(dir, "revalidation-2028-acceptance.json");
    let roles: Vec<&str> = record["inputs"].as_array().unwrap().iter().map(|i| i["role"].as_str().unwrap()).collect();
    assert_eq!(roles.iter().filter(|r| **r == "baseline_report").count(), 6, "{roles:?}");
    assert!(record["verdicts"].as_array().unwrap().iter().any(|v| v["kind"] == "baseline" && v["outcome"] == "fail"));
    // The installation's record still holds: the baseline is the one accepted.
    for record in ["delivery-acceptance.json", "revalidation-2028-acceptance.json"] {
        let verified = mlb(dir, &["accept", "--verify", record, "--allowed-signers", "allowed_signers"]);
        assert_eq!(verified.status.code(), Some(0), "{record}: {}{}", stdout(&verified), stderr(&verified));
        let checked = ssh_keygen_verify(dir, record);
        assert!(checked.status.success(), "{record}: {}", stderr(&checked));
    }
}

#[test]
fn the_suite_asked_for_is_recorded_and_verified_with() {
    let site = site();
    let dir = site.path();
    // Reports of another suite in the same folder, with a slow GPU.
    for gpu in 0..3u64 {
        let vcd = gpu.to_string();
        let speed = if gpu == 2 { 100.0 } else { 200.0 };
        let r = Run { suite: "other", bench: "convnet", run: gpu, vcd: &vcd, items_per_sec: speed, gpu: Some(H100) };
        write_report(&dir.join("delivery"), &r);
    }
    let out = mlb(dir, &[&accept_args("acceptance.json")[..], &["--suite", "fast"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let record = read_record(dir, "acceptance.json");
    assert_eq!(record["request"]["suite"], "fast");
    let verified = mlb(dir, &["accept", "--verify", "acceptance.json"]);
    assert!(unsigned_and_unchanged(&verified), "{}{}", stdout(&verified), stderr(&verified));
}
