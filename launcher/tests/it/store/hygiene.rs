//! The store's hygiene: a query makes no store; a path that is no store
//! file is refused at once; one folder reached by two names is one run;
//! system names are printable and bounded, can be renamed and removed, and
//! an import of reports naming no host is one system; benches that share
//! their arguments are exported apart.

use super::backend::{import, on_both, Kind, TestStore};
use crate::report_gen;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

on_both!(systems_are_renamed_and_removed, benches_sharing_their_arguments_are_exported_apart);

fn mlb(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(crate::common::mlb()).args(args).output().unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    (out.status.code(), stdout, stderr)
}

/// A report of `bench` on device `vcd` at `items` items/s, with the
/// arguments every bench of the original suite shares.
fn report(dir: &Path, bench: &str, vcd: usize, items: f64) {
    std::fs::create_dir_all(dir).unwrap();
    let r = serde_json::json!({
        "name": bench, "suite": "s", "vcd": vcd.to_string(), "run_id": 0, "completed": true, "hostname": "n1",
        "batch_size": 64, "number": 5, "repeat": 30,
        "train_item": {"avg": items, "unit": "items/sec"}, "batch_loss": [2.0, 1.0],
    });
    std::fs::write(dir.join(format!("s.{bench}.R0.D{vcd}.json")), r.to_string()).unwrap();
}

#[test]
fn a_query_of_a_store_not_there_makes_none() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("mistyped.db");
    let url = format!("sqlite:{}", missing.display());
    for args in [
        &["runs"][..],
        &["systems"],
        &["compare", "--systems", "A"],
        &["export", "--format", "csv"],
        &["remove-system", "A"],
    ] {
        let sub = args[0];
        let (code, _, stderr) = mlb(&[&["db"], args, &["--db", &url]].concat());
        assert_eq!(code, Some(2), "{sub}: {stderr}");
        assert!(stderr.contains(&format!("no store at {}", missing.display())), "{sub}: {stderr}");
        assert!(stderr.contains("mlb db import"), "the fix: {stderr}");
        assert!(!missing.exists(), "{sub} made a store");
    }
}

#[test]
fn a_store_path_that_is_no_store_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    report(&reports, "vae", 0, 1.0);
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "a text file, not a store\n".repeat(100)).unwrap();
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap();
    let cases = [
        (dir.path().join("notes.txt"), "is not an mlb store (not an SQLite database)"),
        (Path::new("/dev/null").to_path_buf(), "is not a regular file"),
        (fifo.clone(), "is not a regular file"),
        (dir.path().to_path_buf(), "is not a regular file"),
    ];
    for (path, says) in &cases {
        let url = format!("sqlite:{}", path.display());
        for args in [vec!["db", "import", reports.to_str().unwrap(), "--db", &url], vec!["db", "runs", "--db", &url]] {
            let start = Instant::now();
            let (code, _, stderr) = mlb(&args);
            assert!(start.elapsed() < Duration::from_secs(5), "{args:?}: refused at once");
            assert_eq!(code, Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains(says) && stderr.contains(&path.display().to_string()), "{args:?}: {stderr}");
        }
    }
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "a text file, not a store\n".repeat(100));
    let around: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(around.len(), 3, "no journal made beside them: {around:?}");
}

#[test]
fn one_folder_reached_by_two_names_is_one_run() {
    let store = TestStore::new(Kind::Sqlite);
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("a/b");
    for run in 0..20 {
        for vcd in 0..8 {
            report(&real.join(format!("run{run}")), "vae", vcd, run as f64);
        }
    }
    std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("link")).unwrap();
    // Two imports at once, by two names of the same folders.
    let import_by = |name: &str| {
        let mut command = Command::new(crate::common::mlb());
        command.args(["db", "import", "--db", &store.url, "--system", "lab"]).arg(dir.path().join(name));
        command
    };
    let (mut a, mut b) = (import_by("link/b"), import_by("a/./b"));
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| a.output().unwrap());
        let b = s.spawn(|| b.output().unwrap());
        (a.join().unwrap(), b.join().unwrap())
    });
    assert!(a.status.success() && b.status.success(), "{:?}\n{:?}", crate::common::text(&a), crate::common::text(&b));
    for name in ["a/b", "link/b", "a/b/../b"] {
        let (code, _, stderr) = import(&store, &[dir.path().join(name).to_str().unwrap(), "--system", "lab"]);
        assert_eq!(code, Some(0), "{stderr}");
    }
    assert_eq!(store.count("SELECT COUNT(*) FROM runs"), 20);
    assert_eq!(
        store.count("SELECT COUNT(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM instances i WHERE i.run_id = r.id)"),
        0
    );
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), 160);
}

#[test]
fn system_names_are_printable_and_bounded() {
    let store = TestStore::new(Kind::Sqlite);
    let dir = tempfile::tempdir().unwrap();
    report(dir.path(), "vae", 0, 1.0);
    let folder = dir.path().display().to_string();
    let long = "x".repeat(100_000);
    for bad in ["a\nb", "\u{1b}[31mred", "tab\there", long.as_str(), ""] {
        let (code, _, stderr) = import(&store, &[&folder, "--system", bad]);
        assert_eq!(code, Some(2), "{bad:?}: {stderr}");
        assert!(stderr.contains("--system"), "{stderr}");
    }
    assert_eq!(store.count("SELECT COUNT(*) FROM systems"), 0);
    // A host name a report gives is made printable.
    let hostile = dir.path().join("hostile");
    std::fs::create_dir(&hostile).unwrap();
    let r = serde_json::json!({"name": "vae", "vcd": "0", "hostname": "n1\u{1b}[2J\nx", "train_item": {"avg": 1.0}});
    std::fs::write(hostile.join("r.json"), r.to_string()).unwrap();
    assert_eq!(import(&store, &[hostile.to_str().unwrap()]).0, Some(0));
    let names = store.texts("SELECT name FROM systems", &[]);
    assert_eq!(names, [[Some("n1\u{FFFD}[2J\u{FFFD}x".to_string())]]);
}

#[test]
fn reports_naming_no_host_are_one_system_of_the_import() {
    let store = TestStore::new(Kind::Sqlite);
    let dir = tempfile::tempdir().unwrap();
    let campaign = dir.path().join("lab-7");
    report_gen::write_campaign(&campaign, report_gen::CAMPAIGN.len() * 8 * 3);
    let (code, stdout, stderr) = import(&store, &[campaign.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert_eq!(store.count("SELECT COUNT(*) FROM runs"), 3);
    assert_eq!(store.texts("SELECT name FROM systems", &[]), [[Some("lab-7".to_string())]]);
}

fn systems_are_renamed_and_removed(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    report(&dir.path().join("a"), "vae", 0, 1.0);
    report(&dir.path().join("b"), "vae", 0, 2.0);
    report(&dir.path().join("c"), "vae", 0, 3.0);
    for (run, name) in [("a", "old"), ("b", "new"), ("c", "other")] {
        let (code, _, stderr) = import(&store, &[dir.path().join(run).to_str().unwrap(), "--system", name]);
        assert_eq!(code, Some(0), "{stderr}");
    }
    let db = |args: &[&str]| mlb(&[&["db"], args, &["--db", &store.url]].concat());
    let (code, stdout, stderr) = db(&["rename-system", "old", "renamed"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("renamed the system `old` to `renamed`"), "{stdout}");
    let names = || store.texts("SELECT DISTINCT name FROM systems ORDER BY name", &[]);
    let want = |n: &[&str]| n.iter().map(|s| vec![Some(s.to_string())]).collect::<Vec<_>>();
    assert_eq!(names(), want(&["new", "other", "renamed"]));
    // Onto a name taken: the two are one system.
    assert_eq!(db(&["rename-system", "renamed", "new"]).0, Some(0));
    assert_eq!(names(), want(&["new", "other"]));
    assert_eq!(store.count("SELECT COUNT(*) FROM runs"), 3);
    // Importing again under the new name adds nothing.
    let (_, stdout, _) = import(&store, &[dir.path().join("a").to_str().unwrap(), "--system", "new"]);
    assert!(stdout.starts_with("imported 0 reports"), "{stdout}");
    assert_eq!(store.count("SELECT COUNT(*) FROM systems"), 2);
    let (code, stdout, stderr) = db(&["remove-system", "new"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("removed the system `new`: 2 runs"), "{stdout}");
    assert_eq!(names(), want(&["other"]));
    assert_eq!(store.count("SELECT COUNT(*) FROM instances"), 1);
    assert_eq!(store.count("SELECT COUNT(*) FROM metrics WHERE instance_id NOT IN (SELECT id FROM instances)"), 0);
    for args in [&["remove-system", "nope"][..], &["rename-system", "nope", "x"], &["rename-system", "other", "a\nb"]] {
        let (code, _, stderr) = db(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
    }
    assert_eq!(names(), want(&["other"]));
}

fn benches_sharing_their_arguments_are_exported_apart(kind: Kind) {
    let store = TestStore::new(kind);
    let dir = tempfile::tempdir().unwrap();
    for (bench, items) in [("atari", 10.0), ("cart", 1000.0), ("convnet_fp16", 1405.0)] {
        report(dir.path(), bench, 0, items);
    }
    assert_eq!(import(&store, &[dir.path().to_str().unwrap(), "--system", "A"]).0, Some(0));
    let (code, stdout, stderr) = mlb(&["db", "export", "--db", &store.url, "--to", "bencher"]);
    assert_eq!(code, Some(0), "{stderr}");
    let bmf: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let benchmarks = bmf.as_object().unwrap();
    assert_eq!(benchmarks.len(), 3, "{stdout}");
    for (bench, items) in [("atari", 10.0), ("cart", 1000.0), ("convnet_fp16", 1405.0)] {
        let (key, b) = benchmarks.iter().find(|(k, _)| k.starts_with(&format!("{bench} "))).expect(bench);
        assert!(key.contains("64"), "{key}");
        assert_eq!(b["throughput"]["value"], items, "{key}");
    }
}

#[test]
fn the_csv_export_goes_out_a_piece_at_a_time() {
    use mlb::store::query::export::{ExportFormat, ExportOptions};
    let store = TestStore::new(Kind::Sqlite);
    let dir = tempfile::tempdir().unwrap();
    let reports = super::backend::write_runs(dir.path(), 4, 500);
    assert_eq!(import(&store, &[dir.path().to_str().unwrap()]).0, Some(0));
    let args = ExportOptions { format: ExportFormat::Csv, run: None, filters: Default::default() };
    let mut pieces: Vec<String> = Vec::new();
    let opened = store.open();
    mlb::store::query::export::export(&opened, &args, &mut |text| {
        pieces.push(text.to_string());
        Ok(())
    })
    .unwrap();
    // 10 metrics a report, about 2 MB: out in pieces of about 64 KiB, never held whole.
    let text = pieces.concat();
    assert_eq!(text.lines().count(), 1 + reports * 10);
    assert!(pieces.len() > 20, "{} pieces", pieces.len());
    assert!(pieces.iter().all(|p| p.len() < 65 * 1024), "{:?}", pieces.iter().map(String::len).max());
}
