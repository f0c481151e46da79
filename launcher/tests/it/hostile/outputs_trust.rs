//! What a report's author could do to the host that reads the report, through
//! mlb's outputs: every output flag renamed a temporary file over whatever
//! was at its path (as root, `--html /dev/null` replaced the null device;
//! a link was replaced or followed); a bench name holding a comma and a line
//! break planted a row in a derived target table, which then passed a run at
//! 0.5 items/s; names went raw into CSV cells (a formula for a spreadsheet)
//! and onto the terminal (an escape sequence that set its title, cleared its
//! screen). Each is refused, written into, quoted or escaped now.

use crate::common::launcher::{root_or_skip, wait_within};
use crate::common::text;
use crate::store::backend::{import, Kind, TestStore};
use serde_json::json;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// One report of `bench` on device `vcd` at `items` items/s (a number, or
/// the original's `NaN`, `Infinity`, `-Infinity` tokens), in `dir`.
fn report(dir: &Path, bench: &str, vcd: usize, items: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let r = json!({
        "name": bench, "suite": "s", "vcd": vcd.to_string(), "run_id": 0, "completed": true,
        "hostname": "host-a", "gpu": "Model X", "start_time": "2026-01-02T03:04:05Z", "batch_size": 64,
        "train_item": {"avg": "@AVG@", "unit": "items/sec"}, "batch_loss": [1.0, 0.5],
    });
    let text = r.to_string().replace("\"@AVG@\"", items);
    let n = std::fs::read_dir(dir).unwrap().count();
    std::fs::write(dir.join(format!("s.b{n}.R0.D{vcd}.20260102-030405-000000.json")), text).unwrap();
}

/// Two reports (a spread) of each of `benches` in `dir`, at 100 and 110 items/s.
fn run_of(dir: &Path, benches: &[&str]) {
    for bench in benches {
        report(dir, bench, 0, "100.0");
        report(dir, bench, 1, "110.0");
    }
}

/// `mlb ARGS` with no user or site folder of this machine read.
fn mlb(home: &Path, args: &[&str]) -> Output {
    Command::new(crate::common::mlb())
        .args(args)
        .env("XDG_CONFIG_HOME", home)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// A reports folder, a store holding it as system `A`, a target table of its
/// benches, and a home: what every output flag needs.
struct Scene {
    dir: tempfile::TempDir,
    store: TestStore,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        run_of(&dir.path().join("run"), &["vae", "wlm"]);
        std::fs::write(
            dir.path().join("t.csv"),
            "bench,target,perf_target,sd_target\nvae,100,0.5,0.5\nwlm,100,0.5,0.5\n",
        )
        .unwrap();
        let store = TestStore::new(Kind::Sqlite);
        let (code, out, err) = import(&store, &[dir.path().join("run").to_str().unwrap(), "--system", "A"]);
        assert_eq!(code, Some(0), "{out}\n{err}");
        Scene { dir, store }
    }

    fn path(&self, rel: &str) -> String {
        self.dir.path().join(rel).to_str().unwrap().to_string()
    }

    /// Every command with an output flag, writing to `target`.
    fn writers(&self, target: &str) -> Vec<Vec<String>> {
        let (run, table) = (self.path("run"), self.path("t.csv"));
        let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        vec![
            s(&["report", "--reports", &run, "--targets", &table, "--html", target]),
            s(&["report", "--reports", &run, "--write-rcp", target]),
            s(&["accept", "--reports", &run, "--targets", &table, "--output", target]),
            s(&["accept", "--reports", &run, "--targets", &table, "--record", target]),
            s(&["targets", "derive", "--reports", &run, "--gpu-model", "Model X", "--output", target]),
            s(&[
                "db",
                "history",
                "--db",
                &self.store.url,
                "--system",
                "A",
                "--bench",
                "vae",
                "--format",
                "html",
                "--output",
                target,
            ]),
            s(&["report", "--reports", &run, "--targets", &table, "--format", "html", "--output", target]),
            s(&["db", "runs", "--db", &self.store.url, "--output", target]),
        ]
    }
}

/// The names in `folder`, sorted.
fn listing(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(folder).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn a_link_at_an_output_path_is_refused_and_left_as_it_was() {
    let scene = Scene::new();
    let outside = tempfile::tempdir().unwrap();
    let kept = outside.path().join("kept");
    std::fs::write(&kept, "kept").unwrap();
    // In the folder of the inputs: `accept --record` writes nowhere else.
    let links = scene.dir.path();
    let link = links.join("out");
    std::os::unix::fs::symlink(&kept, &link).unwrap();
    let to_proc = links.join("proc");
    std::os::unix::fs::symlink("/proc/self/attr/current", &to_proc).unwrap();
    let before = listing(links);
    for target in [&link, &to_proc] {
        for args in scene.writers(target.to_str().unwrap()) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = mlb(scene.dir.path(), &args);
            let (stdout, stderr) = text(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?} refused:\n{stdout}\n{stderr}");
            assert!(
                stderr.contains("a symbolic link: mlb does not replace or follow it; name the file itself"),
                "{args:?}: {stderr}"
            );
            assert!(stderr.contains(target.to_str().unwrap()), "{args:?} names the path: {stderr}");
            assert!(std::fs::symlink_metadata(target).unwrap().file_type().is_symlink(), "{args:?}: still a link");
            assert_eq!(std::fs::read_to_string(&kept).unwrap(), "kept", "{args:?}: its target untouched");
            assert_eq!(listing(links), before, "{args:?}: nothing staged beside it");
        }
    }
}

#[test]
fn a_fifo_without_a_reader_is_an_error_at_once_and_a_folder_is_refused() {
    let scene = Scene::new();
    // In the folder of the inputs: `accept --record` writes nowhere else.
    let dir = scene.dir.path();
    let fifo = dir.join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let before = listing(dir);
    for args in scene.writers(fifo.to_str().unwrap()) {
        let mut child = Command::new(crate::common::mlb())
            .args(&args)
            .env("HOME", scene.dir.path())
            .env("XDG_CONFIG_HOME", scene.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let status = wait_within(&mut child, Duration::from_secs(20), "an output to a FIFO without a reader");
        let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("a FIFO that no process reads"), "{args:?}: {stderr}");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "{args:?}: still a FIFO");
        assert_eq!(listing(dir), before, "{args:?}: nothing staged beside it");
    }
    let folder = dir.join("folder");
    std::fs::create_dir(&folder).unwrap();
    for args in scene.writers(folder.to_str().unwrap()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = mlb(scene.dir.path(), &args);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("a folder: mlb writes only a regular file"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_fifo_with_a_reader_gets_the_output() {
    let scene = Scene::new();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    // The reader opens the FIFO, then mlb finds it read.
    std::thread::sleep(Duration::from_millis(200));
    let args = &scene.writers(fifo.to_str().unwrap())[2];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = mlb(scene.dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let page = reader.join().unwrap();
    assert!(page.contains("vae"), "the verdicts went through the FIFO: {page}");
    assert_eq!(listing(dir.path()), ["fifo"]);
}

/// A null device of its own (never the host's `/dev/null`), made with mknod.
fn null_device(dir: &Path) -> PathBuf {
    use nix::sys::stat::{makedev, mknod, Mode, SFlag};
    let node = dir.join("null");
    mknod(&node, SFlag::S_IFCHR, Mode::from_bits_truncate(0o666), makedev(1, 3)).unwrap();
    node
}

#[test]
fn a_device_at_an_output_path_is_written_into_never_replaced() {
    if !root_or_skip("a_device_at_an_output_path_is_written_into_never_replaced") {
        return;
    }
    let scene = Scene::new();
    // In the folder of the inputs: `accept --record` writes nowhere else.
    let dir = scene.dir.path();
    let node = null_device(dir);
    let listed = listing(dir);
    let rdev = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(p).unwrap();
        (meta.file_type().is_char_device(), meta.rdev())
    };
    let before = rdev(&node);
    assert!(before.0);
    for args in scene.writers(node.to_str().unwrap()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = mlb(scene.dir.path(), &args);
        let (stdout, stderr) = text(&out);
        if args.contains(&"--write-rcp") {
            // No run to quality here: refused after the device was found writable.
            assert!(stderr.contains("run to quality"), "{stderr}");
        } else {
            assert_eq!(out.status.code(), Some(0), "{args:?}:\n{stdout}\n{stderr}");
        }
        assert_eq!(rdev(&node), before, "{args:?}: the node is still the null device");
        assert_eq!(listing(dir), listed, "{args:?}: nothing staged beside it");
    }
}

/// Names a report's author may give a bench to forge a row, a comment, a
/// formula or an escape sequence.
const HOSTILE: [&str; 6] = [
    "convnet,0.000001,0.000001,100\nzzz",
    "# not a comment",
    "=HYPERLINK(\"http://x\")",
    "say \"hi\", twice",
    "@SUM(1)",
    "-2+3",
];

#[test]
fn a_derived_table_reads_back_as_derived_and_forges_no_row() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    run_of(&run, &HOSTILE);
    let table = dir.path().join("model-x.csv");
    let out = mlb(
        dir.path(),
        &[
            "targets",
            "derive",
            "--reports",
            run.to_str().unwrap(),
            "--gpu-model",
            "Model X",
            "--output",
            table.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("({} benches)", HOSTILE.len())), "{stdout}");
    let read = mlb::report::Targets::from_file(&table).unwrap();
    let names: Vec<&str> = read.benches.keys().map(String::as_str).collect();
    let mut want = HOSTILE.to_vec();
    want.sort();
    assert_eq!(names, want, "{}", std::fs::read_to_string(&table).unwrap());
    assert!(read.benches.values().all(|t| t.target == 105.0), "{read:?}");
    // The planted row would have passed a convnet run at 0.5 items/s.
    let slow = dir.path().join("slow");
    report(&slow, "convnet", 0, "0.5");
    report(&slow, "convnet", 1, "0.5");
    let out = mlb(dir.path(), &["accept", "--reports", slow.to_str().unwrap(), "--targets", table.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "convnet has no target, and fails:\n{stdout}\n{stderr}");
}

/// The cells of one CSV line as written (quotes removed, nothing else).
fn raw_cells(line: &str) -> Vec<String> {
    let (mut cells, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// No cell of `csv` is a formula: none starts with `=`, `+`, `-` or `@`
/// unless it is a number; and no line is more than one record.
fn no_formula(csv: &str, what: &str) {
    assert!(!csv.contains('\u{1b}') && !csv.contains('\r'), "{what}: {csv}");
    for line in csv.lines() {
        for cell in raw_cells(line) {
            let formula = cell.starts_with(['=', '+', '-', '@', '\t']) && cell.parse::<f64>().is_err();
            assert!(!formula, "{what}: the cell `{cell}` is a formula:\n{csv}");
        }
    }
}

#[test]
fn csv_outputs_hold_no_formula_and_no_forged_line() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    run_of(&run, &HOSTILE);
    let table = dir.path().join("t.csv");
    let rows: String =
        HOSTILE.iter().map(|b| format!("{},100,0.5,0.5\n", mlb_record::untrusted::csv::cell(b))).collect();
    std::fs::write(&table, format!("bench,target,perf_target,sd_target\n{rows}")).unwrap();
    let store = TestStore::new(Kind::Sqlite);
    let (code, out, err) = import(&store, &[run.to_str().unwrap(), "--system", "=cmd|' /C calc'!A0"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let (r, t) = (run.to_str().unwrap(), table.to_str().unwrap());
    let outputs = [
        ("report", vec!["report", "--reports", r, "--targets", t, "--format", "csv"]),
        ("accept", vec!["accept", "--reports", r, "--targets", t, "--format", "csv"]),
        ("db export", vec!["db", "export", "--db", &store.url, "--to", "csv"]),
        ("db compare", vec!["db", "compare", "--db", &store.url, "--systems", "=cmd|' /C calc'!A0", "--format", "csv"]),
        ("db runs", vec!["db", "runs", "--db", &store.url, "--format", "csv"]),
    ];
    for (what, args) in outputs {
        let out = mlb(dir.path(), &args);
        let (stdout, stderr) = text(&out);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{what}: {stderr}");
        no_formula(&stdout, what);
        assert!(stdout.contains("'=HYPERLINK") || what.starts_with("db r"), "{what} keeps the name: {stdout}");
    }
}

#[test]
fn escape_sequences_in_names_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let title = "t\u{1b}]0;pwned\u{7}";
    let clear = "c\u{1b}[2J\u{9b}2J\r";
    run_of(&run, &[title, clear]);
    let table = dir.path().join("t.csv");
    std::fs::write(&table, "bench,target,perf_target,sd_target\nvae,100,0.5,0.5\n").unwrap();
    // A table whose file name and bench are escape sequences, in the user's target folder.
    let targets = dir.path().join("mlb/targets");
    std::fs::create_dir_all(&targets).unwrap();
    std::fs::write(
        targets.join("x\u{1b}[2J.csv"),
        format!("bench,target,perf_target,sd_target\n\"{clear}\",1,0.5,0.5\n"),
    )
    .unwrap();
    std::fs::write(targets.join("y\u{1b}]0;t\u{7}.csv"), format!("bench,target\n{title},1\n")).unwrap();
    let store = TestStore::new(Kind::Sqlite);
    // A system name is the user's own, and refused when it holds an escape.
    let (code, _, _) = import(&store, &[run.to_str().unwrap(), "--system", "A\u{1b}[2J"]);
    assert_eq!(code, Some(2), "a system name holding ESC is refused");
    let (code, out, err) = import(&store, &[run.to_str().unwrap(), "--system", "A"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let (r, t) = (run.to_str().unwrap(), table.to_str().unwrap());
    let commands = [
        vec!["report", "--reports", r, "--targets", t],
        vec!["report", "--reports", r, "--targets", t, "--format", "markdown"],
        vec!["accept", "--reports", r, "--targets", t],
        vec!["targets", "derive", "--reports", r, "--gpu-model", "Model X"],
        vec!["targets", "list"],
        vec!["db", "compare", "--db", &store.url, "--systems", "A"],
        vec!["db", "runs", "--db", &store.url],
        vec!["db", "systems", "--db", &store.url],
        // An error quoting a name read from a file.
        vec!["accept", "--reports", r, "--gpu-model", "x\u{1b}[2J"],
    ];
    for args in commands {
        let out = mlb(dir.path(), &args);
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let shown = String::from_utf8_lossy(bytes);
            assert!(
                !shown.contains(['\u{1b}', '\u{7}', '\u{9b}', '\r']),
                "{args:?}: a raw control character on {stream}:\n{shown:?}"
            );
        }
    }
}

#[test]
fn report_and_db_compare_agree_on_figures_that_are_no_measure() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    for (vcd, items) in ["100", "110", "Infinity", "-Infinity", "5e-324", "NaN", "1e300", "0", "-5"].iter().enumerate()
    {
        report(&run, "vae", vcd, items);
    }
    let store = TestStore::new(Kind::Sqlite);
    let (code, out, err) = import(&store, &[run.to_str().unwrap(), "--system", "A"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let out = mlb(dir.path(), &["report", "--reports", run.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sample = &report["rows"][0]["sample"];
    assert_eq!(
        (sample["mean"].as_f64(), sample["n"].as_u64(), sample["count"].as_u64()),
        (Some(105.0), Some(9), Some(2)),
        "{sample}"
    );
    assert_eq!((sample["min"].as_f64(), sample["max"].as_f64()), (Some(100.0), Some(110.0)));
    let out = mlb(dir.path(), &["db", "compare", "--db", &store.url, "--systems", "A", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let compare: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(compare["rows"][0]["cells"][0]["value"].as_f64(), Some(105.0), "{compare}");
    let table = text(&mlb(dir.path(), &["report", "--reports", run.to_str().unwrap()])).0;
    let figures = table.split(|c: char| c.is_whitespace() || c == '│' || c == '┆');
    assert!(!figures.clone().any(|w| w == "inf" || w == "-inf" || w == "NaN"), "{table}");
    assert!(!table.contains("e-324") && !table.contains("e300"), "{table}");
}
